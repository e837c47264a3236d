"""STscript on a real chat of the data folder: the bundled card 青梧 in tavern mode, the model behind
the fake OpenAI server.  Every change goes through the service (so it is on disk, survives a reopen,
and can be undone as any edit); chat variables are the chat's; global ones the data folder's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from kit.apps import seeded_home
from kit.cli import pear_in_process
from peargarden.app.play.service import ChatOptions, ChatSession, PearApp
from peargarden.app.play.slash import run_chat_script
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home


@pytest.fixture
def chat(home_dir: Path) -> Iterator[tuple[ChatSession, FakeOpenAIServer]]:
    home = seeded_home(home_dir)
    with FakeOpenAIServer() as fake:
        home.config_file.write_text(
            f'st_version = "1.18"\n[model]\nprovider = "m"\nmodel = "fake"\n'
            f'[providers.m]\nbase_url = "{fake.base_url}"\n',
            encoding="utf-8",
        )
        session = PearApp(home).new_chat("青梧", ChatOptions(mode="tavern"))
        yield session, fake


def _texts(session: ChatSession) -> list[str]:
    return [m.content for m in session.messages()]


def test_posts_are_written_to_the_chat_and_read_back(chat: tuple[ChatSession, FakeOpenAIServer]) -> None:
    session, _ = chat
    greeting = _texts(session)[0]
    script = "/send 掌柜，还有空房吗？ | /sendas name=青梧 有的，客官楼上请。 | /sys 夜深了。 | /comment 记一笔"
    done = run_chat_script(session, script)
    assert done.thrown is None and done.changed
    reopened = session.app.open_chat("青梧", session.chat_id)
    messages = reopened.messages()
    assert [m.content for m in messages] == [greeting, "掌柜，还有空房吗？", "有的，客官楼上请。", "夜深了。", "记一笔"]
    assert [m.role for m in messages[1:]] == ["user", "assistant", "assistant", "assistant"]
    assert "narrator" in messages[3].tags and {"comment", "hidden"} <= set(messages[4].tags)


def test_at_inserts_as_a_new_branch(chat: tuple[ChatSession, FakeOpenAIServer]) -> None:
    session, _ = chat
    run_chat_script(session, "/send 一 | /send 二")
    run_chat_script(session, "/sys at=1 插在前面")
    assert _texts(session)[1:] == ["插在前面", "一", "二"]
    assert len(session.tree_rows()) > 4  # the old line is still in the tree


def test_messages_hide_and_cut(chat: tuple[ChatSession, FakeOpenAIServer]) -> None:
    session, _ = chat
    done = run_chat_script(session, "/send 一 | /send 二 | /send 三 | /hide 2 | /messages names=off 1-3")
    assert (done.result or {}).get("pipe") == "一\n\n三"
    assert session.messages()[2].hidden
    cut = run_chat_script(session, "/cut 1-2")
    assert (cut.result or {}).get("pipe") == "一\n二\n"
    assert _texts(session)[1:] == ["三"]


def test_chat_variables_are_the_chats_and_global_ones_the_data_folders(
    chat: tuple[ChatSession, FakeOpenAIServer],
) -> None:
    session, _ = chat
    run_chat_script(session, "/setvar key=好感 5 | /addvar key=好感 3 | /setglobalvar key=周目 2")
    reopened = session.app.open_chat("青梧", session.chat_id)
    assert reopened.variables().chat == {"好感": 8}
    home = session.app.home
    assert json.loads(home.global_variables_file.read_text(encoding="utf-8")) == {"周目": "2"}
    again = run_chat_script(reopened, "/pass {{getvar::好感}}/{{getglobalvar::周目}}")
    assert (again.result or {}).get("pipe") == "8/2"


def test_trigger_and_gen_reach_the_model(chat: tuple[ChatSession, FakeOpenAIServer]) -> None:
    session, fake = chat
    fake.script([text_reply("客官请坐。"), text_reply("晴")])
    done = run_chat_script(session, "/send 掌柜在吗 | /trigger | /gen 用一个字形容天气")
    assert done.thrown is None, done.thrown
    assert _texts(session)[-1] == "客官请坐。"
    assert (done.result or {}).get("pipe") == "晴"
    last_request = fake.requests[-1].body
    assert last_request["messages"][-1] == {"role": "system", "content": "用一个字形容天气"}
    assert len(session.messages()) == 3  # /gen added nothing


def test_errors_are_toasts_and_nothing_half_done(chat: tuple[ChatSession, FakeOpenAIServer]) -> None:
    session, _ = chat
    done = run_chat_script(session, "/send 好 | /var 没有声明")
    assert done.result is not None and done.result["isError"]
    assert done.toasts[0]["title"] == "SlashCommandExecutionError"
    assert _texts(session)[-1] == "好"  # what ran before the error stays, as in SillyTavern
    parse = run_chat_script(session, "/没有这个命令")
    assert parse.toasts[0]["title"] == "SlashCommandParserError"


def test_pear_slash_on_a_stored_chat(chat: tuple[ChatSession, FakeOpenAIServer], home_dir: Path) -> None:
    session, _ = chat
    done = pear_in_process(home_dir, "slash", "--chat", session.chat_id, "--json", "/setvar key=地点 渡口 | /echo 到了")
    out = json.loads(done.stdout)
    assert done.returncode == 0 and out["result"]["pipe"] == "到了"
    assert out["toasts"] == [{"type": "info", "title": "", "message": "到了"}]
    bad = pear_in_process(home_dir, "slash", "--chat", session.chat_id, "/var 没有")
    assert bad.returncode == 1 and bad.stderr.strip().splitlines()[-1].startswith("pear: 脚本出错")
    missing = pear_in_process(home_dir, "slash", "--chat", "nope", "/pass 1")
    assert missing.returncode == 2


def test_quick_replies_are_kept_in_the_data_folder(chat: tuple[ChatSession, FakeOpenAIServer]) -> None:
    session, _ = chat
    run_chat_script(
        session, "/qr-set-create 常用 | /qr-create set=常用 label=问好 /pass 你好，{{arg::who}} | /qr-set-on 常用"
    )
    home: Home = session.app.home
    saved = json.loads((home.quick_replies_dir / "常用.json").read_text(encoding="utf-8"))
    assert saved["name"] == "常用" and saved["qrList"][0]["label"] == "问好"
    links = json.loads(home.quick_replies_file.read_text(encoding="utf-8"))
    assert links == {"setList": [{"set": "常用", "isVisible": True}]}
    done = run_chat_script(session, "/run who=怀瑾 常用.问好")
    assert (done.result or {}).get("pipe") == "你好，怀瑾"


def test_quick_reply_files_in_and_out(home_dir: Path) -> None:
    from peargarden.app.library.quick_replies import (
        delete_quick_reply_set,
        export_quick_reply_set,
        import_quick_reply_set,
        quick_reply_sets,
        set_global_quick_replies,
    )
    from peargarden.errors import FormatError, NotFound

    home = seeded_home(home_dir)
    reply = {"id": 1, "label": "问好", "message": "/echo 你好", "x-own": 1}
    raw = json.dumps({"version": 2, "name": "常用", "qrList": [reply]})
    saved = import_quick_reply_set(home, raw.encode("utf-8"), "常用.json")
    # Unknown fields kept, SillyTavern's defaults filled in.
    assert saved["qrList"][0]["x-own"] == 1 and saved["qrList"][0]["executeOnUser"] is False
    assert json.loads(export_quick_reply_set(home, "常用"))["qrList"][0]["label"] == "问好"
    assert set_global_quick_replies(home, [{"set": "常用"}]) == [{"set": "常用", "isVisible": True}]
    assert quick_reply_sets(home)["global"] == [{"set": "常用", "isVisible": True}]
    with pytest.raises(FormatError) as bad:
        import_quick_reply_set(home, b'{"qrList": []}', "坏的.json")
    assert "坏的.json" in str(bad.value) and "name" in str(bad.value)
    with pytest.raises(FormatError):
        import_quick_reply_set(home, b"{ not json", "坏的.json")
    with pytest.raises(NotFound):
        set_global_quick_replies(home, [{"set": "没有"}])
    delete_quick_reply_set(home, "常用")
    left = quick_reply_sets(home)
    assert (left["sets"], left["global"]) == ([], [])


def test_pear_chat_runs_other_slash_lines_as_stscript(home_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    with FakeOpenAIServer() as server:
        server.script([text_reply("好的，客官。")])
        lines = ["/setvar key=好感 5 | /echo 记下了", "掌柜好", "/pass 好感={{getvar::好感}}", "/没有这个", "/quit"]
        monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
        done = pear_in_process(home_dir, "chat", "--mode", "tavern", "--base-url", server.base_url, "--model", "m")
    assert done.returncode == 0, done.stderr
    assert "[info] 记下了" in done.stderr and "好感=5" in done.stdout
    assert "SlashCommandParserError" in done.stderr and "/没有这个" in done.stderr


def test_pear_import_takes_a_quick_reply_set_file(home_dir: Path, tmp_path: Path) -> None:
    seeded_home(home_dir)
    good = tmp_path / "快捷回复.json"
    good.write_text(
        json.dumps(
            {"version": 2, "name": "客栈", "qrList": [{"id": 1, "label": "上茶", "message": "/echo 茶"}]},
            ensure_ascii=False,
        ),
        encoding="utf-8",
    )
    done = pear_in_process(home_dir, "import", good, check=True)
    assert "Quick Reply" in done.stdout + done.stderr
    assert (Home(home_dir).quick_replies_dir / "客栈.json").read_bytes() == good.read_bytes()
    bad = tmp_path / "坏的.json"
    bad.write_text(json.dumps({"name": "客栈", "qrList": ["不是对象"]}), encoding="utf-8")
    refused = pear_in_process(home_dir, "import", bad)
    assert refused.returncode == 2 and "坏的.json" in refused.stderr
