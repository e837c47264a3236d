"""``pear group`` (create, list, edit, mute, delete, import, export) and ``pear chat --group`` against
the fake OpenAI server: one beat, a ``speaker`` event and a reply per member, Chinese names."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kit.apps import seeded_home
from kit.cli import pear_in_process
from kit.groups import GROUP_CASES, add_card, connect, tea_house
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace import inputs
from peargarden.workspace.home import Home


@pytest.fixture
def home(home_dir: Path) -> Home:
    return tea_house(seeded_home(home_dir))


def _tavern_group(home: Home) -> None:
    pear_in_process(home.root, "group", "create", "茶馆", "--member", "林月", "--member", "周明",
                    "--strategy", "list", "--mode", "tavern", check=True)  # fmt: skip


def _group(home: Home) -> dict[str, object]:
    rows = json.loads(pear_in_process(home.root, "group", "list", "--json", check=True).stdout)
    assert len(rows) == 1
    return rows[0]


def test_a_group_is_made_listed_changed_muted_and_deleted(home: Home) -> None:
    made = pear_in_process(home.root, "group", "create", "茶馆", "--member", "林月", "--member", "周明",
                           "--strategy", "list", check=True)  # fmt: skip
    assert "茶馆" in made.stdout
    raw = json.loads((home.root / "groups" / "茶馆" / "group.json").read_text(encoding="utf-8"))
    assert raw["members"] == ["林月.png", "周明.png"] and raw["activation_strategy"] == 1
    assert list(raw)[:3] == ["id", "name", "members"] and raw["name"] == "茶馆"
    row = _group(home)
    assert [(m["name"], m["card"], m["muted"]) for m in row["members"]] == [
        ("林月", "林月", False),
        ("周明", "周明", False),
    ]
    assert (row["strategy"], row["generation"], row["chats"]) == ("list", "swap", 0)

    pear_in_process(home.root, "group", "edit", "茶馆", "--add", "小桃", "--generation", "join", "--mode", "tavern",
                    "--join-prefix", "<FIELDNAME>：", check=True)  # fmt: skip
    pear_in_process(home.root, "group", "mute", "茶馆", "周明", check=True)
    row = _group(home)
    assert [(m["name"], m["muted"]) for m in row["members"]] == [("林月", False), ("周明", True), ("小桃", False)]
    assert (row["generation"], row["mode"]) == ("join", "tavern")
    raw = json.loads((home.root / "groups" / "茶馆" / "group.json").read_text(encoding="utf-8"))
    assert raw["disabled_members"] == ["周明.png"] and raw["generation_mode_join_prefix"] == "<FIELDNAME>："
    again = pear_in_process(home.root, "group", "mute", "茶馆", "周明", check=True)
    assert "本来就是静音" in again.stdout
    pear_in_process(home.root, "group", "unmute", "茶馆", "周明", check=True)
    assert not any(m["muted"] for m in _group(home)["members"])

    kept = (home.root / "groups" / "茶馆" / "group.json").read_bytes()
    gone = pear_in_process(home.root, "group", "delete", "茶馆", check=True)
    assert "快照" in gone.stdout and not (home.root / "groups" / "茶馆").exists()
    assert json.loads(pear_in_process(home.root, "group", "list", "--json", check=True).stdout) == []
    # The vault's snapshot brings it back, byte for byte.
    snapshot = gone.stdout.split("pear vault restore ")[1].split()[0]
    pear_in_process(home.root, "vault", "restore", snapshot, "groups", check=True)
    assert (home.root / "groups" / "茶馆" / "group.json").read_bytes() == kept


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (("create", "茶馆", "--member", "无名"), "没有名为「无名」的卡"),
        (("create", "茶馆", "--member", "林月", "--strategy", "random"), "发言策略"),
        (("create", "？！……", "--member", "林月"), "没有可用的字符"),
        (("edit", "没这个群", "--add", "林月"), "没有名为「没这个群」的群聊"),
    ],
)
def test_bad_group_commands_fail_with_one_line_and_write_nothing(
    home: Home, args: tuple[str, ...], problem: str
) -> None:
    result = pear_in_process(home.root, "group", *args)
    assert result.returncode == 2
    assert problem in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (home.root / "groups").exists() or not any((home.root / "groups").iterdir())


def test_pear_chat_group_once_json_names_each_speaker(home: Home) -> None:
    _tavern_group(home)
    with FakeOpenAIServer() as fake:
        connect(home, fake.base_url)
        fake.script([text_reply("龙井马上就好。"), text_reply("雨落西湖，茶香满楼。")])
        result = pear_in_process(home.root, "chat", "--group", "茶馆", "--once", "今天喝什么茶？", "--json", check=True)
        sent = [request.body["messages"] for request in fake.chat_requests]
    events = [json.loads(line) for line in result.stdout.splitlines()]
    kinds = [e["type"] for e in events if e["type"] != "text_delta"]
    assert kinds == ["speaker", "speaker", "done"]
    speakers = [(e["name"], e["card"]) for e in events if e["type"] == "speaker"]
    assert speakers == [("林月", "林月"), ("周明", "周明")]
    # Each speaker's text streams after its own speaker event.
    first, second = (i for i, e in enumerate(events) if e["type"] == "speaker")
    assert "".join(e["text"] for e in events[first:second] if e["type"] == "text_delta") == "龙井马上就好。"
    assert len(sent) == 2
    assert sent[0][-1] == {"role": "system", "content": "[Write the next reply only as 林月.]"}
    assert {"role": "assistant", "content": "林月: 龙井马上就好。"} in sent[1]
    assert sent[1][-1] == {"role": "system", "content": "[Write the next reply only as 周明.]"}
    chats = json.loads(pear_in_process(home.root, "group", "chats", "茶馆", "--json", check=True).stdout)
    assert len(chats) == 1


def test_pear_chat_group_prints_each_speaker_before_its_reply(home: Home) -> None:
    _tavern_group(home)
    with FakeOpenAIServer() as fake:
        connect(home, fake.base_url)
        fake.script([text_reply("龙井马上就好。"), text_reply("雨落西湖。")])
        result = pear_in_process(home.root, "chat", "--group", "茶馆", "--once", "今天喝什么茶？", check=True)
    assert result.stdout.strip().splitlines() == ["【林月】", "龙井马上就好。", "【周明】", "雨落西湖。"]


def test_card_and_group_together_are_refused(home: Home) -> None:
    pear_in_process(home.root, "group", "create", "茶馆", "--member", "林月", check=True)
    result = pear_in_process(home.root, "chat", "--group", "茶馆", "--card", "林月", "--once", "你好")
    assert result.returncode == 2 and "只能选一个" in result.stderr


CASE = GROUP_CASES / "72-group-continue"


def test_a_sillytavern_group_and_its_chat_come_in_and_go_out_unchanged(home: Home, tmp_path: Path) -> None:
    settings = json.loads((CASE / "settings.json").read_text(encoding="utf-8"))
    for member in settings["members"]:
        add_card(home, member["file"].rsplit(".", 1)[0], (CASE / f"{member['card']}.json").read_bytes())
    chat_file = tmp_path / "group chats" / f"{settings['group_chat_id']}.jsonl"
    chat_file.parent.mkdir()
    chat_file.write_bytes((CASE / "group_chat.jsonl").read_bytes())
    group_file = tmp_path / f"{settings['group_id']}.json"
    group_file.write_bytes((CASE / "group.json").read_bytes())
    done = pear_in_process(home.root, "group", "import", group_file, chat_file, check=True)
    assert "Tea House" in done.stdout
    out = tmp_path / "out"
    written = pear_in_process(home.root, "group", "export", "Tea House", "-o", out, check=True).stdout.splitlines()
    assert written == [str(out / "groups" / f"{settings['group_id']}.json"),
                       str(out / "group chats" / f"{settings['group_chat_id']}.jsonl")]  # fmt: skip
    assert (out / "groups" / f"{settings['group_id']}.json").read_bytes() == group_file.read_bytes()
    assert (out / "group chats" / chat_file.name).read_bytes() == chat_file.read_bytes()


def test_a_group_whose_members_are_not_here_is_refused_whole(home: Home, tmp_path: Path) -> None:
    group_file = tmp_path / "1764000000000.json"
    group_file.write_bytes((CASE / "group.json").read_bytes())
    result = pear_in_process(home.root, "group", "import", group_file)
    assert result.returncode == 2 and "Lin Yue.png" in result.stderr and "pear import" in result.stderr
    assert not (home.root / "groups").exists()


def test_a_member_whose_card_was_deleted_is_named_and_skipped(home: Home) -> None:
    """Issue 46, item 8: the group skipped a deleted member's card silently."""
    _tavern_group(home)
    shutil.rmtree(home.card_dir("周明"))  # as the web's delete, or the user, removes a card
    with FakeOpenAIServer() as fake:
        connect(home, fake.base_url)
        fake.script([text_reply("龙井马上就好。")])
        result = pear_in_process(home.root, "chat", "--group", "茶馆", "--once", "今天喝什么茶？", check=True)
    warnings = [line for line in result.stderr.splitlines() if line.startswith("⚠")]
    assert warnings == [
        "⚠ 群聊「茶馆」的成员 「周明」 的卡不在数据文件夹里（删掉了？），轮到时跳过："
        "重新导入这张卡，或用 pear group edit 茶馆 --remove 把它移出群聊"
    ]
    assert result.stdout.strip().splitlines() == ["【林月】", "龙井马上就好。"]


def test_sessions_show_and_export_find_a_group_chat(home: Home, tmp_path: Path) -> None:
    """Issue 46, item 8: `pear sessions show ID` said "no such chat" for a group's chat."""
    _tavern_group(home)
    with FakeOpenAIServer() as fake:
        connect(home, fake.base_url)
        fake.script([text_reply("龙井马上就好。"), text_reply("雨落西湖。")])
        pear_in_process(home.root, "chat", "--group", "茶馆", "--once", "今天喝什么茶？", check=True)
    (chat_id,) = json.loads(pear_in_process(home.root, "group", "chats", "茶馆", "--json", check=True).stdout)
    shown = pear_in_process(home.root, "sessions", "show", chat_id, check=True).stdout.splitlines()
    assert shown[-3:] == ["[2] 你：今天喝什么茶？", "[3] 林月：龙井马上就好。", "[4] 周明：雨落西湖。"]
    data = json.loads(pear_in_process(home.root, "sessions", "show", chat_id, "--json", check=True).stdout)
    assert (data["card"], data["group"], data["id"]) == (None, "茶馆", chat_id)
    assert [row["content"] for row in data["branch"]][-2:] == ["龙井马上就好。", "雨落西湖。"]
    out = tmp_path / "导出.jsonl"
    pear_in_process(home.root, "sessions", "export", chat_id, "-o", out, check=True)
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    said = [(line.get("name"), line.get("mes")) for line in lines[-2:]]
    assert said == [("林月", "龙井马上就好。"), ("周明", "雨落西湖。")] and lines[-1]["original_avatar"] == "周明.png"
    missing = pear_in_process(home.root, "sessions", "show", "没有这个对话")
    assert missing.returncode == 2 and "群聊" in missing.stderr


def _long_chat(path: Path, lines: int) -> Path:
    """A SillyTavern group chat of 林月 and 周明 with *lines* messages (a few hundred bytes each)."""
    header = {"chat_metadata": {}, "user_name": "unused", "character_name": "unused"}
    rows = [json.dumps(header, ensure_ascii=False)]
    for n in range(lines):
        name = ("林月", "周明")[n % 2]
        said = f"第{n}句：雨还没有停，茶馆里的灯一盏盏亮起来，" + "窗外的柳枝在风里摇。" * 8
        rows.append(json.dumps({"name": name, "is_user": False, "send_date": "2026-12-01T12:00:00.000Z",
                                "mes": said, "original_avatar": f"{name}.png", "extra": {"gen_id": n}},
                               ensure_ascii=False))  # fmt: skip
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_a_group_chat_larger_than_a_file_read_whole_imports_as_a_cards_chat_does(
    home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 46, item 9: a 100,000-message group chat (83.5 MiB) was refused by the 64 MiB limit of a
    file read whole, while a card's chat of 108.6 MB imported (read a line at a time).  Here the
    whole-file limit is made 256 KiB and both chats are 1.2 MB: both import."""
    monkeypatch.setattr(inputs, "MAX_FILE_BYTES", 256 * 1024)
    chat = _long_chat(tmp_path / "雨夜.jsonl", 3000)
    assert chat.stat().st_size > 4 * inputs.MAX_FILE_BYTES
    group = {"id": "1764000000000", "name": "茶馆", "members": ["林月.png", "周明.png"], "chat_id": "雨夜"}
    group_file = tmp_path / "1764000000000.json"
    group_file.write_text(json.dumps(group, ensure_ascii=False), encoding="utf-8")
    done = pear_in_process(home.root, "group", "import", group_file, chat)
    assert done.returncode == 0, done.stderr
    (chat_id,) = json.loads(pear_in_process(home.root, "group", "chats", "茶馆", "--json", check=True).stdout)
    shown = pear_in_process(home.root, "sessions", "show", chat_id, "--json", check=True)
    assert len(json.loads(shown.stdout)["branch"]) == 3000
    card_chat = pear_in_process(home.root, "import", chat, "--card", "林月")
    assert card_chat.returncode == 0, card_chat.stderr  # the same file into a card: the same limits
    too_big = tmp_path / "大.json"
    too_big.write_bytes(b" " * (inputs.MAX_FILE_BYTES + 1))  # a file read whole keeps its limit
    refused = pear_in_process(home.root, "group", "import", too_big)
    assert refused.returncode == 2 and "文件过大" in refused.stderr
