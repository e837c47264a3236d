"""Fixtures for the stage tests (data in ``stage_fixtures.py``)."""

from __future__ import annotations

import pytest
from stage_fixtures import qingwu_card, town_book

from peargarden.stage import StageCard
from peargarden.stage.lore.entries import LoreEntry, entries_from_book


@pytest.fixture
def town_entries() -> list[LoreEntry]:
    return entries_from_book(town_book(), "栖水镇")


@pytest.fixture
def qingwu() -> StageCard:
    return qingwu_card()
