"""SillyTavern chat files (JSONL): a header line, then one message per line.

Both header styles are read and written back unchanged: 1.12 (``user_name``, ``character_name``,
``create_date``, ``chat_metadata``) and 1.18 (``chat_metadata`` first, names set to ``"unused"``).
Lines are written the way ``JSON.stringify`` writes them, joined by ``\\n`` with no trailing
newline, so a file read and written again keeps its bytes.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import msgspec

from peargarden.errors import FormatError

from ._common import JsonObject, check_size, decode_utf8, jsonl_bytes, reads_as_gbk

ChatStyle = Literal["1.12", "1.18"]

_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


class TavernMessage:
    """One chat message over its raw dict (key order and unknown keys survive a round-trip)."""

    __slots__ = ("raw",)

    def __init__(self, raw: JsonObject) -> None:
        self.raw = raw

    @classmethod
    def new(
        cls,
        name: str,
        mes: str,
        *,
        is_user: bool,
        send_date: str,
        is_system: bool = False,
        extra: JsonObject | None = None,
        swipes: list[str] | None = None,
    ) -> TavernMessage:
        raw: JsonObject = {
            "name": name,
            "is_user": is_user,
            "is_system": is_system,
            "send_date": send_date,
            "mes": mes,
            "extra": extra if extra is not None else {},
        }
        if swipes:
            raw["swipe_id"] = swipes.index(mes) if mes in swipes else 0
            raw["swipes"] = list(swipes)
            raw["swipe_info"] = []
        return cls(raw)

    def _text(self, key: str) -> str:
        value = self.raw.get(key)
        return value if isinstance(value, str) else ""

    @property
    def name(self) -> str:
        return self._text("name")

    @property
    def mes(self) -> str:
        return self._text("mes")

    @mes.setter
    def mes(self, value: str) -> None:
        self.raw["mes"] = value

    @property
    def is_user(self) -> bool:
        return bool(self.raw.get("is_user", False))

    @property
    def is_system(self) -> bool:
        return bool(self.raw.get("is_system", False))

    @property
    def send_date(self) -> str:
        return self._text("send_date")

    @property
    def extra(self) -> JsonObject:
        extra = self.raw.get("extra")
        return extra if isinstance(extra, dict) else {}

    @property
    def swipes(self) -> list[str]:
        swipes = self.raw.get("swipes")
        return [s for s in swipes if isinstance(s, str)] if isinstance(swipes, list) else []

    @property
    def swipe_id(self) -> int:
        value = self.raw.get("swipe_id")
        return value if isinstance(value, int) else 0

    @property
    def is_narrator(self) -> bool:
        """A system-role message (``/sys``), as opposed to a hidden one."""
        return self.extra.get("type") == "narrator"

    def __repr__(self) -> str:
        return f"TavernMessage({self.name!r}, {self.mes[:20]!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TavernMessage) and other.raw == self.raw

    __hash__ = None  # type: ignore[assignment]


class TavernChat(msgspec.Struct):
    """A chat file: header (``None`` for a headerless file), messages, and a torn last line if any."""

    header: JsonObject | None
    messages: list[TavernMessage] = msgspec.field(default_factory=list)
    torn_line: str | None = None
    # SillyTavern writes no final newline; files from other tools may have one, kept on write.
    trailing_newline: bool = False

    @classmethod
    def new(
        cls,
        *,
        style: ChatStyle = "1.18",
        user_name: str = "",
        character_name: str = "",
        create_date: str = "",
        chat_metadata: JsonObject | None = None,
    ) -> TavernChat:
        meta = chat_metadata if chat_metadata is not None else {}
        if style == "1.18":
            header: JsonObject = {"chat_metadata": meta, "user_name": "unused", "character_name": "unused"}
        else:
            header = {
                "user_name": user_name,
                "character_name": character_name,
                "create_date": create_date,
                "chat_metadata": meta,
            }
        return cls(header)

    @property
    def style(self) -> ChatStyle:
        """``1.18`` when the header uses the placeholder names, else ``1.12``."""
        header = self.header or {}
        return "1.18" if header.get("user_name") == "unused" and "create_date" not in header else "1.12"

    @property
    def chat_metadata(self) -> JsonObject:
        meta = (self.header or {}).get("chat_metadata")
        return meta if isinstance(meta, dict) else {}

    @property
    def user_name(self) -> str:
        return str((self.header or {}).get("user_name", ""))

    @property
    def character_name(self) -> str:
        return str((self.header or {}).get("character_name", ""))

    @property
    def create_date(self) -> str:
        return str((self.header or {}).get("create_date", ""))


def _is_header(obj: JsonObject) -> bool:
    return "mes" not in obj and any(k in obj for k in ("chat_metadata", "user_name", "character_name"))


def read_chat_jsonl(data: bytes, filename: str) -> TavernChat:
    """Parse a chat file.  A broken *last* line (an interrupted write) is kept in ``torn_line``;
    a broken line anywhere else is an error."""
    check_size(data, filename)
    text = decode_utf8(data, filename, "聊天记录")
    lines = [(n, line) for n, line in enumerate(text.split("\n"), start=1) if line.strip()]
    if not lines:
        raise FormatError("聊天记录是空的（empty chat file）", path=filename)
    objects: list[JsonObject] = []
    torn: str | None = None
    for index, (number, line) in enumerate(lines):
        try:
            value = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            value = None
        if not isinstance(value, dict):
            if index == len(lines) - 1 and index > 0:
                torn = line
                break
            raise FormatError(
                f"聊天记录第 {number} 行不是 JSON 对象（line {number} is not a JSON object）", path=filename
            )
        objects.append(value)
    header: JsonObject | None = None
    if _is_header(objects[0]):
        header = objects.pop(0)
    elif "mes" not in objects[0]:
        raise FormatError("这不是 SillyTavern 聊天记录（not a SillyTavern chat file）", path=filename)
    for number, obj in enumerate(objects, start=2 if header is not None else 1):
        if not isinstance(obj.get("mes", ""), str):
            raise FormatError(f"聊天记录第 {number} 条消息的 mes 不是文本（'mes' is not text）", path=filename)
    ends_with_newline = torn is None and text.endswith("\n")
    return TavernChat(header, [TavernMessage(o) for o in objects], torn, ends_with_newline)


def iter_chat_jsonl(rows: Iterable[bytes], filename: str) -> Iterator[JsonObject]:
    """The objects of a chat file given line by line (its bytes split at ``\\n``), checked as
    :func:`read_chat_jsonl` checks them, so a long file is read without holding it: the header (when
    there is one) first, then the messages; a broken *last* line is dropped, a broken line anywhere
    else raises as soon as a line after it shows it was not the last.  UTF-8 only (a UTF-16 file, which
    :func:`read_chat_jsonl` reads whole, is refused here)."""
    held: int | None = None  # the number of a broken line that may yet be the last one
    objects = 0
    first_is_header = False
    for number, row in enumerate(rows, start=1):
        line = _row_text(row.removeprefix(b"\xef\xbb\xbf") if number == 1 else row, number, filename)
        if not line.strip():
            continue
        if held is not None:
            raise FormatError(f"聊天记录第 {held} 行不是 JSON 对象（line {held} is not a JSON object）", path=filename)
        value = _loads_line(line)
        if not isinstance(value, dict):
            if objects == 0:
                held = number
                break
            held = number
            continue
        objects += 1
        if objects == 1:
            first_is_header = _is_header(value)
            if not first_is_header and "mes" not in value:
                raise FormatError("这不是 SillyTavern 聊天记录（not a SillyTavern chat file）", path=filename)
        if not (objects == 1 and first_is_header) and not isinstance(value.get("mes", ""), str):
            # Numbered as read_chat_jsonl numbers them: the header counts as the first.
            raise FormatError(f"聊天记录第 {objects} 条消息的 mes 不是文本（'mes' is not text）", path=filename)
        yield value
    if objects == 0 and held is not None:  # the first line is no object: no torn tail, a broken file
        raise FormatError(f"聊天记录第 {held} 行不是 JSON 对象（line {held} is not a JSON object）", path=filename)
    if objects == 0:
        raise FormatError("聊天记录是空的（empty chat file）", path=filename)


_LINE_JSON = msgspec.json.Decoder()


def _loads_line(line: str) -> Any:
    """One line's JSON value (``None`` when it is none): msgspec, and ``json`` for what msgspec
    refuses (NaN, lone surrogates, numbers out of range), so a line means what ``json`` says."""
    try:
        return _LINE_JSON.decode(line)
    except msgspec.DecodeError:
        try:
            return json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            return None


def _row_text(row: bytes, number: int, filename: str) -> str:
    try:
        return row.decode("utf-8")
    except UnicodeDecodeError:
        message = f"聊天记录第 {number} 行不是 UTF-8 编码（not valid UTF-8）"
        if reads_as_gbk(row):
            message += "；看起来是 GBK/GB18030 编码，请用编辑器另存为 UTF-8（looks like GBK: save it as UTF-8）"
        raise FormatError(message, path=filename) from None


def write_chat_jsonl(chat: TavernChat) -> bytes:
    """The chat as SillyTavern writes it (the torn line, if any, is not written back)."""
    rows: list[Any] = [] if chat.header is None else [chat.header]
    rows.extend(m.raw for m in chat.messages)
    return jsonl_bytes(rows, chat.trailing_newline)


def is_chat_text(text: str) -> bool:
    """True when the first line is a chat header or message (used by ``detect_kind``)."""
    first = text.split("\n", 1)[0].strip()
    try:
        value = json.loads(first)
    except (json.JSONDecodeError, RecursionError):
        return False
    return isinstance(value, dict) and (_is_header(value) or ("mes" in value and "is_user" in value))


def format_send_date(moment: datetime, style: ChatStyle = "1.18") -> str:
    """``send_date`` as SillyTavern writes it: 1.12 ``"November 29, 2026 10:38pm"`` (local time
    as given), 1.18 ISO-8601 UTC with milliseconds and ``Z``."""
    if style == "1.18":
        utc = moment.astimezone(UTC) if moment.tzinfo else moment
        return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"
    hour = moment.hour % 12 or 12
    suffix = "am" if moment.hour < 12 else "pm"
    return f"{_MONTHS[moment.month - 1]} {moment.day}, {moment.year} {hour}:{moment.minute:02d}{suffix}"


# The shapes of ``send_date`` that SillyTavern's reader accepts besides numbers and ISO 8601:
# 1.12's "November 29, 2026 10:38pm" (the writer's local time), and the "humanized" stamps
# "2024-7-12@01h31m37s", "2024-07-12@01h31m37s123ms", "2024-6-5 @14h 56m 50s 682ms" (read as UTC).
_MERIDIEM = re.compile(r"([A-Za-z]+)\s(\d{1,2}),\s(\d{4})\s(\d{1,2}):(\d{1,2})\s?(am|pm)", re.IGNORECASE)
_HUMANIZED = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,2})(?:@(\d{1,2})h(\d{1,2})m(\d{1,2})s(?:(\d{1,3})ms)?"
    r"| @(\d{1,2})h (\d{1,2})m (\d{1,2})s (\d{1,3})ms)"
)
_MONTH_NUMBERS = {name.lower(): n for n, name in enumerate(_MONTHS, 1)} | {
    name[:3].lower(): n for n, name in enumerate(_MONTHS, 1)
}


def parse_send_date(value: object) -> datetime | None:
    """A message's ``send_date`` in any shape SillyTavern has written (see :data:`_MERIDIEM` and
    :data:`_HUMANIZED`; epoch milliseconds from TavernAI, as a number or digits; ISO 8601), or
    ``None`` when it is none of them.  A time written without a zone comes back naive (local time
    of whoever reads it, as SillyTavern shows it); the others come back aware."""
    try:
        return _parse_send_date(value)
    except (ValueError, OverflowError, OSError):  # a day or hour out of range, a year past 9999
        return None


def _parse_send_date(value: object) -> datetime | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float) or (isinstance(value, str) and value.isascii() and value.isdigit()):
        millis = float(value)
        if not math.isfinite(millis) or millis < 0:
            return None
        return datetime.fromtimestamp(millis / 1000, UTC)
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        pass
    if found := _MERIDIEM.search(text):
        month = _MONTH_NUMBERS.get(found[1].lower())
        if month is None:
            return None
        hour = int(found[4]) % 12 + (12 if found[6].lower() == "pm" else 0)
        return datetime(int(found[3]), month, int(found[2]), hour, int(found[5]))
    if found := _HUMANIZED.search(text):
        year, month, day = (int(found[i]) for i in (1, 2, 3))
        hour, minute, second, millis = (int(found[i] or found[i + 4] or 0) for i in (4, 5, 6, 7))
        return datetime(year, month, day, hour, minute, second, tzinfo=UTC) + timedelta(milliseconds=millis)
    return None


def format_create_date(moment: datetime) -> str:
    """The 1.12 header ``create_date``: ``"2026-11-29@22h38m27s"``."""
    return moment.strftime("%Y-%m-%d@%Hh%Mm%Ss")


def copy_chat(chat: TavernChat) -> TavernChat:
    return TavernChat(copy.deepcopy(chat.header), [TavernMessage(copy.deepcopy(m.raw)) for m in chat.messages])
