"""The commands' own rules: variables (text, numbers, index=), arithmetic as JavaScript computes it,
text commands with Chinese sentences, chat edits, generation and Quick Replies."""

from __future__ import annotations

import json

from conftest import Runner
from peargarden.stscript.commands.strings import trim_to_end_sentence, trim_to_start_sentence
from peargarden.stscript.values import Mulberry32


def test_setvar_stores_text_and_addvar_stores_numbers(run: Runner) -> None:
    done = run("/setvar key=金币 5 | /addvar key=金币 3 | /incvar 次数 | /addvar key=名字 青梧")
    assert done.local == {"金币": 8, "次数": 1, "名字": "青梧"}


def test_addvar_appends_to_a_json_list(run: Runner) -> None:
    done = run('/setvar key=背包 ["剑"] | /addvar key=背包 盾')
    assert json.loads(done.local["背包"]) == ["剑", "盾"]


def test_index_reads_and_writes_inside_json(run: Runner) -> None:
    done = run('/setvar key=人物 {"名":"怀瑾"} | /setvar key=人物 index=年龄 as=number 27 | /getvar key=人物 index=名')
    assert done.pipe == "怀瑾"
    assert json.loads(done.local["人物"]) == {"名": "怀瑾", "年龄": 27}
    assert run('/setvar key=l ["a"] | /setvar key=l index=2 c | /getvar l').pipe == '["a",null,"c"]'


def test_a_stored_object_reads_as_object_object(run: Runner) -> None:
    assert run("/getvar 状态", local={"状态": {"地点": "栖水镇"}}).pipe == "[object Object]"


def test_listvar_as_object(run: Runner) -> None:
    done = run("/setglobalvar key=全局 1 | /setvar key=本地 2 | /listvar return=object")
    assert json.loads(done.pipe) == [
        {"key": "本地", "value": "2", "scope": "local"},
        {"key": "全局", "value": "1", "scope": "global"},
    ]


def test_arithmetic_as_javascript_computes_it(run: Runner) -> None:
    script = (
        "/round 2.5 | /setvar key=a | /round -2.5 | /setvar key=b | /mod -7 3 | /setvar key=c | "
        "/pow 10 400 | /setvar key=d | /div 1 0 | /setvar key=e | /add 0.1 0.2 | /setvar key=f | "
        "/sqrt -1 | /setvar key=g"
    )
    done = run(script)
    expected = {"a": "3", "b": "-2", "c": "-1", "d": "Infinity", "e": "0", "f": "0.30000000000000004", "g": "0"}
    assert done.local == expected


def test_arithmetic_reads_variable_names(run: Runner) -> None:
    assert run("/setvar key=血量 40 | /let 伤害 15 | /sub 血量 伤害").pipe == "25"
    assert run('/setvar key=x 2 | /mul ["x", 3, 4]').pipe == "24"


def test_rand_uses_the_hosts_random_source(run: Runner) -> None:
    expected = Mulberry32(7)
    first = expected()
    assert run("/rand").pipe == repr(first)
    assert run("/rand from=1 to=6 round=floor").pipe in {"1", "2", "3", "4", "5", "6"}


def test_len_and_sort(run: Runner) -> None:
    assert run("/len 栖水镇的渡口").pipe == "6"
    assert run('/len ["甲","乙"]').pipe == "2"
    assert run("/sort [3,1,2]").pipe == "[1,2,3]"
    assert run('/sort keysort=false {"甲": 3, "乙": 1}').pipe == '["乙","甲"]'


def test_sentence_trimming_knows_chinese_marks() -> None:
    assert trim_to_end_sentence("他推开门。屋里没有") == "他推开门。"
    assert trim_to_end_sentence("no mark at all  ") == "no mark at all"
    assert trim_to_start_sentence("走了. 她回头看了一眼。") == "她回头看了一眼。"


def test_text_commands(run: Runner) -> None:
    assert run("/substr start=-2 青梧客栈").pipe == "客栈"
    assert run("/upper hello").pipe == "HELLO"
    replaced = run('/replace mode=regex pattern="/(\\d+)两/g" replacer="$1 两银子" 花了3两又5两')
    assert replaced.pipe == "花了3 两银子又5 两银子"
    assert run("/test pattern=/渡口/ 镇北渡口").pipe == "true"
    assert run('/match pattern="/(\\d+)号/" 房间12号').pipe == '["12号","12"]'


def test_chat_edits(run: Runner) -> None:
    done = run(
        "/send 掌柜，还有空房吗？ | /sendas name=Ava 有的。 | /sys 夜深了。 | /comment 作者注 | /hide 1 | "
        "/messages names=off 0-4"
    )
    names = [m["name"] for m in done.chat]
    assert names == ["Ava", "User", "Ava", "System", "Note"]
    assert done.chat[1]["is_system"] is True  # hidden
    assert done.pipe == "Hi, I am Ava.\n\n有的。\n\n夜深了。"


def test_cut_and_del(run: Runner) -> None:
    done = run("/send 一 | /send 二 | /send 三 | /cut 1-2 | /setvar key=剪下 | /del 1")
    assert done.local["剪下"] == "一\n二\n"
    assert done.pipe == "三\n"
    assert [m["mes"] for m in done.chat] == ["Hi, I am Ava."]
    refused = run("/cut 5 | /del 9 | /del 两")
    assert [t["message"] for t in refused.host.toasts] == [
        "Must provide a Message ID or a range to cut.",
        "Cannot delete more than 1 messages.",
        "Must enter a number or nothing.",
    ]


def test_gen_sends_the_chat_with_the_instruction(run: Runner) -> None:
    done = run("/gen 用一个词形容天气", replies=["  晴朗  "])
    assert done.pipe == "晴朗"
    messages = done.host.requests[0]["messages"]
    assert messages[-1] == {"role": "system", "content": "用一个词形容天气"}
    assert len(done.chat) == 1  # nothing was added to the chat


def test_genraw_sends_only_its_prompt(run: Runner) -> None:
    done = run('/genraw system="简短" 讲个事实', replies=["事实"])
    assert done.host.requests[0]["messages"] == [
        {"role": "system", "content": "简短"},
        {"role": "user", "content": "讲个事实"},
    ]


def test_trigger_adds_a_reply(run: Runner) -> None:
    done = run("/send 你好 | /trigger", replies=["你好，客官。"])
    assert done.chat[-1]["mes"] == "你好，客官。" and not done.chat[-1]["is_user"]


def test_setinput(run: Runner) -> None:
    assert run("/setinput 草稿").host.input_text == "草稿"


def test_quick_replies_run_with_arguments(run: Runner) -> None:
    script = (
        "/qr-set-create 常用 | /qr-create set=常用 label=问好 /pass 你好，{{arg::who}} | "
        "/run who=怀瑾 常用.问好 | /setvar key=结果 | /qr-list 常用"
    )
    done = run(script)
    assert done.local["结果"] == "你好，怀瑾"
    assert json.loads(done.pipe) == ["问好"]
    assert done.host.library.get("常用") is not None


def test_inject_reaches_the_next_request_and_an_ephemeral_one_only_that(run: Runner) -> None:
    done = run(
        "/inject id=天气 position=chat depth=0 窗外雷声阵阵 | "
        "/inject id=一次 ephemeral=true position=chat depth=0 只这一次 | /gen 写一句 | /gen 再写一句",
        replies=["甲", "乙"],
    )
    first, second = (json.dumps(r["messages"], ensure_ascii=False) for r in done.host.requests)
    assert "窗外雷声阵阵" in first and "只这一次" in first
    assert "窗外雷声阵阵" in second and "只这一次" not in second
    assert set(done.host.state.chat_metadata["script_injects"]) == {"天气"}


def test_author_note_commands(run: Runner) -> None:
    done = run("/note 保持悬疑 | /depth 2 | /freq 3")
    metadata = done.host.state.chat_metadata
    assert (metadata["note_prompt"], metadata["note_depth"], metadata["note_interval"]) == ("保持悬疑", 2, 3)


def test_dialogs_nobody_answers_in_a_replay(run: Runner) -> None:
    done = run(
        '/input default=客官 你叫什么？ | /setvar key=名 | /buttons labels=["住店","吃饭"] 要做什么？ | /setvar key=选'
    )
    assert done.local == {"名": "客官", "选": ""}
    assert done.host.popups == ["你叫什么？", "要做什么？"]
    assert run("/popup result=true 确定吗").pipe == "0"
    assert run("/popup 确定吗").pipe == "确定吗"  # without result=true the popup's text is passed on


def test_tokens_and_trimtokens(run: Runner) -> None:
    count = int(run("/tokens 栖水镇的雨下了一整夜").pipe)
    assert count > 0
    # As in SillyTavern: direction=end (the default) keeps the last tokens, start the first ones.
    tail = run("/trimtokens limit=3 栖水镇的雨下了一整夜").pipe
    head = run("/trimtokens limit=3 direction=start 栖水镇的雨下了一整夜").pipe
    assert "栖水镇的雨下了一整夜".startswith(head) and "栖水镇的雨下了一整夜".endswith(tail)
    assert head != tail
    assert 0 < int(run(f"/tokens {head}").pipe) <= 3 and 0 < int(run(f"/tokens {tail}").pipe) <= 3


def test_the_guide_names_every_command() -> None:
    from pathlib import Path

    from peargarden.stscript.commands import default_registry

    guide = (Path(__file__).parents[2] / "docs" / "stscript.md").read_text(encoding="utf-8")
    missing = [c.name for c in default_registry().commands() if c.name not in ("/",) and f"`/{c.name}" not in guide]
    assert missing == []
