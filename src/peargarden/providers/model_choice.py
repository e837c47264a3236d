"""Which packaged model this machine runs by default: the 1.5B when a person can wait for it, else 0.5B.

Qwen2.5-Coder-1.5B writes better role-play than 0.5B (issue 49: no echoes, more dialogue and action)
at about three times the work per token.  The set-up measures both (the self-test's probe of each,
:mod:`.runtime_check`) and picks the larger when it writes fast enough for a reply a person waits
for: at least :data:`MIN_GEN_TOK_S` tokens a second, and the first words of a typical beat within
:data:`MAX_FIRST_TEXT_S` seconds (:data:`TYPICAL_READ` prompt tokens to read, then
:data:`FIRST_CLAUSE` tokens until the guards let the first clause out).

It decides on what the CPU can do, not on the moment's load: the rates are the self-test's per
CPU-second of the worker (times the threads doing the work), which a busy machine does not stretch
— on the shared 2-core VM under load 15 – 25 a probe's wall clock ran 2 – 5× slow.  When the 0.5B's
rates, scaled by :data:`LARGE_COST`, already miss the bar by far, the 1.1 GB of the 1.5B are not
fetched at all (:func:`worth_fetching`).

The choice is one line (:attr:`Choice.reason`) and a record beside the models (``choice.json``,
written whole), kept until the machine changes; ``[model] local_path`` (``pear models --use``, the
settings page) wins over it.  Pure but for :func:`read_choice` and :func:`write_choice`.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from ._json_record import write_json_record
from .model_fetch import models_dir

__all__ = [
    "FIRST_CLAUSE",
    "LARGE_COST",
    "MAX_FIRST_TEXT_S",
    "MIN_GEN_TOK_S",
    "TYPICAL_READ",
    "Choice",
    "Speed",
    "choose",
    "read_choice",
    "worth_fetching",
    "write_choice",
]

MIN_GEN_TOK_S = 8.0
MAX_FIRST_TEXT_S = 10.0
# Prompt tokens a warm beat of the small-model profile reads again, past the reused prefix (its
# system prompt and story stay put: docs/benchmarks/embedded-model.md, "prompt re-read per turn").
TYPICAL_READ = 400
# Tokens of a reply until the guards show its first clause (eight units of Chinese or English).
FIRST_CLAUSE = 16
# The 1.5B's work per token over the 0.5B's, generation and prompt (measured on the self-test's probe
# of both on one machine: docs/benchmarks/embedded-model.md, "Model choice").
LARGE_COST = 2.2
# Fetch the 1.5B to measure it only if the 0.5B's rates, so scaled, come within this of the bar.
_FETCH_SLACK = 0.7
RECORD_NAME = "choice.json"


class Speed(msgspec.Struct, frozen=True):
    """A model's rates on this machine (tokens a second when it is quiet, by CPU time), and the best
    wall-clock rates of the self-test's tries (what the moment's load allowed)."""

    model: str
    prompt_tok_s: float
    gen_tok_s: float
    wall_prompt_tok_s: float = 0.0
    wall_gen_tok_s: float = 0.0
    predicted: bool = False  # scaled from the other model's rates, not measured

    def first_text(self) -> float:
        """Seconds to the first words of a typical beat."""
        if self.prompt_tok_s <= 0 or self.gen_tok_s <= 0:
            return float("inf")
        return TYPICAL_READ / self.prompt_tok_s + FIRST_CLAUSE / self.gen_tok_s

    def fast_enough(self, slack: float = 1.0) -> bool:
        return self.gen_tok_s >= MIN_GEN_TOK_S * slack and self.first_text() <= MAX_FIRST_TEXT_S / slack

    def describe(self) -> str:
        return f"{self.model} {self.gen_tok_s:.1f} tok/s、首句约 {self.first_text():.1f} 秒" + (
            "（按 0.5B 推算）" if self.predicted else ""
        )


class Choice(msgspec.Struct, frozen=True):
    model: str  # a catalog key
    reason: str  # the one line the set-up prints
    speeds: list[Speed]
    machine: str = ""  # the CPU's flags hash the rates were measured on
    checked_at: str = ""


def predicted_large(small: Speed, key: str) -> Speed:
    """The 1.5B's rates as the 0.5B's predict them (:data:`LARGE_COST`)."""
    return Speed(key, small.prompt_tok_s / LARGE_COST, small.gen_tok_s / LARGE_COST, predicted=True)


def worth_fetching(small: Speed, key: str) -> bool:
    """Whether the 1.5B might pass: the 0.5B's rates, scaled, come within reach of the bar."""
    return predicted_large(small, key).fast_enough(_FETCH_SLACK)


def choose(small: Speed, large: Speed | None, *, how: str = "按每 CPU 秒折算，不受此刻负载影响") -> tuple[str, str]:
    """(the model kept, the one line that says which and why)."""
    bar = f"≥ {MIN_GEN_TOK_S:g} tok/s 且首句 ≤ {MAX_FIRST_TEXT_S:g} 秒"
    if large is not None and not large.predicted and large.fast_enough():
        return large.model, f"内置模型选用 {large.model}：{large.describe()}，够快（{bar}；{how}）"
    if large is None:
        return small.model, f"内置模型选用 {small.model}：{small.describe()}（{how}）"
    slow = "生成太慢" if large.gen_tok_s < MIN_GEN_TOK_S else "首句太慢"
    return small.model, f"内置模型选用 {small.model}：{large.describe()}，{slow}（要 {bar}；{how}）"


def record_path(folder: Path | None = None) -> Path:
    return (folder or models_dir()) / RECORD_NAME


def read_choice(machine: str, folder: Path | None = None) -> Choice | None:
    """The recorded choice for this machine (its CPU flags' hash), if there is one."""
    try:
        choice = msgspec.json.decode(record_path(folder).read_bytes(), type=Choice)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    return choice if choice.machine == machine else None


def write_choice(choice: Choice, folder: Path | None = None) -> Path:
    """Store *choice* whole (temp file, fsync, rename): a crash leaves the old record or the new."""
    path = record_path(folder)
    return write_json_record(path, msgspec.to_builtins(choice), prefix=".choice-")
