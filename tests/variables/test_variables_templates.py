"""``<% %>`` card templates: EJS tags as EJS 3 renders them, ``getvar``/``setvar`` on the variables, the sandbox."""

from __future__ import annotations

from peargarden.variables.templates_js import render_template

PHASE = """阶段指导：
<%_ const phase = getvar('stat_data.系统.当前阶段', { defaults: '磨合期' }); _%>
<%_ if (phase === '磨合期') { _%>
  二人还在磨合。
<%_ } else { _%>
  二人已是<%= phase %>。
<%_ } _%>
完"""


def test_the_branch_follows_the_variable_and_its_default() -> None:
    assert render_template(PHASE, {"message": {}}).text == "阶段指导：\n  二人还在磨合。\n完"
    hot = {"message": {"stat_data": {"系统": {"当前阶段": "热恋期"}}}}
    assert render_template(PHASE, hot).text == "阶段指导：\n  二人已是热恋期。\n完"


def test_escaped_raw_comment_and_literal_tags() -> None:
    text = "<%= '<b>&\"' %>|<%- '<b>' %>|<%= null %><%# 注释 %>|<%% 字面 %%>"
    assert render_template(text).text == "&lt;b&gt;&amp;&#34;|<b>||<% 字面 %>"


def test_dash_and_underscore_close_eat_the_newline() -> None:
    assert render_template("甲 <% if (1) { -%>\n乙\n<% } -%>\n丙").text == "甲 乙\n丙"
    assert render_template("  <%_ const a = 1 _%>  \n值=<%= a %>").text == "值=1"


def test_setvar_writes_the_message_scope_by_default_and_others_when_asked() -> None:
    result = render_template(
        "<% setvar('stat_data.访问', 1); setvar('次数', 2, {scope: 'local'}); "
        "incvar('全局.计数', 3, {scope: 'global'}) %>",
        {"message": {"stat_data": {"好感度": 5}}},
    )
    assert result.warning is None
    assert result.variables["message"] == {"stat_data": {"好感度": 5, "访问": 1}}
    assert result.variables["chat"] == {"次数": 2}
    assert result.variables["global"] == {"全局": {"计数": 3}}


def test_getvar_reads_message_then_chat_then_global() -> None:
    scopes = {"message": {"甲": 1}, "chat": {"甲": 2, "乙": 2}, "global": {"乙": 3, "丙": 3}}
    text = "<%= getvar('甲') %><%= getvar('乙') %><%= getvar('丙') %><%= getvar('甲', {scope: 'chat'}) %>"
    assert render_template(text, scopes).text == "1232"


def test_the_given_variables_are_not_changed() -> None:
    given = {"message": {"stat_data": {"好感度": 5}}}
    render_template("<% setvar('stat_data.好感度', 99) %>", given)
    assert given == {"message": {"stat_data": {"好感度": 5}}}


def test_a_failing_template_is_kept_and_named() -> None:
    for template in ("<% 未定义的函数() %>", "<% foo( %>", "<% if (1) { %>没有关上"):
        result = render_template(template, name="阶段指导")
        assert result.text == template
        assert result.warning is not None and "阶段指导" in result.warning


def test_no_network_files_or_modules_inside() -> None:
    probe = "<%= [typeof require, typeof fetch, typeof process, typeof std, typeof os, typeof XMLHttpRequest].join() %>"
    assert render_template(probe).text == "undefined,undefined,undefined,undefined,undefined,undefined"


def test_time_and_memory_are_limited() -> None:
    spin = render_template("<% while (true) {} %>", name="死循环", time_limit=0.2)
    assert spin.warning is not None and "死循环" in spin.warning
    hog = render_template(
        "<% const a = []; while (true) a.push('梨'.repeat(100000)) %>", name="吃内存", memory_limit=8 << 20
    )
    assert hog.warning is not None and "吃内存" in hog.warning


def test_text_without_tags_is_returned_as_is() -> None:
    assert render_template("没有模板 {{user}}").text == "没有模板 {{user}}"


def test_a_long_output_comes_back_whole() -> None:
    # quickjs-ng keeps a long concatenation as a rope string, which its binding cannot return as is.
    template = "开头<% for (let i = 0; i < 3000; i++) { %>梨<% } %>结尾" + "长" * 5000
    rendered = render_template(template)
    assert rendered.warning is None and rendered.text == "开头" + "梨" * 3000 + "结尾" + "长" * 5000
