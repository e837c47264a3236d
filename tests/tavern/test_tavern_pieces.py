"""Smaller tavern pieces: examples, the extension table, the prompt manager loader, the request body."""

from __future__ import annotations

import copy
import json
import math
from typing import Any

from tavern_builders import CARD, StateFactory

from peargarden.tavern.assemble import generate
from peargarden.tavern.chat_completion import Message
from peargarden.tavern.defaults import DEFAULT_PROMPTS, IN_CHAT, IN_PROMPT
from peargarden.tavern.examples import block_to_messages, parse_mes_examples
from peargarden.tavern.injections import ExtensionTable, insert_in_chat
from peargarden.tavern.prompts import Prompt, load_prompt_manager
from peargarden.tavern.replay import CaseData, replay
from peargarden.tavern.request import parse_simple_yaml, request_body
from peargarden.text.macros import chat_id_hash


def test_examples_split_into_blocks_and_messages() -> None:
    text = "小明: 你好\n林月: 欢迎！\n<START>\n小明: 有龙井吗？\n林月: 有，刚到的新茶。\n小明: 来一杯。"
    blocks = parse_mes_examples(text)
    assert blocks == [
        "<START>\n小明: 你好\n林月: 欢迎！\n",
        "<START>\n小明: 有龙井吗？\n林月: 有，刚到的新茶。\n小明: 来一杯。\n",
    ]
    msgs = block_to_messages(blocks[1], "小明", "林月")
    assert [(m.name, m.content) for m in msgs] == [
        ("example_user", "有龙井吗？"),
        ("example_assistant", "有，刚到的新茶。"),
        ("example_user", "来一杯。"),
    ]
    assert parse_mes_examples("<START>") == []
    assert block_to_messages("<START>\n没有说话人的一行\n", "小明", "林月") == []


def test_extension_table_sorts_keys_and_filters() -> None:
    table = ExtensionTable()
    table.set("script_inject_x", "注入", IN_CHAT, 2, False, 0)
    table.set("2_floating_prompt", " 作者注 ", IN_CHAT, 2, False, 0)
    table.set("DEPTH_PROMPT", "角色笔记", IN_CHAT, 2, True, 0)
    table.set("customDepthWI-2-0", "世界书", IN_CHAT, 2, False, 0)
    table.set("other", "别的深度", IN_CHAT, 3, False, 0)
    assert table.join(IN_CHAT, 2, 0, wrap=False) == "作者注\n角色笔记\n世界书\n注入"
    assert table.scan_values() == ["角色笔记"]
    table.set("bad", "x", None, "abc")
    assert math.isnan(table.entries["bad"].position) and math.isnan(table.entries["bad"].depth)
    assert table.join(IN_PROMPT) == ""


def test_insertion_counts_depth_without_earlier_injections() -> None:
    history = [Message("user", f"m{i}", "chat") for i in range(5, 0, -1)]  # newest first: m5 … m1
    prompts = [
        Prompt("s", "system", "S", injection_position=1, injection_depth=2),
        Prompt("u", "user", "U", injection_position=1, injection_depth=2),
        Prompt("a", "assistant", "A", injection_position=1, injection_depth=2),
        Prompt("z", "system", "Z", injection_position=1, injection_depth=0),
    ]
    out = insert_in_chat(prompts, history, ExtensionTable(), lambda s: s, lambda r, c: Message(r, c, "inj"))
    assert [m.content for m in out] == ["m1", "m2", "m3", "A", "U", "S", "m4", "m5", "Z"]


def test_prompt_manager_loader_repairs_like_sillytavern() -> None:
    data = load_prompt_manager({"prompts": [{"identifier": "main", "content": "主提示"}], "prompt_order": []})
    assert data.find("chatHistory") is not None  # built-ins re-added
    assert [e["identifier"] for e in data.order][:2] == ["main", "worldInfoBefore"]
    assert data.warnings
    empty = load_prompt_manager({})
    assert empty.find("main") is not None and not empty.is_disabled("main")
    assert empty.is_disabled("enhanceDefinitions")


def test_request_body_keys_and_custom_body_rules() -> None:
    oai = {
        "chat_completion_source": "custom",
        "custom_model": "qwen-plus",
        "temp_openai": 0.8,
        "freq_pen_openai": 0,
        "pres_pen_openai": 0.0,
        "top_p_openai": 1.0,
        "openai_max_tokens": 500,
        "stream_openai": True,
        "seed": 42,
        "n": 2,
        "custom_include_body": "top_k: 40\nrepetition_penalty: 1.1",
        "custom_exclude_body": "- presence_penalty",
    }
    body = request_body(oai, [{"role": "user", "content": "你好"}], "normal")
    assert list(body) == [
        "messages", "model", "temperature", "max_tokens", "stream", "frequency_penalty", "top_p",
        "logit_bias", "seed", "n", "top_k", "repetition_penalty",
    ]  # fmt: skip
    assert body["temperature"] == 0.8 and body["top_p"] == 1 and body["top_k"] == 40
    assert "n" not in request_body(oai, [], "continue")
    assert parse_simple_yaml("") is None
    assert parse_simple_yaml('{"a": 1}') == {"a": 1}


def test_logit_bias_preset_is_tokenized() -> None:
    oai = {
        "chat_completion_source": "custom",
        "custom_model": "gpt-3.5-turbo",
        "bias_preset_selected": "禁词",
        "bias_presets": {"禁词": [{"text": " bond", "value": -50}, {"text": "[100, 200]", "value": 5}]},
    }
    bias = request_body(oai, [], "normal")["logit_bias"]
    assert bias["100"] == 5 and bias["200"] == 5
    assert -50 in bias.values()


def _pick_case(chat_name: str, metadata: dict[str, Any]) -> CaseData:
    prompts = copy.deepcopy(DEFAULT_PROMPTS)
    prompts[0]["content"] = "今天推荐：{{pick::龙井::碧螺春::白茶::普洱::铁观音::大红袍::茉莉}}"
    card = copy.deepcopy(CARD)
    card["chat"] = chat_name  # the chat file ST opens (or creates) for the card
    settings = {"steps": [{"send": "有什么茶？"}], "st_settings_overrides": {"username": "小明"}}
    header = {"chat_metadata": metadata}
    return CaseData(settings=settings, card=card, preset={"prompts": prompts}, chat_header=header, chat=[])


def test_pick_seeds_from_the_chat_id_like_sillytavern() -> None:
    # macros.js getChatIdHash: the stored chat_id_hash, else getStringHash(main_chat ?? chat id); pickReplace
    # seeds seedrandom with getStringHash(`${chatIdHash}-${getStringHash(raw)}-${offset}`).  The expected
    # picks were computed by running SillyTavern 1.12.6's own getStringHash and seedrandom.min.js in node.
    def first(case: CaseData) -> str:
        body = replay(case).body
        assert body is not None
        return str(body["messages"][0]["content"])

    autumn = "林月 - 2024-10-1 @08h 30m 00s 000ms"
    assert first(_pick_case("林月 - 2024-9-28 @12h 00m 00s 000ms", {})) == "今天推荐：普洱"
    assert first(_pick_case(autumn, {})) == "今天推荐：白茶"
    # A branch keeps its main chat's seed; a stored hash wins over the name.
    assert first(_pick_case("别的聊天", {"main_chat": autumn})) == "今天推荐：白茶"
    assert first(_pick_case("别的聊天", {"chat_id_hash": chat_id_hash(autumn)})) == "今天推荐：白茶"


def test_example_blocks_trim_like_javascript() -> None:
    # parseMesExamples / parseExampleIntoIndividual use String.prototype.trim: a byte-order mark is
    # trimmed, the separator U+001C is kept (Python's str.strip does the opposite).  Expected values
    # from running SillyTavern 1.12.6's two functions in node.
    text = "\ufeff小明: 你好\n林月: 欢迎光临\x1c\n<START>\n小明: 有龙井吗？\ufeff"
    blocks = parse_mes_examples(text)
    assert blocks == ["<START>\n小明: 你好\n林月: 欢迎光临\x1c\n", "<START>\n小明: 有龙井吗？\n"]
    assert [(m.name, m.content) for m in block_to_messages(blocks[0], "小明", "林月")] == [
        ("example_user", "你好"),
        ("example_assistant", "欢迎光临\x1c"),
    ]


def test_card_fields_trim_a_byte_order_mark(make_state: StateFactory) -> None:
    # getCharacterCardFields trims every field with String.prototype.trim (U+FEFF included).
    card = copy.deepcopy(CARD)
    card["description"] = "\ufeff{{char}}是茶馆老板。\ufeff"
    messages = generate(make_state(card=card)).messages
    assert messages[1] == {"role": "system", "content": "林月是茶馆老板。"}


def test_custom_stopping_strings_go_into_the_request() -> None:
    # power-user.js getCustomStoppingStrings(openai_max_stop_strings = 4): the JSON array's non-empty
    # strings, macros substituted, the first four; sendOpenAIRequest drops an empty list, and ST's
    # server writes ``stop`` between top_p and logit_bias.
    case = _pick_case("林月 - 停止词", {})
    stops = json.dumps(["\n{{user}}:", "", "【完】", 5, "甲", "乙", "丙"], ensure_ascii=False)
    case.settings["st_settings_overrides"]["power_user"] = {"custom_stopping_strings": stops}
    body = replay(case).body
    assert body is not None
    assert body["stop"] == ["\n小明:", "【完】", "甲", "乙"]
    assert list(body)[list(body).index("top_p") + 1] == "stop"
    case.settings["st_settings_overrides"]["power_user"]["custom_stopping_strings_macro"] = False
    assert (replay(case).body or {})["stop"][0] == "\n{{user}}:"
    for junk in ("", "[]", "不是 JSON", '{"a": 1}'):
        case.settings["st_settings_overrides"]["power_user"] = {"custom_stopping_strings": junk}
        assert "stop" not in (replay(case).body or {})


def test_bias_macro_in_a_typed_message_starts_the_reply() -> None:
    # script.js extractMessageBias / sendMessageAsUser / getBiasStrings: {{bias "…"}} is cut from the
    # saved message (removeMacros trims) and, with a leading space, becomes the "Start Reply With"
    # prompt (1.12: a system message at the end); a message that is only a bias is sent as a hidden
    # generic system message carrying it.
    case = _pick_case("林月 - 偏置", {})
    case.settings["steps"] = [{"send": '{{bias "林月微微一笑，"}} 好的，{{char}}。'}]
    result = replay(case)
    assert result.body is not None
    assert result.body["messages"][-2:] == [
        {"role": "user", "content": "好的，林月。"},
        {"role": "system", "content": " 林月微微一笑，"},
    ]
    assert result.state.chat[-2]["extra"]["bias"] == " 林月微微一笑，"
    case.settings["steps"] = [{"send": "{{bias '她放下了茶杯。'}}"}]
    result = replay(case)
    assert result.body is not None
    hidden = result.state.chat[-2]
    assert hidden["is_system"] and hidden["extra"] == {"bias": " 她放下了茶杯。", "type": "generic"}
    assert result.body["messages"][-1] == {"role": "system", "content": " 她放下了茶杯。"}
    assert all(m["content"] != " " for m in result.body["messages"])
