"""The stage's way with a card's variables (MVU): shown as a state block, changed through a tool.

A card made for SillyTavern + MVU tells the model to end every reply with an ``<UpdateVariable>``
block of text commands (its ``[mvu_update]`` lorebook entries) and shows it the variables through
``{{format_message_variable::stat_data}}``.  On the stage:

- the request's templates and TavernHelper macros are evaluated as in tavern mode (the late step of
  :mod:`peargarden.modes.tavern.variables`), and when no entry of the card shows the variables, a
  state block does (``<status_current_variable>`` with the YAML the macro would give);
- the ``[mvu_update]`` entries leave the stage's lore (:mod:`.materials`) and become the guidance of
  the :data:`TOOL_NAME` tool, whose body is a JSON Patch applied by MVU's own rules (the schema's
  refusals included), judged by the sandbox like every tool;
- a reply that still carries an ``<UpdateVariable>`` block has it applied and stripped: what the
  user is shown carries no update block (the model's words stay in the session, see
  :mod:`peargarden.sessions.variables`);
- with thinking off or the embedded model (no tools), the side model does the update after the beat,
  like MVU's "extra model" mode.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from peargarden.agent.loop import BeatInput, BuiltRequest, RequestBuilder
from peargarden.agent.result import BeatResult
from peargarden.agent.tools import Tool, ToolContext, ToolResult
from peargarden.errors import PearError
from peargarden.providers.base import ChatRequest
from peargarden.sessions.variables import CHAT_METADATA_TYPE, MESSAGE_VARIABLES_TYPE, chat_metadata
from peargarden.variables.history import is_mvu_data, last_valid_variables
from peargarden.variables.jsvalues import clone
from peargarden.variables.marks import Lorebook, is_update_rules
from peargarden.variables.yaml_dump import yaml_stringify

from ..base import AfterBeat, BeatEnv, BranchView, ModeSetup, SideCall, chat_memo
from ..chat_variables import (
    StChat,
    beat_notes,
    mvu_active,
    pending_records,
    prepare_for,
    scripts_allowed,
)
from ..tavern.variables import (
    beat_reply,
    branch_chat,
    card_books,
    card_schema,
    greeting_swipes,
    late_step,
    request_variables,
)

if TYPE_CHECKING:
    from peargarden.variables.zod_schema import MvuSchema

TOOL_NAME = "variables_update"
_BEAT_KEY = "stage.variables"
_UPDATE_BLOCK = re.compile(r"\s*<(UpdateVariable)>(?:(?!<\1>)[\s\S])*?(?:</\1>|$)", re.IGNORECASE)
_RULES_LIMIT = 4000
SIDE_MAX_TOKENS = 1024

TOOL_DESCRIPTION = (
    "更新本段对话的变量（MVU 的 stat_data，见系统提示里的 <status_current_variable>）。参数 patch 是 JSON Patch："
    "path 用 / 分隔（如 /小梨/好感度），replace 改值，delta 给数字加减，add/insert 往数组或对象里加（数组末尾用 /-），"
    "remove 删除。只写这一拍里真正变了的；不要在正文里写 <UpdateVariable>。"
)


def update_rules(books: Sequence[Lorebook]) -> str:
    """The card's ``[mvu_update]`` entries, joined (what the tool's guidance quotes)."""
    texts = [str(e.get("content") or "").strip() for b in books for e in b.ordered_entries() if is_update_rules(e)]
    joined = "\n\n".join(text for text in texts if text)
    return joined if len(joined) <= _RULES_LIMIT else joined[: _RULES_LIMIT - 1] + "…"


def tool_description(rules: str) -> str:
    if not rules:
        return TOOL_DESCRIPTION
    return (
        f"{TOOL_DESCRIPTION}\n\n卡片作者的变量规则如下（原本要求在正文末尾写 <UpdateVariable> 命令；"
        f"在这里请改用本工具的 JSON Patch 表达同样的变化）：\n{rules}"
    )


def strip_updates(text: str) -> str:
    """*text* without its ``<UpdateVariable>`` blocks (an unclosed one runs to the end)."""
    return _UPDATE_BLOCK.sub("", text).rstrip() if "<" in text else text


def state_block(record: Mapping[str, Any] | None) -> str:
    """The variables as ``{{format_message_variable::stat_data}}`` shows them, in MVU's wrapper."""
    data = (record or {}).get("stat_data")
    if not isinstance(data, dict) or not data:
        return ""
    return f"<status_current_variable>\n{yaml_stringify(data).rstrip()}\n</status_current_variable>"


def _beat_memo(env: BeatEnv) -> dict[str, Any]:
    """This beat's variables: ``base`` (in force before the beat), ``record`` (after the tool's patches)."""
    return chat_memo(env, _BEAT_KEY, dict)


class VariablesTool(Tool):
    """``variables_update``: a JSON Patch applied to the chat's variables by MVU's rules."""

    name = TOOL_NAME
    access = "write"
    parameters = {  # noqa: RUF012  (read-only)
        "type": "object",
        "properties": {
            "patch": {
                "type": "array",
                "description": "JSON Patch 操作列表",
                "items": {
                    "type": "object",
                    "properties": {
                        "op": {"type": "string", "enum": ["replace", "delta", "add", "insert", "remove"]},
                        "path": {"type": "string", "description": "如 /小梨/好感度"},
                        "value": {"description": "新值；delta 时是要加上的数"},
                    },
                    "required": ["op", "path"],
                },
            },
            "reason": {"type": "string", "description": "一句话说明为什么变"},
        },
        "required": ["patch"],
    }

    def __init__(self, env: BeatEnv, rules: str, schema: MvuSchema | None = None) -> None:
        self._env = env
        self._schema = schema
        self.description = tool_description(rules)

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        memo = _beat_memo(self._env)
        record = memo.get("record") or memo.get("base")
        if not is_mvu_data(record):
            return ToolResult("这段对话还没有变量（no variables yet）", is_error=True)
        from peargarden.variables.update import update_variables

        work = clone(record)
        patch = json.dumps(args.get("patch") or [], ensure_ascii=False)
        try:
            block = f"<UpdateVariable><JSONPatch>{patch}</JSONPatch></UpdateVariable>"
            result = update_variables(block, work, schema=self._schema)
        except PearError as error:
            return ToolResult(f"变量没有更新：{error}", is_error=True)
        memo["record"] = work
        delta = work.get("delta_data")
        # A zod card's record keeps no change lines (mvu_zod drops them): the changes are the difference.
        if isinstance(delta, dict):
            changes = _change_lines(delta)
        else:
            old = record.get("stat_data") if isinstance(record, dict) else None
            changes = changed_paths(old, work.get("stat_data"))
        lines = changes or ["变量没有变化"]
        lines += [f"跳过：{warning}" for warning in result.warnings]
        return ToolResult("\n".join(lines), details={"changes": changes, "refused": result.warnings},
                          is_error=bool(result.warnings) and not changes)  # fmt: skip


def changed_paths(before: object, after: object, prefix: str = "") -> list[str]:
    """``路径: 旧->新`` for every leaf that differs between two ``stat_data`` (added and removed too)."""
    if isinstance(before, dict) and isinstance(after, dict):
        keys = list(dict.fromkeys([*before, *after]))
        return [line for key in keys for line in changed_paths(before.get(key), after.get(key), f"{prefix}{key}.")]
    if before == after:
        return []
    shown = [json.dumps(value, ensure_ascii=False) if value is not None else "（无）" for value in (before, after)]
    return [f"{prefix[:-1]}: {shown[0]}->{shown[1]}"]


def _change_lines(delta: object, prefix: str = "") -> list[str]:
    if isinstance(delta, dict):
        return [line for key, value in delta.items() for line in _change_lines(value, f"{prefix}{key}.")]
    return [] if delta is None else [f"{prefix[:-1]}: {delta}"]


def tools_offered(env: BeatEnv) -> bool:
    """The main model gets the tool (else the side model updates after the beat)."""
    return not env.embedded and env.thinking != "off"


class _Card(msgspec.Struct, frozen=True):
    books: list[Lorebook]
    active: bool
    schema: MvuSchema | None


def _card(env: BeatEnv) -> _Card:
    books = card_books(env)
    return _Card(books, mvu_active(scripts_allowed(env), books), card_schema(env))


def with_variables(inner: ModeSetup) -> ModeSetup:
    """*inner* (the stage's setup) with the card's variables: the late step, the state block, the tool."""

    def setup(env: BeatEnv) -> tuple[RequestBuilder, list[Tool]]:
        builder, tools = inner(env)
        card = _card(env)
        if (card.active or env.shares_variables) and tools_offered(env):
            tools = [*tools, VariablesTool(env, update_rules(card.books), card.schema)]
        return _variables_builder(env, builder), tools

    return setup


def _variables_builder(env: BeatEnv, inner: RequestBuilder) -> RequestBuilder:
    def build(inp: BeatInput) -> BuiltRequest:
        built = inner(inp)
        if isinstance(built, ChatRequest):
            built = BuiltRequest(built)
        known = request_variables(env, inp)
        memo = _beat_memo(env)
        if inp.round == 0:
            memo.clear()
            memo["base"] = known.chat.in_force() if known.prepared is not None else None
        metadata = chat_metadata(inp.custom_entries)
        before = dict(metadata.get("variables") or {}) if isinstance(metadata.get("variables"), dict) else {}
        late = late_step(env, known, built.request.messages, metadata, None, ())
        messages = late.messages
        record = memo.get("record") or memo.get("base")
        block = state_block(record) if known.prepared is not None else ""
        if block and messages and messages[0].get("role") == "system":
            shown = yaml_stringify(record.get("stat_data")).rstrip() if isinstance(record, dict) else ""
            if not any(shown and shown in str(m.get("content") or "") for m in messages):
                messages[0] = {**messages[0], "content": f"{messages[0]['content']}\n\n{block}"}
        built.request.messages = messages
        built.warnings = [*built.warnings, *late.warnings]
        if metadata.get("variables", {}) != before:
            built.customs = [*built.customs, (CHAT_METADATA_TYPE, metadata)]
        return built

    return build


_SIDE_SYSTEM = (
    "你是变量记录员。读【当前变量】和【本轮对话】，判断这一拍里哪些变量真的变了，只输出一个 <UpdateVariable> 块，"
    "里面放一个 <JSONPatch>[…]</JSONPatch>（path 用 / 分隔，replace 改值，delta 给数字加减，add/insert 加入，"
    "remove 删除）。没有变化就输出 <UpdateVariable></UpdateVariable>。不要写别的。"
)


def side_update(side: SideCall, record: Mapping[str, Any], rules: str, user: str, reply: str) -> str:
    """The side model's update block for one beat (MVU's "extra model" mode)."""
    system = _SIDE_SYSTEM + (f"\n\n卡片的变量规则：\n{rules}" if rules else "")
    text = f"【当前变量】\n{state_block(record)}\n\n【本轮对话】\n{user}\n\n{reply}"
    return side(system, text, SIDE_MAX_TOKENS, purpose="variables")


def after_beat(view: BranchView, side: SideCall, result: BeatResult) -> Iterator[str] | None:
    """The reply's variables (the tool's patches, the reply's own block, or the side model's) written
    to the branch, its update block stripped from what is shown; ``None`` for a card without them."""
    env = view.env
    card = _card(env)
    # A branch holds MVU records only in its notes: without any, a card without MVU is decided
    # without reading the branch (a long chat's beat would build the whole of it as ST's chat).
    chat = None
    if scripts_allowed(env) is not False and (card.active or view.tree.customs(MESSAGE_VARIABLES_TYPE)):
        chat = branch_chat(view)
    if chat is None or not (card.active or chat.has_mvu()):
        _beat_memo(env).clear()
        return None
    return _write(view, side, result, chat, card)


def _write(view: BranchView, side: SideCall, result: BeatResult, chat: StChat, card: _Card) -> Iterator[str]:
    env = view.env
    books = card.books
    memo = _beat_memo(env)
    pending = pending_records(env)
    reply_id = beat_reply(chat, result)
    prepared = prepare_for(env.group_chat)(chat, books, pending, reply_id, card.schema)
    start = memo.get("record")
    index = chat.index_of(reply_id) if reply_id else None
    warnings: list[str] = []
    if index is not None and start is None and not tools_offered(env) and not side.stopped():
        text = chat.messages[index]["mes"]
        if not _UPDATE_BLOCK.search(text):
            base = last_valid_variables(chat.messages, index)
            if is_mvu_data(base):
                from peargarden.variables.update import update_variables

                try:
                    block = side_update(side, base, update_rules(books), _user_line(chat, index, view), text)
                    start = clone(base)
                    update_variables(block, start, schema=card.schema)
                except PearError as error:
                    warnings.append(f"副模型没能更新变量：{error}")
                    start = None
    update = beat_notes(prepared, reply_id, greeting_swipes(view, chat, prepared.seeded), books=books,
                        start=start, shown=strip_updates, schema=card.schema)  # fmt: skip
    for data in update.notes:
        view.append_custom(MESSAGE_VARIABLES_TYPE, data)
        pending.pop(str(data["message"]), None)
    memo.clear()
    for warning in dict.fromkeys([*warnings, *update.warnings]):  # several uses may say the same
        yield f"变量更新：{warning}"


def _user_line(chat: StChat, index: int, view: BranchView) -> str:
    user = next((chat.messages[i]["mes"] for i in range(index - 1, -1, -1) if chat.messages[i]["is_user"]), "")
    return f"{view.user_name}：{user}\n{view.char_name}：" if user else f"{view.char_name}："


def chained(*steps: AfterBeat) -> AfterBeat:
    """Several after-beat steps as one: each decides at once, the work runs in order."""

    def after(view: BranchView, side: SideCall, result: BeatResult) -> Iterator[str] | None:
        works = [work for step in steps if (work := step(view, side, result)) is not None]
        if not works:
            return None
        return (line for work in works for line in work)

    return after
