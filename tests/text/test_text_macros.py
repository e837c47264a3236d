"""The 1.12.6 macro pipeline, with Chinese content."""

from __future__ import annotations

from datetime import UTC, datetime

from peargarden.text._seedrandom import cyrb53, seeded_random
from peargarden.text.macros import CardMacroFields, MacroEnv, Variables, substitute


def env(**kw: object) -> MacroEnv:
    base: dict[str, object] = {"user": "小明", "char": "林月"}
    base.update(kw)
    return MacroEnv(**base)  # type: ignore[arg-type]


def test_names_and_legacy_markers() -> None:
    assert substitute("{{user}}对{{CHAR}}说：<USER>和<BOT>", env()) == "小明对林月说：小明和林月"


def test_getvar_runs_before_setvar_on_the_same_line() -> None:
    v = Variables(local={"天气": "晴"})
    out = substitute("{{setvar::天气::雨}}今天{{getvar::天气}}\n明天{{getvar::天气}}", env(variables=v))
    assert out == "今天晴\n明天雨"
    assert v.local["天气"] == "雨"


def test_incvar_addvar_and_global_vars() -> None:
    v = Variables(local={"好感": "3"}, global_={"季节": "春"})
    out = substitute("{{incvar::好感}}|{{addvar::好感::10}}{{getvar::好感}}|{{getglobalvar::季节}}", env(variables=v))
    # Per line ST runs getvar, setvar, addvar, incvar in that order: getvar saw 3, addvar made it 13,
    # then incvar returned 14.
    assert out == "14|3|春"
    assert v.local["好感"] == 14
    substitute("{{addvar::名字::小}}{{addvar::名字::明}}", env(variables=v))
    assert v.local["名字"] == "小明"


def test_trim_removes_surrounding_newlines_and_comments_go_last() -> None:
    v = Variables()
    text = "第一行\n\n{{trim}}\n\n第二行{{// 注释里的宏也会执行 {{setvar::秘密::有}} }}"
    assert substitute(text, env(variables=v)) == "第一行第二行"
    assert v.local["秘密"] == "有"


def test_newline_noop_reverse_and_unknown_macros() -> None:
    assert substitute("上{{newline}}下{{noop}}{{reverse:龙井茶}}{{未知宏}}", env()) == "上\n下茶井龙{{未知宏}}"


def test_original_expands_once() -> None:
    assert substitute("{{original}}，再加：{{original}}", env(), original="预设原文") == "预设原文，再加："


def test_card_fields_are_substituted_and_then_names_inside_them() -> None:
    fields = CardMacroFields(description="{{char}}是茶馆老板。", personality="温柔")
    out = substitute("{{description}}性格：{{personality}}", env(card=fields))
    assert out == "林月是茶馆老板。性格：温柔"


def test_time_and_date_from_the_injected_clock() -> None:
    clock = lambda: datetime(2024, 9, 28, 15, 4, 5, tzinfo=UTC)  # noqa: E731
    out = substitute(
        "{{date}} {{time}} {{weekday}} {{isodate}} {{isotime}} {{datetimeformat YYYY年M月D日}}", env(clock=clock)
    )
    assert out == "September 28, 2024 3:04 PM Saturday 2024-09-28 15:04 2024年9月28日"


def test_random_uses_the_injected_source() -> None:
    assert substitute("{{random::龙井::碧螺春::普洱}}", env(random=lambda: 0.5)) == "碧螺春"
    assert substitute("{{random:龙井, 碧螺春, 普洱}}", env(random=lambda: 0.99)) == "普洱"


def test_pick_is_deterministic_like_sillytavern() -> None:
    # Reference values computed with SillyTavern's getStringHash and seedrandom 3.0.5 (node).
    assert cyrb53("梨园") == 7652979272373144
    raw = "今天喝{{pick::龙井::碧螺春::普洱}}"
    assert cyrb53(raw) == 8977527568963572
    assert seeded_random(str(7360648074087904))() == 0.5323761494408593
    assert substitute(raw, env(chat_id_hash=8492953548726921)) == "今天喝碧螺春"
    assert substitute(raw, env(chat_id_hash=8492953548726921)) == "今天喝碧螺春"


def test_empty_and_macro_free_text() -> None:
    assert substitute("", env()) == ""
    assert substitute("没有宏的文字", env()) == "没有宏的文字"


def test_an_object_stored_by_a_script_prints_as_javascript_prints_it() -> None:
    # TavernHelper's replaceVariables stores objects and arrays in chat variables; the 1.12 pipeline
    # prints them with String() (../shared/tavernhelper case 14 recorded 1.18's engine printing JSON).
    v = Variables(local={"行头": {"颜色": "红", "件数": [1, 2]}, "唱段": ["甲", "乙"]})
    assert substitute("{{getvar::行头}}|{{getvar::唱段}}", env(variables=v)) == "[object Object]|甲,乙"
