"""Prompt Manager assembly and the budgeted fill (``preparePromptsForChatCompletion`` and
``populateChatCompletion`` of ST 1.12.6): runtime prompts merged into the collection, card
overrides, fixed slots, relative extension prompts around ``main``, in-chat injections, history
newest → oldest and example dialogues message by message.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from msgspec.structs import replace

from peargarden.text.jsstring import js_trim

from . import defaults as d
from .chat_completion import ChatCompletion, Group, Message
from .context import GenerationContext, _prompt_position, _prompt_role, _sanitize_name
from .examples import ExampleMessage
from .extension_steps import persona_position
from .injections import insert_newest_first
from .prompts import Prompt, PromptCollection, PromptManagerData, build_collection


def prepare_prompts(
    g: GenerationContext, pm: PromptManagerData, fields: dict[str, str], wi_before: str, wi_after: str, bias: str
) -> PromptCollection:
    """The collection: enabled list entries, runtime prompts merged in, card overrides applied."""
    s = g.s
    oai = s.oai
    table = s.table

    def wi_format(value: str) -> str:
        if not value:
            return ""
        fmt = str(oai.get("wi_format") or "")
        if not js_trim(fmt):
            return value
        return fmt.replace("{0}", value)

    compat = g.compat
    scenario_fmt = oai.get("scenario_format")
    personality_fmt = oai.get("personality_format")
    # An empty format drops the field in 1.12; 1.18 sends the raw field instead.
    raw_scenario = fields["scenario"] if compat.empty_format_keeps_text else ""
    raw_personality = fields["personality"] if compat.empty_format_keeps_text else ""
    scenario_text = g.sub(str(scenario_fmt)) if fields["scenario"] and scenario_fmt else raw_scenario
    personality_text = g.sub(str(personality_fmt)) if fields["personality"] and personality_fmt else raw_personality
    impersonation = g.sub(str(oai.get("impersonation_prompt"))) if oai.get("impersonation_prompt") else ""
    runtime: list[Prompt] = [
        Prompt("worldInfoBefore", "system", wi_format(wi_before)),
        Prompt("worldInfoAfter", "system", wi_format(wi_after)),
        Prompt("charDescription", "system", fields["description"]),
        Prompt("charPersonality", "system", personality_text),
        Prompt("scenario", "system", scenario_text),
        Prompt("impersonate", "system", impersonation),
        Prompt("quietPrompt", "system", g.sub(g.quiet_prompt) if g.quiet_prompt else ""),
    ]
    group_nudge = Prompt("groupNudge", "system", g.sub(str(oai.get("group_nudge_prompt") or "")))
    if compat.bias_role_assistant:  # 1.18: the nudge first, the bias as an assistant message
        runtime += [group_nudge, Prompt("bias", "assistant", bias)]
    else:
        runtime += [Prompt("bias", "system", bias), group_nudge]
    for key, ident, fixed_role in (
        ("1_memory", "summary", None),
        (d.NOTE_KEY, "authorsNote", None),
        ("3_vectors", "vectorsMemory", "system"),
        ("4_vectors_data_bank", "vectorsDataBank", None),
        ("chromadb", "smartContext", "system"),
    ):
        e = table.get(key)
        if e and e.value:
            role = fixed_role or _prompt_role(e.role)
            runtime.append(Prompt(ident, role, e.value, position=_prompt_position(e.position)))
    persona = s.power_user.get("persona_description")
    if persona and persona_position(g) == d.PERSONA_IN_PROMPT:
        runtime.append(Prompt("personaDescription", "system", str(persona)))
    known = {
        "1_memory",
        d.NOTE_KEY,
        "3_vectors",
        "4_vectors_data_bank",
        "chromadb",
        d.PERSONA_KEY,
        d.QUIET_KEY,
    }
    known.add(d.DEPTH_PROMPT_KEY)
    for key, e in table.entries.items():
        if key in known or not e.value or e.position not in (d.BEFORE_PROMPT, d.IN_PROMPT):
            continue
        runtime.append(
            Prompt(
                re.sub(r"[^A-Za-z0-9_]", "_", key),
                _prompt_role(e.role),
                e.value,
                position=_prompt_position(e.position),
                extension=True,
            )
        )

    def prepare(prompt: Prompt, original: str | None = None) -> Prompt:
        return replace(prompt, content=g.sub(prompt.text, original))

    collection = build_collection(pm, prepare, g.type if compat.injection_trigger else None)
    for item in runtime:
        existing = collection.get(item.identifier)
        if existing is not None:
            if existing.injection_position is not None:
                item.injection_position = existing.injection_position
            if existing.injection_depth is not None:
                item.injection_depth = existing.injection_depth
            if compat.injection_order and existing.injection_order is not None:
                item.injection_order = existing.injection_order
            if existing.role is not None:
                item.role = existing.role
        new = prepare(item)
        index = collection.index(item.identifier)
        if index != -1:
            collection.items[index] = new
        else:
            collection.add(new)
    main = collection.get("main")
    # 1.18 leaves a switched-off slot alone; 1.12 overrode the blank ``main`` anyway.
    main_on = not (compat.card_override_needs_enabled and pm.is_disabled("main"))
    jb_on = not (compat.card_override_needs_enabled and pm.is_disabled("jailbreak"))
    if fields["system"] and main is not None and main.forbid_overrides is not True and main_on:
        original = main.text
        main.content = fields["system"]
        collection.override(prepare(main, original), collection.index("main"))
    jb = collection.get("jailbreak")
    if fields["jailbreak"] and jb is not None and jb.forbid_overrides is not True and jb_on:
        original = jb.text
        jb.content = fields["jailbreak"]
        collection.override(prepare(jb, original), collection.index("jailbreak"))
    return collection


def populate(
    g: GenerationContext,
    cc: ChatCompletion,
    pm: PromptManagerData,
    prompts: PromptCollection,
    bias: str,
    cycle_prompt: str,
    messages: Sequence[dict[str, Any]],
    examples: list[list[ExampleMessage]],
) -> None:
    """``populateChatCompletion``: fixed slots, control prompts, relative inserts, then the fills."""

    def add_slot(source: str) -> None:
        if not prompts.has(source):
            return
        if pm.is_disabled(source) and source != "main":
            return
        p = prompts.get(source)
        assert p is not None
        if p.is_in_chat:
            return
        cc.add(Group(source, [cc.message(p.role, p.text, source)]), prompts.index(source))

    cc.reserve(3)
    for ident in (
        "worldInfoBefore",
        "main",
        "worldInfoAfter",
        "charDescription",
        "charPersonality",
        "scenario",
        "personaDescription",
    ):
        add_slot(ident)
    control: list[Message] = []
    imp = prompts.get("impersonate")
    if g.type == "impersonate" and imp is not None:
        control.append(cc.message(imp.role, imp.text, "impersonate"))
    quiet = prompts.get("quietPrompt")
    if quiet is not None and quiet.text:
        control.append(cc.message(quiet.role, quiet.text, "quietPrompt"))
    control_tokens = sum(m.tokens for m in control)
    cc.reserve(control_tokens)
    user_relative = [p.identifier for p in prompts if p.system_prompt is False and not p.is_in_chat]
    absolute = [p for p in prompts if p.is_in_chat]
    for ident in ["nsfw", "jailbreak", *user_relative]:
        add_slot(ident)
    if prompts.has("enhanceDefinitions"):
        add_slot("enhanceDefinitions")
    if bias and js_trim(bias):
        add_slot("bias")

    def inject_to_main(p: Prompt, identifier: str, position: str) -> None:
        if cc.has("main") or not g.compat.injection_order:
            cc.insert(cc.message(p.role, p.text, identifier), "main", position)
            return
        # 1.18: with ``main`` set to in-chat, a relative prompt follows it into the chat, with
        # main's role, depth and order, just before ('start') or after ('end') it.
        at = next((i for i, q in enumerate(absolute) if q.identifier == "main"), -1)
        if at < 0:
            return
        main = absolute[at]
        copy_ = replace(
            p,
            role=main.role,
            injection_position=main.injection_position,
            injection_depth=main.injection_depth,
            injection_order=main.injection_order,
        )
        absolute.insert(at + 1 if position == "end" else at, copy_)

    for ident in ("summary", "authorsNote", "vectorsMemory", "vectorsDataBank", "smartContext"):
        p = prompts.get(ident)
        if p is not None and p.position:
            inject_to_main(p, ident, p.position)
    for p in [p for p in prompts if p.extension and p.position]:
        inject_to_main(p, p.identifier, p.position or "end")

    def make_injected(role: str, content: str) -> dict[str, Any]:
        return {"role": role, "content": content, "name": None, "injected": True}

    compat = g.compat
    if compat.continue_nudge_after_slots and g.type == "continue" and g.s.oai.get("continue_prefill") and messages:
        # 1.18 moves the continued message to the control prompts before the injections.
        first, messages = messages[0], messages[1:]
        prefill = cc.message(first["role"], str(first["content"] or ""), "continuePrefill")
        if first.get("name") and g.s.oai.get("names_behavior") == d.NAMES_COMPLETION:
            cc.set_name(prefill, _sanitize_name(str(first["name"])))
        control.append(prefill)
        cc.reserve(prefill.tokens)
        control_tokens += prefill.tokens
    pool = insert_newest_first(
        absolute,
        messages,
        g.s.table,
        g.sub,
        make_injected,
        max_depth=compat.max_injection_depth,
        by_order=compat.injection_order,
    )
    if g.s.power_user.get("pin_examples"):
        fill_examples(g, cc, prompts, examples)
        fill_history(g, cc, prompts, pool, cycle_prompt)
    else:
        fill_history(g, cc, prompts, pool, cycle_prompt)
        fill_examples(g, cc, prompts, examples)
    cc.free(control_tokens)
    if control:
        cc.add(Group("controlPrompts", control))


def fill_history(
    g: GenerationContext,
    cc: ChatCompletion,
    prompts: PromptCollection,
    pool: Sequence[dict[str, Any]],
    cycle_prompt: str,
) -> None:
    """``populateChatHistory``; ``pool`` is the history (injections included), newest first."""
    oai = g.s.oai
    if not prompts.has("chatHistory"):
        return
    cc.add(Group("chatHistory"), prompts.index("chatHistory"))
    in_group = g.s.cast is not None
    new_chat_text = oai.get("new_group_chat_prompt" if in_group else "new_chat_prompt")
    new_chat = cc.message("system", g.sub(str(new_chat_text or "")), "newMainChat")
    cc.reserve(new_chat.tokens)
    # A group's nudge closes the history (after depth-0 injections); impersonation has none.
    nudge = None
    nudge_prompt = prompts.get("groupNudge") if in_group and g.type != "impersonate" else None
    if nudge_prompt is not None:
        nudge = cc.message(nudge_prompt.role, nudge_prompt.text, "groupNudge")
        cc.reserve(nudge.tokens)
    continue_msg = None
    continue_group: list[Message] = []
    if g.type == "continue" and cycle_prompt and not oai.get("continue_prefill"):
        text = g.sub_extra(str(oai.get("continue_nudge_prompt") or ""), {"lastChatMessage": js_trim(cycle_prompt)})
        continue_msg = cc.message("system", g.sub(text), "continueNudge")
        if g.compat.continue_nudge_after_slots:
            # 1.18: the newest real message leaves the history and goes, with the nudge, after every slot.
            index = next((i for i, m in enumerate(pool) if not m.get("injected")), None)
            if index is not None:
                item = pool[index]
                pool = [*pool[:index], *pool[index + 1 :]]
                continued = cc.message(item["role"], g.sub(item["content"]), f"chatHistory-{len(pool) + 1}")
                if item.get("name") and oai.get("names_behavior") == d.NAMES_COMPLETION:
                    cc.set_name(continued, _sanitize_name(str(item["name"])))
                continue_group.append(continued)
            continue_group.append(continue_msg)
            continue_msg = None
            cc.reserve(sum(m.tokens for m in continue_group))
        else:
            cc.reserve(continue_msg.tokens)
    send_if_empty = str(oai.get("send_if_empty") or "")
    if pool and pool[0]["role"] == "assistant" and send_if_empty:
        filler = cc.message("user", send_if_empty, "emptyUserMessageReplacement")
        if cc.can_afford(filler.tokens):
            cc.insert(filler, "chatHistory")
    first_real = next((m for m in pool if not m.get("injected")), None)
    completion_names = oai.get("names_behavior") == d.NAMES_COMPLETION
    total = len(pool)
    for index, item in enumerate(pool):
        ident = f"chatHistory-{total - index}"
        msg = cc.message(item["role"], g.sub(item["content"]), ident)
        msg.injected = bool(item.get("injected"))
        if completion_names and item.get("name"):
            cc.set_name(msg, _sanitize_name(str(item["name"])))
        if not cc.can_afford(msg.tokens):
            break
        if g.type == "continue" and oai.get("continue_prefill") and item is first_real:
            cc.add(Group("continuePrefill", [msg]), -1)
            continue
        cc.insert(msg, "chatHistory", "start")
    cc.free(new_chat.tokens)
    cc.insert(new_chat, "chatHistory", "start")
    if nudge is not None:
        cc.free(nudge.tokens)
        cc.insert(nudge, "chatHistory", "end")
    if continue_msg is not None:
        cc.free(continue_msg.tokens)
        cc.insert(continue_msg, "chatHistory", "end")
    if continue_group:
        cc.free(sum(m.tokens for m in continue_group))
        cc.add(Group("continueNudge", continue_group), -1)


def fill_examples(
    g: GenerationContext, cc: ChatCompletion, prompts: PromptCollection, examples: list[list[ExampleMessage]]
) -> None:
    """``populateDialogueExamples`` (1.12.6): per message, a block may be cut, later blocks still tried."""
    if not prompts.has("dialogueExamples"):
        return
    cc.add(Group("dialogueExamples"), prompts.index("dialogueExamples"))
    if not examples:
        return
    header = cc.message("system", g.sub(str(g.s.oai.get("new_example_chat_prompt") or "")), "newChat")
    if g.compat.examples_whole_blocks:
        # 1.18: a block goes in whole (with its header) or not at all, and the first miss ends it.
        for di, dialogue in enumerate(examples):
            block = []
            for pi, ex in enumerate(dialogue):
                msg = cc.message("system", ex.content or "", f"dialogueExamples {di}-{pi}")
                cc.set_name(msg, ex.name)
                block.append(msg)
            if not cc.can_afford(header.tokens + sum(m.tokens for m in block)):
                break
            cc.insert(header, "dialogueExamples")
            for msg in block:
                cc.insert(msg, "dialogueExamples")
        return
    for di, dialogue in enumerate(examples):
        added = 0
        if cc.can_afford(header.tokens):
            cc.insert(header, "dialogueExamples")
        for pi, ex in enumerate(dialogue):
            msg = cc.message("system", ex.content or "", f"dialogueExamples {di}-{pi}")
            cc.set_name(msg, ex.name)
            if not cc.can_afford(msg.tokens):
                break
            cc.insert(msg, "dialogueExamples")
            added += 1
        if added == 0:
            cc.remove_last("dialogueExamples")
