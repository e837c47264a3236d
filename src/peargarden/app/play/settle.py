"""A reply saved without its variables record is finished when the chat is next claimed.

A beat writes a reply's line as soon as the reply is complete, and its variables record (MVU's, the
reply's ``<UpdateVariable>`` applied) a moment later, in the mode's step after it.  A process killed
between the two leaves a complete reply whose update nobody applied, and the next beat would carry
on from the variables before it.  So when a chat is claimed and its lock file still names the
process that held it (a clean release empties the file: that process died holding the chat), the
branch's last message is checked: a complete reply (not a greeting, not a crash's incomplete
message) that has no variables note gets the mode's variables step now — the same step, over the
same branch, as the beat would have run it, without the side model (no request on a claim).
"""

from __future__ import annotations

from peargarden.agent.result import BeatResult, Reply
from peargarden.errors import PearError
from peargarden.modes.base import AfterBeat, BranchView
from peargarden.sessions.entries import GREETING_TAG, Entry
from peargarden.sessions.variables import MESSAGE_VARIABLES_TYPE

from .checkpoints import INCOMPLETE
from .mode_steps import step_failed


def unsettled_reply(view: BranchView) -> Entry | None:
    """The branch's last message when it is a complete reply with no variables note, else ``None``."""
    messages = view.tree.messages()
    last = messages[-1] if messages else None
    if last is None or last.role != "assistant" or last.message.get("tool_calls"):
        return None
    tags = last.message.get("tags") or []
    if GREETING_TAG in tags or INCOMPLETE in tags or not str(last.message.get("content") or "").strip():
        return None
    for note in reversed(view.tree.customs(MESSAGE_VARIABLES_TYPE)):
        data = note.body.get("data")
        if isinstance(data, dict) and data.get("message") == last.id:
            return None
    return last


def settle(view: BranchView, step: AfterBeat, reply: Entry) -> list[str]:
    """Run the variables *step* for *reply*, the branch's last message, as its beat would have; the
    lines it says (a failure is one line naming the step: a claim never fails for it)."""
    text = str(reply.message.get("content") or "")
    result = BeatResult("send", stop_reason=str(reply.message.get("stop_reason") or "stop"),
                        replies=[Reply(str(reply.message.get("name") or ""), text_parts=[text])])  # fmt: skip
    try:
        return list(step(view, _NoSideModel(), result) or ())
    except Exception as error:  # a mode's bug must not make the chat unopenable
        return [step_failed("variables", error)]


class _NoSideModel:
    """A claim sends no request: the steps see a side model that is stopped."""

    def __call__(self, system: str, user: str, max_tokens: int, *, purpose: str = "side") -> str:
        raise PearError("认领对话时不调用旁路模型")

    def stopped(self) -> bool:
        return True
