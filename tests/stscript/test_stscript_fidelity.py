"""Commands exact with SillyTavern 1.18.0 where they had drifted: ``return=``, ``/inject``, the
Author's Note, the posting commands, generation, ``/hide``, ``/addswipe``.  Expected values come from
SillyTavern 1.18.0's source (and, for JavaScript's number printing, from Node)."""

from __future__ import annotations

import json

import pytest

from conftest import Runner
from peargarden.stscript.commands import default_registry
from peargarden.stscript.parser import parse
from peargarden.stscript.syntax import ParserError
from peargarden.stscript.values import number_to_radix


def _toasts(done: object) -> list[tuple[str, str, str]]:
    return [(t["type"], t["title"], t["message"]) for t in done.host.toasts]  # type: ignore[attr-defined]


# -- numbers in base 36 (Math.random().toString(36)) -------------------------------------------------


def test_number_to_radix_writes_what_v8_writes() -> None:
    # Node 's own output for these doubles.
    assert number_to_radix(0.011704753153026104, 36) == "0.0f63hnwsbu4c"
    assert number_to_radix(0.1, 36) == "0.3lllllllllm"
    assert number_to_radix(255.5, 16) == "ff.8"
    assert number_to_radix(123.456, 36) == "3f.gez4w97ry"
    assert number_to_radix(-8.0, 2) == "-1000"


# -- /inject and /listinjects -------------------------------------------------------------------------


def test_inject_passes_its_id_on_and_makes_one_up_when_none_is_given(run: Runner) -> None:
    named = run("/inject id=天气 position=chat 窗外下着雨")
    assert named.pipe == "天气"
    assert named.host.toasts == []
    # The first draw of the host's seeded random source (Mulberry32(7)) in base 36, as Node prints it.
    made_up = run("/inject 窗外下着雨")
    assert made_up.pipe == "0f63hnwsbu4c"
    assert made_up.host.state.chat_metadata["script_injects"]["0f63hnwsbu4c"]["value"] == "窗外下着雨"
    assert made_up.host.toasts == []


def test_listinjects_object_and_text(run: Runner) -> None:
    done = run("/inject id=天气 depth=2 窗外下着雨 | /listinjects return=object")
    assert json.loads(done.pipe) == {
        "天气": {"value": "窗外下着雨", "position": 0, "depth": 2, "scan": False, "role": 0, "filter": None}
    }
    text = run("/inject id=天气 depth=2 窗外下着雨 | /listinjects return=pipe").pipe
    assert (
        text
        == "### Script injections:\n* **天气**: <code>窗外下着雨</code> (IN_PROMPT, depth: 2, scan: false, role: 0)"
    )
    empty = run("/listinjects return=pipe").pipe
    assert empty == "### Script injections:\nNo script injections for the current chat"


def test_inject_keeps_a_filter_closure_as_text_and_refuses_an_empty_one(run: Runner) -> None:
    done = run("/inject id=甲 filter={: /pass true :} 只在晚上 | /listinjects return=object")
    assert json.loads(done.pipe)["甲"]["filter"] == " /pass true "
    refused = run("/inject id=甲 filter={::} 只在晚上")
    assert refused.outcome.error is not None
    assert refused.outcome.error.message == (
        "Failed to parse the filter argument. Make sure it is a valid non-empty closure."
    )


# -- return= ------------------------------------------------------------------------------------------


def test_listvar_pipe_gives_the_markdown_text(run: Runner) -> None:
    done = run("/setvar key=金币 5 | /setglobalvar key=天气 晴 | /listvar return=pipe")
    chat = done.host.chat_name
    assert done.pipe == f"### Local variables ({chat}):\n金币: 5\n\n### Global variables:\n天气: 晴"
    local = run("/listvar scope=local return=pipe").pipe
    assert local == f"### Local variables ({chat}):\nNo local variables"


def test_an_unknown_return_type_is_an_error(run: Runner) -> None:
    for script in ("/listvar return=表格", "/listinjects return=表格", "/send return=表格 你好"):
        done = run(script)
        assert done.outcome.error is not None and done.outcome.error.message == "Unknown return type: 表格"


def test_return_toast_and_chat(run: Runner) -> None:
    toast = run("/setvar key=金币 5 | /listvar scope=local return=toast-text")
    assert toast.pipe == ""
    assert _toasts(toast)[-1][0] == "info" and "金币: 5" in _toasts(toast)[-1][2]
    chat = run("/setvar key=金币 <5> | /listvar scope=local return=chat-text")
    posted = chat.chat[-1]
    assert posted["name"] == "SillyTavern System" and posted["is_system"] is True
    assert posted["extra"] == {"swipeable": False, "type": "generic"}
    assert "金币: &lt;5&gt;" in posted["mes"]


# -- the Author's Note ----------------------------------------------------------------------------------


def test_author_note_commands_pass_the_value_on_with_toasts(run: Runner) -> None:
    done = run("/note 保持悬疑 | /setvar key=注 | /note-depth -2 | /setvar key=深 | /note-frequency 3 | /setvar key=频")
    assert done.local == {"注": "保持悬疑", "深": "2", "频": "3"}
    assert _toasts(done) == [
        ("success", "", "Author's Note text updated"),
        ("success", "", "Author's Note depth updated"),
        ("success", "", "Author's Note frequency updated"),
    ]
    # Without text /note passes the note on and keeps it.
    kept = run("/note 保持悬疑 | /note")
    assert kept.pipe == "保持悬疑" and kept.host.state.chat_metadata["note_prompt"] == "保持悬疑"


def test_author_note_position_and_role(run: Runner) -> None:
    done = run("/note-position before | /setvar key=位 | /note-role assistant | /setvar key=角")
    # The position is announced but, as in SillyTavern, not stored: the default (chat) is passed on.
    assert done.local == {"位": "chat", "角": "assistant"}
    assert done.host.state.chat_metadata["note_role"] == 2
    assert _toasts(done) == [
        ("info", "", "Author's Note position updated"),
        ("info", "", "Author's Note role updated"),
    ]
    bad = run("/note-depth 很深 | /note-pos 中间 | /note-role 旁白")
    assert [t[2] for t in _toasts(bad)] == ["Not a valid number", "Not a valid position", "Not a valid role"]
    assert bad.pipe == ""


@pytest.mark.parametrize("name", ["interval", "position"])
def test_invented_aliases_are_gone(name: str) -> None:
    with pytest.raises(ParserError, match="Unknown command"):
        parse(f"/{name} 1", default_registry())


def test_sillytavern_aliases_exist(run: Runner) -> None:
    assert run("/call {: /pass 甲 :}").pipe == "甲"
    assert run("/exec {: /pass 乙 :}").pipe == "乙"
    assert run("/note-freq 2 | /freq").pipe == "2"
    done = run("/send 一 | /send 二 | /delmode 1")
    assert done.pipe == "二\n"
    assert default_registry().get("prompt") is default_registry().get("input")


# -- posting commands ---------------------------------------------------------------------------------


def test_quotes_are_kept_unless_raw_is_false(run: Runner) -> None:
    echoed = run('/echo "客官 请"')
    assert echoed.pipe == '"客官 请"'
    assert _toasts(echoed) == [("info", "", '"客官 请"')]
    assert run('/echo raw=false "客官 请"').pipe == "客官 请"
    done = run('/send "掌柜，有房吗？" | /sys raw=false "夜深了。"')
    assert [m["mes"] for m in done.chat[1:]] == ['"掌柜，有房吗？"', "夜深了。"]


def test_empty_text_is_still_posted(run: Runner) -> None:
    done = run('/send "" | /comment')
    assert [(m["name"], m["mes"]) for m in done.chat[1:]] == [("User", '""'), ("Note", "")]


def test_posting_commands_return_what_is_asked(run: Runner) -> None:
    assert run("/send 掌柜好").pipe == ""
    assert run("/send return=pipe 掌柜好").pipe == "掌柜好"
    posted = json.loads(run("/sendas name=Ava return=object 客官请").pipe)
    assert posted["name"] == "Ava" and posted["mes"] == "客官请"
    assert run("/comment return=pipe 作者注").pipe == "作者注"


def test_sys_takes_a_narrator_name(run: Runner) -> None:
    done = run("/sys name=说书人 话说那日 | /sys 天黑了")
    assert [m["name"] for m in done.chat[1:]] == ["说书人", "System"]


def test_sendas_finds_the_character_ignoring_case_and_accents(run: Runner) -> None:
    done = run("/sendas name=ava 你好 | /sendas name=Ává 再会 | /sendas name=怀瑾 久等了")
    first, second, other = done.chat[1:]
    assert (first["name"], second["name"]) == ("Ava", "Ava")
    assert "force_avatar" not in first and "force_avatar" not in second
    assert other["name"] == "怀瑾" and other["force_avatar"] == other["original_avatar"] == "img/ai4.png"


def test_sendas_avatar_and_the_nameless_warning(run: Runner) -> None:
    missing = run("/sendas name=Ava avatar=怀瑾 你好")
    assert _toasts(missing) == [("warning", "", "Character for avatar 怀瑾 not found")]
    assert len(missing.chat) == 1 and missing.pipe == ""
    nameless = run("/sendas 你好 | /sendas 又见面了")
    assert [m["name"] for m in nameless.chat[1:]] == ["Ava", "Ava"]
    assert _toasts(nameless) == [
        ("warning", "Name defaulted to {{char}}", 'To avoid confusion, please use /sendas name="Character Name"')
    ]


# -- generation -----------------------------------------------------------------------------------------


def test_gen_clears_the_input_box_and_trims_to_a_sentence_only_when_asked(run: Runner) -> None:
    done = run("/setinput 草稿 | /gen 写一句", replies=["天色已晚。她还没"])
    assert done.pipe == "天色已晚。她还没" and done.host.input_text == ""
    trimmed = run("/gen trim=true 写一句", replies=["天色已晚。她还没"])
    assert trimmed.pipe == "天色已晚。"


def test_genraw_without_a_prompt_sends_nothing(run: Runner) -> None:
    done = run("/setinput 草稿 || /genraw")
    assert done.host.requests == [] and done.pipe == "" and done.host.input_text == "草稿"


def test_genraw_reads_variables_for_system_length_and_stop(run: Runner) -> None:
    script = (
        '/setvar key=设定 你是说书人。 | /setvar key=长度 50 | /setvar key=停 ["。"] | '
        "/genraw system=设定 length=长度 stop=停 讲个故事"
    )
    done = run(script, replies=["Ava: 从前有座山"])
    body = done.host.requests[0]
    assert body["messages"][0] == {"role": "system", "content": "你是说书人。"}
    assert body["max_tokens"] == 50 and body["stop"] == ["。"]
    assert done.pipe == "从前有座山"  # the character's name is taken off the answer
    kept = run("/genraw trim=false 讲个故事", replies=["Ava: 从前有座山"])
    assert kept.pipe == "从前有座山"  # a name at a line start goes whatever trim= says (names hidden)


def test_gen_length_and_stop(run: Runner) -> None:
    done = run('/gen length=20 stop=["！"] 写一句', replies=["好"])
    body = done.host.requests[0]
    assert body["max_tokens"] == 20 and body["stop"] == ["！"]


# -- /hide, /unhide, /addswipe ------------------------------------------------------------------------


def test_hide_without_a_range_hides_the_last_message(run: Runner) -> None:
    done = run("/send 一 | /send 二 | /hide")
    assert [m["is_system"] for m in done.chat] == [False, False, True]
    shown = run("/send 一 | /hide | /unhide")
    assert shown.chat[-1]["is_system"] is False


def test_hide_name_filter(run: Runner) -> None:
    done = run("/send 一 | /sendas name=怀瑾 二 | /send 三 | /hide name=User 0-3")
    # ``/sendas`` writes ``is_system`` as SillyTavern does: ``bias && …``, the empty bias itself.
    assert [(m["name"], m["is_system"]) for m in done.chat] == [
        ("Ava", False),
        ("User", True),
        ("怀瑾", ""),
        ("User", True),
    ]


def test_addswipe_switch_takes_the_new_swipes_extra(run: Runner) -> None:
    done = run("/sendas name=Ava 第一版 | /addswipe switch=true 第二版")
    last = done.chat[-1]
    assert done.pipe == "1" and last["mes"] == "第二版" and last["swipe_id"] == 1
    assert last["extra"] == {"bias": "", "api": "manual", "model": "slash command"}
    assert last["swipe_info"][0]["extra"]["isSmallSys"] is False  # the old swipe kept its extra


# -- /replace, /test, /match --------------------------------------------------------------------------


def test_replace_uses_javascripts_replacement_patterns(run: Runner) -> None:
    # Expected values are what Node's String.prototype.replace / replaceAll give.
    # (A | inside quotes ends the command in SillyTavern's default escaping: commas here.)
    regex = run('/replace mode=regex pattern=/(乙)/ replacer="[$0,$1,$2,$10,$01,$&,$`,$\',$$,$<x>]" 甲乙丙').pipe
    assert regex == "甲[$0,乙,$2,乙0,乙,乙,甲,丙,$,$<x>]丙"
    named = run('/replace mode=regex pattern="/(?<名>青梧)/" replacer="<$<名>,$<无>," 青梧客栈').pipe
    assert named == "<青梧,,客栈"
    literal = run('/replace pattern=. replacer="[$&$`$\'$$$1]" 甲.乙').pipe
    assert literal == "甲[.甲乙$$1]乙"


def test_replace_errors_as_sillytavern_words_them(run: Runner) -> None:
    def error(script: str) -> str:
        done = run(script)
        assert done.outcome.error is not None
        return done.outcome.error.message

    assert error("/replace replacer=x 甲乙") == "Argument of 'pattern=' cannot be empty"
    assert error("/replace mode=regex pattern= 甲乙") == "Argument of 'pattern=' cannot be empty"
    assert error("/replace mode=整体 pattern=甲 甲乙") == "Invalid '/replace mode=' argument specified!"
    # An invalid regex is not an error: JavaScript replaces the text "undefined".
    assert run('/replace mode=regex pattern="/(/" replacer=甲 undefined和undefined').pipe == "甲和undefined"


def test_test_and_match_errors(run: Runner) -> None:
    for command in ("test", "match"):
        empty = run(f"/{command} 甲乙")
        assert empty.outcome.error is not None
        assert empty.outcome.error.message == "Argument of 'pattern=' cannot be empty"
        bad = run(f'/{command} pattern="/(/" 甲乙')
        assert bad.outcome.error is not None
        assert bad.outcome.error.message == "The value of 'pattern' argument is not a valid regular expression."


# -- small commands -----------------------------------------------------------------------------------


def test_trimtokens_limits(run: Runner) -> None:
    assert run("/trimtokens limit=很多 栖水镇的雨下了一整夜").pipe == "栖水镇的雨下了一整夜"
    assert run("/trimtokens limit=0 栖水镇的雨下了一整夜").pipe == ""
    assert run("/setvar key=上限 1000 | /trimtokens limit=上限 栖水镇").pipe == "栖水镇"


def test_buttons_with_bad_labels_give_nothing(run: Runner) -> None:
    for labels in ("不是JSON", "[]", '[{"icon":"x"}]', '[""]'):
        done = run(f"/buttons labels={labels} 选一个")
        assert done.outcome.error is None and done.pipe == ""
    assert run('/buttons multiple=true labels=["甲","乙"] 选几个').pipe == "[]"


def test_trimend_keeps_the_space_before_an_emoji(run: Runner) -> None:
    assert run("/trimend 你好 😀 然后").pipe == "你好 😀"
    assert run("/trimend 你好 。然后").pipe == "你好"


def test_substr_as_javascript_slices(run: Runner) -> None:
    assert run('/substr start=1 end="" 青梧客栈').pipe == ""
    assert run("/substr start=1 青梧客栈").pipe == "梧客栈"
    assert run("/substr start=0 end=2 😀甲").pipe == "😀"  # UTF-16: the emoji is two code units


# -- Quick Replies ------------------------------------------------------------------------------------


def test_a_fresh_replay_has_the_default_set_switched_on(run: Runner) -> None:
    assert run("/qr-set-list").pipe == '["Default"]'
    assert run("/qr-set-list global").pipe == '["Default"]'
    assert run("/qr-list Default").pipe == '["HELP","New Chat","Match UI to Background"]'


def test_qr_errors_are_toasts_never_thrown(run: Runner) -> None:
    done = run(
        "/qr-create set=无 label=甲 /pass 1 | /qr-set-on 无 | /qr-update set=Default label=无 x | "
        "/qr-list 无 | /qr-get set=Default | /qr-get set=Default label=无"
    )
    assert done.outcome.error is None and done.pipe == ""
    assert [t[2] for t in _toasts(done)] == [
        'No quick reply set with named "无" found.',
        'No quick reply set with name "无" found.',
        'No quick reply with label "无" in set "Default" found.',
        'No quick reply set with name "" found.',
        "Please provide a valid id or label.",
    ]
    assert {t[0] for t in _toasts(done)} == {"error"}


def test_qr_ids_key_order_and_update_keeps_a_blank_message(run: Runner) -> None:
    done = run(
        "/qr-set-create 常用 | /qr-create set=常用 label=问好 generation=true /pass 你好 | "
        "/qr-create set=常用 label=告别 /pass 再会 | /qr-update set=常用 label=问好 newlabel=招呼 || "
        "/qr-get set=常用 id=2"
    )
    reply = json.loads(done.pipe)
    assert list(reply) == [
        "id", "icon", "showLabel", "label", "title", "message", "contextList", "preventAutoExecute", "isHidden",
        "executeOnStartup", "executeOnUser", "executeOnAi", "executeOnChatChange", "executeOnGroupMemberDraft",
        "executeOnNewChat", "executeBeforeGeneration", "automationId",
    ]  # fmt: skip
    assert (reply["id"], reply["label"], reply["message"], reply["executeBeforeGeneration"]) == (
        2,
        "招呼",
        "/pass 你好",
        True,
    )
    assert json.loads(run("/qr-set-create 常用 | /qr-create set=常用 label=甲 x | /qr-create set=常用 label=乙 y || "
                          "/qr-get set=常用 label=乙").pipe)["id"] == 4  # fmt: skip


def test_qr_set_and_chat_set_toggle(run: Runner) -> None:
    done = run("/qr-set-create 常用 | /qr-set 常用 | /qr-chat-set 常用 | /qr-set Default | /qr-set-list global")
    assert done.pipe == '["常用"]'
    assert run("/qr-set-create 常用 | /qr-chat-set 常用 | /qr-chat-set 常用 | /qr-set-list chat").pipe == "[]"


def test_qr_set_list_is_sorted_and_set_update_sets_switches(run: Runner) -> None:
    done = run("/qr-set-create beta | /qr-set-create Alpha | /qr-set-create zeta | /qr-set-list")
    assert done.pipe == '["Alpha","beta","Default","zeta"]'
    updated = run("/qr-set-create nosend=true 常用 | /qr-set-update inject=true 常用")
    switches = updated.host.library.get("常用")
    assert switches is not None
    assert (switches.data["disableSend"], switches.data["injectInput"]) == (False, True)


@pytest.mark.parametrize("name", ["qr-add", "qr-mod", "qr-del", "qr-get-list"])
def test_invented_qr_aliases_are_gone(name: str) -> None:
    with pytest.raises(ParserError, match="Unknown command"):
        parse(f"/{name} x", default_registry())


def test_run_finds_a_label_in_active_sets_first(run: Runner) -> None:
    done = run(
        "/qr-set-create 常用 | /qr-create set=常用 label=问好 /pass 常用的 | /qr-set-on 常用 | "
        "/qr-set-create 甲 | /qr-create set=甲 label=问好 /pass 甲的 | /run 问好 | /setvar key=一 | "
        "/run 甲.问好 | /setvar key=二"
    )
    assert done.local == {"一": "常用的", "二": "甲的"}


def test_errors_inside_a_quick_reply_are_prefixed(run: Runner) -> None:
    done = run("/qr-set-create 常用 | /qr-create set=常用 label=坏 /var 没有 | /run 常用.坏")
    assert done.outcome.error is not None
    assert done.outcome.error.message == 'Error running Quick Reply "常用.坏": No such variable: "没有"'
    parsed = run("/qr-set-create 常用 | /qr-create set=常用 label=坏 /不存在 | /run 常用.坏")
    assert parsed.outcome.error is None and parsed.pipe == ""
    assert [t[1] for t in _toasts(parsed)] == ["SlashCommandParserError"]


def test_a_quick_reply_of_plain_text_is_sent(run: Runner) -> None:
    done = run("/qr-set-create 常用 | /qr-create set=常用 label=问 掌柜，有房吗？ | /run 常用.问", replies=["有的。"])
    assert [m["mes"] for m in done.chat[1:]] == ["掌柜，有房吗？", "有的。"]
    kept = run("/qr-set-create nosend=true 常用 | /qr-create set=常用 label=问 /pass 不跑 | /run 常用.问")
    assert kept.host.input_text == "/pass 不跑 " and len(kept.host.requests) == 0


def test_qr_arg_does_not_shadow_runs_arguments(run: Runner) -> None:
    script = (
        "/qr-set-create 常用 | /qr-create set=常用 label=问 /qr-arg who 无名 \\| /pass 你好{{arg::who}} | "
        "/run who=怀瑾 常用.问"
    )
    assert run(script).pipe == "你好怀瑾"
