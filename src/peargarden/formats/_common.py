"""Shared checks for every reader: size limit, JSON decoding, one-line errors."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from typing import Any

import msgspec

from peargarden.errors import FormatError

#: Largest input any reader accepts. Callers that read files check this before reading.
MAX_INPUT_BYTES = 100 * 1024 * 1024

JsonObject = dict[str, Any]


def check_size(data: bytes, filename: str) -> None:
    """Refuse inputs above ``MAX_INPUT_BYTES`` before any parsing work is spent on them."""
    if len(data) > MAX_INPUT_BYTES:
        mib = len(data) / (1024 * 1024)
        raise FormatError(
            f"文件过大：{mib:.1f} MiB，上限 {MAX_INPUT_BYTES // (1024 * 1024)} MiB（file too large）",
            path=filename,
        )


_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def decode_utf8(data: bytes, filename: str, what: str = "文本") -> str:
    """UTF-8 text (a leading BOM is dropped, as Windows editors add one).  Text that starts with a
    UTF-16 byte-order mark (Notepad's "Unicode") is read as UTF-16: the mark leaves no doubt.  Any
    other encoding is refused; the message says when the bytes read as GBK / GB18030 Chinese, the
    encoding a Chinese Windows editor saves in when told "ANSI"."""
    if data.startswith(_UTF16_BOMS):
        try:
            return data.decode("utf-16").removeprefix("\ufeff")
        except UnicodeDecodeError as exc:
            message = f"{what}的 UTF-16 编码有误，第 {exc.start} 字节处出错（invalid UTF-16）"
            raise FormatError(message, path=filename) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        message = f"{what}不是 UTF-8 编码，第 {exc.start} 字节处出错（not valid UTF-8）"
        if reads_as_gbk(data):
            message += "；看起来是 GBK/GB18030 编码，请用编辑器另存为 UTF-8（looks like GBK: save it as UTF-8）"
        raise FormatError(message, path=filename) from None
    return text.removeprefix("\ufeff")


def reads_as_gbk(data: bytes) -> bool:
    """The bytes decode as GB18030 and hold Chinese characters (not only Latin-1 look-alikes)."""
    try:
        text = data.decode("gb18030")
    except UnicodeDecodeError:
        return False
    return sum("\u4e00" <= char <= "\u9fff" for char in text) >= 2


def loads_json(text: str, filename: str, what: str = "JSON") -> Any:
    """Parse *text* as any JSON value, or raise a readable ``FormatError``."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(
            f"{what}格式错误：第 {exc.lineno} 行第 {exc.colno} 列，{exc.msg}（invalid JSON）", path=filename
        ) from None
    except RecursionError:
        raise FormatError(f"{what}嵌套过深（JSON nested too deeply）", path=filename) from None


def loads_object(text: str, filename: str, what: str = "JSON") -> JsonObject:
    """Parse *text* as a JSON object, or raise a readable ``FormatError``."""
    value = loads_json(text, filename, what)
    if not isinstance(value, dict):
        raise FormatError(f"{what}的最外层不是对象（JSON top level is not an object）", path=filename)
    return value


def parse_json_bytes(data: bytes, filename: str, what: str = "JSON") -> JsonObject:
    """Size check, UTF-8 decode and JSON-object parse in one step."""
    check_size(data, filename)
    return loads_object(decode_utf8(data, filename, what), filename, what)


# A UTF-16 surrogate code point on its own.  JavaScript strings may hold them, so SillyTavern files
# carry them as ``\udXXX`` escapes; ``json.loads`` turns an escaped *pair* into one code point, so
# any surrogate left in a Python string is a lone one.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape_surrogate(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def escape_lone_surrogates(json_text: str) -> str:
    """Write lone surrogates in JSON text as ``\\udXXX`` escapes, as ES2019 ``JSON.stringify`` does.

    Only valid on JSON text: a surrogate can only stand inside a JSON string there, where an escape
    means the same.  The result encodes to UTF-8, and reads back to the very same Python string."""
    return _LONE_SURROGATE.sub(_escape_surrogate, json_text) if _LONE_SURROGATE.search(json_text) else json_text


def replace_lone_surrogates(text: str) -> str:
    """Lone surrogates → U+FFFD (what a model request carries: it must be well-formed Unicode)."""
    return _LONE_SURROGATE.sub("\ufffd", text) if _LONE_SURROGATE.search(text) else text


def has_lone_surrogate(text: str) -> bool:
    return _LONE_SURROGATE.search(text) is not None


def _finite(value: Any) -> Any:
    """*value* with every ``NaN`` and infinity as ``None``, as ``JSON.stringify`` writes them (``null``)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(child) for key, child in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(child) for child in value]
    return value


def dumps_json(value: Any, *, indent: int | str | None = None, compact: bool = False) -> str:
    """``json.dumps`` with CJK kept readable and lone surrogates escaped (so it always encodes), and
    ``NaN``/``Infinity`` written ``null`` as ``JSON.stringify`` writes them: a number variable MVU made
    ``NaN`` (a card's ``"很多"``) would otherwise be a line Node's ``JSON.parse`` and SillyTavern refuse."""
    separators = (",", ":") if compact else None
    try:
        text = json.dumps(value, ensure_ascii=False, indent=indent, separators=separators, allow_nan=False)
    except ValueError as error:  # a NaN or an infinity somewhere (rare): written as JavaScript writes it
        if "float" not in str(error):  # a circular reference: json's own error
            raise
        text = json.dumps(_finite(value), ensure_ascii=False, indent=indent, separators=separators)
    return escape_lone_surrogates(text)


def dumps_compact(value: Any) -> str:
    """JSON the way ``JSON.stringify(value)`` writes it: no spaces, non-ASCII kept as is."""
    return dumps_json(value, compact=True)


def jsonl_bytes(values: Iterable[Any], trailing_newline: bool = True) -> bytes:
    """:func:`dumps_compact` of each value, one per line, as UTF-8 (a JSONL file): the same bytes,
    made faster (an export of a 20,000-message chat writes 20,000 lines, 19 MB).

    Values made only of what msgspec writes exactly as ``json`` does (see :func:`_plain_json`) are
    written by msgspec, several times faster; any other value, or a lone surrogate (which msgspec
    refuses), sends the whole file the ``json`` way: one encoder for all lines and the surrogates
    escaped once over the joined text (the escape looks at one character at a time, so escaping
    the joined text is escaping each line)."""
    rows = list(values)
    if all(map(_plain_json, rows)):
        try:
            data = b"\n".join(map(_MSGSPEC_JSON.encode, rows))
        except UnicodeEncodeError:  # a lone surrogate
            pass
        else:
            return data + b"\n" if trailing_newline else data
    strict = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode

    def encode(row: Any) -> str:
        try:
            return strict(row)
        except ValueError as error:  # NaN or an infinity: null, as JSON.stringify writes them
            if "float" not in str(error):
                raise
            return strict(_finite(row))

    text = "\n".join(map(encode, rows))
    if trailing_newline:
        text += "\n"
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # only a lone surrogate fails to encode: ``str`` holds nothing else that does
        return escape_lone_surrogates(text).encode("utf-8")


_MSGSPEC_JSON = msgspec.json.Encoder()


def _plain_json(value: Any) -> bool:
    """True when *value* holds only dicts with string keys, lists, strings, ints, booleans and None:
    what msgspec writes byte for byte as ``json.dumps(ensure_ascii=False, separators=(",", ":"))``
    does (same escapes, non-ASCII as is).  Not floats: the two write exponents (``1e+16`` /
    ``1e16``) and NaN differently; not subclasses, tuples or sets, which ``json`` writes or
    refuses in its own way."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            for key, child in item.items():
                if type(key) is not str:
                    return False
                child_kind = type(child)
                if child_kind is dict or child_kind is list:
                    stack.append(child)
                elif not (child_kind is str or child_kind is bool or child_kind is int or child is None):
                    return False
        elif kind is list:
            stack.extend(item)
        elif not (kind is str or kind is bool or kind is int or item is None):
            return False
    return True


def dumps_pretty(value: Any) -> str:
    """JSON the way SillyTavern exports files: 4-space indent, non-ASCII kept as is."""
    return dumps_json(value, indent=4)


def looks_like_other_image(data: bytes) -> bool:
    """JPEG, GIF or WebP: images we cannot read a card from (cards are PNG)."""
    return data[:3] == b"\xff\xd8\xff" or data[:4] == b"GIF8" or (data[:4] == b"RIFF" and data[8:12] == b"WEBP")


def refuse_other_image(data: bytes, filename: str) -> None:
    if looks_like_other_image(data):
        raise FormatError("不支持的图片格式，角色卡须为 PNG（image is not a PNG card）", path=filename)
