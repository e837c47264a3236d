"""Regex scripts (1.12.6 engine) and JS-regex translation, with Chinese content."""

from __future__ import annotations

from peargarden.text.jsregex import regex_from_string
from peargarden.text.regex_scripts import Placement, RegexScript, RegexSet, apply_scripts, load_scripts


def script(**kw: object) -> RegexScript:
    raw: dict[str, object] = {"scriptName": "t", "placement": [1, 2], "trimStrings": []}
    raw.update(kw)
    return RegexScript.from_json(raw)


def test_slash_form_flags_and_bare_patterns() -> None:
    g = regex_from_string("/茶馆/g")
    assert g is not None and g.global_
    assert g.replace("茶馆和茶馆", lambda m: "茶楼") == "茶楼和茶楼"
    first = regex_from_string("茶馆")
    assert first is not None and first.replace("茶馆和茶馆", lambda m: "茶楼") == "茶楼和茶馆"
    assert regex_from_string("/(unclosed/g") is None
    # Unknown flags: ST compiles the whole string as a pattern.
    odd = regex_from_string("/abc/zz")
    assert odd is not None and odd.source == "/abc/zz"


def test_js_word_boundary_is_ascii_only() -> None:
    rx = regex_from_string(r"/\bpot\b/")
    assert rx is not None
    assert rx.search("这是pot吗") is not None  # CJK characters are non-word characters in JS
    assert rx.search("teapot") is None
    digits = regex_from_string(r"/\d+/")
    assert digits is not None and digits.search("２０２３") is None  # full-width digits are not \d in JS


def test_dollar_does_not_match_before_a_final_newline() -> None:
    rx = regex_from_string("/雨$/")
    assert rx is not None
    assert rx.search("下雨\n") is None
    assert rx.search("下雨") is not None


def test_prompt_only_markdown_only_and_plain_scripts() -> None:
    plain = script(findRegex="/雨/g", replaceString="雪")
    prompt_only = script(findRegex="/茶/g", replaceString="咖啡", promptOnly=True)
    md_only = script(findRegex="/林月/g", replaceString="**林月**", markdownOnly=True)
    scripts = [plain, prompt_only, md_only]
    text = "林月在雨里喝茶"
    assert apply_scripts(scripts, text, Placement.USER_INPUT) == "林月在雪里喝茶"
    # 1.12.6: plain scripts also run at prompt time.
    assert apply_scripts(scripts, text, Placement.USER_INPUT, is_prompt=True) == "林月在雪里喝咖啡"
    assert apply_scripts(scripts, text, Placement.USER_INPUT, is_markdown=True) == "**林月**在雨里喝茶"


def test_depth_limits_and_placement() -> None:
    deep = script(findRegex="/雨/g", replaceString="雪", minDepth=2, promptOnly=True)
    shallow = script(findRegex="/茶/g", replaceString="酒", maxDepth=1, promptOnly=True)
    wi_only = script(findRegex="/茶/g", replaceString="汤", placement=[5])
    scripts = [deep, shallow, wi_only]
    assert apply_scripts(scripts, "雨中茶", Placement.AI_OUTPUT, is_prompt=True, depth=0) == "雨中酒"
    assert apply_scripts(scripts, "雨中茶", Placement.AI_OUTPUT, is_prompt=True, depth=3) == "雪中茶"
    assert apply_scripts(scripts, "雨中茶", Placement.WORLD_INFO, is_prompt=True) == "雨中汤"


def test_trim_strings_act_on_groups_and_match_macro() -> None:
    s = script(findRegex="/<<(.+?)>>/g", replaceString="[$1]({{match}})", trimStrings=["秘密的"])
    # {{match}} becomes $0, and ST trims every group reference, the whole match included.
    assert apply_scripts([s], "看<<秘密的花园>>", Placement.USER_INPUT) == "看[花园](<<花园>>)"
    missing = script(findRegex="/(a)|(b)/", replaceString="<$2>")
    assert apply_scripts([missing], "a", Placement.USER_INPUT) == "<>"


def test_group_references_past_the_last_group_read_the_replacer_arguments() -> None:
    # engine.js runRegexScript reads ``arguments[n]``: past the groups come the offset and the input.
    # Expected values from running SillyTavern 1.12.6's runRegexScript / regexFromString in node.
    def run(find: str, replace: str, text: str) -> str:
        return apply_scripts([script(findRegex=find, replaceString=replace)], text, Placement.USER_INPUT)

    assert run("/茶/g", "[$1]", "龙井茶和白茶") == "龙井[2]和白[5]"
    assert run("/茶/g", "[$2]", "龙井茶和白茶") == "龙井[龙井茶和白茶]和白[龙井茶和白茶]"
    assert run("/(龙)井/g", "<$2|$3|$1>", "龙井茶") == "<|龙井茶|龙>茶"  # offset 0 is falsy: empty
    assert run("/茶/g", "[$1]", "𝄞a茶") == "𝄞a[3]"  # the offset counts UTF-16 units
    assert run("/(a)|(b)/", "<$2|$5>", "a") == "<|>"


def test_depth_limits_coerce_like_javascript() -> None:
    # getRegexedString: ``!isNaN(x) && x !== null && x >= 0`` coerces, so "" is depth 0 and "2" is 2;
    # null and a non-number text mean no limit.  Checked against SillyTavern 1.12.6 in node.
    def run(depth: int, **limits: object) -> str:
        s = script(findRegex="/雨/g", replaceString="雪", promptOnly=True, **limits)
        return apply_scripts([s], "雨", Placement.AI_OUTPUT, is_prompt=True, depth=depth)

    assert run(1, maxDepth="") == "雨" and run(0, maxDepth="") == "雪"
    assert run(1, minDepth="2") == "雨" and run(2, minDepth="2") == "雪"
    assert run(5, maxDepth=None) == "雪" and run(5, maxDepth="深") == "雪"


def test_replacement_gets_macros_and_disabled_scripts_do_nothing() -> None:
    s = script(findRegex="/我/g", replaceString="{{user}}")
    off = script(findRegex="/雨/g", replaceString="雪", disabled=True)
    out = apply_scripts([s, off], "我在雨里", Placement.USER_INPUT, substitute=lambda t: t.replace("{{user}}", "小明"))
    assert out == "小明在雨里"


def test_scoped_scripts_need_the_allow_list() -> None:
    g = load_scripts([{"findRegex": "/雨/g", "replaceString": "雪", "placement": [1]}])
    c = load_scripts([{"findRegex": "/茶/g", "replaceString": "酒", "placement": [1]}, "不是脚本"])
    assert len(c) == 1
    assert RegexSet(g, c, scoped_allowed=False).apply("雨茶", Placement.USER_INPUT) == "雪茶"
    assert RegexSet(g, c, scoped_allowed=True).apply("雨茶", Placement.USER_INPUT) == "雪酒"
    assert RegexSet(g, c, scoped_allowed=True, enabled=False).apply("雨茶", Placement.USER_INPUT) == "雨茶"


def test_malformed_script_fields_fall_back_safely() -> None:
    s = RegexScript.from_json({"findRegex": None, "placement": "1", "minDepth": "x", "trimStrings": "no"})
    assert s.find_regex == "" and s.placement == () and s.min_depth is None and s.trim_strings == ()
    assert apply_scripts([s], "文本", Placement.USER_INPUT) == "文本"


def test_regex_scripts_share_the_world_info_translator() -> None:
    # Variable-length lookbehind is legal JS; Python's re refuses it, the shared translator does not.
    script = regex_from_string("/(?<=怀瑾|怀瑾公子)说/g")
    assert script is not None
    assert script.replace("怀瑾公子说，怀瑾说", lambda m: "道") == "怀瑾公子道，怀瑾道"
    # JS \w is ASCII-only: a CJK character is a non-word character.
    word = regex_from_string(r"/\w+/g")
    assert word is not None and word.replace("青梧abc雨", lambda m: "_") == "青梧_雨"
    # JS "." stops at \r as well as \n.
    dot = regex_from_string("/a.b/")
    assert dot is not None and dot.search("a\rb") is None and dot.search("a雨b") is not None
