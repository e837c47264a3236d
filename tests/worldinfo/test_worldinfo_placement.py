"""Output placement and ordering, source order, the transform hook, and properties."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from wi_helpers import char_count, scan
from wi_helpers import make_entry as mk

from kit.examples import examples
from peargarden.worldinfo import (
    DepthInjection,
    ExampleInjection,
    Lorebook,
    Strategy,
    WorldInfoSettings,
    book_from_st,
    entry_from_st,
    sort_entries,
    wrap_authors_note,
)

CHAT = [("林月", "欢迎来到听雨轩。"), ("User", "怀瑾在吗？")]


def test_positions_and_ascending_order() -> None:
    entries = [
        mk(0, constant=True, content="前-300", order=300),
        mk(1, constant=True, content="前-100", order=100),
        mk(2, constant=True, content="后", position=1),
        mk(3, constant=True, content="注上", position=2),
        mk(4, constant=True, content="注下", position=3),
        mk(5, constant=True, content="<START>\n{{user}}: 你好", position=5),
        mk(6, constant=True, content="{{user}}: 再见", position=6),
        mk(7, constant=True, content="深2系统-甲", position=4, depth=2, role=0, order=50),
        mk(8, constant=True, content="深2系统-乙", position=4, depth=2, role=0, order=60),
        mk(9, constant=True, content="深2用户", position=4, depth=2, role=1),
        mk(10, constant=True, content="不放置", position="0"),  # a string position matches no case
    ]
    result = scan(entries, CHAT)
    assert result.wi_before == "前-100\n前-300"
    assert result.wi_after == "后"
    assert result.an_top == ("注上",) and result.an_bottom == ("注下",)
    assert set(result.examples) == {
        ExampleInjection("before", "<START>\n{{user}}: 你好"),
        ExampleInjection("after", "{{user}}: 再见"),
    }
    # groups are created while walking entries from the highest order down
    assert result.depth == (
        DepthInjection(2, 1, ("深2用户",)),
        DepthInjection(2, 0, ("深2系统-甲", "深2系统-乙")),
    )
    assert result.depth[1].content == "深2系统-甲\n深2系统-乙"
    assert result.depth[1].table_key == "customDepthWI-2-0"
    assert len(result.activated) == 11


def test_wrap_authors_note() -> None:
    assert wrap_authors_note("[作者注]", ["上一", "上二"], ["下"]) == "上一\n上二\n[作者注]\n下"
    assert wrap_authors_note("[作者注]", [], []) == "[作者注]"


def test_transform_hook_and_empty_results_are_dropped() -> None:
    entries = [mk(0, constant=True, content="茶馆很安静"), mk(1, constant=True, content="删掉我", order=50)]

    def transform(text: str, entry: object) -> str:
        return "" if text == "删掉我" else text.replace("茶馆", "tea house (茶馆)")

    result = scan(entries, CHAT, transform=transform)
    assert result.wi_before == "tea house (茶馆)很安静"
    assert [a.placed for a in result.activated] == ["tea house (茶馆)很安静", ""]


def test_book_order_uses_numeric_uids_and_strategies() -> None:
    raw = {"entries": {"10": mk(10, content="十"), "2": mk(2, content="二"), "x": mk(99, content="叉")}}
    book = book_from_st("怀瑾的书", raw)
    assert [e.raw["content"] for e in book.entries] == ["二", "十", "叉"]

    def b(name: str, *orders: int) -> Lorebook:
        return Lorebook(name, tuple(entry_from_st(mk(i, order=o), name) for i, o in enumerate(orders)))

    glob, char, chat = b("全局", 200, 50), b("角色", 300, 100), b("聊天", 1, 500)

    def order(strategy: Strategy) -> list[tuple[str, int]]:
        got = sort_entries(global_books=[glob], character_books=[char], chat_book=chat, strategy=strategy)
        return [(e.world, e.raw["order"]) for e in got]

    head = [("聊天", 500), ("聊天", 1)]
    c300, c100, g200, g50 = ("角色", 300), ("角色", 100), ("全局", 200), ("全局", 50)
    assert order(Strategy.EVENLY) == [*head, c300, g200, c100, g50]
    assert order(Strategy.CHARACTER_FIRST) == [*head, c300, c100, g200, g50]
    assert order(Strategy.GLOBAL_FIRST) == [*head, g200, g50, c300, c100]


def test_settings_from_sillytavern_json() -> None:
    stored = {"world_info_budget": 150, "world_info_recursive": True, "world_info_depth": 5}
    parsed = WorldInfoSettings.from_st({"world_info_settings": stored})
    assert parsed.budget_percent == 25  # values over 100 are reset, as SillyTavern does on load
    assert parsed.recursive and parsed.depth == 5


_texts = st.text(alphabet="怀瑾听雨轩西湖茶 ab", min_size=0, max_size=30)


@settings(max_examples=examples(60), deadline=None)
@given(
    contents=st.lists(_texts, min_size=1, max_size=12),
    orders=st.lists(st.integers(0, 5), min_size=12, max_size=12),
    cap=st.integers(1, 200),
)
def test_budget_is_never_exceeded(contents: list[str], orders: list[int], cap: int) -> None:
    entries = [mk(i, constant=True, content=c, order=orders[i]) for i, c in enumerate(contents)]
    result = scan(entries, CHAT, settings=WorldInfoSettings(budget_cap=cap))
    used = "".join(a.content + "\n" for a in result.activated)
    assert not used or char_count(used) < result.budget
    again = scan(entries, CHAT, settings=WorldInfoSettings(budget_cap=cap))
    assert again == result


@settings(max_examples=examples(40), deadline=None)
@given(
    keys=st.lists(st.sampled_from(["怀瑾", "听雨轩", "西湖", "茶", "/怀.?/", "tea"]), min_size=1, max_size=8),
    text=_texts,
    seed=st.floats(0, 0.999),
)
def test_same_inputs_give_the_same_outputs(keys: list[str], text: str, seed: float) -> None:
    entries = [
        mk(i, key=[k], content=f"{k}的条目", group="组" if i % 2 else "", probability=50)
        for i, k in enumerate(keys)
    ]
    runs = [
        scan(entries, [("User", text)], settings=WorldInfoSettings(recursive=True), random=lambda: seed)
        for _ in range(2)
    ]
    assert runs[0] == runs[1]


def test_select_book_names_deduplicates_like_sillytavern() -> None:
    from peargarden.worldinfo import select_book_names

    assert select_book_names(
        global_select=["西湖志"],
        character_world="怀瑾的书",
        character_extra_books=["西湖志", "听雨轩", "怀瑾的书"],
        chat_world="听雨轩",
    ) == (["西湖志"], ["怀瑾的书"], "听雨轩")
    assert select_book_names(global_select=["西湖志"], chat_world="西湖志") == (["西湖志"], [], None)


def test_lorebook_cache_reuses_books_for_the_same_data_object() -> None:
    from peargarden.worldinfo import LorebookCache

    cache = LorebookCache()
    data = {"entries": {"0": mk(0, key=["怀瑾"])}}
    first = cache.get("听雨轩", data)
    assert cache.get("听雨轩", data) is first
    changed = {"entries": {"0": mk(0, key=["听雨"])}}
    assert cache.get("听雨轩", changed) is not first
    assert cache.get("听雨轩", changed).entries[0].raw["key"] == ["听雨"]


@settings(max_examples=examples(60), deadline=None)
@given(
    specs=st.lists(
        st.tuples(st.sampled_from(["怀瑾", "听雨轩", "西湖", "茶"]), _texts, st.integers(0, 300)),
        min_size=1,
        max_size=10,
    ),
    cap=st.integers(1, 120),
)
def test_budget_holds_across_recursion_loops(specs: list[tuple[str, str, int]], cap: int) -> None:
    entries = [mk(i, key=[k], content=c, order=o) for i, (k, c, o) in enumerate(specs)]
    result = scan(entries, [("User", "怀瑾")], settings=WorldInfoSettings(recursive=True, budget_cap=cap))
    used = "".join(a.content + "\n" for a in result.activated)
    assert not used or char_count(used) < result.budget


def test_character_book_without_ids_uses_indices_and_keeps_the_input_untouched() -> None:
    from peargarden.worldinfo import character_book_to_world

    book = {
        "entries": [
            {"keys": ["怀瑾"], "content": "怀瑾是林月的旧友。", "enabled": True, "insertion_order": 10},
            {"keys": ["听雨轩"], "content": "听雨轩", "enabled": False, "position": "before_char"},
        ]
    }
    name, world = character_book_to_world(book, "林月")
    assert name == "林月's Lorebook"
    assert list(world["entries"]) == ["0", "1"]
    first, second = world["entries"]["0"], world["entries"]["1"]
    assert (first["uid"], first["position"], first["order"], first["disable"]) == (0, 1, 10, False)
    assert (second["position"], second["disable"], "order" in second) == (0, True, False)
    assert first["selective"] is True and first["role"] is None  # the 1.12.6 editor re-save
    assert [e["id"] for e in world["originalData"]["entries"]] == [0, 1]
    assert "id" not in book["entries"][0]
    _, raw = character_book_to_world(book, "林月", editor_resave=False)
    assert raw["entries"]["0"]["selective"] is False
