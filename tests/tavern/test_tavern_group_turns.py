"""Who speaks in a group round: the strategies, /trigger, swipe, regenerate, in SillyTavern's draw order."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest

from peargarden.tavern.group import Activation, Cast, Group
from peargarden.tavern.group_turns import (
    RoundCall,
    choose_speakers,
    extract_words,
    find_member,
    js_shuffle,
    next_round_id,
    round_start,
    swipe_author,
    talkativeness,
    trim_reply,
)
from peargarden.text.rolls import mulberry32

LIN, ZHOU, TAO, ANNA = "林月.png", "周明.png", "小桃.png", "Anna Lee.png"


def card(name: str, talk: object = "0.5") -> dict[str, Any]:
    return {"name": name, "talkativeness": talk, "data": {"name": name, "extensions": {"talkativeness": talk}}}


def cast(activation: int = Activation.LIST, *, muted: tuple[str, ...] = (), talk: dict[str, object] | None = None,
         allow_self: bool = False, members: tuple[str, ...] = (LIN, ZHOU, TAO, ANNA)) -> Cast:
    names = {LIN: "林月", ZHOU: "周明", TAO: "小桃", ANNA: "Anna Lee"}
    cards = {m: card(names[m], (talk or {}).get(m, "0.5")) for m in (LIN, ZHOU, TAO, ANNA)}
    return Cast(Group(members, muted, activation, allow_self_responses=allow_self), cards)


def rolls(values: Iterable[float]) -> Callable[[], float]:
    """A scripted Math.random(): the values in order; running out is a test failure."""
    queue = list(values)

    def draw() -> float:
        assert queue, "more draws than SillyTavern makes"
        return queue.pop(0)

    draw.left = queue  # type: ignore[attr-defined]
    return draw


def msg(name: str, text: str = "……", *, user: bool = False, avatar: str | None = None, gen: int | None = None,
        system: bool = False) -> dict[str, Any]:
    m: dict[str, Any] = {"name": name, "is_user": user, "is_system": system, "mes": text, "extra": {}}
    if avatar:
        m["original_avatar"] = avatar
    if gen is not None:
        m["extra"]["gen_id"] = gen
    return m


def no_draws() -> float:
    raise AssertionError("this choice must not draw")


def test_list_takes_every_unmuted_member_in_order() -> None:
    group = cast(muted=(ZHOU,), members=(LIN, ZHOU, TAO, LIN, "缺席.png"))
    assert choose_speakers(group, [], RoundCall(user_input="大家好"), no_draws) == [LIN, TAO]


def test_manual_answers_no_typed_message_and_picks_one_member_otherwise() -> None:
    group = cast(Activation.MANUAL, muted=(TAO,))
    assert choose_speakers(group, [], RoundCall(user_input="周明，你怎么看？"), no_draws) == []
    # Without text (auto mode, regenerate): one of the unmuted members, shuffled with 3 draws.
    draw = rolls([0.0, 0.0, 0.0])
    assert choose_speakers(group, [], RoundCall(), draw) == [ZHOU]


def test_trigger_forces_a_member_even_a_muted_one() -> None:
    group = cast(Activation.MANUAL, muted=(TAO,))
    assert choose_speakers(group, [], RoundCall(force=TAO), no_draws) == [TAO]


def test_natural_mentions_come_first_in_the_order_of_the_text() -> None:
    group = cast(Activation.NATURAL, talk={LIN: "0", ZHOU: "0", TAO: "0", ANNA: "0"})
    # Shuffle of 4 (4 draws), then one roll per member: nobody is talkative.
    draw = rolls([0.1] * 4 + [0.5] * 4)
    assert choose_speakers(group, [], RoundCall(user_input="Hi ANNA! and lee?"), draw) == [ANNA]
    assert draw.left == []  # type: ignore[attr-defined]


def test_natural_chinese_names_are_never_mentions() -> None:
    """JavaScript's \\w is ASCII: a name in Chinese has no words to match."""
    assert extract_words("林月你好，Anna-Lee!") == ["anna", "lee"]
    group = cast(Activation.NATURAL, talk={LIN: 0, ZHOU: 0, TAO: 0, ANNA: 0})
    draw = rolls([0.1] * 4 + [0.5] * 4 + [0.0])  # nobody chatty: one random pick from all members
    assert choose_speakers(group, [], RoundCall(user_input="林月你好"), draw) == [LIN]


def test_natural_talkativeness_rolls_in_shuffled_order() -> None:
    group = cast(Activation.NATURAL, talk={LIN: 1, ZHOU: "0.3", TAO: "", ANNA: "abc"}, members=(LIN, ZHOU, TAO, ANNA))
    # js_shuffle with these draws keeps the order reversed-swapped deterministically; compute it.
    shuffle_draws = [0.99, 0.0, 0.99, 0.0]
    order = js_shuffle([LIN, ZHOU, TAO, ANNA], rolls(shuffle_draws))
    # Rolls: 林月 1 ≥ 0.9 yes; 周明 0.3 ≥ 0.2 yes; 小桃 "" is 0 → never; Anna "abc" is NaN → 0.5 ≥ 0.6 no.
    roll_for = {LIN: 0.9, ZHOU: 0.2, TAO: 0.01, ANNA: 0.6}
    draw = rolls([*shuffle_draws, *(roll_for[m] for m in order)])
    chosen = choose_speakers(group, [], RoundCall(user_input="晚上好"), draw)
    assert chosen == [m for m in order if m in (LIN, ZHOU)]
    assert talkativeness(card("x", "")) == 0 and talkativeness(card("x", "abc")) == 0.5
    assert talkativeness({"name": "x"}) == 0.5


def test_natural_bans_the_last_speaker_unless_self_responses_are_allowed() -> None:
    chat = [msg("小明", "嗯", user=True), msg("Anna Lee", "Hello", avatar=ANNA)]
    talk = {LIN: 0, ZHOU: 0, TAO: 0, ANNA: 1}
    banned = cast(Activation.NATURAL, talk=talk)
    # No typed text: the activation text is the last message; Anna may not answer herself.
    draw = rolls([0.0] * 3 + [0.5] * 3 + [0.0])
    assert ANNA not in choose_speakers(banned, chat, RoundCall(), draw)
    allowed = cast(Activation.NATURAL, talk=talk, allow_self=True)
    draw = rolls([0.0] * 4 + [0.5] * 4)
    assert choose_speakers(allowed, chat, RoundCall(), draw) == [ANNA]


def test_pooled_picks_among_those_who_have_not_spoken_since_the_user() -> None:
    group = cast(Activation.POOLED, members=(LIN, ZHOU, TAO))
    chat = [msg("小明", "你好", user=True), msg("林月", avatar=LIN), msg("小桃", avatar=TAO)]
    assert choose_speakers(group, chat, RoundCall(), rolls([0.7])) == [ZHOU]
    # A typed message resets the pool: any of the three.
    assert choose_speakers(group, chat, RoundCall(user_input="还有谁？"), rolls([0.0])) == [LIN]
    # Everyone has spoken: anyone but the last speaker.
    chat.append(msg("周明", avatar=ZHOU))
    assert choose_speakers(group, chat, RoundCall(), rolls([0.99])) == [TAO]


def test_swipe_and_continue_take_the_author_of_the_last_message() -> None:
    group = cast()
    chat = [msg("林月", avatar=LIN), msg("周明", avatar=ZHOU)]
    assert choose_speakers(group, chat, RoundCall("swipe"), no_draws) == [ZHOU]
    assert choose_speakers(group, chat, RoundCall("continue"), no_draws) == [ZHOU]
    # An old chat without original_avatar: by name.
    assert swipe_author(group, [msg("小桃")], random=no_draws) == [TAO]
    # After the user's message: the last bot message's author.
    assert swipe_author(group, [*chat, msg("小明", user=True)], random=no_draws) == [ZHOU]


def test_impersonate_picks_any_member_muted_ones_too() -> None:
    group = cast(muted=(LIN, ZHOU, TAO, ANNA))
    assert choose_speakers(group, [], RoundCall("impersonate"), rolls([0.3])) == [ZHOU]
    assert choose_speakers(group, [], RoundCall("impersonate"), rolls([0.99])) == [ANNA]


def test_js_shuffle_draws_once_per_element_from_the_end() -> None:
    draw = rolls([0.0, 0.0, 0.0])
    assert js_shuffle(["a", "b", "c"], draw) == ["b", "c", "a"]
    assert js_shuffle([], no_draws) == []


def test_regenerate_deletes_the_trailing_messages_of_the_last_round() -> None:
    chat = [
        msg("林月", avatar=LIN, gen=1),
        msg("小明", "你好", user=True),
        msg("林月", avatar=LIN, gen=7),
        msg("周明", avatar=ZHOU, gen=7),
    ]
    assert round_start(chat) == 2
    chat.append(msg("周明", "再来", avatar=ZHOU, gen=9))  # a /trigger after the round: only it goes
    assert round_start(chat) == 4
    legacy = [msg("小明", "你好", user=True), msg("林月"), msg("周明")]
    assert round_start(legacy) == 1  # no ids: back to the last user message
    assert round_start([msg("小明", user=True)]) == 1


def test_a_new_round_id_is_after_every_id_in_the_chat() -> None:
    chat = [msg("林月", gen=1_800_000_000_000), msg("周明", gen=5)]
    assert next_round_id(chat, 1_700_000_000_000.5) == 1_800_000_000_001
    assert next_round_id([], 1_700_000_000_000.5) == 1_700_000_000_001


@pytest.mark.parametrize(
    ("arg", "expected"),
    [("0", LIN), ("2", TAO), ("9", None), ("林月", LIN), ("anna lee", ANNA), ("周明.png", ZHOU), ("Anna", ANNA),
     ("小", TAO), ("没有这个人", None), ("  ", None)],
)
def test_trigger_finds_members_by_index_name_or_file(arg: str, expected: str | None) -> None:
    assert find_member(cast(), arg) == expected


def test_a_reply_is_cut_where_another_member_starts_speaking() -> None:
    group = cast()
    text = "*林月倒茶。* 请用。\n周明: 好茶！\n林月: 谢谢"
    assert trim_reply(text, group, "林月") == "*林月倒茶。* 请用。"
    assert trim_reply("周明: 我先说", group, "林月") == ""
    assert trim_reply("林月: 自己的名字不算", group, "林月") == "林月: 自己的名字不算"


def test_mulberry32_is_the_recordings_math_random() -> None:
    draw = mulberry32(1)
    assert draw() == pytest.approx(0.6270739405881613, abs=0)
    assert all(0 <= draw() < 1 for _ in range(1000))
    skipped = mulberry32(20260101, skip=3)
    fresh = mulberry32(20260101)
    for _ in range(3):
        fresh()
    assert skipped() == fresh()
