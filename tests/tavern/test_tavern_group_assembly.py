"""One speaker's request in a group chat (Chinese cast): what SillyTavern changes from a 1:1 chat.

The recorded cases (``test_tavern_group_oracle.py``) pin the 1.18 requests; these tests check the
rules one at a time, the 1.12.6 differences behind ``st_version`` and the parts no recording has
(world info per speaker, a Chinese name in the ``name`` field, a muted member in "join, include
muted").
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from msgspec.structs import replace

from peargarden.tavern.assemble import Generation
from peargarden.tavern.group import Activation, Cast, GenerationMode, Group
from peargarden.tavern.group_round import greetings, speak_as, speaker_request
from peargarden.tavern.state import TavernState, effective_settings
from peargarden.tavern.version import for_version
from peargarden.text.rolls import mulberry32
from peargarden.text.tokens import TextCounter

LIN, ZHOU, TAO = "林月.png", "周明.png", "小桃.png"


def member(name: str, description: str, examples: str, *, depth_prompt: str = "", world: str = "") -> dict[str, Any]:
    data = {
        "name": name,
        "description": description,
        "personality": f"{name}的性格",
        "scenario": "",
        "first_mes": f"*{name}抬起头。* 欢迎，{{{{user}}}}。",
        "mes_example": examples,
        "system_prompt": "",
        "post_history_instructions": "",
        "alternate_greetings": [],
        "extensions": {"world": world, "depth_prompt": {"prompt": depth_prompt, "depth": 1, "role": "system"}},
    }
    top = {k: data[k] for k in ("name", "description", "personality", "scenario", "first_mes", "mes_example")}
    return {**top, "talkativeness": "0.5", "data": data}


CARDS = {
    LIN: member("林月", "{{char}}是茶馆老板。同伴：{{notChar}}", "<START>\n{{user}}: 推荐什么茶？\n{{char}}: 龙井。"),
    ZHOU: member(
        "周明", "{{char}}是诗人。", "{{user}}: 有新诗吗？\n{{char}}: 刚写好。", depth_prompt="[{{char}}只说短句。]"
    ),
    TAO: member("小桃", "{{char}}是学徒。", "<START>\n{{user}}: 没事吧？\n{{char}}: 没事！", depth_prompt="[小桃在场]"),
}


def state(
    counter: TextCounter,
    *,
    mode: int = GenerationMode.SWAP,
    muted: tuple[str, ...] = (),
    prefix: str = "",
    suffix: str = "",
    version: str = "1.18",
    oai: dict[str, Any] | None = None,
    power_user: dict[str, Any] | None = None,
    wi: dict[str, Any] | None = None,
    worlds: dict[str, Any] | None = None,
    cards: dict[str, dict[str, Any]] | None = None,
    metadata: dict[str, Any] | None = None,
) -> TavernState:
    st = effective_settings({"power_user": power_user or {}, "world_info_settings": wi or {}}, version)
    settings = st["oai_settings"]
    settings.update({"chat_completion_source": "custom", "custom_model": "gpt-3.5-turbo", **(oai or {})})
    group = Group((LIN, ZHOU, TAO), muted, Activation.LIST, mode, prefix, suffix, chat_id="茶馆 - 1")
    s = TavernState(
        oai=settings,
        power_user=st["power_user"],
        extension_settings=st["extension_settings"],
        wi_settings=st["world_info_settings"],
        user_name="小明",
        card={},
        avatar="",
        chat_metadata=copy.deepcopy(metadata or {}),
        worlds=copy.deepcopy(worlds or {}),
        counter=counter,
        compat=for_version(version, st["power_user"]),
        cast=Cast(group, copy.deepcopy(cards or CARDS)),
    )
    s.chat = greetings(s, mulberry32(7), 1_800_000_000_000)
    s.chat.append({"name": "小明", "is_user": True, "is_system": False, "mes": "大家晚上好", "extra": {}})
    return s


def request(s: TavernState, avatar: str, gen_type: str = "normal") -> list[dict[str, Any]]:
    return speaker_request(s, avatar, gen_type, dry_run=True)[1]["messages"]


def contents(messages: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in messages]


def test_a_new_group_chat_has_every_greeting_with_its_author(counter: TextCounter) -> None:
    s = state(counter, muted=(TAO,))
    greeted = [(m["name"], m["mes"], m["original_avatar"]) for m in s.chat[:3]]
    assert greeted == [
        ("林月", "*林月抬起头。* 欢迎，小明。", LIN),
        ("周明", "*周明抬起头。* 欢迎，小明。", ZHOU),
        ("小桃", "*小桃抬起头。* 欢迎，小明。", TAO),  # muted members greet too
    ]
    assert s.chat[0]["force_avatar"] == "/thumbnail?type=avatar&file=%E6%9E%97%E6%9C%88.png"


def test_swap_sends_only_the_speakers_card_and_nudges_last(counter: TextCounter) -> None:
    s = state(counter)
    messages = request(s, ZHOU)
    texts = contents(messages)
    # Without a preset the built-in main prompt says {{charIfNotGroup}}: the whole group here.
    assert texts[0] == "Write 周明's next reply in a fictional chat between 林月, 周明, 小桃 and 小明."
    assert "周明是诗人。" in texts and not any("茶馆老板" in t for t in texts)
    assert "[Start a new group chat. Group members: 林月, 周明, 小桃]" in texts
    # Examples are prefixed in a group even though names_behavior is DEFAULT.
    assert {"role": "system", "content": "小明: 有新诗吗？", "name": "example_user"} in messages
    assert {"role": "system", "content": "周明: 刚写好。", "name": "example_assistant"} in messages
    # Bot messages carry their author's name; the user's do not.
    assert "林月: *林月抬起头。* 欢迎，小明。" in texts and "大家晚上好" in texts
    assert messages[-1] == {"role": "system", "content": "[Write the next reply only as 周明.]"}
    # The speaker's own depth prompt only (depth 1: above the user's message).
    assert texts[-3:-1] == ["[周明只说短句。]", "大家晚上好"]
    assert "[小桃在场]" not in texts


def test_impersonation_has_no_nudge_and_an_empty_nudge_sends_nothing(counter: TextCounter) -> None:
    s = state(counter)
    texts = contents(request(s, LIN, "impersonate"))
    assert not any(t.startswith("[Write the next reply only") for t in texts)
    assert texts[-1].startswith("[Write your next reply from the point of view of 小明")
    quiet = state(counter, oai={"group_nudge_prompt": ""})
    assert request(quiet, LIN)[-1]["content"] == "大家晚上好"


def test_join_with_prefix_and_suffix_1_18(counter: TextCounter) -> None:
    prefix, suffix = "<FIELDNAME> of {{char}}:\n", " [/{{char}}]"
    s = state(counter, mode=GenerationMode.APPEND, muted=(TAO,), prefix=prefix, suffix=suffix)
    messages = request(s, LIN)
    texts = contents(messages)
    assert texts[1] == (
        "Description of 林月:\n林月是茶馆老板。同伴：周明 [/林月]\nDescription of 周明:\n周明是诗人。 [/周明]"
    )
    # The muted member's card is left out… and her depth prompt; the unmuted one's is in.
    assert not any("小桃是学徒" in t for t in texts) and "[小桃在场]" not in texts
    assert "[周明只说短句。]" in texts
    # 1.18 adds <START> to 周明's examples; the first prefix becomes an empty block, the suffix and
    # the next prefix end up in the previous block's last example.
    i = texts.index("林月: 龙井。 [/林月]\nExample Messages of 周明:")
    assert texts[i - 3 : i] == ["[Example Chat]", "[Example Chat]", "小明: 推荐什么茶？"]
    assert "周明: 刚写好。 [/周明]" in texts


def test_join_1_12_trims_the_affixes_and_adds_no_start(counter: TextCounter) -> None:
    prefix, suffix = "<FIELDNAME> of {{char}}:\n", " [/{{char}}]"
    s = state(counter, mode=GenerationMode.APPEND, muted=(TAO,), prefix=prefix, suffix=suffix, version="1.12")
    texts = contents(request(s, LIN))
    # Prefix and suffix trimmed and put on their own lines (instruct "wrap" is on by default);
    # 1.12.6 has no {{notChar}}.
    assert texts[1].startswith("Description of 林月:\n林月是茶馆老板。同伴：{{notChar}}\n[/林月]\nDescription of 周明:")
    # Without <START>, 周明's examples stay glued to 林月's block.
    assert not any(t.startswith("周明: 刚写好") for t in texts)
    off = state(counter, mode=GenerationMode.APPEND, prefix="【{{char}}】", version="1.12",
                power_user={"instruct": {"wrap": False}})
    assert contents(request(off, LIN))[1].startswith("【林月】林月是茶馆老板。")


def test_the_speaker_is_always_joined_and_join_include_muted_joins_everyone(counter: TextCounter) -> None:
    muted = state(counter, mode=GenerationMode.APPEND, muted=(TAO,))
    assert "小桃是学徒。" in request(muted, TAO)[1]["content"]
    everyone = state(counter, mode=GenerationMode.APPEND_DISABLED, muted=(TAO,))
    texts = contents(request(everyone, LIN))
    assert texts[1] == "林月是茶馆老板。同伴：周明\n周明是诗人。\n小桃是学徒。"
    # Depth prompts still skip the muted member (SillyTavern checks only the mute there).
    assert "[小桃在场]" not in texts and "[周明只说短句。]" in texts


def test_the_scenario_override_replaces_the_joined_scenarios(counter: TextCounter) -> None:
    s = state(counter, mode=GenerationMode.APPEND, metadata={"scenario": " {{char}}和大家躲雨。 "})
    assert "周明和大家躲雨。" in contents(request(s, ZHOU))


@pytest.mark.parametrize(
    ("engine", "not_char"),
    [(True, "周明"), (False, "周明, 小桃, 小明")],
)
def test_group_macros_per_engine(counter: TextCounter, engine: bool, not_char: str) -> None:
    text = "[{{group}}|{{groupNotMuted}}|{{notChar}}|{{charIfNotGroup}}|{{char}}]"
    oai = {"new_group_chat_prompt": text}
    s = state(counter, muted=(TAO,), oai=oai, power_user={"experimental_macro_engine": engine})
    texts = contents(request(s, LIN))
    assert f"[林月, 周明, 小桃|林月, 周明|{not_char}|林月, 周明, 小桃|林月]" in texts


def test_completion_names_are_sanitised_and_content_names_prefix_the_user(counter: TextCounter) -> None:
    s = state(counter, oai={"names_behavior": 1})
    messages = request(s, LIN)
    history = [m for m in messages if m["role"] in ("user", "assistant")]
    assert [m["name"] for m in history] == ["__", "__", "__", "__"]  # 林月 → "__": two characters, two "_"
    assert history[0]["content"] == "*林月抬起头。* 欢迎，小明。"  # no prefix in COMPLETION
    content = state(counter, oai={"names_behavior": 2})
    assert "小明: 大家晚上好" in contents(request(content, LIN))
    none = state(counter, oai={"names_behavior": -1})
    texts = contents(request(none, LIN))
    assert "*林月抬起头。* 欢迎，小明。" in texts and "林月: 龙井。" in texts  # examples keep their prefix


def test_world_info_is_the_speakers_book_plus_global_ones(counter: TextCounter) -> None:
    def book(uid: int, key: str, text: str, names: list[str] | None = None) -> dict[str, Any]:
        entry = {"uid": uid, "key": [key], "content": text, "constant": True, "position": 0, "order": 100}
        if names is not None:
            entry["characterFilter"] = {"isExclude": False, "names": names, "tags": []}
        return {"entries": {str(uid): entry}}

    cards = copy.deepcopy(CARDS)
    cards[LIN]["data"]["extensions"]["world"] = "林月的书"
    cards[ZHOU]["data"]["extensions"]["world"] = "周明的书"
    worlds = {
        "林月的书": book(1, "茶", "【林月的设定】"),
        "周明的书": book(2, "诗", "【周明的设定】"),
        "全局": book(3, "雨", "【只给周明】", names=["周明"]),
    }
    wi = {"world_info": {"globalSelect": ["全局"]}}
    s = state(counter, cards=cards, worlds=worlds, wi=wi)
    lin = "\n".join(contents(request(s, LIN)))
    zhou = "\n".join(contents(request(s, ZHOU)))
    assert "【林月的设定】" in lin and "【周明的设定】" not in lin and "【只给周明】" not in lin
    assert "【周明的设定】" in zhou and "【林月的设定】" not in zhou and "【只给周明】" in zhou


def test_speak_as_refuses_a_stranger(counter: TextCounter) -> None:
    s = state(counter)
    with pytest.raises(KeyError):
        speak_as(s, "陌生人.png")
    speak_as(s, ZHOU)
    assert (s.char_name, s.avatar) == ("周明", ZHOU)


def test_each_1_12_group_switch_alone(counter: TextCounter) -> None:
    """Every group difference between the releases is one switch that can be flipped alone."""
    prefix, suffix = "<FIELDNAME>：{{char}} ", " （完）"

    def texts(**switch: bool) -> list[str]:
        s = state(counter, mode=GenerationMode.APPEND, prefix=prefix, suffix=suffix)
        s.compat = replace(s.compat, **switch)
        return contents(request(s, LIN))

    base = texts()
    assert base[1].startswith("Description：林月 林月是茶馆老板。同伴：周明, 小桃 （完）\nDescription：周明 ")
    trimmed = texts(group_join_raw_affixes=False)[1]
    assert trimmed.startswith("Description：林月\n林月是茶馆老板。同伴：周明, 小桃\n（完）\nDescription：周明\n")
    # Without <START>, 周明's examples run on inside 林月's block: one block fewer.
    assert texts(group_join_example_start=False).count("[Example Chat]") == base.count("[Example Chat]") - 1
    # The override's macros: expanded in the field (1.18) or left for the prompt's own pass (1.12),
    # which the card-field macro {{scenario}} then shows.
    for on, scenario in ((True, "林月在"), (False, "{{char}}在")):
        s = state(counter, mode=GenerationMode.APPEND, metadata={"scenario": "{{char}}在"})
        s.compat = replace(s.compat, group_scenario_override_macros=on)
        speak_as(s, LIN)
        assert Generation(s, "normal", dry_run=True).card_macro_fields()[0]["scenario"] == scenario
    # A line by another member is the bot's only with member names on; that member then names the
    # block's bot message, even across the speaker's own line.
    mixed = copy.deepcopy(CARDS)
    mixed[LIN]["mes_example"] = "<START>\n{{user}}: 谁来倒茶？\n周明: 我来。\n{{char}}: 还是我来吧。"
    for on, expected in ((True, "周明: 我来。\n林月: 还是我来吧。"), (False, "小明: 谁来倒茶？\n周明: 我来。")):
        s = state(counter, cards=mixed)
        s.compat = replace(s.compat, group_example_member_names=on)
        assert expected in contents(request(s, LIN))
