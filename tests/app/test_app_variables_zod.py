"""A card whose TavernHelper script registers a zod schema with MVU (``registerMvuSchema``), played
through the service: tavern mode against the fake OpenAI server (the seed parsed by the schema, each
reply's commands clamped, coerced, refused as MVU + mvu_zod would, swipes and the SillyTavern export
included), stage mode through the ``variables_update`` tool (a refusal reported to the model)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kit.groups import connect, tea_house
from kit.jsorder import exact
from kit.mvu_chats import card_home, played
from peargarden.app.library.groups import create_group
from peargarden.app.play.group_session import new_group_chat
from peargarden.app.play.service import ChatOptions, ChatSession, PearApp
from peargarden.app.settings.connections import Connection, ResolvedProvider
from peargarden.providers.base import ToolCall
from peargarden.providers.scripted import ScriptedProvider, text_turn, tool_turn
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.config import Settings
from peargarden.workspace.home import Home

CASE = Path(__file__).parents[1] / "variables" / "mvu_e2e" / "01-minimal-classic-mvu"
PLACEHOLDER = "没有用别管这个"

SCHEMA_SCRIPT = """let registerMvuSchema;
try {
  ({ registerMvuSchema } = await import('https://testingcf.jsdelivr.net/gh/StageDog/tavern_resource/dist/util/mvu_zod.js'));
} catch (error) {
  ({ registerMvuSchema } = await import('https://cdn.jsdelivr.net/gh/StageDog/tavern_resource/dist/util/mvu_zod.js'));
}
const 百分 = () => z.coerce.number().transform(v => _.clamp(v, 0, 100));
export const Schema = z.object({
  世界: z.object({
    时段: z.enum(['清晨', '午后', '深夜']),
    天数: z.coerce.number().prefault(1),
  }).prefault({}),
  小梨: z.object({
    好感度: 百分().prefault(0),
    体力: 百分().prefault(80),
    物品: z.array(z.string()).prefault([]),
  }).prefault({}),
  村民: z.record(z.string(), z.object({ 身份: z.string().prefault('村民'), 好感度: 百分().prefault(0) })).prefault({}),
  金钱: z.coerce.number().transform(v => Math.max(0, v)).prefault(0),
});
$(() => { registerMvuSchema(Schema); });
"""

INITVAR = "世界:\n  时段: 清晨\n  天数: 1\n小梨:\n  好感度: '120'\n  物品:\n    - 折扇\n金钱: 100\n"

REPLIES = [
    "小梨练了一上午功。\n<UpdateVariable>\n_.set('小梨.体力', 150);//练功\n<JSONPatch>"
    '[{"op":"add","path":"/村民/阿福","value":{"好感度":"30"}},{"op":"add","path":"/小梨/物品/-","value":"笛子"},'
    '{"op":"delta","path":"/金钱","value":-150}]</JSONPatch>\n</UpdateVariable>',
    "天色晚了。\n<UpdateVariable>\n_.set('世界.时段', '黄昏');//不在枚举里\n"
    "_.add('小梨.好感度', -10);\n</UpdateVariable>",
    "小梨打了个哈欠。\n<UpdateVariable>\n<JSONPatch>"
    '[{"op":"replace","path":"/世界/时段","value":"深夜"},{"op":"move","from":"/村民/阿福","path":"/村民/福伯"},'
    '{"op":"remove","path":"/小梨/物品/0"}]</JSONPatch>\n</UpdateVariable>',
    "小梨去买茶。\n<UpdateVariable>\n_.add('金钱', '20');\n_.set('世界.天数', '2');\n</UpdateVariable>",
]


def _card_files(folder: Path) -> tuple[Path, Path]:
    """Case 01's card and book made a zod card: its scripts load MVU and register the schema above,
    its [initvar] seed holds a string number and leaves keys to the schema's defaults."""
    card = json.loads((CASE / "card.json").read_text(encoding="utf-8"))
    helper = card["data"]["extensions"]["tavern_helper"]
    helper["scripts"] = [
        {"type": "script", "enabled": True, "name": "MVU", "id": "m1", "info": "", "data": {},
         "content": "import 'https://testingcf.jsdelivr.net/gh/MagicalAstrogy/MagVarUpdate/artifact/bundle.js';"},
        {"type": "script", "enabled": True, "name": "小梨的变量结构", "id": "z1", "info": "", "data": {},
         "content": SCHEMA_SCRIPT},
    ]  # fmt: skip
    book = json.loads((CASE / "小梨变量书.json").read_text(encoding="utf-8"))
    book["entries"]["0"]["content"] = INITVAR
    book["entries"].pop("3")  # reads paths this schema does not have
    card_file, book_file = folder / "小梨.json", folder / "小梨变量书.json"
    card_file.write_text(json.dumps(card, ensure_ascii=False), encoding="utf-8")
    book_file.write_text(json.dumps(book, ensure_ascii=False), encoding="utf-8")
    return card_file, book_file


def _home(home_dir: Path, tmp_path: Path, *, preset: bool = True) -> Home:
    card_file, book_file = _card_files(tmp_path)
    # The recorded chats' preset in tavern mode; the stage would first declare it with a side call.
    preset_bytes = (CASE / "preset.json").read_bytes() if preset else None
    settings = {"userName": "User", "regex_allowed": True}
    return card_home(home_dir, card_file, [book_file], "小梨", settings, preset_bytes)


@pytest.fixture
def tavern(home_dir: Path, tmp_path: Path) -> Iterator[tuple[ChatSession, FakeOpenAIServer]]:
    yield from played(_home(home_dir, tmp_path), "小梨", REPLIES)


def _records(chat: ChatSession) -> list[list[dict[str, Any] | None]]:
    return [message.swipes for message in chat.variables().messages]


def _stat(record: dict[str, Any] | None) -> dict[str, Any]:
    assert record is not None and list(record) == ["initialized_lorebooks", "stat_data", "schema"], record
    assert record["schema"] == PLACEHOLDER  # what mvu_zod leaves: no generated schema, no display lines
    return dict(record["stat_data"])


def _warnings(events: list[Any]) -> list[str]:
    return [str(event.message) for event in events if getattr(event, "type", "") == "warning"]


def test_a_zod_card_plays_in_tavern_mode_as_mvu_with_its_schema_would(
    tavern: tuple[ChatSession, FakeOpenAIServer],
) -> None:
    chat, fake = tavern
    # The greeting's seed went through the schema: "120" coerced and clamped, defaults filled, the
    # keys the seed lacks added after its own.
    seed = _stat(_records(chat)[0][0])
    assert exact(seed) == exact({
        "世界": {"时段": "清晨", "天数": 1},
        "小梨": {"好感度": 100, "体力": 80, "物品": ["折扇"]},
        "金钱": 100,
        "村民": {},
    })  # fmt: skip

    list(chat.play("send", "练功吧。"))
    first = _records(chat)
    assert _stat(first[1][0]) == seed  # the user's message: the variables before the reply
    after_first = _stat(first[2][0])
    assert after_first["小梨"] == {"好感度": 100, "体力": 100, "物品": ["折扇", "笛子"]}  # 150 clamped
    assert after_first["村民"] == {"阿福": {"身份": "村民", "好感度": 30}}  # "30" coerced, 身份 defaulted
    assert after_first["金钱"] == 0  # 100 - 150 lifted to 0 by the transform

    events = list(chat.play("send", "天黑了吗？"))
    refused = [w for w in _warnings(events) if "黄昏" in w]
    assert len(refused) == 1 and "Invalid option" in refused[0] and "世界.时段" in refused[0]
    after_second = _stat(_records(chat)[4][0])
    assert after_second["世界"]["时段"] == "清晨" and after_second["小梨"]["好感度"] == 90
    # The next request shows the clamped values through the card's {{format_message_variable}} entry.
    assert "体力: 100" in json.dumps(fake.chat_requests[1].body["messages"], ensure_ascii=False)

    list(chat.play("swipe", step=1))
    swiped = _records(chat)[4]
    assert len(swiped) == 2 and _stat(swiped[0]) == after_second
    after_swipe = _stat(swiped[1])
    assert after_swipe["世界"]["时段"] == "深夜" and after_swipe["小梨"]["物品"] == ["笛子"]
    assert after_swipe["村民"] == {"福伯": {"身份": "村民", "好感度": 30}} and after_swipe["小梨"]["好感度"] == 100

    list(chat.play("send", "去买点茶。"))
    last = _stat(_records(chat)[6][0])
    assert last["世界"] == {"时段": "深夜", "天数": 2} and last["金钱"] == 20  # built on the swiped variables
    assert "<StatusPlaceHolderImpl/>" in chat.view().rows[-1].content

    lines = [json.loads(line) for line in chat.export_sillytavern().decode("utf-8").split("\n") if line.strip()]
    for line, records in zip(lines[1:], _records(chat), strict=True):
        assert exact(line["variables"]) == exact(records)


def _stage_chat(home: Home, provider: ScriptedProvider) -> ChatSession:
    def factory(settings: Settings, conn: Connection | None) -> ResolvedProvider:
        return ResolvedProvider(provider, "scripted", False, "medium")

    app = PearApp(home, provider_factory=factory, story_memory=False)
    return app.new_chat("小梨", ChatOptions(mode="stage", thinking="medium"))


def test_the_stage_tool_reports_the_schemas_refusals_to_the_model(home_dir: Path, tmp_path: Path) -> None:
    home = _home(home_dir, tmp_path, preset=False)
    patch = [{"op": "replace", "path": "/世界/时段", "value": "黄昏"},
             {"op": "replace", "path": "/小梨/体力", "value": 150}]  # fmt: skip
    call = ToolCall("c1", "variables_update", json.dumps({"patch": patch, "reason": "傍晚练功"}, ensure_ascii=False))
    provider = ScriptedProvider().add(tool_turn(call), text_turn("小梨练完功，天也黑了。"))
    chat = _stage_chat(home, provider)
    list(chat.send("练功到傍晚。"))
    tool_result = str(provider.requests[1].messages[-1]["content"])
    assert "小梨.体力: 80->100" in tool_result  # the clamped value is what the model is told
    assert "跳过" in tool_result and "黄昏" in tool_result and "Invalid option" in tool_result
    record = chat.variables().in_force()
    stat = _stat(record)
    assert stat["小梨"]["体力"] == 100 and stat["世界"]["时段"] == "清晨"


def test_a_zod_members_book_first_read_at_its_turn_in_a_group_is_parsed_by_its_schema(
    home_dir: Path, tmp_path: Path
) -> None:
    """In a group MVU reads a member's ``[initvar]`` book when that member's turn starts; 小梨 speaks
    second, so her seed is merged into the message before her reply, and her schema parses it there
    ("120" clamped to 100, 体力 and 村民 from the schema's defaults) as it parses a greeting's seed."""
    card_file, book_file = _card_files(tmp_path)
    home = tea_house(card_home(home_dir, card_file, [book_file], "小梨", {"regex_allowed": True}))
    create_group(home, "戏班", ["林月", "小梨"], strategy="list", mode="tavern")
    with FakeOpenAIServer() as fake:
        connect(home, fake.base_url)
        fake.script([text_reply("林月端上一壶茶。"), text_reply("小梨接过茶，笑了。")])
        chat = new_group_chat(PearApp(home, story_memory=False), "戏班", ChatOptions(thinking="medium"))
        events = [event.to_json() for event in chat.play("send", "大家早。").events()]
    assert [e["name"] for e in events if e["type"] == "speaker"] == ["林月", "小梨"]
    assert not [e for e in events if e["type"] in ("warning", "error")]
    records = [message.current for message in chat.variables().messages]
    assert [record is not None for record in records] == [False, False, False, True, True]
    parsed = {"好感度": 100, "体力": 80, "物品": ["折扇"]}
    merged = records[3]  # 林月's reply: where the seed was merged
    assert merged is not None and merged["stat_data"]["小梨"] == parsed
    last = records[4]
    assert last is not None and last["stat_data"]["小梨"] == parsed
    assert last["stat_data"]["村民"] == {} and last["stat_data"]["金钱"] == 100


def test_the_status_line_marks_what_a_zod_cards_reply_changed(tavern: tuple[ChatSession, FakeOpenAIServer]) -> None:
    """A zod card's records carry no ``delta_data``: the status line compares the reply's values with
    the record before it."""
    chat, _ = tavern
    list(chat.play("send", "练功吧。"))
    line = chat.status_line()
    assert line is not None
    parts = dict(part.split("=", 1) for part in line.removeprefix("【变量】").split(" · "))
    assert parts["小梨.体力"] == "100*" and parts["金钱"] == "0*" and parts["村民.阿福.好感度"] == "30*"
    assert parts["世界.时段"] == "清晨" and parts["小梨.好感度"] == "100"  # unchanged: no mark
