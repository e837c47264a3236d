"""PNG chunk reading and writing with the standard library only.

Cards live in text chunks after the image data.  We never decode pixels: every chunk we do not
touch is copied byte for byte (with its original CRC), so the image stays identical.
"""

from __future__ import annotations

import struct
import zlib

import msgspec

from peargarden.errors import FormatError

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# A compressed text chunk may not inflate beyond this (guards against zlib bombs in zTXt/iTXt).
_MAX_INFLATED_TEXT = 64 * 1024 * 1024


class Chunk(msgspec.Struct, frozen=True):
    """One chunk as found in the file; ``raw`` is length + type + data + CRC, ready to copy."""

    type: bytes
    data: bytes
    raw: bytes


def is_png(data: bytes) -> bool:
    return data.startswith(PNG_SIGNATURE)


def split_chunks(data: bytes, filename: str) -> list[Chunk]:
    """All chunks up to and including IEND, CRCs checked; anything malformed raises ``FormatError``."""
    if not is_png(data):
        raise FormatError("不是 PNG 文件（not a PNG file）", path=filename)
    chunks: list[Chunk] = []
    pos = len(PNG_SIGNATURE)
    while True:
        if pos + 8 > len(data):
            raise FormatError("PNG 文件被截断，缺少 IEND（truncated PNG）", path=filename)
        length, ctype = struct.unpack(">I4s", data[pos : pos + 8])
        end = pos + 12 + length
        if end > len(data):
            raise FormatError(f"PNG 文件被截断，{_name(ctype)} 块不完整（truncated PNG）", path=filename)
        body = data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : end])
        if zlib.crc32(ctype + body) & 0xFFFFFFFF != crc:
            raise FormatError(f"PNG 的 {_name(ctype)} 块校验和（CRC）不符，文件已损坏（bad CRC）", path=filename)
        chunks.append(Chunk(ctype, body, data[pos:end]))
        pos = end
        if ctype == b"IEND":
            return chunks


def build_chunk(ctype: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(ctype + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + ctype + body + struct.pack(">I", crc)


def text_chunk(keyword: str, text: str) -> bytes:
    """A ``tEXt`` chunk; both parts must be Latin-1 (card payloads are base64, so they are)."""
    return build_chunk(b"tEXt", keyword.encode("latin-1") + b"\x00" + text.encode("latin-1"))


def text_keyword(chunk: Chunk) -> str | None:
    """The keyword of a tEXt/zTXt/iTXt chunk, or None for any other chunk."""
    if chunk.type not in (b"tEXt", b"zTXt", b"iTXt"):
        return None
    keyword, sep, _ = chunk.data.partition(b"\x00")
    return keyword.decode("latin-1") if sep else None


def text_value(chunk: Chunk, filename: str) -> str:
    """The text of a tEXt, zTXt or iTXt chunk (decompressed where needed)."""
    _, _, rest = chunk.data.partition(b"\x00")
    if chunk.type == b"tEXt":
        return rest.decode("latin-1")
    if chunk.type == b"zTXt":
        if not rest or rest[0] != 0:
            raise FormatError("PNG 的 zTXt 块压缩方式未知（unknown zTXt compression）", path=filename)
        return _inflate(rest[1:], filename).decode("latin-1")
    # iTXt: compression flag, method, language tag \0, translated keyword \0, UTF-8 text
    if len(rest) < 2:
        raise FormatError("PNG 的 iTXt 块不完整（truncated iTXt chunk）", path=filename)
    flag, method = rest[0], rest[1]
    parts = rest[2:].split(b"\x00", 2)
    if len(parts) != 3:
        raise FormatError("PNG 的 iTXt 块不完整（truncated iTXt chunk）", path=filename)
    payload = parts[2]
    if flag:
        if method != 0:
            raise FormatError("PNG 的 iTXt 块压缩方式未知（unknown iTXt compression）", path=filename)
        payload = _inflate(payload, filename)
    try:
        return payload.decode("utf-8")
    except UnicodeDecodeError:
        raise FormatError("PNG 的 iTXt 文本不是 UTF-8（iTXt text is not UTF-8）", path=filename) from None


def _inflate(data: bytes, filename: str) -> bytes:
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(data, _MAX_INFLATED_TEXT)
    except zlib.error:
        raise FormatError("PNG 文本块解压失败（corrupt compressed text chunk）", path=filename) from None
    if inflater.unconsumed_tail:
        raise FormatError("PNG 文本块解压后过大（compressed text chunk too large）", path=filename)
    return out


def _name(ctype: bytes) -> str:
    # A damaged type may hold newlines or other bytes that would break a one-line message.
    if ctype.isalpha() and ctype.isascii():
        return ctype.decode("ascii")
    return "0x" + ctype.hex()
