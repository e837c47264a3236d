"""Timed world info (sticky / cooldown / delay) counts the chat handed to the scan, not the chat file.

SillyTavern's timed effects read ``chat.length`` of the list the scan gets: non-hidden messages,
minus the swiped one (spec §5.10).  The expectations below come from a small model of §5.10 written
here, independent of the engine: it tracks the chat (text + hidden flag), works out that length and
which entries' keys are in the scan window, and applies the sticky / cooldown / delay rules.  The
same steps are then replayed for real (``/hide``, send, swipe, regenerate, continue, impersonate)
and every generation's activated entries and stored ``timedWorldInfo`` must match the model.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import pytest
from tavern_builders import CARD, alternating_chat

from peargarden.tavern.assemble import generate
from peargarden.tavern.controls import user_state
from peargarden.tavern.replay import CaseData, replay
from peargarden.worldinfo.sources import LorebookCache

BOOK_NAME = "茶馆秘闻"
SCAN_DEPTH = 2

# uid → (key, sticky, cooldown, delay); contents contain no key, so recursion adds nothing.
TIMED: dict[int, tuple[str, int, int, int]] = {
    0: ("灯笼", 3, 0, 0),  # sticky only
    1: ("灯笼", 2, 2, 0),  # sticky, then cooldown when it ends
    2: ("茶壶", 0, 3, 0),  # cooldown only
    3: ("茶壶", 0, 0, 7),  # delay: not before the scanned chat has 7 messages
    4: ("茶壶", 0, 0, 0),  # control: no timed effect
}
CONTENTS = {
    0: "【粘】门口挂着一盏红色的纸灯。",
    1: "【粘冷】纸灯上写着一个“林”字。",
    2: "【冷】壶里泡的是今年的明前龙井。",
    3: "【迟】后院的老井据说通到西湖。",
    4: "【常】茶馆的桌子是旧樟木做的。",
}


def timed_book() -> dict[str, Any]:
    entries = {}
    for uid, (key, sticky, cooldown, delay) in TIMED.items():
        entries[str(uid)] = {
            "uid": uid,
            "key": [key],
            "keysecondary": [],
            "comment": f"条目{uid}",
            "content": CONTENTS[uid],
            "constant": False,
            "selective": False,
            "order": 100 + uid,
            "position": 0,
            "disable": False,
            "probability": 100,
            "useProbability": True,
            "sticky": sticky or None,
            "cooldown": cooldown or None,
            "delay": delay or None,
        }
    return {"entries": entries}


# Replies never mention a key, so only user messages (and sticky records) activate entries.
REPLIES = [
    "雨声渐渐小了。",
    "她低头擦着杯子。",
    "窗外有人撑伞走过。",
    "她笑着点了点头。",
    "炉火噼啪作响。",
    "门铃响了一下。",
    "她把伞靠在墙边。",
    "远处传来钟声。",
]
INITIAL = alternating_chat(8, lambda i: f"第{i}条消息：雨还在下，街上没什么人。")

STEPS: list[dict[str, Any]] = [
    {"slash": "/hide 1-3"},  # the chat file keeps 8 messages, the scan sees 5
    {"send": "我提着灯笼进门，还抱着一个茶壶。"},
    {"swipe": True},  # the swiped reply is not scanned: the chat "did not advance"
    {"send": "今天的雨真大。"},
    {"send": "茶壶里的水开了吗？"},
    {"slash": "/hide 11-12"},  # the chat shrinks below where the cooldown started
    {"regenerate": True},
    {"continue": True},
    {"slash": "/unhide 11-12"},
    {"send": "灯笼被风吹灭了，茶壶也凉了。"},
    {"impersonate": True},
]


@dataclass
class Line:
    text: str
    hidden: bool = False
    user: bool = False


def reference(steps: list[dict[str, Any]]) -> list[tuple[list[int], dict[str, dict[int, tuple[int, int, bool]]]]]:
    """Spec §5.10 over a modelled chat → per generation (activated uids, timedWorldInfo)."""
    chat = [Line(str(m["mes"]), user=bool(m["is_user"])) for m in INITIAL]
    meta: dict[str, dict[int, tuple[int, int, bool]]] = {"sticky": {}, "cooldown": {}}
    out = []
    replies = iter(REPLIES)

    def generation(swipe: bool = False) -> None:
        core = [line for line in chat if not line.hidden]
        if swipe:
            core = core[:-1]
        n = len(core)
        window = "\n".join(line.text for line in core[-SCAN_DEPTH:])
        matched = {uid for uid, (key, *_rest) in TIMED.items() if key in window}
        active: dict[str, set[int]] = {"sticky": set(), "cooldown": set()}
        for kind, column in (("sticky", 1), ("cooldown", 2)):
            for uid, (start, end, protected) in list(meta[kind].items()):
                if n <= start and not protected:
                    del meta[kind][uid]  # the chat did not advance
                elif not TIMED[uid][column]:
                    del meta[kind][uid]
                elif n >= end:
                    del meta[kind][uid]
                    cooldown = TIMED[uid][2]
                    if kind == "sticky" and cooldown:
                        meta["cooldown"][uid] = (n, n + cooldown, True)  # cooldown starts at once
                else:
                    active[kind].add(uid)
        delayed = {uid for uid, (*_rest, delay) in TIMED.items() if delay and n < delay}
        activated = []
        for uid in TIMED:
            sticky = uid in active["sticky"]
            if uid in delayed or (uid in active["cooldown"] and not sticky):
                continue
            if sticky or uid in matched:
                activated.append(uid)
        for uid in activated:
            for kind, column in (("sticky", 1), ("cooldown", 2)):
                length = TIMED[uid][column]
                if length and uid not in meta[kind]:
                    meta[kind][uid] = (n, n + length, False)
        out.append((sorted(activated), copy.deepcopy(meta)))

    for step in steps:
        if "slash" in step:
            command, span = step["slash"].split()
            first, last = (int(x) for x in span.split("-"))
            for i in range(first, min(last, len(chat) - 1) + 1):
                chat[i].hidden = command == "/hide"
        elif "send" in step:
            chat.append(Line(step["send"], user=True))
            generation()
            chat.append(Line(next(replies)))
        elif step.get("swipe"):
            generation(swipe=True)
            chat[-1].text = next(replies)
        elif step.get("regenerate"):
            if not chat[-1].user:
                chat.pop()
            generation()
            chat.append(Line(next(replies)))
        elif step.get("continue"):
            generation()
            chat[-1].text += next(replies)
        elif step.get("impersonate"):
            generation()
            next(replies)
    return out


def case(steps: list[dict[str, Any]]) -> CaseData:
    settings = {
        "steps": steps,
        "st_settings_overrides": {
            "username": "小明",
            "world_info_settings": {
                "world_info": {"globalSelect": [BOOK_NAME]},
                "world_info_depth": SCAN_DEPTH,
                "world_info_recursive": False,
            },
        },
    }
    return CaseData(
        settings=settings,
        card=copy.deepcopy(CARD),
        chat_header={"chat_metadata": {}},
        chat=copy.deepcopy(INITIAL),
        worlds={BOOK_NAME: timed_book()},
    )


def ours_after(steps: list[dict[str, Any]]) -> tuple[list[int], dict[str, dict[int, tuple[int, int, bool]]]]:
    result = replay(case(steps), reply=lambda number: REPLIES[number - 1])
    assert result.assembly is not None
    activated = sorted(int(a.split("#", 1)[1]) for a in result.assembly.world_info_activated)
    stored = result.state.chat_metadata["timedWorldInfo"]
    timed = {
        kind: {int(key.rsplit(".", 1)[1]): (v["start"], v["end"], v["protected"]) for key, v in stored[kind].items()}
        for kind in ("sticky", "cooldown")
    }
    return activated, timed


GENERATION_ENDS = [i + 1 for i, step in enumerate(STEPS) if "slash" not in step]


@pytest.mark.parametrize("done", range(len(GENERATION_ENDS)), ids=lambda i: f"第{i + 1}次生成")
def test_timed_effects_follow_the_scanned_chat(done: int) -> None:
    steps = STEPS[: GENERATION_ENDS[done]]
    assert ours_after(steps) == reference(steps)[done]


def test_the_scenario_exercises_hidden_and_swiped_counts() -> None:
    # Guard against a scenario that would pass with the chat-file length as well.
    expected = reference(STEPS)
    first_send, swipe = expected[0], expected[1]
    assert 3 not in first_send[0]  # delayed: 6 scanned messages < 7 (the file holds 9)
    assert first_send[1]["sticky"][0] == (6, 9, False)
    assert 2 in swipe[0]  # the swipe dropped the cooldown started by the send it replaces
    assert any(3 in activated for activated, _ in expected)  # the delay does end later


def test_a_shared_lorebook_cache_keeps_parsed_books_between_rebuilt_states() -> None:
    worlds = {BOOK_NAME: timed_book()}
    books = LorebookCache()
    chat = [{"chat_metadata": {}}, *alternating_chat(3), {**alternating_chat(2)[1], "mes": "灯笼和茶壶都在桌上。"}]
    for _ in range(2):  # pear chat rebuilds the state for every model call
        state = user_state(
            copy.deepcopy(CARD),
            tavern={},
            preset=None,
            chat_lines=copy.deepcopy(chat),
            chat_id=None,
            worlds=worlds,
            character_books=[BOOK_NAME],
            user_name="小明",
            counter=None,
            lorebooks=books,
        )
        contents = [m["content"] for m in generate(state).messages]
        assert any(CONTENTS[4] in c for c in contents)
        # The scan used the caller's books: the engine left its per-entry plans on them.
        assert all(entry.cache for entry in books.get(BOOK_NAME, worlds[BOOK_NAME]).entries)
