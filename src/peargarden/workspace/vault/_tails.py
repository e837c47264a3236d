"""Grown files in the vault: a file that only grew since its last snapshot (a chat's session file,
appended to on every beat) is stored as a *tail object*: a reference to an earlier object of the same
file and the bytes after that object's end, instead of all its bytes again.

``vault/objects/<sha256>.tail`` holds one header line and then the tail's bytes::

    PEARGARDEN-VAULT-TAIL 1 {"base": "<sha256>", "base_size": 18252781, "number": 6}

*sha256* (the file name) is, as for every object, the hash of the whole file it stands for: the
base's bytes followed by the tail.  A chain ends at an ordinary object (all the bytes, number 0).

Which earlier object a new one extends: the *n*-th growth since the chain's full object extends the
one numbered ``n - lowbit(n)`` (as a Fenwick tree does), found by following the bases of the
previous one.  So reading any object goes through at most log₂ n tail objects, a full copy is never
made again while the file only grows, and the tails written over n growths add up to at most
log₂ n times the bytes appended (each growth's own bytes, plus every 2ᵏ-th growth those since
the 2ᵏ before it).  A file that was rewritten, shrank or is small is stored whole, as before.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

TAIL_SUFFIX = ".tail"
_MAGIC = b"PEARGARDEN-VAULT-TAIL 1 "
# A header is one short line; more than this before the newline is not a header.
HEADER_LIMIT = 512
# Smaller files are stored whole: a tail object saves little there and a chain is one more file.
GROWN_MIN_BYTES = 64 * 1024


class TailHeader(msgspec.Struct, frozen=True):
    base: str  # the object this one extends (its sha256)
    base_size: int  # that object's size: where this tail starts in the file
    number: int  # growths since the chain's full object (which is number 0)


def encode_header(header: TailHeader) -> bytes:
    fields = {"base": header.base, "base_size": header.base_size, "number": header.number}
    return _MAGIC + json.dumps(fields, separators=(",", ":")).encode("ascii") + b"\n"


def decode_header(head: bytes, is_sha: Any) -> tuple[TailHeader, int] | None:
    """The header at the start of *head* and the offset of the tail's first byte; None when *head*
    does not start with a whole, valid header (*is_sha*: what a sha256 name looks like)."""
    end = head.find(b"\n", 0, HEADER_LIMIT)
    if end < 0 or not head.startswith(_MAGIC):
        return None
    try:
        fields = json.loads(head[len(_MAGIC) : end])
    except ValueError:
        return None
    if not isinstance(fields, dict):
        return None
    base, size, number = fields.get("base"), fields.get("base_size", -1), fields.get("number", -1)
    if not (isinstance(base, str) and is_sha(base) and _natural(size) and _natural(number)) or number == 0:
        return None
    return TailHeader(base, int(size), int(number)), end + 1


def base_number(number: int) -> int:
    """The number of the object the *number*-th growth extends: *number* without its lowest set bit."""
    return number & (number - 1)


def _natural(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
