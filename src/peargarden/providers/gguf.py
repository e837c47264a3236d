"""Read a GGUF file's header and metadata without loading the model.

GGUF (llama.cpp's model format, versions 2 and 3): the magic ``GGUF``, a version, the tensor and
key/value counts, then typed key/value pairs (little-endian; strings are a 64-bit length and
UTF-8 bytes; arrays are an element type, a 64-bit count and the elements).  Only the metadata is
read — the tensors after it are never touched — so checking a 1 GB file costs milliseconds.

Every problem is a :class:`BadGguf` whose message is one line naming the file, so a user who points
``--local-model`` at the wrong file learns what is wrong before llama.cpp gets to see it.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from peargarden.errors import BadInput

MAGIC = b"GGUF"
SUPPORTED_VERSIONS = (2, 3)

# Value types of GGUF metadata: type id → struct format (scalars), 8 = string, 9 = array.
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING = 8
_ARRAY = 9
# Sanity bounds: a real file stays far below them; a corrupt count must not make us allocate.
_MAX_KEYS = 1 << 16
_MAX_STRING = 1 << 26
_MAX_ARRAY = 1 << 24
# Arrays longer than this (the tokenizer's vocabulary, merges, scores) are skipped, not kept.
_KEEP_ARRAY = 64

# llama.cpp's model architectures (``general.architecture`` values), as in the llama.cpp that
# llama-cpp-python 0.3.36 vendors.  A GGUF of another architecture is refused before loading, with
# a line that says so, instead of llama.cpp's generic "failed to load model".
RUNTIME_ARCHITECTURES = frozenset(
    (
        "llama",
        "llama4",
        "deci",
        "falcon",
        "grok",
        "gpt2",
        "gptj",
        "gptneox",
        "mpt",
        "baichuan",
        "starcoder",
        "refact",
        "bert",
        "modern-bert",
        "nomic-bert",
        "nomic-bert-moe",
        "neo-bert",
        "jina-bert-v2",
        "jina-bert-v3",
        "eurobert",
        "bloom",
        "stablelm",
        "qwen",
        "qwen2",
        "qwen2moe",
        "qwen2vl",
        "qwen3",
        "qwen3moe",
        "qwen3next",
        "qwen3vl",
        "qwen3vlmoe",
        "qwen35",
        "qwen35moe",
        "qwen4exp",
        "phi2",
        "phi3",
        "phimoe",
        "plamo",
        "plamo2",
        "plamo3",
        "codeshell",
        "orion",
        "internlm2",
        "minicpm",
        "minicpm3",
        "gemma",
        "gemma2",
        "gemma3",
        "gemma3n",
        "gemma4",
        "gemma4-assistant",
        "gemma-embedding",
        "starcoder2",
        "mamba",
        "mamba2",
        "maple",
        "jamba",
        "falcon-h1",
        "xverse",
        "command-r",
        "cohere2",
        "cohere2moe",
        "dbrx",
        "olmo",
        "olmo2",
        "olmoe",
        "muse-glimmer",
        "openelm",
        "arctic",
        "deepseek",
        "deepseek2",
        "deepseek2-ocr",
        "deepseek32",
        "deepseek4",
        "chatglm",
        "glm4",
        "glm4moe",
        "glm-dsa",
        "bitnet",
        "t5",
        "t5encoder",
        "jais",
        "jais2",
        "nemotron",
        "nemotron_h",
        "nemotron_h_moe",
        "exaone",
        "exaone4",
        "exaone-moe",
        "rwkv6",
        "rwkv6qwen2",
        "rwkv7",
        "arwkv7",
        "granite",
        "granitemoe",
        "granitehybrid",
        "graniteswitch",
        "granite_swa",
        "chameleon",
        "wavtokenizer-dec",
        "plm",
        "bailingmoe",
        "bailingmoe2",
        "bailingmoe3",
        "dots1",
        "dots3note",
        "arcee",
        "afmoe",
        "laguna",
        "ernie4_5",
        "ernie4_5-moe",
        "hunyuan-moe",
        "hunyuan-dense",
        "hunyuan_vl",
        "hy_v3",
        "hy_v4",
        "smollm3",
        "gpt-oss",
        "lfm2",
        "lfm2moe",
        "dream",
        "smallthinker",
        "llada",
        "llada-moe",
        "seed_oss",
        "grovemoe",
        "apertus",
        "minimax-01",
        "hrm_text",
        "minimax-m2",
        "minimax-m3",
        "cogvlm",
        "rnd1",
        "pangu-embedded",
        "mistral3",
        "eagle3",
        "dflash",
        "mistral4",
        "paddleocr",
        "mimo2",
        "step35",
        "spark2_5",
        "llama-embed",
        "maincoder",
        "kimi-linear",
        "kimi-k3",
        "glm5-next",
        "talkie",
        "mellum",
        "nanbeige",
        "qwen3tts",
        "pockettts",
    )
)


class BadGguf(BadInput):
    """The file is not a usable GGUF model (one line: the file and the problem)."""


@dataclass(frozen=True)
class GgufInfo:
    """What the header says about a model."""

    version: int
    tensor_count: int
    metadata: Mapping[str, Any] = field(repr=False)

    @property
    def architecture(self) -> str:
        return str(self.metadata.get("general.architecture") or "")

    @property
    def name(self) -> str:
        return str(self.metadata.get("general.name") or "")

    @property
    def chat_template(self) -> str:
        return str(self.metadata.get("tokenizer.chat_template") or "")

    @property
    def context_length(self) -> int:
        value = self.metadata.get(f"{self.architecture}.context_length")
        return int(value) if isinstance(value, int) else 0

    @property
    def block_count(self) -> int:
        value = self.metadata.get(f"{self.architecture}.block_count")
        return int(value) if isinstance(value, int) else 0

    @property
    def embedding_length(self) -> int:
        value = self.metadata.get(f"{self.architecture}.embedding_length")
        return int(value) if isinstance(value, int) else 0

    @property
    def languages(self) -> tuple[str, ...]:
        value = self.metadata.get("general.languages")
        return tuple(str(v) for v in value) if isinstance(value, list) else ()

    def approx_parameters(self) -> int:
        """A rough parameter count from the shape (12·layers·width² + vocabulary·width).

        Used only to tell a small model from a big one; exact counts are not needed."""
        width, layers = self.embedding_length, self.block_count
        vocab = self.metadata.get("tokenizer.ggml.tokens.count")
        vocab_size = int(vocab) if isinstance(vocab, int) else 0
        return 12 * layers * width * width + vocab_size * width


class _Reader:
    """Reads the header from a buffer filled a megabyte at a time (the vocabulary alone is ~150k
    strings: one ``read`` per field would take seconds)."""

    def __init__(self, stream: BinaryIO, where: Path) -> None:
        self.stream = stream
        self.where = where
        self.buffer = b""
        self.pos = 0

    def bad(self, problem: str) -> BadGguf:
        return BadGguf(f"不是可用的 GGUF 模型文件（{problem}）", path=self.where)

    def refill(self, size: int) -> None:
        """Make at least *size* bytes available at ``pos`` (or fail: the file is truncated)."""
        more = self.stream.read(max(size, 1 << 20))
        self.buffer = self.buffer[self.pos :] + more
        self.pos = 0
        if len(self.buffer) < size:
            raise self.bad("file ends inside the header: truncated")

    def take(self, size: int) -> bytes:
        if self.pos + size > len(self.buffer):
            self.refill(size)
        end = self.pos + size
        data = self.buffer[self.pos : end]
        self.pos = end
        return data

    def scalar(self, fmt: str) -> Any:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def string(self) -> str:
        size = self.scalar("<Q")
        if size > _MAX_STRING:
            raise self.bad(f"a string of {size} bytes in the header: corrupt")
        return self.take(size).decode("utf-8", errors="replace")

    def value(self, kind: int, key: str) -> Any:
        if kind in _SCALARS:
            return self.scalar(_SCALARS[kind])
        if kind == _STRING:
            return self.string()
        if kind == _ARRAY:
            item_kind = self.scalar("<I")
            count = self.scalar("<Q")
            if count > _MAX_ARRAY or item_kind == _ARRAY:
                raise self.bad(f"array {key!r} of {count} items: corrupt")
            if count > _KEEP_ARRAY:
                self.skip_array(item_kind, count, key)
                return count  # only the length is kept (see "…count" keys)
            return [self.value(item_kind, key) for _ in range(count)]
        raise self.bad(f"unknown value type {kind} for {key!r}")

    def skip_array(self, item_kind: int, count: int, key: str) -> None:
        if item_kind in _SCALARS:
            self.take(struct.calcsize(_SCALARS[item_kind]) * count)
            return
        if item_kind != _STRING:
            raise self.bad(f"unknown array type {item_kind} for {key!r}")
        # The hot loop of the whole read (vocabulary and merges): lengths read in place.
        unpack = struct.Struct("<Q").unpack_from
        for _ in range(count):
            if self.pos + 8 > len(self.buffer):
                self.refill(8)
            (size,) = unpack(self.buffer, self.pos)
            if size > _MAX_STRING:
                raise self.bad(f"a string of {size} bytes in {key!r}: corrupt")
            end = self.pos + 8 + size
            if end > len(self.buffer):
                self.refill(8 + size)
                end = self.pos + 8 + size
            self.pos = end


def read_gguf(path: Path) -> GgufInfo:
    """The header and metadata of the GGUF at *path* (tensors not read)."""
    try:
        with path.open("rb") as stream:
            return _read(_Reader(stream, path))
    except FileNotFoundError:
        raise BadGguf("找不到模型文件（no such file）", path=path) from None
    except IsADirectoryError:
        raise BadGguf("这是一个文件夹，不是 GGUF 文件（a directory）", path=path) from None
    except OSError as error:
        raise BadGguf(f"无法读取模型文件（{error.strerror}）", path=path) from None


def _read(reader: _Reader) -> GgufInfo:
    magic = reader.stream.read(4)
    if magic != MAGIC:  # read directly: a short file must say what it starts with, not "truncated"
        raise reader.bad(f"starts with {magic!r}, not b'GGUF'")
    version = reader.scalar("<I")
    if version not in SUPPORTED_VERSIONS:
        raise reader.bad(f"GGUF version {version}; supported: 2, 3")
    tensor_count = reader.scalar("<Q")
    key_count = reader.scalar("<Q")
    if key_count > _MAX_KEYS:
        raise reader.bad(f"{key_count} metadata keys: corrupt")
    metadata: dict[str, Any] = {}
    for _ in range(key_count):
        key = reader.string()
        kind = reader.scalar("<I")
        value = reader.value(kind, key)
        if kind == _ARRAY and isinstance(value, int):
            metadata[f"{key}.count"] = value
        else:
            metadata[key] = value
    return GgufInfo(version=version, tensor_count=tensor_count, metadata=metadata)


def check_runtime_can_load(info: GgufInfo, path: Path) -> None:
    """Refuse a GGUF whose architecture llama.cpp (as bundled) does not know, or that has no tensors."""
    if not info.architecture:
        raise BadGguf("GGUF 里没有 general.architecture（not a model file）", path=path)
    if info.architecture not in RUNTIME_ARCHITECTURES:
        raise BadGguf(
            f"内置的 llama.cpp 不支持模型架构 {info.architecture!r}（architecture not supported by this runtime）",
            path=path,
        )
    if info.tensor_count == 0:
        raise BadGguf("GGUF 里没有张量（no tensors: a vocabulary-only file?）", path=path)
