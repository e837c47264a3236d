"""Differential check of tavern's Chat Completion fill against SillyTavern 1.12.6's own code (by hand).

Not a pytest module: it needs node and a SillyTavern checkout, which CI does not have.  It generates
random Prompt Manager lists and orders (custom relative and in-chat prompts, switched-off entries,
markers moved in chat), presets (names behaviour, squash, formats, new-chat prompts, continue
prefill, send-if-empty), card overrides with ``{{original}}``, persona positions, extension prompts
(Author's Note, character's note, world info at depth, /inject, relative extension prompts), chat
histories, example blocks, generation types and small budgets.  It runs our
``Generation.prepare_openai_messages`` and SillyTavern's ``prepareOpenAIMessages`` (with its
``ChatCompletion``, ``MessageCollection``, ``Message``, ``PromptManager`` and ``getExtensionPrompt``)
on the same inputs under node, with the browser state replaced by ``stubs_prefix.js`` (token counts
and macros made identical on both sides), and compares the message lists.

    git -C SillyTavern archive ba6f7b7a98cf public/script.js public/scripts/openai.js \\
        public/scripts/PromptManager.js public/scripts/utils.js | tar -x -C st-1.12.6
    .venv/bin/python tests/tavern/st_differential/run.py st-1.12.6/public --seed 1 --cases 1000

SillyTavern's files are read where they lie and assembled in a temporary folder; nothing of them is
stored in this repository.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from peargarden.tavern.assemble import Generation
from peargarden.tavern.defaults import DEFAULT_OAI, DEFAULT_ORDER, DEFAULT_PROMPTS, GLOBAL_ORDER_ID
from peargarden.tavern.examples import block_to_messages
from peargarden.tavern.state import TavernState, effective_settings

HERE = Path(__file__).parent
OPENAI_BLOCKS = [
    "class IdentifierNotFoundError",
    "class TokenBudgetExceededError",
    "class InvalidCharacterNameError",
    "class Message",
    "class MessageCollection",
    "class ChatCompletion",
    "function formatWorldInfo",
    "function populationInjectionPrompts",
    "function populateChatHistory",
    "function populateDialogueExamples",
    "function getPromptPosition",
    "function getPromptRole",
    "function populateChatCompletion",
    "function preparePromptsForChatCompletion",
    "function prepareOpenAIMessages",
    "function parseExampleIntoIndividual",
    "function setOpenAIMessageExamples",
    "function isOpenRouterWithInstruct",
    "function stringFormat",
]


def block(source: str, header: str) -> str:
    """A top-level ``function``/``class`` of a SillyTavern file: from its header to the next ``}`` line."""
    kind, name = header.split(" ", 1)
    start = re.search(rf"^(?:export )?(?:async )?{kind} {re.escape(name)}\b", source, re.MULTILINE)
    if start is None:
        raise SystemExit(f"{header} not found")
    end = re.compile(r"^}\s*$", re.MULTILINE).search(source, start.end())
    assert end is not None
    return source[start.start() : end.end()].removeprefix("export ") + "\n"


def assemble_js(public: Path) -> str:
    openai = (public / "scripts/openai.js").read_text(encoding="utf-8")
    utils = (public / "scripts/utils.js").read_text(encoding="utf-8") if (public / "scripts/utils.js").exists() else ""
    pm = (public / "scripts/PromptManager.js").read_text(encoding="utf-8")
    script = (public / "script.js").read_text(encoding="utf-8")
    parts = [(HERE / "stubs_prefix.js").read_text(encoding="utf-8")]
    parts += [block(pm, h) for h in ("class Prompt", "class PromptCollection", "class PromptManager")]
    parts.append(block(script, "function getExtensionPrompt"))
    for header in OPENAI_BLOCKS:
        if header == "function stringFormat":
            parts.append(block(utils or openai, header))
        else:
            parts.append(block(openai, header))
    parts.append((HERE / "driver_suffix.js").read_text(encoding="utf-8"))
    return "\n".join(p.replace("\nexport ", "\n") for p in parts)


def text(rng: random.Random, key: str) -> str:
    return rng.choice(
        [
            "",
            f"{key}文本一段。",
            f"{key}：{{{{char}}}}和{{{{user}}}}在茶馆。",
            f"  {key}有空格  ",
            key * rng.randint(5, 40),
        ]
    )


def make_case(rng: random.Random) -> dict[str, Any]:
    prompts = copy.deepcopy(DEFAULT_PROMPTS)
    for p in prompts:
        if p["identifier"] in ("main", "nsfw", "jailbreak", "enhanceDefinitions") and rng.random() < 0.5:
            p["content"] = text(rng, p["identifier"])
    order = copy.deepcopy(DEFAULT_ORDER)
    for i in range(rng.randint(0, 3)):
        ident = f"custom{i}"
        prompts.append(
            {
                "identifier": ident,
                "name": ident,
                "role": rng.choice(["system", "user", "assistant"]),
                "content": text(rng, ident),
                "system_prompt": rng.choice([False, False, True]),
                "injection_position": rng.choice([0, 0, 1]),
                "injection_depth": rng.choice([0, 1, 2, 4]),
                "forbid_overrides": False,
            }
        )
        order.insert(rng.randint(0, len(order)), {"identifier": ident, "enabled": rng.random() < 0.8})
    for entry in order:
        if rng.random() < 0.1:
            entry["enabled"] = not entry["enabled"]
    for p in prompts:
        if p["identifier"] in ("main", "charDescription", "scenario", "worldInfoAfter") and rng.random() < 0.15:
            p.update(injection_position=1, injection_depth=rng.choice([0, 2]), role=rng.choice(["system", "user"]))
    if rng.random() < 0.2:
        rng.shuffle(order)
    oai = {
        "openai_max_context": rng.choice([200, 400, 700, 1200, 4095]),
        "openai_max_tokens": rng.choice([50, 100, 300]),
        "names_behavior": rng.choice([-1, 0, 1, 2]),
        "squash_system_messages": rng.random() < 0.3,
        "continue_prefill": rng.random() < 0.3,
        "wi_format": rng.choice(["{0}", "", "[{0}]"]),
        "scenario_format": rng.choice(["[场景：{{scenario}}]", ""]),
        "personality_format": rng.choice(["[{{char}}的性格：{{personality}}]", ""]),
        "new_chat_prompt": rng.choice(["[Start a new Chat]", ""]),
        "new_example_chat_prompt": rng.choice(["[Example Chat]", ""]),
        "send_if_empty": rng.choice(["", "（继续）"]),
        "continue_nudge_prompt": "[继续：{{lastChatMessage}}]",
        "impersonation_prompt": rng.choice(["[扮演{{user}}]", ""]),
        "group_nudge_prompt": "[群聊]",
        "new_group_chat_prompt": "[群]",
        "bias_preset_selected": "Default (none)",
        "prompts": prompts,
        "prompt_order": [{"character_id": GLOBAL_ORDER_ID, "order": order}],
    }
    table = {}
    keys = [
        "2_floating_prompt",
        "DEPTH_PROMPT",
        "PERSONA_DESCRIPTION",
        "customDepthWI-1-0",
        "script_inject_a",
        "1_memory",
        "zz_ext",
    ]
    for key in rng.sample(keys, rng.randint(0, 4)):
        table[key] = {
            "value": text(rng, key),
            "position": rng.choice([0, 1, 1, 2]),
            "depth": rng.choice([0, 1, 2, 4]),
            "scan": False,
            "role": rng.choice([0, 1, 2]),
        }
    fields = {
        "description": text(rng, "描述"),
        "personality": text(rng, "性格"),
        "scenario": text(rng, "场景"),
        "system": rng.choice(["", "卡片主提示 {{original}}"]),
        "jailbreak": rng.choice(["", "卡片后置 {{original}}"]),
    }
    messages = [
        {
            "role": rng.choice(["user", "assistant", "assistant", "system"]),
            "content": rng.choice([f"第{i}条" * rng.randint(1, 6), "ok"]),
            "name": rng.choice(["小明", "林月", "Xiao Ming", "System"]),
        }
        for i in range(rng.randint(0, 12))
    ]
    gen_type = rng.choice(["normal", "normal", "continue", "impersonate", "swipe"])
    return {
        "oai": oai,
        "power_user": {
            "pin_examples": rng.random() < 0.3,
            "persona_description": rng.choice(["", "小明是学生。"]),
            "persona_description_position": rng.choice([0, 2, 3, 4, 9]),
        },
        "table": table,
        "fields": {k: v.strip() for k, v in fields.items()},
        "messages": messages,
        "examples": rng.choice(
            [
                [],
                ["<START>\n小明: 你好\n林月: 欢迎光临。\n"],
                ["<START>\n小明: 有茶吗\n林月: 有。\n", "<START>\n林月: " + "长" * 60 + "\n"],
            ]
        ),
        "type": gen_type,
        "cycle": messages[-1]["content"] if gen_type == "continue" and messages else "",
        "wib": rng.choice(["", "前置世界书"]),
        "wia": rng.choice(["", "后置世界书"]),
        "bias": rng.choice(["", "", " 她笑了"]),
    }


def ours(case: dict[str, Any]) -> list[dict[str, str]]:
    settings = effective_settings({"power_user": case["power_user"]})
    oai = copy.deepcopy(DEFAULT_OAI)
    oai.update(copy.deepcopy(case["oai"]))
    f = case["fields"]
    card = {
        "name": "林月",
        "description": f["description"],
        "personality": f["personality"],
        "scenario": f["scenario"],
        "mes_example": "",
        "data": {
            "name": "林月",
            "system_prompt": f["system"],
            "post_history_instructions": f["jailbreak"],
            "extensions": {},
        },
    }
    state = TavernState(
        oai=oai,
        power_user=settings["power_user"],
        extension_settings=settings["extension_settings"],
        wi_settings=settings["world_info_settings"],
        user_name="小明",
        card=card,
        avatar="林月.png",
        chat=[],
        chat_metadata={},
        worlds={},
        counter=lambda t: math.ceil(len(t.encode("utf-16-le")) / 4),
    )
    for key, e in case["table"].items():
        state.table.set(key, e["value"], e["position"], e["depth"], e["scan"], e["role"])
    generation = Generation(state, case["type"], dry_run=False)
    fields, generation.card_fields = generation.card_macro_fields()
    newest_first = [dict(m) for m in reversed(case["messages"])]
    examples = [block_to_messages(b, "小明", "林月") for b in case["examples"]]
    assembly = generation.prepare_openai_messages(
        fields, case["wib"], case["wia"], case["bias"], case["cycle"], newest_first, examples
    )
    return assembly.messages


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("public", type=Path, help="SillyTavern 1.12.6's public/ folder")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=500)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    cases = [make_case(rng) for _ in range(args.cases)]
    with tempfile.TemporaryDirectory() as tmp:
        harness = Path(tmp) / "harness.js"
        harness.write_text(assemble_js(args.public), encoding="utf-8")
        (Path(tmp) / "cases.json").write_text(json.dumps(cases, ensure_ascii=False), encoding="utf-8")
        subprocess.run(["node", str(harness), str(Path(tmp) / "cases.json"), str(Path(tmp) / "out.json")], check=True)
        theirs = json.loads((Path(tmp) / "out.json").read_text(encoding="utf-8"))
    differences = 0
    for number, (case, expected) in enumerate(zip(cases, theirs, strict=True)):
        got = ours(case)
        if got != expected:  # dict equality: key order is checked by the oracle cases, not here
            differences += 1
            if differences <= 3:
                print(f"case {number}: {json.dumps(case, ensure_ascii=False)[:600]}")
                print(f"  SillyTavern: {json.dumps(expected, ensure_ascii=False)[:800]}")
                print(f"  ours:        {json.dumps(got, ensure_ascii=False)[:800]}")
    print(f"{differences} differences in {len(cases)} cases")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
