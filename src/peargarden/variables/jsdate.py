"""Dates as ``new Date(text)`` reads them, for ``_.add`` on a time variable (milliseconds added).

MVU adds a number of milliseconds to a string variable that ``new Date`` can read and writes the
result back with ``toISOString()`` (``2024-01-01T09:00:00.000Z``).  Read here: the ISO formats
(date only means UTC midnight; a time without an offset is local time, as in JavaScript) and the
common ``2024/01/01 08:00`` and ``2024-01-01 08:00`` layouts browsers also read as local time.
The core has no clock or time zone of its own: local time is the ``utc_offset_minutes`` the caller
passes (0, UTC, unless told).  Other texts are not dates here, so ``_.add`` refuses them.
"""

from __future__ import annotations

import calendar
import re

_ISO = re.compile(
    r"^(?P<year>[+-]\d{6}|\d{4})(?:-(?P<month>\d{2})(?:-(?P<day>\d{2}))?)?"
    r"(?:[T ](?P<hour>\d{2}):(?P<minute>\d{2})(?::(?P<second>\d{2})(?:\.(?P<fraction>\d{1,9}))?)?"
    r"(?P<zone>Z|[+-]\d{2}:?\d{2})?)?$"
)
_SLASHED = re.compile(
    r"^(?P<year>\d{4})/(?P<month>\d{1,2})/(?P<day>\d{1,2})"
    r"(?:[ T](?P<hour>\d{1,2}):(?P<minute>\d{2})(?::(?P<second>\d{2}))?)?$"
)
_MAX_MS = 8.64e15


def parse_date_ms(text: str, utc_offset_minutes: int = 0) -> float | None:
    """Milliseconds since the epoch that ``new Date(text)`` gives, or ``None`` for an invalid date."""
    text = text.strip()
    match = _ISO.match(text) or _SLASHED.match(text)
    if not match:
        return None
    parts = match.groupdict()
    year = int(parts["year"])
    month = int(parts.get("month") or 1)
    day = int(parts.get("day") or 1)
    hour = int(parts.get("hour") or 0)
    minute = int(parts.get("minute") or 0)
    second = int(parts.get("second") or 0)
    fraction = parts.get("fraction") or ""
    millis = int((fraction + "000")[:3]) if fraction else 0
    if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(year if year > 0 else 2000, month)[1]):
        return None
    if hour > 24 or minute > 59 or second > 59 or (hour == 24 and (minute or second or millis)):
        return None
    days = _days_from_civil(year, month, day)
    total = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis
    zone = parts.get("zone")
    date_only = parts.get("hour") is None and match.re is _ISO
    if zone == "Z" or date_only:
        offset = 0
    elif zone:
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        offset = sign * (int(digits[:2]) * 60 + int(digits[2:]))
    else:
        offset = utc_offset_minutes
    result = total - offset * 60_000
    return float(result) if abs(result) <= _MAX_MS else None


def _days_from_civil(year: int, month: int, day: int) -> int:
    year -= month <= 2
    era = (year if year >= 0 else year - 399) // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


def to_iso_string(ms: float) -> str:
    """``Date.prototype.toISOString()`` (``ValueError`` outside JavaScript's date range)."""
    if abs(ms) > _MAX_MS:
        raise ValueError("Invalid time value")
    whole = int(ms // 1)
    days, rest = divmod(whole, 86_400_000)
    year, month, day = _civil_from_days(days)
    hour, rest = divmod(rest, 3_600_000)
    minute, rest = divmod(rest, 60_000)
    second, millis = divmod(rest, 1000)
    year_text = f"{year:04d}" if 0 <= year <= 9999 else f"{'+' if year > 0 else '-'}{abs(year):06d}"
    return f"{year_text}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}.{millis:03d}Z"


def _civil_from_days(days: int) -> tuple[int, int, int]:
    days += 719468
    era = (days if days >= 0 else days - 146096) // 146097
    day_of_era = days - era * 146097
    year_of_era = (day_of_era - day_of_era // 1460 + day_of_era // 36524 - day_of_era // 146096) // 365
    year = year_of_era + era * 400
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    month_index = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * month_index + 2) // 5 + 1
    month = month_index + (3 if month_index < 10 else -9)
    return year + (month <= 2), month, day
