"""``pear vars apply``: one reply's MVU commands applied to a variables file (the contract in docs/cli.md)."""

from __future__ import annotations

import json
from pathlib import Path

from kit.cli import pear_in_process

RECORD = {
    "initialized_lorebooks": {"小梨变量书": []},
    "stat_data": {
        "世界": {"地点": "梨园", "时间": "2024-01-01T08:00:00.000Z"},
        "小梨": {"好感度": [10, "0~100"], "物品": ["折扇"]},
    },
    "schema": {
        "type": "object",
        "properties": {
            "世界": {
                "type": "object",
                "properties": {
                    "地点": {"type": "string", "required": True},
                    "时间": {"type": "string", "required": True},
                },
                "extensible": False,
                "recursiveExtensible": False,
                "required": True,
            },
            "小梨": {
                "type": "object",
                "properties": {
                    "好感度": {
                        "type": "array",
                        "extensible": False,
                        "elementType": {"type": "number"},
                        "required": True,
                    },
                    "物品": {"type": "array", "extensible": False, "elementType": {"type": "string"}, "required": True},
                },
                "extensible": False,
                "recursiveExtensible": False,
                "required": True,
            },
        },
        "extensible": False,
        "recursiveExtensible": False,
    },
    "display_data": {},
    "delta_data": {},
}
REPLY = (
    "小梨笑着接过茶。\n<UpdateVariable>\n"
    "_.set('世界.地点', '后台');//去后台\n_.add('小梨.好感度', 5);//喝茶\n"
    "_.add('世界.时间', 3600000);//一小时\n_.insert('小梨.物品', '笛子');//新得\n</UpdateVariable>"
)


def _files(tmp_path: Path, record: object, reply: str = REPLY) -> tuple[Path, Path]:
    variables = tmp_path / "变量.json"
    variables.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    reply_file = tmp_path / "回复.txt"
    reply_file.write_text(reply, encoding="utf-8")
    return variables, reply_file


def test_apply_prints_the_variables_after_the_reply(home_dir: Path, tmp_path: Path) -> None:
    variables, reply = _files(tmp_path, RECORD)
    result = pear_in_process(
        home_dir, "vars", "apply", "--variables", variables, "--reply", reply, "--json", check=True
    )
    after = json.loads(result.stdout)
    assert after["stat_data"]["世界"] == {"地点": "后台", "时间": "2024-01-01T09:00:00.000Z"}
    assert after["stat_data"]["小梨"]["好感度"] == [15, "0~100"]
    # the array is not extensible: MVU refuses the insert and says so on stderr
    assert after["stat_data"]["小梨"]["物品"] == ["折扇"]
    assert "笛子" in result.stderr and "non-extensible" in result.stderr
    assert after["delta_data"]["世界"]["地点"] == "梨园->后台 (去后台)"
    assert after["display_data"]["小梨"]["好感度"] == "10->15 (喝茶)"
    assert "小梨笑着" not in result.stdout


def test_apply_without_json_lists_the_changes(home_dir: Path, tmp_path: Path) -> None:
    variables, reply = _files(tmp_path, RECORD)
    result = pear_in_process(home_dir, "vars", "apply", "--variables", variables, "--reply", reply, check=True)
    assert "世界.地点: 梨园->后台 (去后台)" in result.stdout.splitlines()


def test_bare_stat_data_is_seeded_with_its_markers(home_dir: Path, tmp_path: Path) -> None:
    bare = {"小梨": {"物品": ["折扇", "$__META_EXTENSIBLE__$"]}}
    variables, reply = _files(tmp_path, bare, "_.insert('小梨.物品', '笛子');//新得")
    result = pear_in_process(
        home_dir, "vars", "apply", "--variables", variables, "--reply", reply, "--json", check=True
    )
    after = json.loads(result.stdout)
    assert after["stat_data"] == {"小梨": {"物品": ["折扇", "笛子"]}}
    assert after["schema"]["properties"]["小梨"]["properties"]["物品"]["extensible"] is True


def test_a_missing_or_broken_file_is_one_line_naming_it(home_dir: Path, tmp_path: Path) -> None:
    variables, reply = _files(tmp_path, RECORD)
    missing = pear_in_process(home_dir, "vars", "apply", "--variables", tmp_path / "无.json", "--reply", reply)
    assert missing.returncode != 0 and missing.stdout == ""
    assert missing.stderr.strip().count("\n") == 0 and "无.json" in missing.stderr
    broken = tmp_path / "坏.json"
    broken.write_text("{坏", encoding="utf-8")
    result = pear_in_process(home_dir, "vars", "apply", "--variables", broken, "--reply", reply, "--json")
    assert result.returncode != 0 and "坏.json" in result.stderr and result.stderr.strip().count("\n") == 0
    not_object = tmp_path / "数组.json"
    not_object.write_text("[1, 2]", encoding="utf-8")
    result = pear_in_process(home_dir, "vars", "apply", "--variables", not_object, "--reply", reply, "--json")
    assert result.returncode != 0 and "数组.json" in result.stderr
    result = pear_in_process(home_dir, "vars", "apply", "--variables", variables, "--reply", tmp_path / "无.txt")
    assert result.returncode != 0 and "无.txt" in result.stderr


CASE = Path(__file__).parents[1] / "variables" / "mvu_e2e" / "01-minimal-classic-mvu"


def _imported_chat(home: Path) -> tuple[str, list[dict[str, object]]]:
    """The recorded chat after the swipe, imported onto the bundled card (its variables come along)."""
    from kit.apps import scripted_app, seeded_home
    from peargarden.app.play.service import PearApp
    from peargarden.providers.scripted import ScriptedProvider

    data = (CASE / "chat_04_swipe.jsonl").read_bytes()
    app: PearApp = scripted_app(seeded_home(home), ScriptedProvider())
    chat = app.import_chat("青梧", data, "小梨 - 变量.jsonl")
    lines = [json.loads(line) for line in data.decode("utf-8").split("\n") if line.strip()]
    return chat.chat_id, lines


def test_vars_show_prints_a_messages_variables_per_swipe(home_dir: Path) -> None:
    chat_id, lines = _imported_chat(home_dir)
    done = pear_in_process(home_dir, "vars", "show", "--chat", chat_id, "--message", "6", "--json")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["message"] == 6 and shown["role"] == "assistant" and shown["swipe_id"] == 1
    assert shown["swipes"] == lines[7]["variables"]  # line 0 is the header
    assert shown["variables"] == lines[7]["variables"][1] and shown["chat_variables"] == {}
    # Without --message: the last message; as text, its stat_data as the model sees it.
    text = pear_in_process(home_dir, "vars", "show", "--chat", chat_id)
    assert text.returncode == 0 and text.stdout.startswith("第 6 条 · 回复 · 第 2/2 个版本\n")
    assert "金钱: 80" in text.stdout and "心情: 生气" in text.stdout
    user = pear_in_process(home_dir, "vars", "show", "--chat", chat_id, "--message", "1")
    assert user.stdout.startswith("第 1 条 · 用户\n") and "地点: 梨园" in user.stdout


def test_vars_show_names_a_missing_message_or_chat_in_one_line(home_dir: Path) -> None:
    chat_id, _ = _imported_chat(home_dir)
    missing = pear_in_process(home_dir, "vars", "show", "--chat", chat_id, "--message", "99")
    assert missing.returncode == 2 and missing.stdout == ""
    assert "没有第 99 条消息" in missing.stderr and len(missing.stderr.strip().splitlines()) == 1
    unknown = pear_in_process(home_dir, "vars", "show", "--chat", "没有这段对话")
    assert unknown.returncode == 2 and unknown.stdout == "" and "没有对话" in unknown.stderr


def _mvu_home(home: Path, base_url: str) -> None:
    """The recorded case's card and lorebook in a data folder whose model is the fake server."""
    from kit.apps import seeded_home
    from peargarden.app.library.imports import import_files

    seeded = seeded_home(home)
    import_files(seeded, [CASE / "card.json"], book="mount", card=None)
    import_files(seeded, [CASE / "小梨变量书.json"], book="mount", card="小梨")
    seeded.config_file.write_text(
        f'[model]\nprovider = "m"\nmodel = "fake"\n[providers.m]\nbase_url = "{base_url}"\n', encoding="utf-8"
    )


def test_pear_chat_prints_a_status_line_after_a_beat_and_a_variables_line_in_json(home_dir: Path) -> None:
    from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply

    reply = json.loads((CASE / "step_01_send.json").read_text(encoding="utf-8"))["reply_text"]
    with FakeOpenAIServer() as fake:
        _mvu_home(home_dir, fake.base_url)
        fake.script([text_reply(reply), text_reply(reply)])
        text = pear_in_process(home_dir, "chat", "--card", "小梨", "--mode", "tavern", "--once", "早上好，小梨。")
        assert text.returncode == 0, text.stderr
        status = [line for line in text.stderr.splitlines() if line.startswith("【变量】")]
        assert len(status) == 1 and "金钱=80*" in status[0] and "世界.地点=后台*" in status[0]
        assert "【变量】" not in text.stdout
        once = ("chat", "--card", "小梨", "--mode", "tavern", "--once", "早上好。", "--json")
        as_json = pear_in_process(home_dir, *once)
    lines = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert [line["type"] for line in lines][-2:] == ["done", "variables"]
    assert lines[-1]["variables"]["stat_data"]["金钱"] == 80 and lines[-1]["status"].startswith("【变量】")
    assert "【变量】" not in as_json.stderr
