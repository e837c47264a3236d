"""The sandbox judge inside the approvals flow: the four answers and where each grant is kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from peargarden.agent.approvals import SESSION_GRANT_TYPE, ApprovalAnswer, ApprovalRequest
from peargarden.agent.execute import Approvals, execute_call
from peargarden.agent.tools import ToolContext, ToolRegistry
from peargarden.app.play.sandbox_judge import make_card_grant_recorder, make_sandbox_judge
from peargarden.modes.work.bash_tool import BashTool
from peargarden.modes.work.file_tools import ReadTool
from peargarden.providers.base import ToolCall
from peargarden.workspace.home import Home


def _run(call: ToolCall, ctx: ToolContext, approvals: Approvals) -> tuple[list[Any], Any]:
    events: list[Any] = []
    gen = execute_call(call, ToolRegistry([ReadTool(), BashTool(isolate=False)]), ctx, approvals)
    try:
        while True:
            events.append(next(gen))
    except StopIteration as done:
        return events, done.value


def _ctx(data_root: Path, customs: list[dict[str, Any]]) -> ToolContext:
    def append(kind: str, data: Any) -> None:
        customs.append({"customType": kind, "data": data})

    return ToolContext(
        home=data_root, card_dir=data_root / "cards" / "青梧", chat_id="当前局", mode="work",
        custom_entries=customs, append_custom=append,
    )  # fmt: skip


def _approvals(data_root: Path, answers: list[ApprovalAnswer | None], asked: list[ApprovalRequest]) -> Approvals:
    def approver(request: ApprovalRequest) -> ApprovalAnswer | None:
        asked.append(request)
        return answers.pop(0)

    return Approvals(make_sandbox_judge(), approver, make_card_grant_recorder(Home(data_root), "青梧"))


WEB_READ = ToolCall("c1", "read", json.dumps({"path": "../../web/src/a.ts"}))
WEB_READ_B = ToolCall("c2", "read", json.dumps({"path": "../../web/src/b.ts"}))


def test_allow_once_remembers_nothing(data_root: Path) -> None:
    customs: list[dict[str, Any]] = []
    asked: list[ApprovalRequest] = []
    approvals = _approvals(data_root, [ApprovalAnswer("once"), ApprovalAnswer("deny")], asked)
    _, first = _run(WEB_READ, _ctx(data_root, customs), approvals)
    assert first.result.text == "a"
    _, second = _run(WEB_READ_B, _ctx(data_root, customs), approvals)
    assert second.result.is_error and len(asked) == 2 and customs == []
    assert asked[0].unit == "web"


def test_allow_for_the_session_is_a_custom_entry(data_root: Path) -> None:
    customs: list[dict[str, Any]] = []
    asked: list[ApprovalRequest] = []
    approvals = _approvals(data_root, [ApprovalAnswer("session")], asked)
    _run(WEB_READ, _ctx(data_root, customs), approvals)
    assert [c["customType"] for c in customs] == [SESSION_GRANT_TYPE]
    _, later = _run(WEB_READ_B, _ctx(data_root, customs), approvals)
    assert later.result.text == "b" and len(asked) == 1
    # A branch without the entry (rewound before it) asks again.
    _, rewound = _run(WEB_READ_B, _ctx(data_root, []), _approvals(data_root, [None], asked))
    assert rewound.stop and len(asked) == 2


def test_allow_for_the_card_writes_card_settings(data_root: Path) -> None:
    asked: list[ApprovalRequest] = []
    bash = ToolCall("c3", "bash", json.dumps({"command": "python3 -c 'print(42)'"}))
    _, first = _run(bash, _ctx(data_root, []), _approvals(data_root, [ApprovalAnswer("card")], asked))
    assert first.result.text.strip() == "42"
    settings = json.loads((data_root / "cards" / "青梧" / "卡.json").read_text(encoding="utf-8"))
    assert settings["sandboxBash"] is True
    _, again = _run(bash, _ctx(data_root, []), _approvals(data_root, [], asked))
    assert again.result.text.strip() == "42" and len(asked) == 1


def test_deny_and_free_text_and_no_answer(data_root: Path) -> None:
    asked: list[ApprovalRequest] = []
    _, denied = _run(WEB_READ, _ctx(data_root, []), _approvals(data_root, [ApprovalAnswer("deny", "别碰网页")], asked))
    assert denied.result.is_error and "别碰网页" in denied.result.text and not denied.stop
    _, stopped = _run(WEB_READ, _ctx(data_root, []), _approvals(data_root, [None], asked))
    assert stopped.stop


def test_forbidden_is_denied_without_asking(data_root: Path) -> None:
    asked: list[ApprovalRequest] = []
    call = ToolCall("c4", "read", json.dumps({"path": "chats/旧局/session.jsonl"}))
    _, outcome = _run(call, _ctx(data_root, []), _approvals(data_root, [], asked))
    assert outcome.result.is_error and asked == []
