"""Writes small GGUF files for tests (the header format of llama.cpp's GGUF v3, tensors left out)."""

from __future__ import annotations

import struct
from typing import Any


def _string(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack("<Q", len(data)) + data


def _value(value: Any) -> tuple[int, bytes]:
    if isinstance(value, bool):
        return 7, struct.pack("<?", value)
    if isinstance(value, int):
        return 4, struct.pack("<I", value)
    if isinstance(value, float):
        return 6, struct.pack("<f", value)
    if isinstance(value, str):
        return 8, _string(value)
    if isinstance(value, list):
        kinds = {_value(v)[0] for v in value} or {8}
        (kind,) = kinds
        body = b"".join(_value(v)[1] for v in value)
        return 9, struct.pack("<IQ", kind, len(value)) + body
    raise TypeError(value)


def gguf_bytes(metadata: dict[str, Any], *, tensors: int = 1, version: int = 3, payload: bytes = b"") -> bytes:
    """A GGUF header with *metadata*, followed by *payload* (stands in for the tensor data)."""
    out = [b"GGUF", struct.pack("<IQQ", version, tensors, len(metadata))]
    for key, value in metadata.items():
        kind, body = _value(value)
        out += [_string(key), struct.pack("<I", kind), body]
    return b"".join(out) + payload


def qwen_like(name: str = "Tiny Test Qwen", payload_size: int = 300_000) -> bytes:
    """A qwen2-shaped header with a chat template and a vocabulary long enough to be skipped."""
    return gguf_bytes(
        {
            "general.architecture": "qwen2",
            "general.name": name,
            "qwen2.context_length": 32768,
            "qwen2.block_count": 24,
            "qwen2.embedding_length": 896,
            "tokenizer.ggml.tokens": [f"词{i}" for i in range(200)],
            "tokenizer.chat_template": "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n"
            "{% endfor %}<|im_start|>assistant\n",
        },
        payload=bytes(range(256)) * (payload_size // 256),
    )
