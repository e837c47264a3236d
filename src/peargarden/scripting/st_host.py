"""TavernHelper's host over SillyTavern's state (``tavern.state.TavernState``), as SillyTavern 1.18
with TavernHelper 4.9.3 behaves: what ``pear script replay`` runs the recorded cases on.

Macros are SillyTavern's (``substituteParamsExtended``); ``triggerSlash`` runs the STscript
interpreter on the same state (its ``/gen`` requests go to the same model and list); ``generate``
assembles the prompt as SillyTavern does for the chat with the script's input as a new user
message (``max_chat_history`` keeps that many of the newest messages); ``generateRaw`` builds
TavernHelper's own order of prompts (``ordered_prompts``: placeholders and ``{role, content}``
prompts, the latter sent as written).  The model's replies come from a function; every request
body is kept in ``requests``.  Pure: the clock is the state's.
"""

from __future__ import annotations

import copy
import html
import itertools
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from peargarden.stscript.commands import default_registry
from peargarden.stscript.runtime import ClosureValue, Interpreter, Outcome, run_script
from peargarden.tavern import defaults as d
from peargarden.tavern.assemble import Assembly, Generation, generate
from peargarden.tavern.examples import ExampleMessage
from peargarden.tavern.extension_steps import persona_position
from peargarden.tavern.request import chat_completion_model, request_body
from peargarden.tavern.slash_host import TavernSlashHost
from peargarden.tavern.state import TavernState
from peargarden.text.regex_scripts import Placement
from peargarden.variables.jsvalues import UNDEFINED

from . import card_settings
from .host import Emit, GenerateRequest, SlashOutcome
from .injected import checked, set_prompt

_PERSONA_IN_PROMPT = 0
_QUOTES = re.compile(r'```[\s\S]*?```|``[\s\S]*?``|`[\s\S]*?`|(".*?")|(\u201c.*?\u201d)', re.MULTILINE)


@contextmanager
def variables_left_absent(state: TavernState) -> Iterator[None]:
    """Our macro context makes ``chat_metadata.variables`` before it reads it; SillyTavern makes it
    only when a variable is set.  A chat whose variables were never set keeps none."""
    absent = "variables" not in state.chat_metadata
    try:
        yield
    finally:
        if absent and state.chat_metadata.get("variables") == {}:
            del state.chat_metadata["variables"]


def iso(state: TavernState) -> str:
    """The state's clock as ``Date.prototype.toISOString`` prints it."""
    now = state.clock()
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def settings_ready_data(
    state: TavernState, messages: list[dict[str, Any]], gen_type: str, stream: bool
) -> dict[str, Any]:
    """The object ``CHAT_COMPLETION_SETTINGS_READY`` carries: the request SillyTavern sends its own
    server for a custom OpenAI-compatible source (the server then sends ``request_body``)."""
    oai = state.oai
    data: dict[str, Any] = {
        "messages": messages,
        "model": chat_completion_model(oai),
        "temperature": oai.get("temp_openai", oai.get("temperature")),
        "frequency_penalty": oai.get("freq_pen_openai", oai.get("frequency_penalty")),
        "presence_penalty": oai.get("pres_pen_openai", oai.get("presence_penalty")),
        "top_p": oai.get("top_p_openai", oai.get("top_p")),
        "max_tokens": oai.get("openai_max_tokens"),
        "stream": stream,
        "logit_bias": {},
        "chat_completion_source": oai.get("chat_completion_source"),
        "n": oai.get("n", 1),
        "user_name": state.user_name,
        "char_name": state.char_name,
        "group_names": [],
        "include_reasoning": bool(oai.get("show_thoughts", False)),
        "reasoning_effort": oai.get("reasoning_effort", "auto"),
        "enable_web_search": bool(oai.get("enable_web_search", False)),
        "request_images": bool(oai.get("request_images", False)),
        "request_image_resolution": oai.get("request_image_resolution", ""),
        "request_image_aspect_ratio": oai.get("request_image_aspect_ratio", ""),
        "custom_prompt_post_processing": oai.get("custom_prompt_post_processing", ""),
        "verbosity": oai.get("verbosity", "auto"),
        "type": gen_type,
        "custom_url": oai.get("custom_url", ""),
        "custom_include_body": oai.get("custom_include_body", ""),
        "custom_exclude_body": oai.get("custom_exclude_body", ""),
        "custom_include_headers": oai.get("custom_include_headers", ""),
    }
    return data


def activated_entries(state: TavernState, assembly: Assembly) -> list[dict[str, Any]]:
    """The entries ``WORLD_INFO_ACTIVATED`` carries: each stored entry with its book as ``world``."""
    out = []
    for ident in assembly.world_info_activated:
        world, _, uid = ident.rpartition("#")
        entries = (state.worlds.get(world) or {}).get("entries") or {}
        entry = entries.get(uid) if isinstance(entries, dict) else None
        out.append({**(entry if isinstance(entry, dict) else {"uid": uid}), "world": world})
    return out


class RawGeneration(Generation):
    """``generateRaw``: SillyTavern's steps for the card, the chat and world info, then
    TavernHelper's order of prompts instead of the preset's."""

    def __init__(self, state: TavernState, request: GenerateRequest, user_input: str) -> None:
        super().__init__(state, "normal")
        self.request = request
        self.user_input = user_input

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
        order = self.request.order if self.request.order is not None else _DEFAULT_ORDER
        overrides = self.request.overrides or {}
        persona = fields["persona"] if persona_position(self) == _PERSONA_IN_PROMPT else ""
        builtin = {
            "world_info_before": wi_before,
            "persona_description": persona,
            "char_description": fields["description"],
            "char_personality": fields["personality"],
            "scenario": fields["scenario"],
            "world_info_after": wi_after,
        }
        # The script's input is the newest chat message here (world info scanned it): history without it.
        history = [messages[i] for i in range(1, len(messages))]
        limit = self.request.max_chat_history
        if limit is not None:
            history = history[: max(0, limit)]
        if "user_input" not in [str(item).lower() for item in order if isinstance(item, str)]:
            history = [{"role": "user", "content": self.user_input}, *history]
        history = injected(history, self.request.injects)
        names = [item.lower() for item in order if isinstance(item, str)]
        has_history = "chat_history" in names and overrides.get("chat_history") != []
        out: list[dict[str, str]] = []
        for item in order:
            if isinstance(item, dict):
                if item.get("role") and item.get("content"):
                    out.append({"role": str(item["role"]), "content": str(item["content"])})
                continue
            key = str(item).lower()
            if overrides.get(key) == "":
                continue
            if builtin.get(key):
                out.append({"role": "system", "content": str(overrides.get(key, builtin[key]))})
            elif key == "dialogue_examples":
                out.extend({"role": "system", "content": m.content, "name": m.name}
                           for block in examples for m in block if m.content)  # fmt: skip
            elif key == "chat_history" and has_history:
                out.append({"role": "system", "content": self.sub(str(self.s.oai.get("new_chat_prompt") or ""))})
                out.extend({"role": m["role"], "content": self.sub(m["content"])} for m in reversed(history))
            elif key == "user_input":
                out.append({"role": "user", "content": self.user_input})
        if "user_input" not in names and not has_history:
            out.append({"role": "user", "content": self.user_input})
        return Assembly(out, [], self.warnings, 0, 0, 0, 0, 0, "normal")


def injected(history: list[dict[str, Any]], injects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """TavernHelper's ``populationInjectionPrompts`` for a script's own ``injects``: at each depth
    (0 = after the newest message), one message per role (system, user, assistant) joining that
    role's prompts there.  ``history`` is newest first."""
    out = list(history)
    inserted = 0
    depths = sorted({int(p.get("depth") or 0) for p in injects if p.get("content")})
    for depth in (depth for depth in depths if 0 <= depth <= d.MAX_INJECTION_DEPTH):
        here = [p for p in injects if int(p.get("depth") or 0) == depth and p.get("content")]
        joined = []
        for role in ("system", "user", "assistant"):
            text = "\n".join(str(p["content"]) for p in here if (p.get("role") or "system") == role).strip()
            if text:
                joined.append({"role": role, "content": text})
        out[depth + inserted : depth + inserted] = joined
        inserted += len(joined)
    return out


_DEFAULT_ORDER = [
    "world_info_before",
    "persona_description",
    "char_description",
    "char_personality",
    "scenario",
    "world_info_after",
    "dialogue_examples",
    "chat_history",
    "user_input",
]


def slash_outcome(outcome: Outcome) -> SlashOutcome:
    """An STscript run as ``executeSlashCommandsWithOptions`` reports it to a script."""
    if outcome.error is not None:
        return SlashOutcome(thrown=outcome.error.message)
    result = outcome.result
    if result is None:
        return SlashOutcome(pipe=UNDEFINED)
    if result.is_error:
        return SlashOutcome(error=str(result.error_message))
    pipe = result.pipe
    return SlashOutcome(pipe=str(pipe) if isinstance(pipe, ClosureValue) else pipe)


class TavernScriptHost:
    """The ``ScriptHost`` over a ``TavernState``; ``reply(n)`` is the model's n-th reply."""

    def __init__(self, state: TavernState, *, reply: Callable[[int], str]) -> None:
        self.state = state
        self.reply = reply
        self.requests: list[dict[str, Any]] = []
        self.changes: list[str] = []
        self.slash = TavernSlashHost(state, reply=reply)
        self.slash.requests = self.requests  # /gen and /send ask the same model, in the same order
        self._generations = itertools.count(1)
        self._once: set[str] = set()  # injected prompts that last until a generation ends

    # -- data --------------------------------------------------------------------------------------

    @property
    def chat(self) -> list[dict[str, Any]]:
        return self.state.chat

    @property
    def chat_metadata(self) -> dict[str, Any]:
        return self.state.chat_metadata

    @property
    def user_name(self) -> str:
        return self.state.user_name

    @property
    def char_name(self) -> str:
        return self.state.char_name

    @property
    def character_id(self) -> str:
        return self.state.avatar

    def character(self) -> dict[str, Any]:
        return self.state.card

    def global_variables(self) -> dict[str, Any]:
        return self.slash.variable_store("global")

    def set_global_variables(self, value: dict[str, Any]) -> None:
        self.state.extension_settings.setdefault("variables", {})["global"] = value

    def tavern_helper(self) -> dict[str, Any] | None:
        extensions = self.state.card.setdefault("data", {}).setdefault("extensions", {})
        helper = card_settings.current(extensions)
        helper.setdefault("variables", {})
        return helper

    def preset_tavern_helper(self) -> dict[str, Any] | None:
        extensions = self.state.oai.setdefault("extensions", {})
        found = extensions.get("tavern_helper")
        helper: dict[str, Any] = found if isinstance(found, dict) else {}
        extensions["tavern_helper"] = helper
        helper.setdefault("variables", {})
        return helper

    def extension_settings(self) -> dict[str, Any]:
        return self.state.extension_settings

    def changed(self, part: str) -> None:
        self.changes.append(part)

    # -- macros and STscript -----------------------------------------------------------------------

    def _context(self) -> Generation:
        gen = Generation(self.state, "normal", dry_run=True)
        _, gen.card_fields = gen.card_macro_fields()
        return gen

    def expand_macros(self, text: str) -> str:
        with variables_left_absent(self.state):
            return self._context().sub(text)

    def run_slash(self, text: str) -> SlashOutcome:
        self.slash.refresh()
        with variables_left_absent(self.state):
            return slash_outcome(run_script(Interpreter(default_registry(), self.slash), text))

    def inject(self, prompts: list[dict[str, Any]], *, once: bool) -> None:
        self._injected(prompts, once=once)  # checked by the API (``injected.checked``)

    def _injected(self, prompts: list[dict[str, Any]], *, once: bool) -> None:
        for prompt in prompts:
            set_prompt(self.state.table, prompt)
            if once:
                self._once.add(prompt["id"])

    def uninject(self, ids: list[str]) -> None:
        for key in ids:
            self.state.table.entries.pop(key, None)
            self._once.discard(key)

    def generation_ended(self) -> None:
        """A generation ended: prompts injected ``once`` are taken out (TavernHelper listens for
        ``GENERATION_ENDED`` and its own end of a script's generation)."""
        self.uninject(sorted(self._once))

    def format_message(self, text: str, message_id: int) -> str:
        """The main steps of ``messageFormatting`` for plain text: the greeting's macros, the display
        regex scripts, quotes marked ``<q>``, paragraphs and line breaks (not showdown's full
        Markdown)."""
        with variables_left_absent(self.state):
            return self._formatted(text, message_id)

    def _formatted(self, text: str, message_id: int) -> str:
        message = self.chat[message_id]
        gen = self._context()
        if message_id == 0 and not message.get("is_system") and not message.get("is_user"):
            text = gen.sub(text)
        placement = Placement.USER_INPUT if message.get("is_user") else Placement.AI_OUTPUT
        text = gen.regexed(text, placement, depth=None)

        def quote(match: re.Match[str]) -> str:
            if match.group(1):
                return f"<q>{html.escape(match.group(1), quote=False)}</q>"
            if match.group(2):
                return f"<q>{html.escape(match.group(2), quote=False)}</q>"
            return html.escape(match.group(0), quote=False)

        pieces = []
        last = 0
        for match in _QUOTES.finditer(text):
            pieces.append(html.escape(text[last : match.start()], quote=False))
            pieces.append(quote(match))
            last = match.end()
        pieces.append(html.escape(text[last:], quote=False))
        body = "".join(pieces).strip("\n")
        paragraphs = [p.replace("\n", "<br>\n") for p in re.split(r"\n{2,}", body) if p]
        return "\n".join(f"<p>{p}</p>" for p in paragraphs)

    # -- generation --------------------------------------------------------------------------------

    def _user_input(self, text: str) -> str:
        gen = self._context()
        text = gen.sub(text)
        if text == "":
            text = str(self.state.oai.get("send_if_empty") or "").strip()
        return gen.regexed(text, Placement.USER_INPUT, is_prompt=True, depth=0)

    def _scratch(self, request: GenerateRequest, user_input: str) -> TavernState:
        """The chat a script's generation sees: its messages copied (a prompt's macros must not
        change them), the newest ``max_chat_history`` kept, the script's input after them."""
        state = copy.copy(self.state)
        visible = [copy.deepcopy(m) for m in self.state.chat if not m.get("is_system")]
        limit = request.max_chat_history
        if limit is not None and request.use_preset:
            visible = visible[len(visible) - max(0, limit) :] if limit > 0 else []
        message = {"name": self.state.user_name, "is_user": True, "is_system": False, "mes": user_input, "extra": {}}
        state.chat = [*visible, message]
        state.chat_metadata = dict(self.state.chat_metadata)
        return state

    def generate(self, request: GenerateRequest, emit: Emit) -> str:
        """TavernHelper's ``iframeGenerate``: its events, the prompt, the request, the reply."""
        with variables_left_absent(self.state):
            return self._generate(request, emit)

    def _generate(self, request: GenerateRequest, emit: Emit) -> str:
        generation_id = request.generation_id or f"pear-generate-{next(self._generations)}"
        user_input = self._user_input(request.user_input)
        emit("GENERATION_AFTER_COMMANDS", ["normal", {}, False])
        if request.use_preset and request.injects:
            custom = [{"id": f"TH-CustomInjects-{generation_id}-{i}", **p} for i, p in enumerate(request.injects)]
            self._injected(checked(custom), once=True)  # this generation's own, not the chat's
        scratch = self._scratch(request, user_input)
        if request.use_preset:
            assembly = generate(scratch, "normal")
        else:
            raw = RawGeneration(scratch, request, user_input)
            try:
                assembly = raw.run()
            except Exception as error:  # as generate(): bad content never takes the program down
                assembly = Assembly([], [], [*raw.warnings, f"无法组装提示词（{type(error).__name__}: {error}）"],
                                    0, 0, 0, 0, 0, "normal")  # fmt: skip
        if assembly.world_info_activated:
            emit("world_info_activated", [activated_entries(self.state, assembly)])
        messages = assembly.messages
        emit("chat_completion_prompt_ready", [{"chat": messages, "dryRun": False}])
        emit("generate_after_data", [{"prompt": messages}, False])
        emit("js_generation_started", [generation_id])
        emit("chat_completion_settings_ready", [settings_ready_data(self.state, messages, "normal", request.stream)])
        oai = {**self.state.oai, "stream_openai": request.stream}
        body = request_body(oai, messages, "normal", stop=assembly.stop,
                            omit_empty_bias=self.state.compat.omit_empty_logit_bias)  # fmt: skip
        self.requests.append(body)
        text = self.reply(len(self.requests))
        emit("js_generation_before_end", [{"message": text}, generation_id])
        emit("js_generation_ended", [text, generation_id])
        self.generation_ended()
        return text

    # -- world books -------------------------------------------------------------------------------

    def world_names(self) -> list[str]:
        return sorted(self.state.worlds)

    def load_world(self, name: str) -> dict[str, Any] | None:
        book = self.state.worlds.get(name)
        return dict(copy.deepcopy(book)) if isinstance(book, dict) else None

    def save_world(self, name: str, data: dict[str, Any]) -> None:
        self.state.worlds[name] = data  # a new dict: the state's parsed-book caches see a new book

    def delete_world(self, name: str) -> bool:
        return self.state.worlds.pop(name, None) is not None

    def _selection(self) -> dict[str, Any]:
        found = self.state.wi_settings.get("world_info")
        return found if isinstance(found, dict) else {}

    def character_worlds(self) -> tuple[str | None, list[str]]:
        primary = self.state.card_extensions.get("world")
        avatar = self.state.avatar.rsplit(".", 1)[0]
        extra: list[str] = []
        for lore in self._selection().get("charLore") or []:
            if isinstance(lore, dict) and lore.get("name") == avatar:
                extra.extend(str(b) for b in lore.get("extraBooks") or [])
        return (str(primary) if isinstance(primary, str) and primary else None), extra

    def global_worlds(self) -> list[str]:
        return [str(n) for n in self._selection().get("globalSelect") or []]

    def chat_world(self) -> str | None:
        name = self.state.chat_metadata.get("world_info")
        return name if isinstance(name, str) and name else None


__all__ = [
    "RawGeneration",
    "TavernScriptHost",
    "activated_entries",
    "injected",
    "iso",
    "settings_ready_data",
    "slash_outcome",
    "variables_left_absent",
]
