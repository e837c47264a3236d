"""The new macro engine (SillyTavern 1.17+): its grammar, with Chinese content, and its agreement
with the legacy pipeline on the macros both understand."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kit.examples import examples
from peargarden.text.macro_dispatch import expand
from peargarden.text.macro_engine import dedent_trim, evaluate, parse_document
from peargarden.text.macros import CardMacroFields, MacroEnv, Variables


def make_env(local: dict[str, object] | None = None, global_: dict[str, object] | None = None) -> MacroEnv:
    return MacroEnv(
        user="小明",
        char="林月",
        card=CardMacroFields(
            description="林月是西湖边茶馆的老板娘。",
            personality="温和、细心",
            scenario="雨天的午后",
            persona="一位旅行摄影师",
            char_version="二版",
        ),
        variables=Variables(local=dict(local or {}), global_=dict(global_ or {})),
        greetings=("欢迎光临！", "又下雨了。"),
    )


def ev(text: str, **kw: dict[str, object]) -> str:
    return evaluate(text, make_env(**kw))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("你好，{{user}}。我是{{char}}。", "你好，小明。我是林月。"),
        ("{{USER}}与{{Char}}", "小明与林月"),  # names are case-insensitive
        ("{{ user }}", "小明"),  # whitespace around the name is ignored
        ("{{description}}|{{charDescription}}", "林月是西湖边茶馆的老板娘。|林月是西湖边茶馆的老板娘。"),  # alias
        ("{{greeting}} / {{charFirstMessage::1}}", "欢迎光临！ / 又下雨了。"),
        ("{{reverse::春眠不觉晓}}", "晓觉不眠春"),
        ("{{reverse:甲::乙}}", "乙::甲"),  # legacy single colon: one argument, ``::`` included
        ("{{reverse 雨 停 了}}", "了 停 雨"),  # one argument after whitespace
        ("{{newline::2}}", "\n\n"),
        ("前{{space::3}}后", "前   后"),
        ("{{noop}}空", "空"),
    ],
)
def test_plain_macros_and_arguments(text: str, expected: str) -> None:
    assert ev(text) == expected


def test_nested_macros_resolve_inside_out() -> None:
    assert ev("{{getvar::{{char}}的心情}}", local={"林月的心情": "平静"}) == "平静"
    assert ev("{{setvar::n::0}}{{reverse::{{addvar::n::12}}{{getvar::n}}}}") == "21"


def test_left_to_right_order_of_side_effects() -> None:
    # Unlike the 1.12 pipeline (getvar before setvar on one line), the new engine goes left to right.
    assert ev("{{setvar::天气::晴}}{{getvar::天气}}，{{setvar::天气::雨}}{{getvar::天气}}") == "晴，雨"


def test_unknown_macros_are_kept_with_their_inner_macros_resolved() -> None:
    assert ev("{{未知宏}}") == "{{未知宏}}"  # not a name: plain text
    assert ev("{{notAMacro::{{user}}}}") == "{{notAMacro::小明}}"
    assert ev("{{user::多余参数}}") == "{{user::多余参数}}"  # wrong arity: verbatim


def test_escapes_and_stray_braces() -> None:
    assert ev("\\{\\{user\\}\\}") == "{{user}}"
    assert ev("{{{user}}}") == "{小明}"
    assert ev("未闭合 {{user") == "未闭合 {{user"
    assert ev("{{ {{char}}") == "{{ 林月"


def test_comments_and_trim() -> None:
    assert ev("甲{{// 这里是注释 {{user}} }}乙") == "甲乙"
    assert ev("{{comment::也是注释}}丙") == "丙"
    assert ev("第一行\n\n{{trim}}\n第二行") == "第一行第二行"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Shorthand names are ASCII identifiers: ".心情" is just a non-empty (true) condition.
        ("{{if .心情}}心情：{{.心情}}{{/if}}", "心情：{{.心情}}"),
        ("{{if .mood}}心情：{{.mood}}{{else}}未知{{/if}}", "心情：平静"),
        ("{{if .weather}}天气：{{.weather}}{{else}}没有记录天气{{/if}}", "没有记录天气"),
        ("{{if !.weather}}（天气为空）{{/if}}", "（天气为空）"),
        ("{{if char}}说话的是{{char}}{{/if}}", "说话的是林月"),  # a bare macro name is resolved
        ("{{if noop}}显示{{else}}noop 为空{{/if}}", "noop 为空"),
        ("[{{if 0}}零{{else}}零为假{{/if}}][{{if off}}关{{else}}off 为假{{/if}}]", "[零为假][off 为假]"),
        ("{{if $季节}}{{if .mood}}嵌套：{{$季节}}/{{.mood}}{{/if}}{{/if}}", "嵌套：{{$季节}}/平静"),
        ("{{if $season}}{{if .mood}}嵌套：{{$season}}/{{.mood}}{{/if}}{{/if}}", "嵌套：春/平静"),
        ("[{{if::off::关}}][{{if::是::显示}}][{{if::::空}}]", "[][显示][]"),  # inline form
        ("{{if {{getvar::mood}}}}有心情{{/if}}", "有心情"),
    ],
)
def test_if_else(text: str, expected: str) -> None:
    assert ev(text, local={"mood": "平静", "weather": ""}, global_={"season": "春"}) == expected


def test_if_only_resolves_the_branch_it_takes() -> None:
    env = make_env()
    assert evaluate("{{if 0}}{{setvar::x::变了}}{{else}}没变{{/if}}", env) == "没变"
    assert "x" not in env.variables.local


def test_scoped_content_is_trimmed_and_dedented_unless_hash() -> None:
    text = "{{if user}}\n    第一行给{{user}}\n      第二行缩进\n{{/if}}\n完。"
    assert ev(text) == "第一行给小明\n  第二行缩进\n完。"
    assert ev("{{#if user}}  留着空格  {{/if}}") == "  留着空格  "
    assert ev("{{reverse}}  甲乙  {{/reverse}}") == "乙甲"  # any macro with a free argument can be scoped
    assert dedent_trim("\n  a\n    b\n c") == "a\n  b\nc"


def test_unmatched_closing_macro_stays() -> None:
    assert ev("{{/if}}文字") == "{{/if}}文字"


@pytest.mark.parametrize(
    ("text", "expected", "after"),
    [
        ("{{.favor = 五}}{{.favor}}", "五", "五"),
        ("{{.count = 5}}{{.count++}}{{.count}}", "66", 6),
        ("{{.count = 5}}{{.count -= 2}}{{.count}}", "3", 3),
        ("{{.name = 林月}}{{.name += 姐}}{{.name}}", "林月姐", "林月姐"),
        ("{{.missing || 默认值}}", "默认值", None),
        ("{{.missing ?? 默认值}}{{.missing ??= 写入}}{{.missing}}", "默认值写入写入", "写入"),
        ("{{.count = 7}}{{.count > 3}} {{.count <= 3}} {{.count == 7}} {{.count != 7}}", "true false true false", 7),
    ],
)
def test_local_variable_shorthands(text: str, expected: str, after: object) -> None:
    env = make_env()
    assert evaluate(text, env) == expected
    names = [n for n in ("favor", "count", "name", "missing") if n in text]
    if after is not None:
        assert env.variables.get("local", names[0]) == after


def test_global_variable_shorthand() -> None:
    env = make_env(global_={"季节": "春天"})
    assert evaluate("{{$季节}}", env) == "{{$季节}}"  # shorthand names are ASCII identifiers
    env = make_env(global_={"season": "春天"})
    assert evaluate("{{$season}}，{{$season = 夏天}}{{getglobalvar::season}}", env) == "春天，夏天"


def test_original_fills_once_and_stays_without_one() -> None:
    env = make_env()
    assert evaluate("{{original}} 另外：{{original}}", env, original="主提示") == "主提示 另外："
    assert evaluate("{{original}}", env) == "{{original}}"


def test_legacy_markers_and_time_offset_preprocessing() -> None:
    assert ev("<USER> 和 <bot>") == "小明 和 林月"
    assert ev("{{time_UTC+8}}") == ev("{{time::UTC+8}}")


def test_parse_tree_shapes() -> None:
    nodes = parse_document("甲{{reverse::一::二}}乙")
    assert nodes[0] == "甲" and nodes[-1] == "乙"
    macro = nodes[1]
    assert not isinstance(macro, str)
    assert macro.name == "reverse" and len(macro.args) == 2


def test_dispatch_picks_the_engine() -> None:
    text = "{{setvar::a::1}}{{getvar::a}}"
    # 1.12: on one line getvar runs before setvar; the new engine reads left to right.
    assert expand(text, make_env(), engine="legacy") == ""
    assert expand(text, make_env(), engine="new") == "1"


# -- the two engines agree on what both understand ------------------------------------------------

_PLAIN = st.text(
    alphabet=st.sampled_from(list("雨天茶馆林月小明春夏秋冬 abcXYZ0123,.!?：；，。\n")), min_size=0, max_size=12
)
_VALUE = st.text(alphabet=st.sampled_from(list("平静开心雨晴abc一二三")), min_size=1, max_size=6)
_SHARED_MACROS = st.sampled_from(
    [
        "{{user}}",
        "{{char}}",
        "{{USER}}",
        "{{Char}}",
        "{{description}}",
        "{{personality}}",
        "{{scenario}}",
        "{{persona}}",
        "{{charVersion}}",
        "{{newline}}",
        "{{noop}}",
        "{{getvar::心情}}",
        "{{getvar::missing}}",
        "{{getglobalvar::季节}}",
        "{{// 注释}}",
        "{{reverse:春眠不觉晓}}",
        "{{random::甲::乙::丙}}",
        "<USER>",
        "<BOT>",
    ]
)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.one_of(_PLAIN, _SHARED_MACROS), max_size=10), _VALUE, _VALUE)
def test_legacy_and_new_engine_agree_on_shared_macros(pieces: list[str], mood: str, season: str) -> None:
    text = "".join(pieces)
    legacy = make_env(local={"心情": mood}, global_={"季节": season})
    new = make_env(local={"心情": mood}, global_={"季节": season})
    assert expand(text, legacy, engine="legacy") == expand(text, new, engine="new")


def test_an_object_stored_by_a_script_prints_as_compact_json() -> None:
    # As SillyTavern 1.18 printed it (../shared/tavernhelper case 14): {{getvar}} of an object is JSON.
    local: dict[str, object] = {"行头": {"颜色": "红", "件数": [1, 2]}, "唱段": ["甲", "乙"], "songs": ["丙"]}
    assert ev("{{getvar::行头}}|{{getvar::唱段}}|{{.songs}}", local=local) == (
        '{"颜色":"红","件数":[1,2]}|["甲","乙"]|["丙"]'
    )
