"""Expressions (SillyTavern's expressions extension): SillyTavern's labels, the side model's one short
question per reply (cached per message), the keyword fallback with no side model, sprite sets imported
from SillyTavern's folder layout, a zip or a CHARX card's emotion assets; `pear expression`, `pear sprites`."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from extras_world import World

from kit.cli import pear_in_process
from peargarden.app.extras.expressions import expression_of
from peargarden.app.extras.sprites import card_sprites, import_sprites, sprite_file
from peargarden.errors import BadInput, ProviderError
from peargarden.extras.expressions import LABELS, keyword_label, parse_label, sprite_label
from peargarden.formats import Card, card_to_charx
from peargarden.testing.fake_media import tiny_png
from peargarden.testing.fake_openai import text_reply
from peargarden.workspace.cards import CardFolder

SMILE = "青梧笑了笑，把茶推到你面前：“客官，慢用。”"
TEARS = "她不开心，眼泪一滴滴落在账本上，叹了口气。"


def _characters(root: Path, files: dict[str, bytes]) -> Path:
    """SillyTavern's layout: characters/<name>/<label>.png."""
    folder = root / "characters" / "青梧"
    folder.mkdir(parents=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return root / "characters"


def test_labels_are_sillytaverns_and_answers_are_read_leniently() -> None:
    assert len(LABELS) == 28 and "talkinghead" not in LABELS and LABELS[-1] == "neutral"
    assert parse_label('{"emotion": "Joy"}', LABELS) == "joy"
    assert parse_label("Surprise.", LABELS) == "surprise"
    assert parse_label("她很开心", LABELS) == "joy"
    assert parse_label("sadnes", LABELS) == "sadness"  # a near miss
    assert parse_label("I cannot tell.", LABELS) is None


def test_the_keyword_fallback_reads_chinese_and_english_and_skips_a_negation() -> None:
    assert keyword_label(SMILE) == "joy"
    assert keyword_label(TEARS) == "sadness"  # 不开心 is not joy
    assert keyword_label("She gasped, startled.") == "surprise"
    assert keyword_label("账本上记着三笔帐。") is None


def test_sprite_names_are_labels_in_any_of_the_ways_packs_write_them() -> None:
    assert [sprite_label(s) for s in ("joy", "Anger", "joy-2", "开心", "生气_1", "wink")] == [
        "joy", "anger", "joy", "joy", "anger", "wink"]  # fmt: skip


def test_a_sprite_folder_in_sillytaverns_layout_is_imported_whole_or_not_at_all(world: World, tmp_path: Path) -> None:
    card = CardFolder(world.home, "青梧")
    bad = _characters(tmp_path / "bad", {"joy.png": tiny_png(), "anger.png": b"not a picture"})
    with pytest.raises(BadInput, match=r"anger\.png 不是 PNG、JPEG、GIF 或 WebP 图片"):
        import_sprites(card, bad)
    assert card_sprites(card) == []  # nothing written
    good = _characters(tmp_path / "good", {"joy.png": tiny_png(), "生气.png": tiny_png((255, 0, 0)), "notes.txt": b""})
    with pytest.raises(BadInput, match=r"notes\.txt"):
        import_sprites(card, good)
    (good / "青梧" / "notes.txt").unlink()
    assert import_sprites(card, good) == ["anger.png", "joy.png"]
    assert [(s.label, s.name) for s in card_sprites(card)] == [("anger", "anger.png"), ("joy", "joy.png")]
    data, kind = sprite_file(card, "anger.png")
    assert kind == "image/png" and data == tiny_png((255, 0, 0))


def test_a_zip_and_a_charx_cards_emotions_import(world: World, tmp_path: Path) -> None:
    card = CardFolder(world.home, "青梧")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("青梧/surprise.png", tiny_png())
        archive.writestr("其他角色/joy.png", tiny_png())
    (tmp_path / "sprites.zip").write_bytes(buffer.getvalue())
    assert import_sprites(card, tmp_path / "sprites.zip") == ["surprise.png"]
    charx = Card.new("青梧", description="掌柜")
    charx.data["assets"] = [{"type": "emotion", "uri": "embeded://assets/emotion/image/fear.png", "name": "fear",
                             "ext": "png"}]  # fmt: skip
    (tmp_path / "青梧.charx").write_bytes(card_to_charx(charx, {"assets/emotion/image/fear.png": tiny_png()}))
    assert import_sprites(card, tmp_path / "青梧.charx") == ["fear.png"]
    assert {s.label for s in card_sprites(card)} == {"surprise", "fear"}


def test_a_charx_card_file_shows_its_emotions_without_an_import(world: World) -> None:
    folder = world.home.card_dir("月见")
    folder.mkdir()
    charx = Card.new("月见", description="A quiet moon-viewer.", first_mes="...")
    charx.data["assets"] = [{"type": "emotion", "uri": "embeded://assets/emotion/image/开心.png", "name": "开心",
                             "ext": "png"}]  # fmt: skip
    (folder / "月见.charx").write_bytes(card_to_charx(charx, {"assets/emotion/image/开心.png": tiny_png()}))
    card = CardFolder(world.home, "月见")
    (sprite,) = card_sprites(card)
    assert (sprite.label, sprite.name) == ("joy", "charx:assets/emotion/image/开心.png")
    assert sprite_file(card, sprite.name) == (tiny_png(), "image/png")


def test_the_side_model_names_the_label_once_per_reply(world: World, tmp_path: Path) -> None:
    card = CardFolder(world.home, "青梧")
    import_sprites(card, _characters(tmp_path, {"surprise.png": tiny_png(), "neutral.png": tiny_png()}))
    world.model.script([text_reply("Surprise")])
    session = world.chat(("user", "怀瑾回来了。"), ("assistant", "青梧手里的茶盏一晃：“你说谁？”"))
    found = expression_of(world.home, session, 2)
    assert (found.label, found.sprite, found.by) == ("surprise", "surprise.png", "side")
    (request,) = world.model.chat_requests
    system, user = request.body["messages"]
    assert '"admiration", "amusement"' in system["content"] and "青梧" in system["content"]
    assert user["content"] == "青梧手里的茶盏一晃：“你说谁？”"
    assert request.body["max_tokens"] == 200
    again = expression_of(world.home, session, 2)
    assert (again.label, again.by) == ("surprise", "kept") and len(world.model.chat_requests) == 1
    # A label with no sprite shows the fallback's.
    world.model.script([text_reply("grief")])
    session.insert_message({"role": "assistant", "content": "她哭了。", "name": "青梧"})
    assert (expression_of(world.home, session, 3).label, expression_of(world.home, session, 3).sprite) == (
        "grief", "neutral.png")  # fmt: skip


def test_keywords_choose_when_asked_or_when_there_is_no_endpoint(world: World) -> None:
    world.configure('[expressions]\nclassify = "keywords"\n')
    session = world.chat(("assistant", SMILE))
    found = expression_of(world.home, session, 1)
    assert (found.label, found.by) == ("joy", "keywords")
    assert world.model.chat_requests == []
    # No model configured at all (the embedded one, offline): the keywords, and nothing fails.
    world.home.config_file.write_text("", encoding="utf-8")
    session = world.chat(("assistant", TEARS))
    found = expression_of(world.home, session, 1)
    assert (found.label, found.by, found.sprite) == ("sadness", "keywords", None)


def test_a_side_model_that_fails_falls_back_unless_it_was_asked_for(world: World) -> None:
    session = world.chat(("assistant", SMILE))
    world.model.script([text_reply("no idea")])
    assert expression_of(world.home, session, 1).by == "keywords"
    world.configure('[expressions]\nclassify = "side"\n')
    session = world.chat(("assistant", SMILE))
    world.model.script([text_reply("no idea")])
    with pytest.raises(ProviderError, match="回答里没有表情标签"):
        expression_of(world.home, session, 1)
    with pytest.raises(BadInput, match="第 1 条不是角色的回复"):
        expression_of(world.home, world.chat(("user", "你好")), 1)


def test_pear_expression_and_pear_sprites(world: World, tmp_path: Path) -> None:
    source = _characters(tmp_path, {"joy.png": tiny_png()})
    done = pear_in_process(world.home.root, "sprites", "青梧", str(source), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [{"label": "joy", "sprite": "cards/青梧/sprites/joy.png"}]
    world.configure('[expressions]\nclassify = "keywords"\n')
    session = world.chat(("assistant", SMILE), ("user", "好茶。"))
    shown = pear_in_process(world.home.root, "expression", "--chat", session.chat_id, "--message", "1", "--json")
    assert json.loads(shown.stdout) == {"label": "joy", "sprite": "cards/青梧/sprites/joy.png"}
    wrong = pear_in_process(world.home.root, "expression", "--chat", session.chat_id, "--message", "2")
    assert wrong.returncode == 2 and wrong.stderr == "pear: 第 2 条不是角色的回复，没有表情\n"
    missing = pear_in_process(world.home.root, "sprites", "青梧", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "没有这个文件或文件夹" in missing.stderr
