"""Story memory through the chat service over real HTTP: a main model and a scripted side model,
each on its own fake OpenAI server (the side one answers scene notes, summaries, resident memory)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from peargarden.app.play.service import ChatSession, PearApp
from peargarden.modes.stage import memory as bookkeeping
from peargarden.sessions import SessionTree, message_entry
from peargarden.stage.memory.story import last_beat, user_indices
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


def _config(main: FakeOpenAIServer, side: FakeOpenAIServer, story: str = "") -> str:
    return f"""
user_name = "阿远"
greeting = true
[model]
provider = "main"
model = "fake-model"
thinking = "medium"
[side_model]
provider = "side"
model = "side-model"
thinking = "low"
[providers.main]
base_url = "{main.base_url}"
api_key = "sk-main"
[providers.side]
base_url = "{side.base_url}"
api_key = "sk-side"
[story]
{story}
"""


@pytest.fixture
def servers() -> Iterator[tuple[FakeOpenAIServer, FakeOpenAIServer]]:
    with FakeOpenAIServer() as main, FakeOpenAIServer(models=("side-model",)) as side:
        yield main, side


@pytest.fixture
def home(home_dir: Path) -> Home:
    seeded = Home(home_dir)
    seed_home(seeded)
    return seeded


def _setup(home: Home, servers: tuple[FakeOpenAIServer, FakeOpenAIServer], story: str = "") -> PearApp:
    home.config_file.write_text(_config(*servers, story=story), encoding="utf-8")
    return PearApp(home)


def _play(session: ChatSession, text: str) -> list[Any]:
    return [event.to_json() for event in session.send(text)]


def _patch(patch: dict[str, Any], wrap: str = "{}") -> Any:
    return text_reply(wrap.format(json.dumps({"patch": patch}, ensure_ascii=False)))


BEATS = [
    (
        "推门进了听雨轩。",
        "周伯抬眼笑道：「客官来得巧，今日新到的雨前龙井。」",
        {
            "time": "第一日 辰时",
            "location": "听雨轩",
            "characters": {"周伯": {"affinity": 5, "status": "掌柜，殷勤", "at": "柜台后"}},
        },
    ),
    (
        "要一壶龙井，再打听怀瑾公子。",
        "周伯手一顿：「怀瑾……十年前从镇北渡口走的。」",
        {
            "characters": {"周 伯": {"affinity": 40, "notes": "提到怀瑾时神色有异"}},
            "plot_threads": ["怀瑾公子的下落"],
        },
    ),
    (
        "把旧油纸伞给他看。",
        "周伯接过伞，沉默良久：「这伞……是公子的。」",
        {
            "inventory": ["旧油纸伞（阿远）"],
            "flags": {"伞已示人": True},
        },
    ),
    (
        "问他公子去了哪里。",
        "「往北去了，过了卧波桥就没了消息。」周伯压低了声音。",
        {
            "time": "第一日 午时",
            "characters": {"林晚": {"affinity": -3, "status": "邻桌偷听的女子"}},
        },
    ),
    (
        "起身去卧波桥。",
        "雨丝斜斜，卧波桥头站着一个撑伞的人影。",
        {
            "location": "卧波桥",
            "characters": {"林晚": {"at": "尾随阿远"}, "周伯": {"at": "听雨轩"}},
            "plot_threads": ["怀瑾公子的下落", "林晚为何尾随"],
        },
    ),
]


def test_five_beats_fill_the_ledger_and_the_stage_shows_it(
    home: Home, servers: tuple[FakeOpenAIServer, FakeOpenAIServer]
) -> None:
    main, side = servers
    app = _setup(home, servers)
    session = app.new_chat("青梧")
    # Side replies as models really write them: bare, fenced, wrapped in prose.
    wraps = ["{}", "```json\n{}\n```", "好的，场记如下：\n{}\n以上。", "{}", "```\n{}```"]
    main.script([text_reply(reply) for _words, reply, _patch_ in BEATS])
    side.script([_patch(patch, wrap) for (_w, _r, patch), wrap in zip(BEATS, wraps, strict=True)])
    for words, _reply, _unused in BEATS:
        events = _play(session, words)
        assert events[-1]["type"] == "done"
        assert not [e for e in events if e["type"] == "warning"], events
    ledger = bookkeeping.current_ledger(session.chat.tree)
    assert (ledger.time, ledger.location) == ("第一日 午时", "卧波桥")
    # 「周 伯」 is 「周伯」; the jump to 40 moved only one step (10) from 5.
    assert ledger.characters["周伯"].affinity == 15
    assert ledger.characters["周伯"].notes == "提到怀瑾时神色有异" and ledger.characters["周伯"].at == "听雨轩"
    assert ledger.characters["林晚"].affinity == -3 and ledger.characters["林晚"].at == "尾随阿远"
    assert ledger.inventory == ["旧油纸伞（阿远）"] and ledger.flags == {"伞已示人": "是"}
    assert ledger.plot_threads == ["怀瑾公子的下落", "林晚为何尾随"]
    assert ledger.roster["characters"] == {"周伯": "第一日 辰时", "林晚": "第一日 午时"}
    # The keeper read the beat as 名：正文 lines, and the current ledger.
    fourth = side.chat_requests[3].body["messages"][1]["content"]
    assert "阿远：问他公子去了哪里。" in fourth and "青梧" not in fourth.split("【本轮对话】")[0]
    assert "旧油纸伞（阿远）" in fourth.split("【本轮对话】")[0]
    # The fifth beat's injection carried the state after four beats.
    injection = main.chat_requests[4].body["messages"][-1]["content"]
    assert injection.startswith("【世界状态】\n时间：第一日 午时\n地点：听雨轩")
    assert "林晚：好感 -3；状态：邻桌偷听的女子" in injection
    assert "【登场名录】人物：周伯（第一日 辰时）、林晚（第一日 午时）" in injection
    assert injection.endswith("起身去卧波桥。")


def test_a_swipe_during_the_side_call_discards_its_result(
    home: Home, servers: tuple[FakeOpenAIServer, FakeOpenAIServer]
) -> None:
    main, side = servers
    app = _setup(home, servers)
    session = app.new_chat("青梧")
    main.script([text_reply("周伯迎了出来。"), text_reply("掌柜却不在，只有个小伙计。")])
    side.script([_patch({"location": "听雨轩"}), _patch({"location": "后院"})])
    _play(session, "推门进了听雨轩。")
    # The second reply is generated without bookkeeping; then its side call runs while the user
    # swipes back to the first reply.
    quiet = PearApp(home, story_memory=False).open_chat("青梧", session.chat_id)
    list(quiet.regenerate())
    assert quiet.swipe_position() == (2, 2)
    real = quiet.side_call()

    class Swiping:
        def __call__(self, system: str, user: str, max_tokens: int, *, purpose: str = "side") -> str:
            reply = real(system, user, max_tokens, purpose=purpose)  # the request really went out
            quiet.swipe(-1)
            return reply

        def stopped(self) -> bool:
            return False

    warnings = bookkeeping.bookkeeping(quiet.branch_view(), Swiping())
    assert any("作废" in warning for warning in warnings)
    assert len(side.chat_requests) == 2 and "掌柜却不在" in side.chat_requests[1].body["messages"][1]["content"]
    assert bookkeeping.current_ledger(quiet.chat.tree).location == "听雨轩"
    quiet.swipe(1)
    assert bookkeeping.current_ledger(quiet.chat.tree).location == ""
    # Nothing of the discarded call is in the file either.
    reopened = PearApp(home, story_memory=False).open_chat("青梧", session.chat_id)
    ledgers = [
        e.body["data"]["ledger"]["location"]
        for e in reopened.chat.tree
        if e.type == "custom" and e.body.get("customType") == bookkeeping.NOTES_TYPE
    ]
    assert ledgers == ["听雨轩"]


def _prose(n: int) -> str:
    return f"第{n}拍：" + "细雨落在青石板上，茶香从半掩的窗里飘出来，" * 7 + f"（第{n}拍完）"


def test_compaction_at_a_small_budget_keeps_recent_rounds_and_the_file_keeps_everything(
    home: Home, servers: tuple[FakeOpenAIServer, FakeOpenAIServer]
) -> None:
    main, side = servers
    app = _setup(home, servers, story="keep_rounds = 2\ncompact_every = 0\ncompact_tokens = 250")
    session = app.new_chat("青梧")
    words = [f"第{n}句：往前走。" for n in range(1, 6)]
    main.script([text_reply(_prose(n)) for n in range(1, 6)])
    # Per beat: scene notes; from beat 3 on (over budget, more than 2 rounds) a summary and the
    # card's resident memory follow.
    script = [_patch({}), _patch({})]
    for n in (3, 4, 5):
        script += [
            _patch({}),
            text_reply(f"## 前情提要\n摘要{n}：阿远一路向北。"),
            text_reply(f"常驻记忆{n}：阿远在找怀瑾。"),
        ]
    side.script(script)
    for text in words:
        events = _play(session, text)
        assert not [e for e in events if e["type"] == "warning"], events
    summary = bookkeeping.active_summary(session.chat.tree)
    assert summary is not None and summary["summary"].startswith("## 前情提要\n摘要5") and summary["turns"] == 1
    # Summaries chain: each new one was given the previous one.
    fourth_summary_request = side.chat_requests[6].body["messages"][1]["content"]
    assert "<previous-summary>\n## 前情提要\n摘要3" in fourth_summary_request
    assert "第2句：往前走。" in fourth_summary_request and "第3句" not in fourth_summary_request
    # The fifth beat: 【前情提要】 first (summary 4, then the resident memory), then rounds 3 and 4 verbatim.
    request = main.chat_requests[4].body["messages"]
    assert request[1]["role"] == "user" and request[1]["content"].startswith("【前情提要】")
    assert "摘要4" in request[1]["content"] and "常驻记忆4" in request[1]["content"]
    assert "第1句" not in request[1]["content"]
    # Neighbours of the same role merge: round 3's words follow the preface in that first message.
    assert request[1]["content"].endswith("常驻记忆4：阿远在找怀瑾。\n\n" + words[2])
    assert [m["content"] for m in request[2:5]] == [_prose(3), words[3], _prose(4)]
    assert len(request) == 6
    assert request[-1]["content"].endswith(words[4])
    assert not any("第1拍" in m["content"] or "第2句" in m["content"] for m in request)
    # The session file still holds every original message.
    raw = session.chat.path.read_text(encoding="utf-8")
    lines = [json.loads(line) for line in raw.splitlines()[1:] if line.strip()]
    contents = [line["message"]["content"] for line in lines if line.get("type") == "message"]
    for n in range(1, 6):
        assert words[n - 1] in contents and _prose(n) in contents
    # The card's resident memory is a file the user can edit; a new chat starts with it.
    assert bookkeeping.read_resident(session.card) == "常驻记忆5：阿远在找怀瑾。"
    fresh = app.new_chat("青梧")
    main.script([text_reply("周伯抬头：「又是你。」")])
    side.script([_patch({})])
    _play(fresh, "推门进了听雨轩。")
    first = main.chat_requests[5].body["messages"]
    assert first[1]["content"].startswith("【前情提要】") and "常驻记忆5：阿远在找怀瑾。" in first[1]["content"]
    assert "摘要5" not in first[1]["content"]


def test_a_user_edited_resident_memory_opens_a_new_chat(
    home: Home, servers: tuple[FakeOpenAIServer, FakeOpenAIServer]
) -> None:
    main, side = servers
    app = _setup(home, servers, story="scene_notes = false")
    card = app.card("青梧")
    path = bookkeeping.resident_path(card)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("阿远是周伯的旧识之子，每次来都点龙井。\n", encoding="utf-8")
    main.script([text_reply("周伯笑道：「老规矩？」")])
    _play(app.new_chat("青梧"), "进门。")
    messages = main.chat_requests[0].body["messages"]
    assert (
        messages[1]["content"]
        == "【前情提要】以下是更早剧情的接力摘要，是既定事实：\n\n阿远是周伯的旧识之子，每次来都点龙井。"
    )
    assert side.chat_requests == []  # scene notes switched off in [story]


def test_side_failures_only_skip_bookkeeping_and_work_mode_is_never_read(
    home: Home, servers: tuple[FakeOpenAIServer, FakeOpenAIServer]
) -> None:
    main, side = servers
    app = _setup(home, servers)
    session = app.new_chat("青梧")
    main.script([text_reply("周伯迎了出来。"), text_reply("周伯添了茶。")])
    side.script([text_reply("抱歉，我无法完成这个请求。"), _patch({"location": "听雨轩"})])
    events = _play(session, "推门进了听雨轩。")
    assert events[-1]["type"] == "done" and events[-1]["stop_reason"] == "stop"
    assert [e["message"] for e in events if e["type"] == "warning"] == [
        "场记没记上（旁路模型的回复里没有 JSON），本拍跳过记账"
    ]
    assert bookkeeping.current_ledger(session.chat.tree).empty
    # A work-mode exchange in between (tagged) never reaches the keeper.
    session.chat.append_message({"role": "user", "content": "写卡维护：把掌柜改名", "tags": ["work"]})
    session.chat.append_message({"role": "assistant", "content": "已改名为周伯。", "tags": ["work"]})
    _play(session, "坐下喝茶。")
    keeper = side.chat_requests[1].body["messages"][1]["content"]
    assert "坐下喝茶" in keeper and "写卡维护" not in keeper and "已改名" not in keeper
    assert bookkeeping.current_ledger(session.chat.tree).location == "听雨轩"


def test_the_stage_budget_cuts_old_history_with_a_warning(
    home: Home, servers: tuple[FakeOpenAIServer, FakeOpenAIServer]
) -> None:
    main, _side = servers
    app = _setup(home, servers, story="scene_notes = false\ncontext_tokens = 256\nreserve_tokens = 0")
    session = app.new_chat("青梧")
    main.script([text_reply("周伯迎了出来。")])
    events = _play(session, "推门进了听雨轩。")
    warnings = [e["message"] for e in events if e["type"] == "warning"]
    assert any(w.startswith("上下文预算不够：最早的 1 条剧情没有发给模型") for w in warnings), warnings
    messages = main.chat_requests[0].body["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]  # the greeting did not fit


def test_recall_brings_back_covered_prose_when_switched_on(
    home: Home, servers: tuple[FakeOpenAIServer, FakeOpenAIServer]
) -> None:
    main, side = servers
    app = _setup(home, servers, story="scene_notes = false\nrecall = true\nkeep_rounds = 1\ncompact_every = 1")
    session = app.new_chat("青梧")
    first = "周伯从柜底摸出一枚铜钥匙：「怀瑾公子临走留下的，说开的是卧波桥下的石匣。」" * 60
    main.script([text_reply(first), text_reply("周伯添了茶。"), text_reply("周伯想了想。")])
    side.script([text_reply("## 前情提要\n周伯给了铜钥匙。"), text_reply("阿远拿到了铜钥匙。")])
    _play(session, "问周伯有没有公子的遗物。")
    _play(session, "喝茶。")  # two rounds: the first is covered now
    assert bookkeeping.active_summary(session.chat.tree) is not None
    _play(session, "那把铜钥匙开的是哪里的石匣？")
    injection = main.chat_requests[2].body["messages"][-1]["content"]
    recalled = injection.split("【剧情记忆】\n")[1].split("\n\n")[0]
    assert "\n- 周伯从柜底摸出一枚铜钥匙" in "\n" + recalled
    assert first not in [m["content"] for m in main.chat_requests[2].body["messages"][1:-1]]


def test_stopping_the_beat_stops_its_bookkeeping(
    home: Home, servers: tuple[FakeOpenAIServer, FakeOpenAIServer]
) -> None:
    import threading

    main, side = servers
    _setup(home, servers)
    quiet = PearApp(home, story_memory=False).new_chat("青梧")
    main.script([text_reply("周伯迎了出来。")])
    list(quiet.send("推门进了听雨轩。"))
    side.script([_patch({"location": "听雨轩"})])
    stop = threading.Event()
    stop.set()
    warnings = bookkeeping.bookkeeping(quiet.branch_view(), quiet.side_call(stop))
    assert len(warnings) == 1 and "已中止" in warnings[0]
    assert bookkeeping.current_ledger(quiet.chat.tree).empty


def _long_chat(session: ChatSession, beats: int) -> None:
    """A long history written straight into the session (as an import leaves it: never summarised)."""
    for n in range(beats):
        session.chat.append_message({"role": "user", "content": f"第{n}句：往前走。", "name": "阿远"})
        session.chat.append_message({"role": "assistant", "content": _prose(n), "name": "青梧"})


def test_side_requests_of_a_long_history_stay_in_the_side_models_window(
    home: Home, servers: tuple[FakeOpenAIServer, FakeOpenAIServer], capsys: pytest.CaptureFixture[str]
) -> None:
    from peargarden.cli import main as pear
    from peargarden.text.tokens import EstimateCounter

    main, side = servers
    window = 6000
    app = _setup(home, servers, story=f"side_context_tokens = {window}\ncompact_every = 30")
    session = app.new_chat("青梧")
    _long_chat(session, 200)
    main.script([text_reply("青梧点了点头。")])
    side.script([_patch({}), text_reply("## 前情提要\n第一段。"), text_reply("常驻记忆")])
    events = _play(session, "接着走。")
    count = EstimateCounter()
    sizes = [sum(count(str(m["content"])) for m in r.body["messages"]) for r in side.chat_requests]
    assert len(sizes) == 3 and max(sizes) <= window  # scene notes, one compaction step, resident memory
    progress = [e["message"] for e in events if e["type"] == "warning" and e["message"].startswith("前情压缩")]
    assert len(progress) == 1 and "轮待压缩" in progress[0]
    first = bookkeeping.active_summary(session.chat.tree)
    assert first is not None and 0 < first["turns"] < 195
    # By hand, the rest goes in as many bounded steps as it takes, each said as it goes.
    side.script([text_reply(f"## 前情提要\n第{n}段。") if n % 2 else text_reply("常驻记忆") for n in range(1, 200)])
    before = len(side.chat_requests)
    capsys.readouterr()
    pear(["--home", str(home.root), "story", "compact", "--card", "青梧", "--chat", session.chat_id])
    out = capsys.readouterr()
    steps = (len(side.chat_requests) - before) // 2
    lines = out.err.count("前情压缩：")
    assert steps >= 2 and lines in (steps - 1, steps)  # each step that left more said so
    assert all(sum(count(str(m["content"])) for m in r.body["messages"]) <= window for r in side.chat_requests)
    assert "已压缩：" in out.out
    reopened = PearApp(home, story_memory=False).open_chat("青梧", session.chat_id)
    last = bookkeeping.active_summary(reopened.chat.tree)
    assert last is not None
    messages = [e.id for e in reopened.chat.tree.messages()]
    after = len(messages) - 1 - messages.index(last["coversThroughId"])
    # Only the kept rounds (6 beats and this one), plus a remainder too short to summarise, are left.
    assert after <= 2 * (6 + 1) + 2 * 2


@pytest.mark.parametrize(
    "shape",
    [
        ["user", "assistant", "user", "assistant"],
        ["assistant"],  # a greeting alone
        ["user", "assistant", "user:work", "assistant:work"],  # the latest beat is a work beat
        ["user", "assistant", "user:compaction", "user", "assistant", "tool", "assistant"],
        ["user", "assistant", "user", "assistant:work"],  # a tagged reply makes the whole beat work
        [],
    ],
)
def test_the_latest_beat_read_from_the_end_is_the_whole_branchs(shape: list[str]) -> None:
    """``last_beat`` reads only the branch's end; it finds what the whole branch gives."""
    tree = SessionTree()
    parent = None
    for number, kind in enumerate(shape):
        role, _, tag = kind.partition(":")
        message: dict[str, Any] = {"role": role, "content": f"第{number}句"}
        if tag:
            message["tags"] = [tag]
        parent = tree.add(message_entry(f"{number:08x}", parent, "2026-12-01T00:00:00Z", message)).id
    items = bookkeeping.tree_items(tree)
    users = user_indices(items)
    expected = items[users[-1] :] if users else items
    assert [i.entry_id for i in last_beat(tree.messages())] == [i.entry_id for i in expected]


class _MovingSide:
    """A side model that answers a good patch while the user swipes away (the branch moves)."""

    def __init__(self, session: ChatSession) -> None:
        self.session = session

    def __call__(self, system: str, user: str, max_tokens: int, *, purpose: str = "side") -> str:
        self.session.chat.append_message({"role": "user", "content": "（换了个说法）"})
        return json.dumps({"patch": {"location": "听雨轩"}}, ensure_ascii=False)

    def stopped(self) -> bool:
        return False


def test_scene_notes_made_while_the_branch_moved_are_discarded_and_said(home: Home) -> None:
    from kit.apps import scripted_app
    from peargarden.providers.scripted import ScriptedProvider, text_turn

    provider = ScriptedProvider().add(text_turn("周伯抬眼笑道：「客官来得巧。」")).add(text_turn("周伯点头。"))
    chat = scripted_app(home, provider).new_chat("青梧")
    list(chat.send("推门进了听雨轩。"))
    outcome = bookkeeping.keep_scene_notes(chat.branch_view(), _MovingSide(chat))
    assert outcome.branch_moved and not outcome.written and outcome.note == "记账期间分支变了，这次的场记作废"
    assert not chat.chat.tree.customs(bookkeeping.NOTES_TYPE)
    # The step's warnings say it, steered by the flag (not by the sentence).
    list(chat.send("掌柜的，来壶茶。"))
    assert "记账期间分支变了，这次的场记作废" in bookkeeping.bookkeeping(chat.branch_view(), _MovingSide(chat))
