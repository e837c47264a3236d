"""The stage in a group chat — the agent way: one beat, several speakers.

Each speaker gets the stage's own request for its card (:func:`peargarden.modes.stage.setup.stage_mode`:
the layered system prompt from that card's files, its lorebooks and tools, the declared preset's
samplers, the chat's story memory), and three things the group adds:

- **the scene**, built once per round and the same in every speaker's request: the roster (every
  member with a line of who they are, who is muted, who has spoken in this round, who speaks
  now) and the rule that this reply is only this member's.  It is appended to the system prompt.
- **the story as the speaker sees it**: the other members' replies carry their name
  (``【周明】…``), so the model knows who said what; when another member spoke last, a cue line
  hands the turn to the speaker (the stage reads the newest user message as the beat's words).
- **``next_speaker``** (when the group lets the model choose, ``speaker_choice = "model"`` in
  ``群.json``): the speaking model names who speaks after it, or hands the turn back to the user.
  Otherwise the group's activation strategy alone decides, as in SillyTavern.

Story memory (scene notes, summaries) lives on the group chat's branch, so every speaker reads
the same notes; lore comes from each speaker's own books.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec.structs import replace

from peargarden.agent.loop import BeatInput, BuiltRequest, RequestBuilder
from peargarden.agent.tools import Tool, ToolContext, ToolResult
from peargarden.modes.base import BeatEnv
from peargarden.modes.stage.setup import stage_mode
from peargarden.providers.base import ChatRequest
from peargarden.sessions.context import ContextMessage

from .scene import GroupScene, group_scene

USER_TURN = "user"
_INTRO_CHARS = 60


def group_stage_setup(env: BeatEnv) -> tuple[RequestBuilder, list[Tool]]:
    scene, avatar = group_scene(env)
    builder, tools = stage_mode(env)
    if scene.speaker_choice == "model":
        tools = [*tools, NextSpeakerTool(scene)]
    return speaker_builder(builder, scene, avatar, env.user_name), tools


def speaker_builder(inner: RequestBuilder, scene: GroupScene, avatar: str, user_name: str) -> RequestBuilder:
    """*inner* (the speaker's own stage builder) fed the story as this speaker sees it, with the
    round's scene appended to its system prompt."""
    start: list[int] = []
    block: list[str] = []

    def build(inp: BeatInput) -> ChatRequest | BuiltRequest:
        if not start or inp.round == 0:
            start[:] = [len(inp.history)]  # what came before this speaker; after it: its own rounds
            block[:] = [scene_block(scene, avatar, user_name)]
        history = [*seen_by(inp.history[: start[0]], scene, avatar), *inp.history[start[0] :]]
        built = inner(replace(inp, history=history))
        if isinstance(built, ChatRequest):
            built = BuiltRequest(built)
        messages = list(built.request.messages)
        if messages and messages[0].get("role") == "system":
            messages[0] = {**messages[0], "content": f"{messages[0]['content']}\n\n{block[0]}"}
        else:
            messages.insert(0, {"role": "system", "content": block[0]})
        built.request = replace(built.request, messages=messages)
        return built

    return build


def seen_by(history: list[ContextMessage], scene: GroupScene, avatar: str) -> list[ContextMessage]:
    """The chat so far as *avatar* reads it: the other members' replies under their names, and a
    cue handing the turn over when the newest message is another member's."""
    me = scene.member(avatar).name
    out: list[ContextMessage] = []
    for message in history:
        if message.role == "assistant" and message.content and message.name and message.name != me:
            message = msgspec.structs.replace(message, content=f"【{message.name}】{message.content}")
        out.append(message)
    last = next((m for m in reversed(out) if m.role in ("user", "assistant") and m.content), None)
    if last is not None and last.role == "assistant":
        out.append(ContextMessage("user", f"（轮到{me}。）", name=None))
    return out


def scene_block(scene: GroupScene, avatar: str, user_name: str) -> str:
    """The round's scene as the system prompt's last section (the same for every speaker but the
    line saying who speaks now)."""
    me = scene.member(avatar)
    lines = [f"# 群聊：{scene.title or '群聊'}", "", "在场的成员："]
    for member_avatar, member in scene.members.items():
        marks = []
        if member_avatar == avatar:
            marks.append("正在发言")
        elif member_avatar in scene.spoken:
            marks.append("本轮已发言")
        if scene.group.is_muted(member_avatar):
            marks.append("静音，不主动发言")
        mark = f"（{'，'.join(marks)}）" if marks else ""
        lines.append(f"- {member.name}{mark}：{_intro(member.card_object)}")
    lines.append(f"- {user_name}：用户扮演的角色")
    lines += ["", f"这一条回复只以「{me.name}」的身份说话和行动：不要替其他成员或{user_name}写台词、做决定。"]
    if scene.speaker_choice == "model":
        lines.append(
            f"写完你的这一段之后，调用 next_speaker 指定下一位发言的成员；"
            f'该{user_name}接话时，把 name 设为 "{USER_TURN}"。'
        )
    return "\n".join(lines)


def _intro(card: dict[str, Any]) -> str:
    fields = card.get("data") if isinstance(card.get("data"), dict) else card
    assert isinstance(fields, dict)
    text = " ".join(str(fields.get("description") or "").split())
    return text if len(text) <= _INTRO_CHARS else text[: _INTRO_CHARS - 1] + "…"


class NextSpeakerTool(Tool):
    """The speaking model names who speaks next (or hands the turn back to the user); this
    speaker's turn ends with the call."""

    name = "next_speaker"
    description = (
        '群聊里：你这一段写完后，指定下一位发言的成员（填成员的名字），或填 "user" 让用户接话。调用后你的这一轮结束。'
    )
    parameters = {  # noqa: RUF012
        "type": "object",
        "properties": {"name": {"type": "string", "description": "下一位发言的成员名字，或 user"}},
        "required": ["name"],
        "additionalProperties": False,
    }
    access = "none"

    def __init__(self, scene: GroupScene) -> None:
        self.scene = scene

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        wanted = str(args.get("name") or "").strip()
        if wanted.casefold() in (USER_TURN, "用户", ""):
            self.scene.handed_to = USER_TURN
            return ToolResult("好的：轮到用户。", {"next": USER_TURN}, ends_beat=True)
        avatar = self.scene.avatar_named(wanted)
        if avatar is None:
            names = "、".join(m.name for m in self.scene.members.values())
            return ToolResult(f"群里没有「{wanted}」。成员：{names}；或填 user。", is_error=True)
        if avatar == self.scene.speaker and not self.scene.group.allow_self_responses:
            return ToolResult("不能指定自己接着说；换一位成员，或填 user。", is_error=True)
        self.scene.handed_to = avatar
        name = self.scene.member(avatar).name
        return ToolResult(f"好的：下一位是{name}。", {"next": name, "card": self.scene.member(avatar).card.folder},
                          ends_beat=True)  # fmt: skip
