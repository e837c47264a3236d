"""An imported SillyTavern chat is kept once (issue 32, point 6): each line's fields without the texts
the entries hold, each swipe's record on its swipe.  What matters is that nothing is lost:

- every imported entry puts its original line back together exactly (values and key order), for
  lines of every shape: swipes of any count, records missing, short or odd, reasoning in the line
  and in the records, hidden lines, text that is not text, unknown fields;
- after edits, hides, new swipes and swipe changes, an export is the export the older way of keeping
  the whole line on every swipe gives (the older sessions are read by the same code);
- the session file of a chat with swipes stays within 1.3× the SillyTavern file (it was ~3.4×).
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kit.examples import examples
from peargarden.errors import BadInput
from peargarden.sessions import entry_line, ops
from peargarden.sessions.entries import Entry
from peargarden.sessions.sillytavern import export_chat, import_chat, st_original
from peargarden.sessions.tree import SessionTree

TEXTS = st.sampled_from(["客官里边请。", "雨停了。", "", "渡口\n柳树", "\ud800孤", "又下雨了，快进来。"])
REASONING = st.sampled_from(["", "先想想天气", "客人在问什么"])


@st.composite
def st_line(draw: st.DrawFn) -> dict[str, Any]:
    user = draw(st.booleans())
    line: dict[str, Any] = {}
    if draw(st.booleans()):
        line["extra"] = {"api": "custom", "model": draw(st.sampled_from(["deepseek-chat", "gpt"])),
                         "reasoning": draw(REASONING)}  # fmt: skip
    line["name"] = draw(st.sampled_from(["旅人", "青梧", 3]))
    line["is_user"] = user
    line["is_system"] = draw(st.booleans())
    line["send_date"] = "2026-05-03T12:00:05.000Z"
    mes = draw(TEXTS)
    line["mes"] = mes
    if draw(st.booleans()):
        line["extra"] = {"isSmallSys": False, "reasoning": draw(REASONING)}
    count = draw(st.integers(0, 4))
    if count:
        swipes: list[Any] = [draw(TEXTS) for _ in range(count)]
        chosen = draw(st.integers(-1, count))
        if 0 <= chosen < count and draw(st.booleans()):
            swipes[chosen] = mes  # as ST keeps them (and sometimes not)
        if draw(st.integers(0, 9)) == 0:
            swipes[0] = 7  # not text
        line["swipe_id"] = chosen
        line["swipes"] = swipes
        shape = draw(st.integers(0, 4))
        if shape:
            records: list[Any] = [
                {"send_date": f"2026-05-03T12:00:0{k}.000Z", "extra": {"model": "gpt", "reasoning": draw(REASONING)}}
                for k in range(count)
            ]
            if shape == 2:
                records = records[:-1]  # one record short
            elif shape == 3:
                records[0] = "奇怪"  # a record that is no object
            elif 0 <= chosen < count and draw(st.booleans()):
                # As SillyTavern 1.13+ writes it: the chosen swipe's record is copied into the line.
                line["gen_started"] = line["gen_finished"] = "2026-05-03T12:00:04.000Z"
                records[chosen] = {key: line[key] for key in ("send_date", "gen_started", "gen_finished", "extra")
                                   if key in line}  # fmt: skip
            line["swipe_info"] = records
    if draw(st.booleans()):
        line["title"] = ""
        line["未知字段"] = {"嵌套": [1, None]}
    return line


def _imported(lines: list[dict[str, Any]]) -> SessionTree:
    counter = itertools.count(1)
    chat = import_chat(lines, lambda: f"{next(counter):x}", "2026-12-03T00:00:00.000Z")
    tree = SessionTree()
    for entry in chat.entries:
        tree.add(entry)
    tree.set_leaf(chat.leaf)
    return tree


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


@settings(max_examples=examples(150), deadline=None)
@given(body=st.lists(st_line(), min_size=1, max_size=8))
def test_each_entry_puts_its_line_back_together(body: list[dict[str, Any]]) -> None:
    header = {"chat_metadata": {"integrity": "雨"}, "user_name": "unused", "character_name": "unused"}
    tree = _imported([header, *body])
    entries = iter(tree)
    for line in body:
        swipes = line.get("swipes")
        split = not line.get("is_user") and isinstance(swipes, list) and len(swipes) > 1
        for _ in range(len(swipes) if split else 1):
            entry = next(entries)
            assert _text(st_original(tree, entry)) == _text(line)
    # The export is the one the whole lines gave (the same as the file for lines SillyTavern wrote,
    # see below; lines it would not write, say a swipe that is no text, come back as they always did).
    new, old = (export_chat(each, header, "旅人", "青梧") for each in (tree, _older(tree)))
    assert [_text(line) for line in new] == [_text(line) for line in old]


def _older(tree: SessionTree) -> SessionTree:
    """The same chat kept the older way: the whole original line under ``st`` of every entry."""
    older = SessionTree()
    for entry in tree:
        message = dict(entry.message)
        if "st_line" in message:
            message["st"] = st_original(tree, entry)
            for key in ("st_elided", "st_line", "st_info", "st_info_reasoning"):
                message.pop(key, None)
        older.add(Entry(entry.id, entry.parent_id, entry.type, entry.timestamp, {**entry.body, "message": message}))
    older.set_leaf(tree.leaf)
    return older


def _apply(tree: SessionTree, plan: ops.Plan | None) -> None:
    if plan is None:
        return
    tree.set_leaf(plan.start_leaf)
    for entry in plan.entries:
        tree.add(entry)
    for entry_id, changes in plan.amends:  # a hide changes the message in place
        tree.amend(entry_id, changes)


@settings(max_examples=examples(100), deadline=None)
@given(body=st.lists(st_line(), min_size=2, max_size=8), steps=st.lists(st.integers(0, 4), max_size=5),
       data=st.data())  # fmt: skip
def test_after_edits_and_swipes_an_export_is_what_the_whole_lines_gave(
    body: list[dict[str, Any]], steps: list[int], data: st.DataObject
) -> None:
    header = {"user_name": "旅人", "character_name": "青梧", "create_date": "2026-11-30@00h00m00s"}
    trees = [_imported([header, *body])]
    trees.append(_older(trees[0]))
    counters = [itertools.count(1000), itertools.count(1000)]  # the same new ids in both
    for step in steps:
        count = len(trees[0].messages())
        index = data.draw(st.integers(0, max(count - 1, 0)))
        text = data.draw(TEXTS)
        for tree, counter in zip(trees, counters, strict=True):

            def new_id(counter: Any = counter) -> str:
                return f"n{next(counter)}"

            try:
                if step == 0:
                    _apply(tree, ops.plan_edit(tree, index, text))
                elif step == 1:
                    _apply(tree, ops.plan_hide(tree, index, index, True))
                elif step == 2:
                    _apply(tree, ops.plan_swipe(tree, -1))
                elif step == 3:
                    _apply(tree, ops.plan_regenerate(tree))
                    reply = {"message": {"role": "assistant", "content": text}}
                    tree.add(Entry(new_id(), tree.leaf, "message", "t", reply))
                else:
                    _apply(tree, ops.plan_branch(tree, index))
            except BadInput:  # nothing to swipe back to, no reply to regenerate (both trees alike)
                continue
    new, old = (export_chat(tree, header, "旅人", "青梧") for tree in trees)
    assert [_text(line) for line in new] == [_text(line) for line in old]


def _st_file(messages: int) -> list[dict[str, Any]]:
    """A SillyTavern 1.18 chat as ``bench/bench_st_import.py`` writes it (60 characters a swipe)."""
    extra = {"api": "custom", "model": "deepseek-chat", "reasoning": "", "reasoning_duration": None,
             "reasoning_signature": None}  # fmt: skip
    header = {"chat_metadata": {"tainted": True}, "user_name": "unused", "character_name": "unused"}
    lines: list[dict[str, Any]] = [header]
    date = "2026-11-01T00:00:01.123Z"
    for n in range(messages):
        if n % 2:
            lines.append({"name": "旅人", "is_user": True, "is_system": False, "send_date": date,
                          "mes": f"掌柜可还记得镇北渡口的怀瑾公子？那年也是这样的雨天，柳树才抽芽（{n}）",
                          "extra": {"isSmallSys": False, "reasoning": ""},
                          "force_avatar": "/thumbnail?type=persona&file=user-default.png"})  # fmt: skip
            continue
        swipes = [("青梧放下茶盏，望向窗外的河，半晌才道：“记得。他走的那天，渡口的柳树才抽芽。”" * 2)[:60] + f"{n}·{k}"
                  for k in range(3)]  # fmt: skip
        infos = [{"send_date": date, "gen_started": date, "gen_finished": date, "extra": dict(extra)} for _ in swipes]
        lines.append({"extra": dict(extra), "name": "青梧", "is_user": False, "send_date": date, "mes": swipes[1],
                      "title": "", "gen_started": date, "gen_finished": date, "swipes": swipes, "swipe_id": 1,
                      "swipe_info": infos})  # fmt: skip
    return lines


def test_a_chat_with_swipes_is_kept_within_1_3_times_its_file_and_comes_back_whole() -> None:
    lines = _st_file(400)
    original = sum(len(json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode()) + 1 for line in lines)
    tree = _imported(lines)
    kept = sum(len(entry_line(entry).encode()) + 1 for entry in tree)
    assert kept <= 1.3 * original, kept / original
    assert [_text(line) for line in export_chat(tree, lines[0], "旅人", "青梧")] == [_text(line) for line in lines]
