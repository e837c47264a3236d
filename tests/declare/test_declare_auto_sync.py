"""The active preset on stage: its samplers reach the request, and a change re-routes it automatically."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from peargarden.app.play.service import PearApp
from peargarden.app.settings.connections import Connection, ResolvedProvider
from peargarden.modes.stage.preset import declare_preset, sync_active_preset
from peargarden.providers.scripted import ScriptedProvider, text_turn
from peargarden.stage.entries import parse_entries
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.config import Settings
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


def preset(style_enabled: bool = True) -> dict[str, object]:
    prompts = [
        {"identifier": "main", "name": "身份", "role": "system", "content": "你是资深写手。"},
        {"identifier": "style", "name": "文风", "role": "system", "content": "白描为主。"},
        {"identifier": "chatHistory", "name": "Chat History", "marker": True},
    ]
    order = [{"identifier": "main", "enabled": True}, {"identifier": "style", "enabled": style_enabled},
             {"identifier": "chatHistory", "enabled": True}]  # fmt: skip
    return {"temperature": 1.25, "top_p": 0.8, "frequency_penalty": 0.3, "openai_max_tokens": 300,
            "prompts": prompts, "prompt_order": [{"character_id": 100001, "order": order}]}  # fmt: skip


@pytest.fixture
def home(home_dir: Path) -> Home:
    seeded = Home(home_dir)
    seed_home(seeded)
    (seeded.presets_dir / "雨夜.json").write_text(json.dumps(preset(), ensure_ascii=False), encoding="utf-8")
    return seeded


LABELS = [{"id": "main", "station": "identity"}, {"id": "style", "station": "writing"}]


def test_samplers_of_the_active_preset_reach_stage_requests(home: Home) -> None:
    declare_preset(home, "青梧", "雨夜", given=LABELS)
    provider = ScriptedProvider().add(text_turn("青梧抬眼。"))

    def factory(settings: Settings, conn: Connection | None) -> ResolvedProvider:
        return ResolvedProvider(provider, "scripted", False, "off")

    chat = PearApp(home, provider_factory=factory).new_chat("青梧")
    list(chat.send("掌柜好。"))
    stage_request = next(r for r in provider.requests if "# 消息流约定" in str(r.messages[0]["content"]))
    assert stage_request.sampler["temperature"] == 1.25
    assert stage_request.sampler["top_p"] == 0.8 and stage_request.sampler["frequency_penalty"] == 0.3
    assert "你是资深写手。" in stage_request.messages[0]["content"]  # routed into the card's APPEND_SYSTEM.md


def test_a_block_switch_reroutes_on_the_next_sync(home: Home) -> None:
    folder = CardFolder(home, "青梧")
    declare_preset(home, "青梧", "雨夜", given=LABELS)
    assert sync_active_preset(home, folder, labeller=lambda: _no_model) == []  # unchanged: nothing to do
    agents = (folder.path / "AGENTS.md").read_text(encoding="utf-8")
    assert "文风（预设）" in {e.name for e in parse_entries(agents)}

    (home.presets_dir / "雨夜.json").write_text(json.dumps(preset(style_enabled=False)), encoding="utf-8")
    sync_active_preset(home, folder, labeller=lambda: _no_model)
    agents = (folder.path / "AGENTS.md").read_text(encoding="utf-8")
    assert "文风（预设）" not in {e.name for e in parse_entries(agents)}


def _no_model(system: str, user: str) -> str:
    raise AssertionError("every piece is cached: the side model must not be asked")
