"""Builders for tavern unit tests: a Chinese card, a chat, and SillyTavern's default settings."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from peargarden.tavern.defaults import DEFAULT_OAI
from peargarden.tavern.state import TavernState, effective_settings
from peargarden.text.tokens import counter_for_model

CARD: dict[str, Any] = {
    "name": "林月",
    "description": "{{char}}是杭州一家茶馆的老板，二十四岁。",
    "personality": "温柔，细心，有点爱开玩笑",
    "scenario": "{{user}}在一个下雨的午后走进了{{char}}的茶馆。",
    "first_mes": "*林月从茶壶边抬起头。* 欢迎光临，{{user}}！",
    "mes_example": "<START>\n{{user}}: 你推荐什么茶？\n{{char}}: 今天下雨，来一杯龙井吧。",
    "data": {
        "name": "林月",
        "system_prompt": "",
        "post_history_instructions": "",
        "character_version": "1.0",
        "extensions": {"world": "", "depth_prompt": {"prompt": "", "depth": 4, "role": "system"}},
    },
}


def chat_message(text: str, *, user: bool, name: str | None = None) -> dict[str, Any]:
    return {
        "name": name or ("小明" if user else "林月"),
        "is_user": user,
        "is_system": False,
        "mes": text,
        "extra": {},
    }


def alternating_chat(n: int, text: Callable[[int], str] | None = None) -> list[dict[str, Any]]:
    """Greeting (assistant) then alternating user / assistant messages, ``n`` in total."""
    make = text or (lambda i: f"第{i}条消息：雨还在下。")
    return [chat_message(make(i), user=i % 2 == 1) for i in range(n)]


StateFactory = Callable[..., TavernState]


@pytest.fixture(scope="session")
def counter() -> Any:
    return counter_for_model("gpt-3.5-turbo")


@pytest.fixture
def make_state(counter: Any) -> StateFactory:
    def build(
        chat: list[dict[str, Any]] | None = None,
        *,
        oai: dict[str, Any] | None = None,
        power_user: dict[str, Any] | None = None,
        card: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
        extension_settings: dict[str, Any] | None = None,
        worlds: dict[str, Any] | None = None,
        wi: dict[str, Any] | None = None,
    ) -> TavernState:
        st = effective_settings(
            {
                "power_user": power_user or {},
                "extension_settings": extension_settings or {},
                "world_info_settings": wi or {},
            }
        )
        settings_oai = copy.deepcopy(DEFAULT_OAI)
        settings_oai.update({"chat_completion_source": "custom", "custom_model": "gpt-3.5-turbo"})
        settings_oai.update(copy.deepcopy(oai or {}))
        return TavernState(
            oai=settings_oai,
            power_user=st["power_user"],
            extension_settings=st["extension_settings"],
            wi_settings=st["world_info_settings"],
            user_name="小明",
            card=copy.deepcopy(card or CARD),
            avatar="林月.png",
            chat=copy.deepcopy(chat if chat is not None else alternating_chat(4)),
            chat_metadata=copy.deepcopy(metadata or {}),
            worlds=copy.deepcopy(worlds or {}),
            counter=counter,
        )

    return build
