"""Activation mechanics: constants, recursion, probability, groups, timed effects, min activations, budget."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from wi_helpers import make_entry as mk
from wi_helpers import scan, uids

from peargarden.worldinfo import WorldInfoSettings


def rolls(*values: float) -> Callable[[], float]:
    it: Iterator[float] = iter(values)
    return lambda: next(it)


CHAT = [("林月", "欢迎来到听雨轩。"), ("User", "怀瑾在吗？")]
RECURSIVE = WorldInfoSettings(recursive=True)


def test_constant_and_disabled() -> None:
    entries = [mk(0, constant=True), mk(1, key=["怀瑾"], disable=True), mk(2, key=["怀瑾"], disable=1)]
    assert uids(scan(entries, CHAT)) == [0]


def test_decorators() -> None:
    entries = [
        mk(0, content="@@activate\n怀瑾总在黄昏时来。"),
        mk(1, key=["怀瑾"], content="@@dont_activate\n不会出现"),
        mk(2, key=["怀瑾"], content="@@unknown\n@@@activate\n回退装饰器生效"),
    ]
    result = scan(entries, CHAT)
    assert uids(result) == [0, 2]
    # same order: ties come out in reverse activation order
    assert result.wi_before == "回退装饰器生效\n怀瑾总在黄昏时来。"


def test_recursion_activates_entries_named_in_other_entries() -> None:
    entries = [
        mk(0, key=["怀瑾"], content="怀瑾是听雨轩的常客。"),
        mk(1, key=["听雨轩"], content="听雨轩是一家茶馆。", excludeRecursion=True),
        mk(2, key=["常客"], content="常客有专座。"),
    ]
    chat = [("User", "怀瑾在吗？")]
    assert uids(scan(entries, chat)) == [0]
    result = scan(entries, chat, settings=RECURSIVE)
    assert uids(result) == [0, 2]  # 1 is non-recursable
    assert [a.loop for a in result.activated] == [1, 2]


def test_prevent_recursion_keeps_content_out_of_the_buffer() -> None:
    entries = [mk(0, key=["怀瑾"], content="怀瑾常去听雨轩。", preventRecursion=True), mk(1, key=["听雨轩"])]
    assert uids(scan(entries, [("User", "怀瑾")], settings=RECURSIVE)) == [0]


def test_delay_until_recursion_levels() -> None:
    entries = [
        mk(0, key=["怀瑾"], content="怀瑾提到了听雨轩。"),
        mk(1, key=["听雨轩"], content="听雨轩二层", delayUntilRecursion=2),
        mk(2, key=["怀瑾"], content="第一层延迟", delayUntilRecursion=True),
    ]
    # Even without recursion an open delay level forces one more pass.  The lowest level is preset
    # before the first pass, so the extra pass runs at level 2 and both delayed entries join it.
    result = scan(entries, [("User", "怀瑾")])
    assert [(a.entry.uid, a.loop) for a in result.activated] == [(0, 1), (1, 2), (2, 2)]


def test_max_recursion_steps() -> None:
    entries = [
        mk(0, key=["怀瑾"], content="听雨轩"),
        mk(1, key=["听雨轩"], content="西湖"),
        mk(2, key=["西湖"]),
    ]
    settings = WorldInfoSettings(recursive=True, max_recursion_steps=2)
    assert uids(scan(entries, [("User", "怀瑾")], settings=settings)) == [0, 1]


def test_probability_rolls_use_the_injected_random() -> None:
    entries = [mk(0, key=["怀瑾"], probability=40), mk(1, key=["怀瑾"], probability=40)]
    # roll × 100 <= probability passes: 0.3 → 30 passes, 0.5 → 50 fails
    assert uids(scan(entries, CHAT, random=rolls(0.3, 0.5))) == [0]
    no_roll = [mk(0, key=["怀瑾"], probability=0, useProbability=False), mk(1, key=["怀瑾"], probability=100)]
    assert uids(scan(no_roll, CHAT)) == [0, 1]


def test_failed_probability_is_not_retried_in_recursion() -> None:
    entries = [mk(0, key=["怀瑾"], content="听雨轩"), mk(1, key=["怀瑾", "听雨轩"], probability=50)]
    result = scan(entries, [("User", "怀瑾")], settings=RECURSIVE, random=rolls(0.9))
    assert uids(result) == [0]


def test_inclusion_group_weighted_pick() -> None:
    entries = [
        mk(0, key=["怀瑾"], group="人物", groupWeight=10),
        mk(1, key=["怀瑾"], group="人物", groupWeight=30),
        mk(2, key=["怀瑾"], group="人物", groupWeight=60),
    ]
    # total 100: a roll of 0.35 → 35 falls into the second member's range (10, 40]
    assert uids(scan(entries, CHAT, random=rolls(0.35))) == [1]
    assert uids(scan(entries, CHAT, random=rolls(0.05))) == [0]


def test_inclusion_group_override_takes_the_highest_order() -> None:
    entries = [
        mk(0, key=["怀瑾"], group="人物", groupOverride=True, order=10),
        mk(1, key=["怀瑾"], group="人物", groupOverride=True, order=90),
        mk(2, key=["怀瑾"], group="人物", order=200),
    ]
    assert uids(scan(entries, CHAT)) == [1]


def test_group_scoring_keeps_the_best_match() -> None:
    entries = [
        mk(0, key=["怀瑾"], group="人物"),
        mk(1, key=["怀瑾", "听雨轩"], group="人物"),
    ]
    settings = WorldInfoSettings(use_group_scoring=True)
    assert uids(scan(entries, CHAT, settings=settings)) == [1]


def test_group_already_won_in_an_earlier_loop_blocks_later_members() -> None:
    entries = [
        mk(0, key=["怀瑾"], group="人物", content="听雨轩"),
        mk(1, key=["听雨轩"], group="人物"),
    ]
    assert uids(scan(entries, [("User", "怀瑾")], settings=RECURSIVE)) == [0]


def test_sticky_cooldown_and_delay() -> None:
    entries = [
        mk(0, key=["灯笼"], content="灯笼", sticky=2),
        mk(1, key=["茶壶"], content="茶壶", cooldown=2),
        mk(2, key=["茶壶"], content="延迟", delay=4),
    ]
    first = scan(entries, [("User", "灯笼和茶壶")], chat_length=2)
    assert uids(first) == [0, 1]
    meta = first.timed_world_info
    assert meta["sticky"]["听雨轩.0"]["start"] == 2 and meta["sticky"]["听雨轩.0"]["end"] == 4
    second = scan(entries, [("User", "只有茶壶")], chat_length=3, timed_world_info=meta)
    assert uids(second) == [0]  # sticky keeps 0 without its key; 1 cools down; 2 still delayed
    third = scan(entries, [("User", "只有茶壶")], chat_length=4, timed_world_info=second.timed_world_info)
    assert uids(third) == [1, 2]
    assert "听雨轩.0" not in third.timed_world_info["sticky"]


def test_timed_effects_are_dropped_when_the_chat_did_not_advance() -> None:
    entries = [mk(0, key=["灯笼"], sticky=3)]
    first = scan(entries, [("User", "灯笼")], chat_length=5)
    again = scan(entries, [("User", "重来")], chat_length=5, timed_world_info=first.timed_world_info)
    assert uids(again) == []
    assert again.timed_world_info["sticky"] == {}


def test_dry_run_neither_reads_nor_writes_timed_effects() -> None:
    entries = [mk(0, key=["灯笼"], sticky=3)]
    result = scan(entries, [("User", "灯笼")], dry_run=True)
    assert uids(result) == [0]
    assert result.timed_world_info == {"sticky": {}, "cooldown": {}}


def test_min_activations_scan_deeper() -> None:
    chat = [("林月", "西湖"), ("User", "好"), ("林月", "听雨轩"), ("User", "怀瑾")]
    entries = [mk(0, key=["怀瑾"]), mk(1, key=["听雨轩"]), mk(2, key=["西湖"])]
    settings = WorldInfoSettings(depth=1, min_activations=2)
    assert uids(scan(entries, chat, settings=settings)) == [0, 1]
    assert uids(scan(entries, chat, settings=WorldInfoSettings(depth=1, min_activations=3))) == [0, 1, 2]
    # ST checks "depth > max" before widening, so a max of 2 still scans depth 3 — not 4 (西湖).
    capped = WorldInfoSettings(depth=1, min_activations=3, min_activations_depth_max=2)
    assert uids(scan(entries, chat, settings=capped)) == [0, 1]


def test_budget_overflow_at_reaching_the_budget() -> None:
    entries = [mk(0, constant=True, content="一" * 10, order=300), mk(1, constant=True, content="二" * 10)]
    # char_count: first check counts "一…\n" = 11 + 6 = 17 tokens; with the second: 22 + 6 = 28.
    fits = scan(entries, CHAT, settings=WorldInfoSettings(budget_cap=29))
    assert uids(fits) == [0, 1] and not fits.overflowed
    exact = scan(entries, CHAT, settings=WorldInfoSettings(budget_cap=28))
    assert uids(exact) == [0] and exact.overflowed and exact.warnings


def test_budget_is_percent_of_max_context_rounded_half_up() -> None:
    result = scan([mk(0, constant=True)], CHAT, max_context=3795)
    assert result.budget == 949  # round(0.25 × 3795 = 948.75)
    assert scan([mk(0, constant=True)], CHAT, max_context=2).budget == 1  # round(0.5) = 1
    assert scan([mk(0, constant=True)], CHAT, max_context=1).budget == 1  # round(0.25) = 0 → 1


def test_character_filter() -> None:
    from peargarden.worldinfo import CharacterContext

    entries = [
        mk(0, constant=True, characterFilter={"isExclude": False, "names": ["林月"], "tags": []}),
        mk(1, constant=True, characterFilter={"isExclude": True, "names": ["林月"], "tags": []}),
    ]
    assert uids(scan(entries, CHAT, character=CharacterContext("林月.png"))) == [0]
    assert uids(scan(entries, CHAT, character=CharacterContext("怀瑾.png"))) == [1]


def test_inputs_are_never_mutated() -> None:
    import copy

    entries = [
        mk(0, key=["怀瑾"], content="{{char}}在听雨轩", sticky=2, group="组"),
        mk(1, key=["听雨轩"], content="茶", cooldown=1, group="组", groupOverride=True),
        mk(2, constant=True, content="@@activate\n常量", position=4, depth=1),
    ]
    before = copy.deepcopy(entries)
    timed = {"sticky": {"听雨轩.0": {"hash": 1, "start": 0, "end": 9, "protected": False}}, "cooldown": {}}
    timed_before = copy.deepcopy(timed)
    result = scan(
        entries,
        [("User", "怀瑾")],
        settings=WorldInfoSettings(recursive=True),
        macro=lambda t: t.replace("{{char}}", "林月"),
        timed_world_info=timed,
        chat_length=3,
    )
    assert entries == before and timed == timed_before
    assert result.timed_world_info is not timed
    assert "林月在听雨轩" in {a.content for a in result.activated}
