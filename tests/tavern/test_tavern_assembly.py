"""Prompt Manager, injections, Author's Note, persona, overrides and generation types (Chinese content)."""

from __future__ import annotations

import copy
from typing import Any

from tavern_builders import StateFactory, alternating_chat, chat_message

from peargarden.tavern.assemble import generate
from peargarden.tavern.defaults import DEFAULT_ORDER, DEFAULT_PROMPTS, GLOBAL_ORDER_ID
from peargarden.tavern.replay import run_slash


def contents(state: Any, gen_type: str = "normal") -> list[str]:
    return [m["content"] for m in generate(state, gen_type).messages]


def with_prompts(extra: list[dict[str, Any]], order: list[dict[str, Any]]) -> dict[str, Any]:
    prompts = copy.deepcopy(DEFAULT_PROMPTS) + extra
    return {"prompts": prompts, "prompt_order": [{"character_id": GLOBAL_ORDER_ID, "order": order}]}


def order_with(identifier: str, after: str, enabled: bool = True) -> list[dict[str, Any]]:
    order = copy.deepcopy(DEFAULT_ORDER)
    index = next(i for i, e in enumerate(order) if e["identifier"] == after)
    order.insert(index + 1, {"identifier": identifier, "enabled": enabled})
    return order


def test_default_order_and_empty_slots_dropped(make_state: StateFactory) -> None:
    out = generate(make_state()).messages
    assert out[0] == {"role": "system", "content": "Write 林月's next reply in a fictional chat between 林月 and 小明."}
    assert out[1]["content"] == "林月是杭州一家茶馆的老板，二十四岁。"
    assert out[2]["content"] == "[林月's personality: 温柔，细心，有点爱开玩笑]"
    assert out[3]["content"] == "[Circumstances and context of the dialogue: 小明在一个下雨的午后走进了林月的茶馆。]"
    assert out[4:7] == [
        {"role": "system", "content": "[Example Chat]"},
        {"role": "system", "name": "example_user", "content": "你推荐什么茶？"},
        {"role": "system", "name": "example_assistant", "content": "今天下雨，来一杯龙井吧。"},
    ]
    assert out[7]["content"] == "[Start a new Chat]"
    assert [m["role"] for m in out[8:]] == ["assistant", "user", "assistant", "user"]


def test_custom_relative_prompt_needs_system_prompt_false(make_state: StateFactory) -> None:
    sent = {"identifier": "风格", "role": "system", "content": "用中文回答，{{user}}。", "system_prompt": False}
    silent = {"identifier": "静默", "role": "system", "content": "不会发送", "system_prompt": True}
    order = order_with("静默", "scenario")
    order = [*order[:6], {"identifier": "风格", "enabled": True}, *order[6:]]
    out = contents(make_state(oai=with_prompts([sent, silent], order)))
    assert "用中文回答，小明。" in out
    assert "不会发送" not in out
    assert out.index("用中文回答，小明。") == 4  # right after the scenario slot


def test_in_chat_injections_order_per_depth(make_state: StateFactory) -> None:
    prompts = [
        {"identifier": "a", "role": "assistant", "content": "助手注入", "system_prompt": False,
         "injection_position": 1, "injection_depth": 1},
        {"identifier": "u", "role": "user", "content": "用户注入", "system_prompt": False,
         "injection_position": 1, "injection_depth": 1},
        {"identifier": "s", "role": "system", "content": "系统注入", "system_prompt": False,
         "injection_position": 1, "injection_depth": 1},
        {"identifier": "deep", "role": "system", "content": "最深处", "system_prompt": False,
         "injection_position": 1, "injection_depth": 50},
        {"identifier": "str", "role": "system", "content": "字符串深度丢失", "system_prompt": False,
         "injection_position": 1, "injection_depth": "1"},
    ]  # fmt: skip
    order = copy.deepcopy(DEFAULT_ORDER) + [{"identifier": p["identifier"], "enabled": True} for p in prompts]
    state = make_state(
        oai=with_prompts(prompts, order),
        metadata={"note_prompt": "[作者注：雨更大了]", "note_depth": 1, "note_position": 1, "note_role": 0},
    )
    out = contents(state)
    start = out.index("[Start a new Chat]")
    assert out[start + 1] == "最深处"  # deeper than the history: top of it, still under the new-chat line
    tail = out[-5:]
    assert tail[1:4] == ["助手注入", "用户注入", "系统注入\n[作者注：雨更大了]"]
    assert "字符串深度丢失" not in out


def test_authors_note_interval_counts_user_messages(make_state: StateFactory) -> None:
    md = {"note_prompt": "[作者注]", "note_interval": 2, "note_position": 0}
    three_users = alternating_chat(6)  # users at 1, 3, 5
    assert "[作者注]" not in contents(make_state(three_users, metadata=md))
    four_users = alternating_chat(8)
    out = contents(make_state(four_users, metadata=md))
    assert out[:2] == ["Write 林月's next reply in a fictional chat between 林月 and 小明.", "[作者注]"]
    before = dict(md, note_position=2, note_role=1, note_interval=1)
    msgs = generate(make_state(three_users, metadata=before)).messages
    assert msgs[0] == {"role": "user", "content": "[作者注]"}


def test_character_note_and_slash_inject_share_a_depth(make_state: StateFactory) -> None:
    card = copy.deepcopy(make_state().card)
    card["data"]["extensions"]["depth_prompt"] = {
        "prompt": "[{{char}}想带{{user}}去西湖]",
        "depth": 2,
        "role": "system",
    }
    state = make_state(card=card, metadata={"note_prompt": "[作者注]", "note_depth": 2})
    run_slash(state, "/inject id=天气 position=chat depth=2 role=system 窗外雷声阵阵", [])
    out = contents(state)
    assert "[作者注]\n[林月想带小明去西湖]\n窗外雷声阵阵" in out
    assert state.chat_metadata["script_injects"]["天气"]["value"] == "窗外雷声阵阵"


def test_persona_positions(make_state: StateFactory) -> None:
    pu = {"persona_description": "{{user}}是一名大学生。"}
    out = contents(make_state(power_user=pu))
    assert out[1] == "小明是一名大学生。"  # personaDescription marker sits before the description
    at_depth = dict(pu, persona_description_position=4, persona_description_depth=0)
    assert contents(make_state(power_user=at_depth))[-1] == "小明是一名大学生。"
    top_an = dict(pu, persona_description_position=2)
    out = contents(make_state(power_user=top_an, metadata={"note_prompt": "[作者注]", "note_depth": 0}))
    assert out[-1] == "小明是一名大学生。\n[作者注]"


def test_card_overrides_with_original(make_state: StateFactory) -> None:
    card = copy.deepcopy(make_state().card)
    card["data"]["system_prompt"] = "{{original}} 另外：{{char}}总是请人喝茶。"
    card["data"]["post_history_instructions"] = "[{{char}}要以问句结尾] {{original}}"
    prompts = copy.deepcopy(DEFAULT_PROMPTS)
    next(p for p in prompts if p["identifier"] == "jailbreak")["content"] = "[保持角色]"
    oai = {"prompts": prompts}
    out = contents(make_state(card=card, oai=oai))
    assert out[0] == "Write 林月's next reply in a fictional chat between 林月 and 小明. 另外：林月总是请人喝茶。"
    assert out[-1] == "[林月要以问句结尾] [保持角色]"
    next(p for p in prompts if p["identifier"] == "main")["forbid_overrides"] = True
    assert contents(make_state(card=card, oai={"prompts": prompts}))[0].startswith("Write 林月's next reply")


def test_names_behaviors(make_state: StateFactory) -> None:
    chat = [chat_message("你好", user=False, name="Lin Yue"), chat_message("你好呀", user=True, name="Xiao Ming")]
    completion = generate(make_state(chat, oai={"names_behavior": 1})).messages
    assert completion[-2:] == [
        {"role": "assistant", "name": "Lin_Yue", "content": "你好"},
        {"role": "user", "name": "Xiao_Ming", "content": "你好呀"},
    ]
    content_mode = contents(make_state(chat, oai={"names_behavior": 2}))
    assert content_mode[-2:] == ["Lin Yue: 你好", "Xiao Ming: 你好呀"]


def test_squash_joins_unnamed_system_messages(make_state: StateFactory) -> None:
    out = generate(make_state(oai={"squash_system_messages": True})).messages
    assert out[0]["content"].startswith("Write 林月's next reply")
    assert out[0]["content"].count("\n") == 3  # main + description + personality + scenario
    assert out[1] == {"role": "system", "content": "[Example Chat]"}
    assert list(out[2]) == ["role", "content", "name"]  # ST's flat list puts the name last


def test_continue_nudge_and_prefill(make_state: StateFactory) -> None:
    chat = [*alternating_chat(4), chat_message("林月轻声说：", user=False)]
    out = contents(make_state(chat), "continue")
    assert out[-2] == "林月轻声说："
    assert out[-1].endswith("as if your reply is a part of the original message: 林月轻声说：]")
    prefill = generate(make_state(chat, oai={"continue_prefill": True}), "continue").messages
    assert prefill[-1] == {"role": "assistant", "content": "林月轻声说："}
    assert all("Continue the following" not in m["content"] for m in prefill)


def test_impersonate_prompt_is_last(make_state: StateFactory) -> None:
    out = contents(make_state(), "impersonate")
    assert out[-1].startswith("[Write your next reply from the point of view of 小明")


def test_swipe_and_regenerate_leave_out_the_last_reply(make_state: StateFactory) -> None:
    chat = alternating_chat(5)
    swiped = contents(make_state(chat), "swipe")
    assert chat[-1]["mes"] not in swiped
    assert generate(make_state(chat), "swipe").in_context_count == 4 + 1


def _main_reading(text: str) -> dict[str, Any]:
    prompts = copy.deepcopy(DEFAULT_PROMPTS)
    next(p for p in prompts if p["identifier"] == "main")["content"] = text
    return {"prompts": prompts}


def test_last_message_macros_skip_the_reply_being_swiped_and_hidden_messages(make_state: StateFactory) -> None:
    # macros.js getLastMessageId skips a message whose swipe_id ≥ len(swipes): during a swipe ST has
    # already moved the swiped reply's swipe_id one past its swipes, so {{lastMessage}},
    # {{lastMessageId}} and {{lastCharMessage}} read older messages, while getLastSwipeId /
    # getCurrentSwipeId still read the swiped reply.  getLastUserMessage skips hidden (is_system) ones.
    names = ["lastMessage", "lastMessageId", "lastCharMessage", "lastUserMessage", "lastSwipeId", "currentSwipeId"]
    macros = "|".join("{{" + name + "}}" for name in names)
    chat = alternating_chat(5)  # 0 林月, 1 小明, 2 林月, 3 小明, 4 林月
    chat[4]["swipes"] = [chat[4]["mes"], "另一个回答"]
    chat[4]["swipe_id"] = 0
    state = make_state(chat, oai=_main_reading(macros))
    assert contents(state)[0] == "第4条消息：雨还在下。|4|第4条消息：雨还在下。|第3条消息：雨还在下。|2|1"
    state = make_state(chat, oai=_main_reading(macros))
    assert contents(state, "swipe")[0] == "第3条消息：雨还在下。|3|第2条消息：雨还在下。|第3条消息：雨还在下。|2|3"
    hidden = alternating_chat(5)
    hidden[3]["is_system"] = True  # /hide 3: the newest user message
    state = make_state(hidden, oai=_main_reading("{{lastUserMessage}}"))
    assert contents(state)[0] == "第1条消息：雨还在下。"


def test_hidden_and_narrator_messages(make_state: StateFactory) -> None:
    state = make_state(alternating_chat(4))
    run_slash(state, "/sys 雨停了，天边出现了彩虹。", [])
    run_slash(state, "/hide 1", [])
    msgs = generate(state).messages
    assert msgs[-1] == {"role": "system", "content": "雨停了，天边出现了彩虹。"}
    assert "第1条消息：雨还在下。" not in [m["content"] for m in msgs]


def test_world_info_markers_and_depth_entries(make_state: StateFactory) -> None:
    book = {
        "entries": {
            "0": {"uid": 0, "key": ["西湖"], "keysecondary": [], "content": "西湖在杭州城西。", "constant": False,
                  "selective": False, "order": 100, "position": 0, "disable": False, "probability": 100,
                  "useProbability": True},
            "1": {"uid": 1, "key": [], "keysecondary": [], "content": "常驻：{{char}}喜欢龙井。", "constant": True,
                  "selective": False, "order": 100, "position": 4, "depth": 0, "role": 1, "disable": False,
                  "probability": 100, "useProbability": True},
        }
    }  # fmt: skip
    chat = [*alternating_chat(3), chat_message("西湖美吗？", user=True)]
    state = make_state(chat, worlds={"杭州": book}, wi={"world_info": {"globalSelect": ["杭州"]}})
    msgs = generate(state).messages
    assert msgs[1] == {"role": "system", "content": "西湖在杭州城西。"}
    assert msgs[-1] == {"role": "user", "content": "常驻：林月喜欢龙井。"}


def test_malformed_presets_assemble_with_warnings(make_state: StateFactory) -> None:
    order = [e for e in DEFAULT_ORDER if e["identifier"] != "chatHistory"] + [{"identifier": "幽灵", "enabled": True}]
    oai = {"prompt_order": [{"character_id": GLOBAL_ORDER_ID, "order": order}], "prompts": DEFAULT_PROMPTS[:3]}
    result = generate(make_state(oai=oai))
    assert all(m["role"] == "system" for m in result.messages)
    assert any("chatHistory" in w for w in result.warnings)
    assert any("幽灵" in w for w in result.warnings)
    no_order = generate(make_state(oai={"prompt_order": "坏的", "prompts": None}))
    assert no_order.messages[-1]["role"] == "user"
    assert any("100001" in w for w in no_order.warnings)


def test_an_empty_global_order_is_kept_not_replaced_by_the_default(make_state: StateFactory) -> None:
    # PromptManager.sanitizeServiceSettings adds the default order only when getPromptOrderForCharacter
    # finds nothing; an existing 100001 list that is empty stays first, so getPromptCollection is empty
    # and only the runtime prompts with a slot of their own (description, personality, scenario) go out.
    oai = {"prompt_order": [{"character_id": GLOBAL_ORDER_ID, "order": []}]}
    metadata = {"note_prompt": "【作者注：雨停了。】", "note_position": 0, "note_interval": 1}
    result = generate(make_state(oai=oai, metadata=metadata))
    assert [m["content"] for m in result.messages] == [
        "林月是杭州一家茶馆的老板，二十四岁。",
        "[林月's personality: 温柔，细心，有点爱开玩笑]",
        "[Circumstances and context of the dialogue: 小明在一个下雨的午后走进了林月的茶馆。]",
    ]
    assert any("空的" in w for w in result.warnings)
    # No 100001 list at all: the default order is used, history included.
    other = generate(make_state(oai={"prompt_order": [{"character_id": 7, "order": []}]}))
    assert other.messages[-1]["role"] == "user"


def test_fixed_parts_over_budget_send_the_partial_list(make_state: StateFactory) -> None:
    card = copy.deepcopy(make_state().card)
    card["description"] = "很长的描述。" * 400
    result = generate(make_state(card=card, oai={"openai_max_context": 600, "openai_max_tokens": 100}))
    assert [m["content"][:5] for m in result.messages] == ["Write"]
    assert any("超出" in w for w in result.warnings)


def test_ledger_warns_when_history_gets_less_than_a_quarter(make_state: StateFactory) -> None:
    card = copy.deepcopy(make_state().card)
    card["description"] = "描述" * 300
    result = generate(make_state(card=card, oai={"openai_max_context": 800, "openai_max_tokens": 300}))
    assert any("四分之一" in w for w in result.warnings)
    assert result.ledger[0].slot == "main" and result.ledger[0].tokens > 0
    assert result.used <= 800 - 300


def test_junk_values_never_raise(make_state: StateFactory) -> None:
    prompts = copy.deepcopy(DEFAULT_PROMPTS)
    prompts[0]["role"] = ["不是角色"]
    prompts.append({"identifier": {"坏": 1}, "content": 5})
    card = copy.deepcopy(make_state().card)
    card["description"] = {"不是": "文字"}
    card["data"]["extensions"]["depth_prompt"] = "坏的"
    state = make_state(
        card=card,
        oai={"openai_max_context": "很多", "prompts": prompts, "names_behavior": "x"},
        metadata={"note_interval": "每次", "note_prompt": ["列表"], "variables": "坏"},
    )
    result = generate(state)
    assert any("openai_max_context" in w for w in result.warnings)
    assert result.messages[0]["role"] == "system"  # a malformed role falls back to system
    assert result.messages[-1]["role"] == "user"


def test_more_slash_commands(make_state: StateFactory) -> None:
    state = make_state(alternating_chat(4))
    warnings: list[str] = []
    run_slash(state, "/note [作者注：{{char}}在等雨停] | /depth 0", warnings)
    run_slash(state, "/setvar key=心情 平静", warnings)
    run_slash(state, "/incvar 次数", warnings)
    run_slash(state, "/comment 这条只给人看", warnings)
    run_slash(state, "/sendas name=掌柜 客官里面请。", warnings)
    position = state.chat_metadata["note_position"]
    run_slash(state, "/pos before", warnings)
    assert state.chat_metadata["variables"] == {"心情": "平静", "次数": 1}
    # SillyTavern announces a new position but its handler never stores it.
    assert state.chat_metadata["note_position"] == position
    out = contents(state)
    assert out[-1] == "[作者注：林月在等雨停]"
    assert out[-2] == "掌柜: 客官里面请。"  # another speaker gets the name prefix (names behavior default)
    assert "这条只给人看" not in out


def test_hide_ranges_and_inject_scan_flag_follow_sillytavern(make_state: StateFactory) -> None:
    # hideMessageCallback goes through utils.js stringToRange: a range reaching past the last message,
    # reversed or unreadable is refused whole (nothing hidden); parseInt reads leading digits.
    state = make_state(alternating_chat(5))
    warnings: list[str] = []
    for command in ("/hide 2-9", "/hide 3-1", "/hide 第2条", "/hide 7"):
        run_slash(state, command, warnings)
    assert not any(m.get("is_system") for m in state.chat)
    assert len(warnings) == 4
    run_slash(state, "/hide 2-3条", warnings)
    assert [bool(m.get("is_system")) for m in state.chat] == [False, False, True, True, False]
    # injectCallback reads scan with isTrueBoolean: only on / true / 1.
    run_slash(state, "/inject id=甲 position=chat depth=1 scan=yes 灯笼", warnings)
    run_slash(state, "/inject id=乙 position=chat depth=1 scan=ON 茶壶", warnings)
    assert state.chat_metadata["script_injects"]["甲"]["scan"] is False
    assert state.chat_metadata["script_injects"]["乙"]["scan"] is True


def test_world_info_regex_at_depth_skips_depth_limits_for_a_text_depth(make_state: StateFactory) -> None:
    # getWorldInfoPrompt passes ``entry.depth ?? 4`` to getRegexedString, whose depth limits only
    # apply to a number: an @D entry whose depth is the text "1" gets scripts limited to depth 0.
    entry = {"uid": 0, "key": [], "keysecondary": [], "content": "常驻：龙井在西湖边。", "constant": True,
             "selective": False, "order": 100, "position": 4, "depth": 1, "role": 0, "disable": False,
             "probability": 100, "useProbability": True}  # fmt: skip
    script = {"scriptName": "浅层", "findRegex": "/龙井/g", "replaceString": "碧螺春", "placement": [5],
              "promptOnly": True, "maxDepth": 0, "trimStrings": []}  # fmt: skip
    outputs = []
    for depth in (1, "1"):
        book = {"entries": {"0": {**entry, "depth": depth}}}
        state = make_state(
            alternating_chat(4),
            worlds={"杭州": book},
            wi={"world_info": {"globalSelect": ["杭州"]}},
            extension_settings={"regex": [script]},
        )
        outputs.append([m["content"] for m in generate(state).messages if m["content"].startswith("常驻")])
    assert outputs == [["常驻：龙井在西湖边。"], ["常驻：碧螺春在西湖边。"]]


def test_idle_duration_counts_from_the_user_message_before_the_newest(make_state: StateFactory) -> None:
    # macros.js getTimeSinceLastMessage: skip hidden messages, pass the newest visible one, take the
    # next older user message's send_date; moment's humanize.  The state's clock is 2024-09-28 12:00 UTC.
    chat = alternating_chat(5)
    dates = ["2024-09-28T08:00:00.000Z", "2024-09-28T09:00:00.000Z", "2024-09-28T09:30:00.000Z",
             "September 28, 2024 11:00am", "2024-09-28T11:59:00.000Z"]  # fmt: skip
    for message, date in zip(chat, dates, strict=True):
        message["send_date"] = date
    chat.append(chat_message("雨停了吗？", user=True) | {"send_date": "2024-09-28T11:59:30.000Z"})
    state = make_state(chat, oai=_main_reading("{{idle_duration}}"))
    assert contents(state)[0] == "an hour"  # from message 3 (11:00, written without a zone)
    chat[3]["is_system"] = True  # hidden: the user message before it counts
    state = make_state(chat, oai=_main_reading("{{idle_duration}}"))
    assert contents(state)[0] == "3 hours"  # from message 1 (09:00)
    state = make_state([chat_message("你好", user=True)], oai=_main_reading("{{idle_duration}}"))
    assert contents(state)[0] == "just now"
