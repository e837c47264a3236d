"""A crash right after a reply is written loses no variable update (issue 46, item 6).

A real ``pear chat --once`` process is killed (SIGKILL) exactly where its reply's line is on disk
and its variables record is not: the lifecycle's step after the reply is replaced by the kill.  The
lock file still names the dead process; the next open of the chat applies the reply's
``<UpdateVariable>`` as the beat would have, and the next beat carries on from it — a card's chat in
tavern mode, on the stage, and a group's round (killed after its first speaker)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kit.apps import seeded_home
from kit.groups import connect, tea_house
from peargarden.app.library.groups import create_group
from peargarden.app.library.imports import import_files
from peargarden.app.play.group_session import GroupSession, latest_group_chat
from peargarden.app.play.service import ChatSession, PearApp
from peargarden.sessions.variables import MESSAGE_VARIABLES_TYPE
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.chat_lock import chat_lock_file, holder_pid
from peargarden.workspace.chats import ChatFile
from peargarden.workspace.home import Home

CASE = Path(__file__).parents[1] / "variables" / "mvu_e2e" / "01-minimal-classic-mvu"
XIAOLI = (
    "小梨笑着接过茶。\n<UpdateVariable>\n_.set('世界.地点', '后台');//去后台\n"
    "_.add('金钱', -20);//买茶叶\n</UpdateVariable>"
)
# `pear` whose step after a reply is a SIGKILL: the process dies with the reply written and nothing after it.
_KILLED_AFTER_THE_REPLY = """
import os, signal, sys
from peargarden.app.play import lifecycle

def _killed(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

lifecycle._after_reply = _killed
from peargarden.cli import main
main(sys.argv[1:])
"""


@pytest.fixture
def home(home_dir: Path) -> Home:
    seeded = tea_house(seeded_home(home_dir))
    import_files(seeded, [CASE / "card.json"], book="mount", card=None)
    import_files(seeded, [CASE / "小梨变量书.json"], book="mount", card="小梨")
    return seeded


def _killed_beat(home: Home, *args: str) -> None:
    command = [sys.executable, "-c", _KILLED_AFTER_THE_REPLY, "--home", str(home.root), *args]
    env = {**os.environ, "PEARGARDEN_HOME": str(home.root), "PYTHONIOENCODING": "utf-8"}
    run = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env, check=False)
    assert run.returncode == -signal.SIGKILL, run.stderr


def _unsettled(chats_dir: Path) -> ChatFile:
    """The chat as the crash left it (read without claiming it): its last message is the reply, and
    no variables note names it."""
    (chat_id,) = [p.name for p in chats_dir.iterdir() if p.is_dir()]
    chat = ChatFile.open(chats_dir, chat_id)
    last = chat.tree.messages()[-1]
    assert last.role == "assistant" and "<UpdateVariable>" in str(last.message.get("content"))
    notes = [n.body["data"]["message"] for n in chat.tree.customs(MESSAGE_VARIABLES_TYPE)]
    assert last.id not in notes
    return chat


def _stat_of_last_reply(chat: ChatSession | GroupSession) -> dict[str, Any]:
    record = chat.variables().messages[-1].current
    assert record is not None, "the reply has no variables record"
    return dict(record["stat_data"])


@pytest.mark.parametrize("mode", ["tavern", "stage"])
def test_a_card_chats_reply_killed_before_its_variables_gets_them_at_the_next_open(home: Home, mode: str) -> None:
    with FakeOpenAIServer() as fake:
        connect(home, fake.base_url)
        fake.script([text_reply(XIAOLI), text_reply("小梨把茶叶收好，冲你点点头。")])
        _killed_beat(home, "chat", "--card", "小梨", "--mode", mode, "--once", "师父，我去买茶叶。")
        crashed = _unsettled(home.card_dir("小梨") / "chats")
        # The lock file still names the dead process: the claim knows it died holding the chat.
        assert holder_pid(chat_lock_file(home, "小梨", crashed.chat_id)) is not None
        chat = PearApp(home, story_memory=False).open_chat("小梨", crashed.chat_id)
        assert holder_pid(chat.lock_file) is None  # claimed and given back cleanly
        stat = _stat_of_last_reply(chat)
        assert stat["世界"]["地点"] == "后台" and stat["金钱"] == 80
        assert "上一拍在记下变量之前中断了：已按那条回复补上变量" in chat.chat.warnings
        if mode == "stage":  # the stage shows no update block: the note's text is the reply without it
            assert "<UpdateVariable>" not in (chat.view().rows[-1].content)
        # The next beat carries on from the reply's variables, not from the ones before it.
        events = [e.type for e in chat.play("send", "还有别的事吗？").events()]
        assert events[-1] == "done" and "error" not in events
        assert _stat_of_last_reply(chat)["世界"]["地点"] == "后台"


def test_a_group_reply_killed_before_its_variables_gets_them_at_the_next_open(home: Home) -> None:
    create_group(home, "戏班", ["小梨", "林月"], strategy="list", mode="tavern")
    with FakeOpenAIServer() as fake:
        connect(home, fake.base_url)
        fake.script([text_reply(XIAOLI)])
        _killed_beat(home, "chat", "--group", "戏班", "--once", "师父来了，大家早。")
        crashed = _unsettled(home.root / "groups" / "戏班" / "chats")
        assert crashed.tree.messages()[-1].message.get("name") == "小梨"  # the round died after its first reply
        chat = latest_group_chat(PearApp(home, story_memory=False), "戏班")
        assert chat is not None
        stat = _stat_of_last_reply(chat)
        assert stat["世界"]["地点"] == "后台" and stat["金钱"] == 80
        assert "上一拍在记下变量之前中断了：已按那条回复补上变量" in chat.chat.warnings


def test_a_reply_without_a_record_is_left_alone_when_its_holder_released_the_chat(home: Home) -> None:
    """Only a holder that died is finished for: a clean release (an empty lock file) means the
    beat's own steps ran, whatever they wrote (an edited reply, say, keeps no record of its own)."""
    with FakeOpenAIServer() as fake:
        connect(home, fake.base_url)
        fake.script([text_reply(XIAOLI)])
        _killed_beat(home, "chat", "--card", "小梨", "--mode", "tavern", "--once", "师父，我去买茶叶。")
    crashed = _unsettled(home.card_dir("小梨") / "chats")
    chat_lock_file(home, "小梨", crashed.chat_id).write_text("", encoding="ascii")
    PearApp(home, story_memory=False).open_chat("小梨", crashed.chat_id)
    _unsettled(home.card_dir("小梨") / "chats")
