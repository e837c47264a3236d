"""Who is who by name: the character's names, the user's, and the persons of the lore — what the
small-model request hands the guard against a character taking someone else's name."""

from __future__ import annotations

from pathlib import Path

from peargarden.agent.loop import BeatInput
from peargarden.modes.stage.materials import load_stage_materials
from peargarden.modes.stage.request import stage_builder
from peargarden.providers.base import Cast
from peargarden.sessions.context import ContextMessage
from peargarden.stage import LoreCorpus, StageSettings
from peargarden.stage.card import StageCard
from peargarden.stage.cast import cast_names
from peargarden.stage.lore.entries import LoreEntry
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


def _entry(uid: int, keys: tuple[str, ...], content: str, **options: object) -> LoreEntry:
    return LoreEntry(uid=uid, keys=keys, content=content, comment=keys[0], **options)  # type: ignore[arg-type]


def test_the_lores_persons_are_named_and_its_places_are_not() -> None:
    book = [
        _entry(1, ("栖水镇",), "栖水镇是江南一座临河的老镇。", constant=True),
        _entry(2, ("怀瑾", "沈怀瑾", "怀瑾公子"), "沈怀瑾，镇上人都叫他怀瑾公子。他十年前走了。"),
        _entry(3, ("周伯", "艄公"), "周伯是渡船上的老艄公，他撑了四十年船。"),
        _entry(4, ("镇北渡口",), "镇北渡口在栖水镇北头。"),
    ]
    own, user, others = cast_names(StageCard(name="青梧"), StageSettings(user_name="旅人"), LoreCorpus(book))
    assert own == ("青梧",) and user == ("旅人",)
    assert others == ("怀瑾", "沈怀瑾", "怀瑾公子", "周伯", "艄公")  # 栖水镇 and 镇北渡口 are nobody


def test_a_lore_entry_about_the_character_gives_her_names_not_someone_elses() -> None:
    book = [
        _entry(1, ("Wren", "the guardian"), "Wren keeps the shrine. She is twenty-six."),
        _entry(2, ("Aldric", "the ranger"), "Aldric Ashford was a ranger. He left."),
        _entry(3, ("Tobin",), "Tobin is the ferryman. He is old.", enabled=False),
    ]
    settings = StageSettings(user_name="Traveler")
    own, user, others = cast_names(StageCard(name="Wren Ashdown"), settings, LoreCorpus(book))
    assert own == ("Wren Ashdown", "Wren", "Ashdown", "the guardian")
    assert user == ("Traveler",) and others == ("Aldric", "the ranger")  # (a disabled entry names no one)


def test_the_small_model_request_carries_the_cast(tmp_path: Path) -> None:
    home = Home(tmp_path / "home")
    seed_home(home)
    materials = load_stage_materials(home, "青梧")
    build = stage_builder(materials, small_model=True)
    history = [ContextMessage("user", "我叫陆行舟，从县城来。", "u0000001")]
    request = build(BeatInput(history, history[-1].content, "off", [], 0, "stage", "send")).request
    assert request.cast == Cast(("青梧",), ("旅人",), ("怀瑾", "怀瑾公子", "沈怀瑾", "周伯", "老艄公", "艄公"))
