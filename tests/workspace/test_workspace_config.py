"""config.toml → Settings, and a card's 卡.json on top."""

from __future__ import annotations

from pathlib import Path

import pytest

from peargarden.errors import BadInput
from peargarden.workspace.config import (
    DEFAULT_NO_ASK_PREFIXES,
    Settings,
    load_settings,
    merge_card_settings,
    parse_settings,
)


def test_missing_file_gives_code_defaults(tmp_path: Path) -> None:
    settings = load_settings(tmp_path / "config.toml")
    assert settings == Settings()
    assert settings.creation_mode == "silent"
    assert settings.user_name == "旅人"
    assert settings.main().provider == "local"


def test_partial_file_keeps_other_defaults() -> None:
    settings = parse_settings('user_name = "阿砚"\n[model]\nthinking = "high"\n')
    assert settings.user_name == "阿砚"
    assert settings.model.thinking == "high"
    assert settings.language == ""  # unset: the stage follows the card
    assert settings.sandbox.no_ask_prefixes == DEFAULT_NO_ASK_PREFIXES


def test_side_model_inherits_main() -> None:
    text = (
        '[model]\nprovider = "deepseek"\nmodel = "deepseek-chat"\nthinking = "medium"\n'
        '[side_model]\nthinking = "low"\n'
        '[providers.deepseek]\nbase_url = "https://api.deepseek.com/v1"\napi_key_env = "DEEPSEEK_API_KEY"\n'
    )
    settings = parse_settings(text)
    side = settings.side()
    assert (side.provider, side.model, side.thinking) == ("deepseek", "deepseek-chat", "low")
    provider = settings.provider_settings("deepseek")
    assert provider is not None and provider.api_key_env == "DEEPSEEK_API_KEY"
    assert settings.provider_settings("local") is None
    with pytest.raises(BadInput):
        settings.provider_settings("不存在")


def test_card_value_wins_per_field() -> None:
    base = parse_settings('user_name = "旅人"\nscan_depth = 6\nlorebooks = ["通用"]\ncreation_mode = "ask"\n')
    merged = merge_card_settings(base, {"userName": "沈砚", "lorebooks": ["栖水镇"], "未知键": 1})
    assert merged.user_name == "沈砚"
    assert merged.lorebooks == ("栖水镇",)
    assert merged.scan_depth == 6  # absent in the card: inherited
    assert merged.creation_mode == "ask"
    assert merge_card_settings(base, {"scan_depth": 2}).scan_depth == 2
    # Liyuan's legacy single-string form
    assert merge_card_settings(base, {"lorebooks": "栖水镇"}).lorebooks == ("栖水镇",)


@pytest.mark.parametrize(
    "text",
    [
        'user_name = "没有结尾',
        "scan_depth = true",
        'scan_depth = "四"',
        'creation_mode = "sometimes"',
        '[model]\nthinking = "很多"',
        "lorebooks = [1, 2]",
        "model = 3",
    ],
)
def test_bad_values_are_one_line_errors(text: str) -> None:
    with pytest.raises(BadInput) as caught:
        parse_settings(text, where="config.toml")
    assert "\n" not in str(caught.value)
    assert str(caught.value).startswith("config.toml: ")


def test_ranges_are_clamped() -> None:
    settings = parse_settings("scan_depth = 500\nmax_lore_injections = -3\n")
    assert settings.scan_depth == 50
    assert settings.max_lore_injections == 0
