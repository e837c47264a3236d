"""The JSON API over real HTTP without a browser: the event stream, one beat at a time per chat,
readable errors, the approval endpoint, the inspector before any beat."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from web_harness import Served, tool_call_reply

from peargarden.testing.fake_openai import Pause, chunk, sse, text_reply
from peargarden.workspace.chats import ChatFile

CARD = urllib.parse.quote("青梧")


def call(served: Served, path: str, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
    request = urllib.request.Request(served.url + path, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = response.read().decode("utf-8")
            status = response.status
    except urllib.error.HTTPError as error:
        raw, status = error.read().decode("utf-8"), error.code
    if raw.startswith("data:"):
        events = [json.loads(line[5:]) for line in raw.replace("\r\n", "\n").split("\n") if line.startswith("data:")]
        return status, events
    return status, json.loads(raw)


def new_chat(served: Served) -> str:
    status, state = call(served, f"/api/chats/{CARD}", {})
    assert status == 200
    return str(state["chat_id"])


def test_a_beat_streams_its_events_and_the_state_follows(served: Served) -> None:
    chat = new_chat(served)
    served.fake.script([text_reply("雨小了。")])
    status, events = call(served, f"/api/chats/{CARD}/{chat}/beat", {"action": "send", "text": "雨停了吗？"})
    assert status == 200
    # The page's chats keep story memory: the scene notes run once the reply is complete.
    assert [e["type"] for e in events] == ["beat", "text_delta", "reply_end", "done"]
    assert events[-1]["stop_reason"] == "stop"
    _, state = call(served, f"/api/chats/{CARD}/{chat}")
    assert [m["role"] for m in state["messages"]][-2:] == ["user", "assistant"]
    assert state["messages"][-1]["content"] == "雨小了。"


def test_one_beat_at_a_time_and_readable_errors(served: Served) -> None:
    chat = new_chat(served)
    served.fake.script([sse(chunk(role="assistant", content="慢慢"), Pause(1.5), chunk(content="说。"),
                            chunk(finish_reason="stop"))])  # fmt: skip
    first: dict[str, Any] = {}
    started = threading.Event()

    def slow() -> None:
        request = urllib.request.Request(
            f"{served.url}/api/chats/{CARD}/{chat}/beat",
            data=json.dumps({"action": "send", "text": "讲个故事"}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            response.readline()  # the beat has begun
            started.set()
            first["rest"] = response.read().decode("utf-8")

    worker = threading.Thread(target=slow)
    worker.start()
    assert started.wait(20)
    status, body = call(served, f"/api/chats/{CARD}/{chat}/beat", {"action": "regenerate"})
    assert status == 409 and "正在生成" in body["error"]
    status, body = call(served, f"/api/chats/{CARD}/{chat}/edit", {"index": 0, "text": "改"})
    assert status == 409
    worker.join(30)
    assert '"done"' in first["rest"]
    # Free again once the beat is over; bad input is a 400 with one readable line.
    status, body = call(served, f"/api/chats/{CARD}/{chat}/edit", {"index": 1, "text": "  "})
    assert status == 400 and body["error"] == "新的内容是空的"
    status, body = call(served, f"/api/chats/{CARD}/{chat}/beat", {"action": "send", "text": ""})
    assert status == 400
    status, body = call(served, f"/api/chats/{CARD}/{urllib.parse.quote('没有这个对话')}")
    assert status in (400, 404) and "对话" in body["error"]


def test_approval_endpoint_and_a_card_grant(served: Served) -> None:
    chat = new_chat(served)
    call(served, f"/api/chats/{CARD}/{chat}/mode", {"mode": "work"})
    status, body = call(served, "/api/beats/nope/approval", {"call_id": "x", "choice": "once"})
    assert status == 404 and "nope" in body["error"]
    served.fake.script([tool_call_reply("c-9", "bash", {"command": "python3 -c 'print(1)'"}), text_reply("好。")])
    answered: list[dict[str, Any]] = []

    def answer_when_asked() -> None:
        request = urllib.request.Request(
            f"{served.url}/api/chats/{CARD}/{chat}/beat",
            data=json.dumps({"action": "send", "text": "跑一下"}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            for raw in response:
                line = raw.decode("utf-8").strip()
                if not line.startswith("data:"):
                    continue
                item = json.loads(line[5:])
                answered.append(item)
                if item["type"] == "approval_prompt":
                    status, _ = call(served, f"/api/beats/{item['beat_id']}/approval",
                                     {"call_id": item["call_id"], "choice": "card"})  # fmt: skip
                    assert status == 200

    answer_when_asked()
    kinds = [item["type"] for item in answered]
    assert "approval_prompt" in kinds and kinds[-1] == "done"
    tool_end = next(item for item in answered if item["type"] == "tool_end")
    assert tool_end["text"].strip() == "1" and not tool_end["is_error"]
    settings = json.loads((served.home.card_dir("青梧") / "卡.json").read_text(encoding="utf-8"))
    assert settings.get("sandboxBash") is True  # "always for this card" went into 卡.json
    settings.pop("sandboxBash")
    (served.home.card_dir("青梧") / "卡.json").write_text(json.dumps(settings, ensure_ascii=False), encoding="utf-8")


def test_inspector_before_any_beat_and_a_dry_run(served: Served) -> None:
    chat = new_chat(served)
    status, body = call(served, f"/api/inspect/{CARD}/{chat}?source=last")
    assert status == 404 and "试运行" in body["error"]
    status, body = call(served, f"/api/inspect/{CARD}/{chat}?source=dry:tavern")
    assert status == 200
    rows = body["rounds"][0]["messages"]
    assert rows[0]["slot"] == "system" and rows[-1]["slot"] == "beat_input"
    assert all(row["tokens"] > 0 for row in rows)
    status, body = call(served, f"/api/inspect/{CARD}/{chat}?source={urllib.parse.quote('昨天')}")
    assert status == 400


def test_stop_keeps_what_was_written_and_outside_writes_are_seen(served: Served) -> None:
    chat = new_chat(served)
    served.fake.script([sse(chunk(role="assistant", content="话说到一半"), Pause(3.0), chunk(content="……没说完。"),
                            chunk(finish_reason="stop"))])  # fmt: skip
    request = urllib.request.Request(
        f"{served.url}/api/chats/{CARD}/{chat}/beat",
        data=json.dumps({"action": "send", "text": "讲下去"}).encode(),
        headers={"Content-Type": "application/json"},
    )
    items: list[dict[str, Any]] = []
    with urllib.request.urlopen(request, timeout=30) as response:
        for raw in response:
            line = raw.decode("utf-8").strip()
            if not line.startswith("data:"):
                continue
            item = json.loads(line[5:])
            items.append(item)
            if item["type"] == "text_delta":
                status, _ = call(served, f"/api/beats/{items[0]['beat_id']}/stop", {})
                assert status == 200
    assert items[-1] == {**items[-1], "type": "done", "stop_reason": "aborted"}
    _, state = call(served, f"/api/chats/{CARD}/{chat}")
    assert state["messages"][-1]["content"] == "话说到一半"

    # Another program (pear chat) writes to the same chat: the web sees it on the next read.
    chat_file = ChatFile.open(served.home.card_dir("青梧") / "chats", chat)
    chat_file.append_message({"role": "user", "content": "（从终端里接着写）"})
    _, state = call(served, f"/api/chats/{CARD}/{chat}")
    assert state["messages"][-1]["content"] == "（从终端里接着写）"
