"""TavernHelper's API in Python, called as the runtime calls it (name, JSON arguments, script id), on
SillyTavern's state with our own card: what the declarations promise and what TavernHelper 4.9.3's
code does where the recordings do not reach (ranges, filters, the ``latest`` paths, world books)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kit.script_chats import COMMON, own_card
from peargarden.scripting.api import REFUSED, SYNC, TavernHelperApi, exported
from peargarden.scripting.host import ScriptError
from peargarden.scripting.replay import case_state
from peargarden.scripting.st_beat import opened
from peargarden.scripting.st_host import TavernScriptHost
from peargarden.text.jsvalue import UNDEFINED

BOOK = {
    "entries": {
        "0": {"uid": 0, "key": ["梨园", "/花旦|青衣/i"], "keysecondary": [], "comment": "戏班",
              "content": "梨园在城南。", "constant": True, "selective": True, "selectiveLogic": 0, "position": 0,
              "disable": False, "order": 100, "depth": 4, "role": None, "probability": 80, "useProbability": True,
              "displayIndex": 1, "sticky": 0, "group": "班子"},
        "7": {"uid": 7, "key": ["水袖"], "keysecondary": ["台上"], "comment": "身段", "content": "水袖要甩得开。",
              "constant": False, "vectorized": False, "selectiveLogic": 3, "position": 4, "disable": True,
              "order": 5, "depth": 2, "role": 2, "useProbability": False, "probability": 10,
              "displayIndex": 0, "delayUntilRecursion": 2},
    }
}  # fmt: skip


class Setup:
    def __init__(self, chat: list[dict[str, Any]] | None = None, worlds: Any = None) -> None:
        overrides = json.loads((COMMON / "st_settings_overrides.json").read_text(encoding="utf-8"))
        preset = json.loads((COMMON / "preset.json").read_text(encoding="utf-8"))
        self.state = case_state({"card": own_card(world="戏本"), "worlds": worlds or {}}, overrides, preset)
        opened(self.state)
        if chat is not None:
            self.state.chat[:] = chat
        self.host = TavernScriptHost(self.state, reply=lambda n: f"回复{n}")
        self.events: list[tuple[str, list[Any]]] = []
        self.api = TavernHelperApi(self.host, lambda name, args: self.events.append((name, args)))

    def __call__(self, name: str, *args: Any) -> Any:
        return self.api.call(name, list(args), "剧本-1")


def _message(text: str, *, user: bool = False, hidden: bool = False, **more: Any) -> dict[str, Any]:
    return {"name": "User" if user else "小梨", "is_user": user, "is_system": hidden, "mes": text, "extra": {}, **more}


SIX = [_message("开场"), _message("你好", user=True), _message("旁白", hidden=True), _message("唱一段", user=True),
       _message("咿呀", swipes=["咿呀", "哎"], swipe_id=0), _message("谢幕", hidden=True)]  # fmt: skip


@pytest.mark.parametrize(
    ("range_text", "options", "ids"),
    [
        ("10-12", {}, [5]),  # clamped, not refused (recorded in case 06)
        ("-2--1", {}, [4, 5]),
        ("3-1", {}, [1, 2, 3]),
        ("0-{{lastMessageId}}", {"role": "user"}, [1, 3]),
        ("0-5", {"hide_state": "hidden"}, [2, 5]),
        ("0-5", {"hide_state": "unhidden", "role": "assistant"}, [0, 4]),
        ("一到三", {}, []),
    ],
)
def test_get_chat_messages_ranges_and_filters(range_text: str, options: dict[str, Any], ids: list[int]) -> None:
    got = Setup(chat=[dict(m) for m in SIX])("getChatMessages", range_text, options)
    assert [m["message_id"] for m in got] == ids


def test_a_message_view_carries_the_current_swipe() -> None:
    api = Setup(chat=[dict(m) for m in SIX])
    [plain] = api("getChatMessages", 4)
    assert (plain["message"], plain["swipe_id"], plain["swipes"], plain["data"]) == ("咿呀", 0, ["咿呀", "哎"], {})
    [swiped] = api("getChatMessages", "4", {"include_swipes": True})
    assert "message" not in swiped and swiped["swipes_data"] == [{}, {}] and swiped["swipes_info"] == [{}, {}]


def test_latest_reads_the_newest_shown_message_but_writes_the_last_one() -> None:
    api = Setup(chat=[dict(m) for m in SIX])
    api("replaceVariables", {"读到": "最后显示的"}, {"type": "message", "message_id": 4})
    assert api("getVariables", {"type": "message", "message_id": "latest"}) == {"读到": "最后显示的"}
    api("replaceVariables", {"写到": "最后一条"}, {"type": "message"})
    assert api.state.chat[5]["variables"] == [{"写到": "最后一条"}]
    with pytest.raises(ScriptError, match=r"^提供的消息楼层号 '6' 超出了范围 \[-6, 6\)$"):
        api("getVariables", {"type": "message", "message_id": 6})
    with pytest.raises(ScriptError, match=r"^提供的消息楼层号 '-7' 超出了范围 \(-6, 6\)$"):
        api("replaceVariables", {}, {"type": "message", "message_id": -7})


def test_global_and_chat_variables_keep_chinese_paths() -> None:
    api = Setup()
    api("insertOrAssignVariables", {"戏班": {"名角": ["梅"], "场次": 1}}, {"type": "global"})
    merged = api("insertOrAssignVariables", {"戏班": {"名角": ["程"], "票价": 5}}, {"type": "global"})
    assert merged == {"戏班": {"名角": ["程"], "场次": 1, "票价": 5}}
    assert api("deleteVariable", "戏班.场次", {"type": "global"})["variables"] == {"戏班": {"名角": ["程"], "票价": 5}}
    assert api("deleteVariable", "不存在.路径", {"type": "global"})["delete_occurred"] is True
    assert api.state.extension_settings["variables"]["global"] == {"戏班": {"名角": ["程"], "票价": 5}}


def test_set_chat_messages_merges_changes_of_one_message_and_changes_its_role() -> None:
    api = Setup(chat=[dict(m) for m in SIX])
    assert (
        api("setChatMessages", [{"message_id": 1, "message": "改了"}, {"message_id": -5, "role": "system"}])
        is UNDEFINED
    )
    changed = api.state.chat[1]
    assert (changed["mes"], changed["is_user"], changed["extra"]) == ("改了", False, {"type": "narrator"})
    assert api.events == [("character_message_rendered", [1])]
    api("setChatMessages", [{"message_id": 1, "role": "user"}], {"refresh": "none"})
    assert api.state.chat[1]["extra"] == {} and len(api.events) == 1


def test_create_chat_messages_draws_and_announces_unless_told_not_to() -> None:
    api = Setup()
    api("createChatMessages", [{"role": "assistant", "message": "新的一场", "data": {"幕": 1}}], {"insert_before": 0})
    first = api.state.chat[0]
    assert (first["mes"], first["variables"], first["swipes"], first["swipe_info"]) == (
        "新的一场", [{"幕": 1}], ["新的一场"], [{"extra": {}}])  # fmt: skip
    assert api.events == [("message_received", [0, "extension"]), ("character_message_rendered", [0])]
    api("createChatMessages", [{"role": "user", "message": "静悄悄"}], {"refresh": "none"})
    assert api.state.chat[-1] == {"name": "User", "is_user": True, "is_system": False, "mes": "静悄悄"}
    assert len(api.events) == 2


def test_world_books_read_and_written_in_tavern_helpers_shape() -> None:
    api = Setup(worlds={"戏本": BOOK})
    entries = api("getWorldbook", "戏本")
    assert [e["uid"] for e in entries] == [7, 0]  # display order
    costume, troupe = entries
    assert costume["strategy"] == {"type": "selective", "keys": ["水袖"], "scan_depth": "same_as_global",
                                   "keys_secondary": {"logic": "and_all", "keys": ["台上"]}}  # fmt: skip
    assert costume["position"] == {"type": "at_depth", "role": "assistant", "depth": 2, "order": 5}
    assert (costume["enabled"], costume["probability"], costume["recursion"]["delay_until"]) == (False, 100, 2)
    assert troupe["strategy"]["keys"] == ["梨园", {"__th_regexp": ["花旦|青衣", "i"]}]
    assert (troupe["probability"], troupe["effect"]["sticky"], troupe["group"]) == (80, None, "班子")
    api("replaceWorldbook", "戏本", [*entries, {"name": "新条目", "content": "锣鼓响。"}])
    stored = api.state.worlds["戏本"]["entries"]
    assert stored["0"]["key"] == ["梨园", "/花旦|青衣/i"] and stored["0"]["group"] == "班子"
    new = stored["1"]  # a missing uid takes the first free one after the drawn start (0 here)
    assert (new["comment"], new["constant"], new["position"], new["addMemo"]) == ("新条目", True, 4, True)
    assert api("createWorldbook", "戏本") is False and api("getWorldbookNames") == ["戏本"]
    assert api("getCharWorldbookNames", "current") == {"primary": "戏本", "additional": []}
    with pytest.raises(ScriptError, match="未能找到世界书 '没有这本'"):
        api("getWorldbook", "没有这本")


def test_trigger_slash_runs_stscript_on_the_same_chat() -> None:
    api = Setup()
    assert api("triggerSlash", "/setvar key=腔调 西皮|/getvar 腔调") == "西皮"
    assert api.state.chat_metadata["variables"] == {"腔调": "西皮"}
    assert api("triggerSlash", "/不存在的命令") is UNDEFINED  # a parser error: shown as a toast, nothing returned
    with pytest.raises(ScriptError, match="No Quick Reply found"):
        api("triggerSlash", "/run 没有")


def test_generate_raw_sends_role_prompts_as_written() -> None:
    api = Setup()
    order = ["char_description", "chat_history", {"role": "assistant", "content": "{{user}}好"}, "user_input"]
    assert api("generateRaw", {"user_input": "唱", "ordered_prompts": order}) == "回复1"
    assert api.host.requests[0]["messages"] == [
        {"role": "system", "content": "小梨是梨园的花旦。"},
        {"role": "system", "content": "[Start a new Chat]"},
        {"role": "assistant", "content": "小梨向你行礼：“师父早！”"},
        {"role": "assistant", "content": "{{user}}好"},
        {"role": "user", "content": "唱"},
    ]
    assert [name for name, _ in api.events][:3] == ["GENERATION_AFTER_COMMANDS", "chat_completion_prompt_ready",
                                                      "generate_after_data"]  # fmt: skip
    assert len(api.state.chat) == 1  # a script's generation adds nothing to the chat


def test_refused_and_unknown_functions_say_why() -> None:
    api = Setup()
    for name, reason in [("createCharacter", "角色卡"), ("getModelList", "连接"), ("getPreset", "还没有实现")]:
        with pytest.raises(ScriptError, match=f"^{name} 不可用：.*{reason}"):
            api(name)
    with pytest.raises(ScriptError, match="TavernHelper 没有 没这个 这个函数"):
        api("没这个")
    with pytest.raises(ScriptError, match="custom_api 不可用"):
        api("generate", {"custom_api": {"apiurl": "http://example.invalid"}})
    names = exported()
    assert not set(names["sync"]) & set(REFUSED) and "_getContext" in SYNC and "_getContext" not in names["sync"]


def test_a_script_reads_its_own_card_and_nothing_else() -> None:
    api = Setup()
    assert api("getCharacterNames") == ["小梨"] and api("getCurrentCharacterId") == "小梨.png"
    assert api("getCharData", "current")["data"]["description"] == "小梨是梨园的花旦。"
    assert api("getCharData", "别的角色") is None
    assert api("getMessageId", "TH-message--12--3") == 12
    with pytest.raises(ScriptError, match="不要对全局脚本 iframe 调用 getMessageId"):
        api("getMessageId", "TH-script--状态栏--abc")


def test_script_buttons_are_the_cards_and_their_events_are_named_as_tavern_helper_names_them() -> None:
    buttons = [{"name": "开戏", "visible": True}, {"name": "藏起", "visible": False}]
    script = {"type": "script", "enabled": True, "name": "按钮脚本", "id": "剧本-1", "content": "",
              "button": {"enabled": True, "buttons": buttons}}  # fmt: skip
    api = Setup()
    api.state.card["data"]["extensions"]["tavern_helper"]["scripts"] = [script]
    assert api("getScriptName") == "按钮脚本"
    event = api("getButtonEvent", "开戏")
    assert api("getAllEnabledScriptButtons") == {"剧本-1": [{"button_id": event, "button_name": "开戏"}]}
    assert event.startswith("剧本-1_") and event[len("剧本-1_") :].isdigit()
    api("replaceScriptButtons", [{"name": "谢幕", "visible": True}])
    saved = api.state.card["data"]["extensions"]["tavern_helper"]["scripts"][0]
    assert saved["button"]["buttons"] == [{"name": "谢幕", "visible": True}]
    assert saved["export_with"] == {"data": True, "button": True}  # saved in TavernHelper's shape


def test_injected_prompts_reach_the_request_and_once_means_one_generation() -> None:
    api = Setup()
    quiet = {"id": "旁白", "position": "in_chat", "depth": 0, "role": "system", "content": "台下鸦雀无声。"}
    api("_injectPrompts", [quiet], {"once": True})
    api("generate", {"user_input": "开唱"})
    api("generate", {"user_input": "再唱"})
    first, second = (r["messages"] for r in api.host.requests)
    assert {"role": "system", "content": "台下鸦雀无声。"} in first
    assert {"role": "system", "content": "台下鸦雀无声。"} not in second


def test_a_generations_own_injects_go_in_at_their_depth() -> None:
    api = Setup()
    inject = {"role": "user", "content": "（台下有人喝彩）", "depth": 1, "position": "in_chat"}
    api("generate", {"user_input": "开唱", "injects": [inject]})
    api("generateRaw", {"user_input": "再唱", "injects": [inject]})
    with_preset, raw = (r["messages"] for r in api.host.requests)
    greeting = {"role": "assistant", "content": "小梨向你行礼：“师父早！”"}
    cheer = {"role": "user", "content": "（台下有人喝彩）"}
    # The preset's history holds the input, so depth 1 is above it; generateRaw's input is its own
    # placeholder, so depth 1 is above the greeting there (TavernHelper's two paths).
    assert with_preset[-3:] == [greeting, cheer, {"role": "user", "content": "开唱"}]
    assert raw[-3:] == [cheer, greeting, {"role": "user", "content": "再唱"}]
    assert not [key for key in api.state.table.entries if key.startswith("TH-CustomInjects")]
