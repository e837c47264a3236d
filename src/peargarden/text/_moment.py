"""The subset of moment.js formatting (English locale) that SillyTavern's date macros use."""

from __future__ import annotations

import re
from datetime import datetime

_MONTHS = [
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
]  # fmt: skip
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_LONG = {
    "LTS": "h:mm:ss A",
    "LT": "h:mm A",
    "LLLL": "dddd, MMMM D, YYYY h:mm A",
    "LLL": "MMMM D, YYYY h:mm A",
    "LL": "MMMM D, YYYY",
    "L": "MM/DD/YYYY",
}
_TOKEN = re.compile(
    r"\[[^\]]*\]|LTS|LT|LLLL|LLL|LL|L|YYYY|YY|MMMM|MMM|MM|Mo|M|DDDD|DD|Do|D|dddd|ddd|dd|d|HH|H|hh|h|mm|m|ss|s|A|a|ZZ|Z"
)


def _ordinal(n: int) -> str:
    if 11 <= n % 100 <= 13:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


def _offset(dt: datetime, colon: bool) -> str:
    delta = dt.utcoffset()
    minutes = int(delta.total_seconds() // 60) if delta else 0
    sign = "+" if minutes >= 0 else "-"
    minutes = abs(minutes)
    return f"{sign}{minutes // 60:02d}{':' if colon else ''}{minutes % 60:02d}"


def format_moment(dt: datetime, fmt: str) -> str:
    def token(m: re.Match[str]) -> str:
        t = m.group(0)
        if t.startswith("["):
            return t[1:-1]
        if t in _LONG:
            return format_moment(dt, _LONG[t])
        h12 = dt.hour % 12 or 12
        table = {
            "YYYY": f"{dt.year:04d}",
            "YY": f"{dt.year % 100:02d}",
            "MMMM": _MONTHS[dt.month - 1],
            "MMM": _MONTHS[dt.month - 1][:3],
            "MM": f"{dt.month:02d}",
            "Mo": _ordinal(dt.month),
            "M": str(dt.month),
            "DDDD": f"{dt.timetuple().tm_yday:03d}",
            "DD": f"{dt.day:02d}",
            "Do": _ordinal(dt.day),
            "D": str(dt.day),
            "dddd": _DAYS[dt.weekday()],
            "ddd": _DAYS[dt.weekday()][:3],
            "dd": _DAYS[dt.weekday()][:2],
            "d": str((dt.weekday() + 1) % 7),
            "HH": f"{dt.hour:02d}",
            "H": str(dt.hour),
            "hh": f"{h12:02d}",
            "h": str(h12),
            "mm": f"{dt.minute:02d}",
            "m": str(dt.minute),
            "ss": f"{dt.second:02d}",
            "s": str(dt.second),
            "A": "AM" if dt.hour < 12 else "PM",
            "a": "am" if dt.hour < 12 else "pm",
            "ZZ": _offset(dt, False),
            "Z": _offset(dt, True),
        }
        return table[t]

    return _TOKEN.sub(token, fmt)


def humanize_seconds(seconds: float) -> str:
    """moment.duration(...).humanize() thresholds (English)."""
    s = abs(seconds)
    minutes, hours, days = s / 60, s / 3600, s / 86400
    if s < 45:
        return "a few seconds"
    if s < 90:
        return "a minute"
    if minutes < 45:
        return f"{round(minutes)} minutes"
    if minutes < 90:
        return "an hour"
    if hours < 22:
        return f"{round(hours)} hours"
    if hours < 36:
        return "a day"
    if days < 26:
        return f"{round(days)} days"
    if days < 45:
        return "a month"
    if days < 320:
        return f"{round(days / 30.4)} months"
    if days < 548:
        return "a year"
    return f"{round(days / 365)} years"
