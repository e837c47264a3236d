"""The embedded model out of process: what the worker costs, and what each llama.cpp configuration gives.

1. **Generation through the worker vs in-process**: the same prompt, greedy (temperature 0, so both
   paths produce the same tokens — checked), the same configuration, each path with its own loaded
   model, runs alternated.  Timed on the pieces the provider reads (``LlamaSession.chat`` directly, or
   through the worker's pipe): decode tok/s from the first piece to the last, by the tokens the
   model's cache grew by.  Target: worker / in-process ≥ 0.97.
2. **Second-beat time to first token**: a ~4k-token role-play context, beat 1 fills the cache, beat 2
   (the reply and a new user line appended) is timed to its first piece — llama.cpp's prefix reuse,
   in the worker as in-process.  Target: unchanged.
3. **The configurations** of the self-test (``fast``: CPU extra buffer types on; ``safe``: off), each
   in its own worker, alternated: the self-test's counting probe with a longer prompt, prompt tok/s
   and generation tok/s.

    .venv/bin/python bench/bench_embedded_worker.py [--runs 5] [--ttft-runs 3] [--config-runs 5]

Needs the ``[local]`` extra and the default model (``bash scripts/chat.sh`` installs both).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench_embedded import STORY_PROMPT, long_history

from peargarden.providers.base import Message
from peargarden.providers.embedded import EmbeddedProvider, find_model_file
from peargarden.providers.llama_session import Chunk, Finished, LoadSpec, Piece, Started
from peargarden.providers.runtime_check import FAST, SAFE, Config, probe_prompt
from peargarden.providers.worker_client import LlamaWorker


def cpu_seconds(provider: EmbeddedProvider) -> float:
    """CPU time used so far by this process and, for the worker path, by the worker process."""
    used = time.process_time()
    worker = provider._worker
    if worker is not None and worker.pid is not None:
        stat = Path(f"/proc/{worker.pid}/stat").read_text(encoding="ascii")
        fields = stat.rsplit(")", 1)[1].split()
        used += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime
    return used


def timed(pieces: Iterator[Piece]) -> dict[str, Any]:
    """Seconds to the first text, decode window, tokens decoded in it, the text."""
    start = time.perf_counter()
    first = last = None
    prompt = end = 0
    text: list[str] = []
    with contextlib.closing(pieces):  # type: ignore[type-var]
        for piece in pieces:
            now = time.perf_counter()
            if isinstance(piece, Started):
                prompt = piece.prompt_tokens
            elif isinstance(piece, Finished):
                end = piece.n_tokens
            elif isinstance(piece, Chunk) and piece.text:
                first = now if first is None else first
                last = now
                text.append(piece.text)
    if first is None or last is None:
        return {"ttft": float("nan"), "decode": float("nan"), "tokens": 0, "text": ""}
    return {"ttft": first - start, "decode": last - first, "tokens": end - prompt, "text": "".join(text)}


def pieces(provider: EmbeddedProvider, messages: list[Message], **options: Any) -> Iterator[Piece]:
    """The model's pieces for *messages* (no echo guard, no fitting: the transport alone)."""
    return provider._backend().chat(messages, options, None, None)


def bench_throughput(paths: dict[str, EmbeddedProvider], runs: int, max_tokens: int) -> dict[str, Any]:
    options = {"temperature": 0.0, "max_tokens": max_tokens, "seed": 1}
    rates: dict[str, list[float]] = {name: [] for name in paths}
    cpu: dict[str, list[float]] = {name: [] for name in paths}
    texts: dict[str, str] = {}
    for run in range(runs):
        order = list(paths) if run % 2 == 0 else list(reversed(paths))
        for name in order:
            # A fresh system line each run: nothing of the prompt is reused from the run before.
            messages = [{"role": "system", "content": f"Run {run}. " + STORY_PROMPT[0]["content"]}, STORY_PROMPT[1]]
            paths[name]._backend()  # the model is loaded (the worker started) before the clock runs
            before = cpu_seconds(paths[name])
            result = timed(pieces(paths[name], messages, **options))
            # CPU per generated token, prompt included: what the other load on the machine cannot inflate.
            cpu[name].append((cpu_seconds(paths[name]) - before) / max(1, result["tokens"]) * 1000)
            rates[name].append(result["tokens"] / result["decode"])
            texts[name] = result["text"]
    medians = {name: statistics.median(values) for name, values in rates.items()}
    cpu_medians = {name: statistics.median(values) for name, values in cpu.items()}
    # Each run's two paths ran back to back: their ratio shares that moment's load on the machine.
    paired = statistics.median(w / p for w, p in zip(rates["worker"], rates["in-process"], strict=True))
    same = len(set(texts.values())) == 1
    return {"rates": rates, "medians": medians, "cpu": cpu_medians, "paired": paired, "same_text": same}


def bench_second_beat(paths: dict[str, EmbeddedProvider], runs: int, prompt_tokens: int) -> dict[str, Any]:
    llm = paths["in-process"].llama()
    history = long_history(llm, prompt_tokens)
    options = {"temperature": 0.0, "max_tokens": 32, "seed": 1}
    warm: dict[str, list[float]] = {name: [] for name in paths}
    for run in range(runs):
        beat_one = [*history, {"role": "user", "content": f"Play me something for the rain ({run})."}]
        for name in list(paths) if run % 2 == 0 else list(reversed(paths)):
            provider = paths[name]
            reply = timed(pieces(provider, beat_one, **options))["text"]
            beat_two = [*beat_one, {"role": "assistant", "content": reply}, {"role": "user", "content": "Slower."}]
            warm[name].append(timed(pieces(provider, beat_two, **options))["ttft"])
    return {"size": len(llm.tokenize(str(history).encode(), add_bos=False)), "warm": warm}


def bench_configs(model: str, runs: int, threads: tuple[int, int]) -> dict[str, Any]:
    workers = {
        config.name: LlamaWorker(LoadSpec(model, 2048, threads[0], threads[1], config.use_extra_bufts))
        for config in (FAST, SAFE)
    }
    prompt = probe_prompt(300)  # ~1,200 tokens of Qwen's (one token per digit)
    found: dict[str, dict[str, list[float]]] = {name: {"prompt": [], "gen": []} for name in workers}
    try:
        for worker in workers.values():
            worker.start()
        for run in range(runs):
            order = list(workers) if run % 2 == 0 else list(reversed(workers))
            for name in order:
                result = workers[name].probe(prompt, 64)
                found[name]["prompt"].append(result["prompt_tokens"] / result["prompt_seconds"])
                found[name]["gen"].append(result["gen_tokens"] / result["gen_seconds"])
    finally:
        for worker in workers.values():
            worker.close()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--ttft-runs", type=int, default=3)
    parser.add_argument("--config-runs", type=int, default=5)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--prompt-tokens", type=int, default=4000)
    parser.add_argument("--config", choices=("fast", "safe"), default="fast", help="configuration for parts 1 and 2")
    parser.add_argument("--skip-configs", action="store_true")
    args = parser.parse_args()

    model = find_model_file()
    config: Config = FAST if args.config == "fast" else SAFE
    paths = {
        "in-process": EmbeddedProvider(model, in_process=True, configuration=config),
        "worker": EmbeddedProvider(model, configuration=config),
    }
    threads = (paths["worker"].n_threads, paths["worker"].n_threads_batch)
    print(f"{model.name}; {config.name} ({config.label}); threads {threads}; load {os.getloadavg()[0]:.1f}")
    try:
        result = bench_throughput(paths, args.runs, args.max_tokens)
        print(f"\n1. generation, greedy, {args.max_tokens} tokens, {args.runs} runs alternated "
              f"(same text: {result['same_text']})")  # fmt: skip
        print("| path | decode tok/s (median) | CPU ms per token (median) | decode runs |")
        print("|---|---:|---:|---|")
        for name, values in result["rates"].items():
            runs = ", ".join(f"{v:.1f}" for v in values)
            print(f"| {name} | {result['medians'][name]:.1f} | {result['cpu'][name]:.1f} | {runs} |")
        ratio = result["medians"]["worker"] / result["medians"]["in-process"]
        print(f"ratio worker / in-process: of the medians {ratio:.3f}, median of the paired runs "
              f"{result['paired']:.3f}  (load {os.getloadavg()[0]:.1f})")  # fmt: skip

        beat = bench_second_beat(paths, args.ttft_runs, args.prompt_tokens)
        print(f"\n2. second beat after a ~{args.prompt_tokens}-token context, time to first token (s)")
        print("| path | median | runs |")
        print("|---|---:|---|")
        for name, values in beat["warm"].items():
            print(f"| {name} | {statistics.median(values):.2f} | {', '.join(f'{v:.2f}' for v in values)} |")
        print(f"(load {os.getloadavg()[0]:.1f})")
    finally:
        for provider in paths.values():
            provider.close()

    if not args.skip_configs:
        found = bench_configs(str(model), args.config_runs, threads)
        print(f"\n3. configurations: counting prompt of ~1,200 tokens + 64 generated, {args.config_runs} runs")
        print("| configuration | prompt tok/s (median) | generation tok/s (median) | prompt runs | generation runs |")
        print("|---|---:|---:|---|---|")
        for name, rates in found.items():
            label = FAST.label if name == "fast" else SAFE.label
            prompt, gen = statistics.median(rates["prompt"]), statistics.median(rates["gen"])
            prompt_runs = ", ".join(f"{v:.0f}" for v in rates["prompt"])
            gen_runs = ", ".join(f"{v:.1f}" for v in rates["gen"])
            print(f"| {name} ({label}) | {prompt:.1f} | {gen:.1f} | {prompt_runs} | {gen_runs} |")
        print(f"(load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
