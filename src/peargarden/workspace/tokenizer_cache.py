"""The tokenizers' rank tables kept in the data folder, so a ``pear`` process does not parse them again.

Every process that counts tokens exactly (a tavern beat, ``pear tavern assemble``, a model of the GPT
family) needs the 100,000-line rank table of cl100k (200,000 for o200k).  Parsed from the packaged
file (gunzip, sha256, base64 per line) that was ~0.1 s of CPU per process, more under load; read from
here it is ~25 ms (``bench/bench_tokenizer.py``).  The file is a cache: the data folder's
``vault/cache/`` (left out of snapshots), written as a temp file renamed into place (a reader sees the
old file or the new one, never half of one), named after the sha256 of the packaged data it was made
from, and checked on every read (a CRC-32 of its bytes, as the session index checks what it covers,
and a typed decode).  Anything wrong with it — missing, torn, flipped bits, another format — and the
table is parsed from the package again and the file rewritten; a folder that cannot be written to
only costs the time.  Processes racing to write it write the same bytes.

Every ``pear`` command installs the source (:func:`cache_tokenizers_in`) and most never count, so
this module loads nothing of token counting (:mod:`peargarden.text.tokens` hands it the build).
"""

from __future__ import annotations

import logging
import zlib
from collections.abc import Callable
from pathlib import Path

import msgspec

from peargarden.errors import PearError
from peargarden.text.rank_source import Ranks, use_rank_source

from .atomic import write_cache
from .home import Home

log = logging.getLogger("peargarden.tokenizer_cache")

# Format of the file: this tag, the CRC-32 of the payload (4 bytes, big-endian), then the payload: the
# tokens (bytes) in rank order as a msgpack array (both vocabularies rank their tokens 0 … n-1).
_TAG = b"pear-ranks-1\n"
_CHECK_BYTES = 4
# Far above either table (cl100k's file is 1.6 MB, o200k's 3.4 MB): a larger file is not ours.
_MAX_BYTES = 32 * 1024 * 1024

_TOKENS = msgspec.msgpack.Decoder(list[bytes])


def cache_file(home: Home, name: str, digest: str) -> Path:
    """The cache of encoding *name* in *home*, made from the packaged file of sha256 *digest*."""
    return home.vault_dir / "cache" / f"tokenizer-{name}-{digest[:16]}.ranks"


def encode_ranks(ranks: Ranks) -> bytes | None:
    """The cache file's bytes for *ranks*; None when the ranks are not 0 … n-1 (not storable as a list)."""
    tokens = sorted(ranks, key=ranks.__getitem__)
    if any(ranks[token] != rank for rank, token in enumerate(tokens)):
        return None
    payload = msgspec.msgpack.encode(tokens)
    return _TAG + zlib.crc32(payload).to_bytes(_CHECK_BYTES, "big") + payload


def decode_ranks(data: bytes) -> Ranks | None:
    """The ranks a cache file holds; None when the bytes are not a whole, intact file of this format."""
    head = len(_TAG) + _CHECK_BYTES
    if not data.startswith(_TAG) or len(data) <= head:
        return None
    payload = memoryview(data)[head:]
    if zlib.crc32(payload).to_bytes(_CHECK_BYTES, "big") != data[len(_TAG) : head]:
        return None
    try:
        tokens = _TOKENS.decode(payload)
    except msgspec.DecodeError:
        return None
    ranks = dict(zip(tokens, range(len(tokens)), strict=True))
    return ranks if len(ranks) == len(tokens) else None  # a token twice: not a table we wrote


def _read(path: Path) -> bytes | None:
    try:
        with path.open("rb") as handle:
            data = handle.read(_MAX_BYTES + 1)
    except OSError:  # missing, unreadable, a folder in its place
        return None
    return data if len(data) <= _MAX_BYTES else None


def cached_ranks(home: Home, name: str, digest: str, build: Callable[[], Ranks]) -> Ranks:
    """The rank table of encoding *name*: from *home*'s cache when it is intact, else made by
    *build* (the packaged file of sha256 *digest*, checked) and written there for the next process."""
    path = cache_file(home, name, digest)
    data = _read(path)
    ranks = decode_ranks(data) if data is not None else None
    if ranks is not None:
        return ranks
    ranks = build()
    encoded = encode_ranks(ranks)
    if encoded is not None and home.root.is_dir():  # no data folder is made just for a cache
        try:
            write_cache(path, encoded)
        except (OSError, PearError) as error:  # read-only or full: the next process parses again
            log.debug("tokenizer cache not written: %s", error)
    return ranks


def cache_tokenizers_in(home: Home) -> None:
    """This process's encodings take their rank tables from *home*'s cache (see the module's text)."""

    def source(name: str, digest: str, build: Callable[[], Ranks]) -> Ranks:
        return cached_ranks(home, name, digest, build)

    use_rank_source(source)
