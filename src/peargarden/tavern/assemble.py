"""One SillyTavern Chat Completion generation (1.12.6, or 1.18.0 via `state.compat`): state → message list.

The steps follow ``Generate()`` and ``prepareOpenAIMessages()`` in their order (see the spec
§2.1): card fields, character's note, greeting refresh, core chat with prompt-time regex,
examples, Author's Note, persona, world info, then the Prompt Manager collection, the budgeted
fill and the in-context marker.  Nothing here touches files, the clock or randomness directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from peargarden.text.regex_scripts import Placement, is_static

from . import defaults as d
from .chat_completion import ChatCompletion, SlotNotFound, TokenBudgetExceeded, cost_function
from .context import GEN_TYPES, GenerationContext
from .examples import ExampleMessage, block_to_messages, parse_mes_examples
from .extension_steps import bias, openai_messages, set_authors_note, set_depth_prompt, set_persona
from .fill import populate, prepare_prompts
from .lazy_chat import ChatPair, LazyList
from .prompts import load_prompt_manager
from .request import custom_stop_strings
from .state import TavernState
from .world_info_step import world_info

__all__ = ["GEN_TYPES", "Assembly", "Generation", "GenerationContext", "LedgerRow", "generate"]


class LedgerRow(msgspec.Struct):
    slot: str
    role: str
    tokens: int
    head: str
    name: str | None = None


class Assembly(msgspec.Struct):
    """The result of one generation's prompt assembly."""

    messages: list[dict[str, str]]
    ledger: list[LedgerRow]
    warnings: list[str]
    budget: int  # context − response − 3
    used: int  # tokens of the placed messages (+3 priming)
    history_tokens: int
    in_context_count: int
    last_in_context_index: int
    gen_type: str
    world_info_activated: list[str] = msgspec.field(default_factory=list)
    world_info_fired: list[dict[str, str]] = msgspec.field(default_factory=list)  # the same, by title, book and uid
    context: int = 0  # the context size it was assembled for (the preset's openai_max_context)
    response: int = 0  # the reply's share of it (openai_max_tokens)
    stop: list[str] = msgspec.field(default_factory=list)  # the request's ``stop`` (custom stopping strings)


class Generation(GenerationContext):
    """One run of ST's ``Generate(type)`` for the state (mutates chat metadata as ST does)."""

    def run(self) -> Assembly:
        s = self.s
        s.fill_note_metadata()
        fields, self.card_fields = self.card_macro_fields()
        set_depth_prompt(self)
        if s.chat:
            s.chat[0]["mes"] = self.sub(str(s.chat[0].get("mes") or ""))
            self._envs.clear()  # {{lastMessage}} may have been the greeting
        core_src = [m for m in s.chat if not m.get("is_system")]
        if self.type == "swipe" and core_src:
            core_src = core_src[:-1]
        last_index = len(core_src) - 1
        # 1.18 counts regex depth from the message being continued (it is at depth -1).
        depth_shift = 1 if self.type == "continue" and self.compat.regex_min_depth_minus_one else 0

        def regexed_message(depth: int) -> ChatPair:
            # Prompt-time regex of the message ``depth`` places from the end (0 = newest).
            m = core_src[last_index - depth]
            placement = Placement.USER_INPUT if m.get("is_user") else Placement.AI_OUTPUT
            raw = m.get("mes")
            text = raw if isinstance(raw, str) else str(raw or "")
            return m, self.regexed(text, placement, is_prompt=True, depth=depth - depth_shift)

        core = LazyList(len(core_src), regexed_message)  # newest first, built only where read
        if not all(is_static(sc) for sc in self.regex.scripts()):
            # A script whose replacement runs macros (variables, random…) has side effects; ST runs
            # it over every message, oldest first, so do the same instead of lazily.
            for depth in range(last_index, -1, -1):
                core[depth]
        examples_raw = parse_mes_examples(fields["mesExamples"])
        an_active = set_authors_note(self)
        if not self.compat.persona_after_world_info:
            set_persona(self, an_active)
        s.table.set(d.QUIET_KEY, "", d.IN_PROMPT, 0, True)
        wi_before, wi_after, wi_examples = world_info(self, core, an_active)
        s.table.set(d.QUIET_KEY, "", d.IN_PROMPT, 0, True)
        if self.compat.persona_after_world_info:
            # 1.18: the scan saw the persona entry left by the previous generation.
            set_persona(self, an_active)
        for position, content in wi_examples:
            if not content:
                continue
            cleaned = parse_mes_examples(self.base_replace(content))
            if position == "before":
                examples_raw[0:0] = cleaned
            else:
                examples_raw.extend(cleaned)
        if s.power_user.get("strip_examples"):
            examples_raw = []
        messages = openai_messages(self, core)
        cast = s.cast
        member_names = cast.names() if cast is not None and self.compat.group_example_member_names else []
        example_blocks = [
            block_to_messages(b, self.name1, self.name2, group_names=member_names, prefix_names=cast is not None)
            for b in examples_raw
        ]
        cycle_prompt = ""
        if self.type == "continue" and core:
            cycle_prompt = core[0][1]
            if not cycle_prompt.endswith(" "):
                cycle_prompt += str(s.oai.get("continue_postfix", " ") or "")
        return self.prepare_openai_messages(
            fields, wi_before, wi_after, bias(self), cycle_prompt, messages, example_blocks
        )

    def prepare_openai_messages(
        self,
        fields: dict[str, str],
        wi_before: str,
        wi_after: str,
        bias: str,
        cycle_prompt: str,
        messages: Sequence[dict[str, Any]],
        examples: list[list[ExampleMessage]],
    ) -> Assembly:
        oai = self.s.oai
        cost = cost_function(self.counter)
        context = self.context_size
        response = self.response_length
        cc = ChatCompletion(cost, context, response)
        pm = load_prompt_manager(oai)
        self.warnings.extend(pm.warnings)
        try:
            prompts = prepare_prompts(self, pm, fields, wi_before, wi_after, bias)
            populate(self, cc, pm, prompts, bias, cycle_prompt, messages, examples)
        except TokenBudgetExceeded as error:
            self.warnings.append(
                f"固定部分超出上下文预算（{error.identifier}）：按 SillyTavern 的做法仍发送已拼好的部分"
            )
        except SlotNotFound as error:
            self.warnings.append(f"找不到 {error.identifier} 槽位（主提示被设为聊天内？），组装提前结束")
        except Exception as error:  # ST also catches everything here and sends what it has
            self.warnings.append(f"组装时出现意外错误（{type(error).__name__}: {error}），只发送已拼好的部分")
        if oai.get("squash_system_messages") and not self.dry_run:
            cc.squash_system_messages()
        assembly = self.finish(cc, context - response - 3)
        assembly.context, assembly.response = context, response
        # sendOpenAIRequest adds the custom stopping strings after the prompt is built.
        assembly.stop = custom_stop_strings(self.s.power_user, self.sub)
        return assembly

    def finish(self, cc: ChatCompletion, budget: int) -> Assembly:
        ledger: list[LedgerRow] = []
        out: list[dict[str, str]] = []
        history_tokens = 0
        used = 3
        for slot in cc.slots:
            if slot is None:
                continue
            for m in slot.messages:
                if not m.content:
                    continue
                out.append(m.as_dict(name_last=cc.squashed or self.s.compat.name_after_content))
                label = m.identifier
                if m.injected:
                    label = f"{m.identifier}(注入)"
                ledger.append(LedgerRow(label, m.role, m.tokens, m.content[:40].replace("\n", "⏎"), m.name))
                used += m.tokens
                if slot.identifier == "chatHistory" and m.identifier.startswith("chatHistory-"):
                    history_tokens += m.tokens
        count = sum(1 for m in out if m["role"] in ("user", "assistant"))
        if self.type in ("swipe", "regenerate", "continue"):
            count += 1
        last_in_context = max(0, len(self.s.chat) - count)
        fixed = used - history_tokens
        if budget > 0 and budget - fixed < budget / 4:
            self.warnings.append(
                f"固定部分占了 {fixed} / {budget} token，留给聊天历史的不到四分之一：可以关掉一些提示词条目或世界书条目"
            )
        if not self.dry_run:
            self.s.chat_metadata["lastInContextMessageId"] = last_in_context
        return Assembly(
            messages=out,
            ledger=ledger,
            warnings=self.warnings,
            budget=budget,
            used=used,
            history_tokens=history_tokens,
            in_context_count=count,
            last_in_context_index=last_in_context,
            gen_type=self.type,
            world_info_activated=list(self.activated),
            world_info_fired=list(self.fired),
        )


def generate(
    state: TavernState, gen_type: str = "normal", *, dry_run: bool = False, quiet_prompt: str = ""
) -> Assembly:
    """Assemble the Chat Completion messages for one generation of ``gen_type``.

    Never raises for bad content: an unexpected failure before the Prompt Manager step gives an
    empty assembly whose warning says what went wrong (the caller prints it).
    """
    generation = Generation(state, gen_type, dry_run=dry_run)
    generation.quiet_prompt = quiet_prompt
    try:
        return generation.run()
    except Exception as error:  # one bad card field must not take the program down
        warnings = [*generation.warnings, f"无法组装提示词（{type(error).__name__}: {error}）"]
        return Assembly([], [], warnings, 0, 0, 0, 0, 0, generation.type)
