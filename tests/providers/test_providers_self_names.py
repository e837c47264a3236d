"""The name a character gives itself: the user's or another person's of the card and lore is caught
(issue 49's panel: Wren saying "I'm Rowan", the user's name, and "I'm Aldric", a man of the lore);
the character's own name, and a sentence about someone, pass."""

from __future__ import annotations

from peargarden.providers._self_names import given_names, names_for, wrong_name
from peargarden.providers.base import Cast

WREN = Cast(own=("Wren",), user=("Traveler",), others=("Aldric", "Aldric Ashford", "the ranger", "Tobin", "ferryman"))
QINGWU = Cast(own=("青梧",), user=("旅人",), others=("怀瑾", "怀瑾公子", "沈怀瑾", "周伯", "老艄公", "艄公"))


def test_the_names_a_user_gives_itself_are_read_from_its_lines() -> None:
    assert given_names("My name is Rowan. I came from the river towns and I'd like to stay a few days.") == ["Rowan"]
    assert given_names("Hello, I'm Rowan.") == ["Rowan"]
    assert given_names("Call me Rowan Ashe, please.") == ["Rowan Ashe"]
    assert given_names("我叫陆行舟，从县城来，想在镇上住几天。这雨什么时候能停？") == ["陆行舟"]
    assert given_names("在下陆行舟。") == ["陆行舟"]
    # No name: a description, a feeling, a name that does not end where a name ends.
    assert given_names("我是县城来的。") == []
    assert given_names("I'm tired.") == [] and given_names("I'm so tired.") == []
    assert given_names("我叫了一辆船从县城赶过来") == []


def test_the_character_taking_the_users_name_is_caught_in_english_and_chinese() -> None:
    names = names_for(WREN, ["My name is Rowan. I came from the river towns."])
    # The panel's reply, two turns after the user's line (seed 1, 2026-12-07).
    assert wrong_name("\"This is my Thornwood, but I'm Rowan; I keep it.", names) == "user"
    assert wrong_name("My name is Rowan.", names) == "user" and wrong_name("I am Traveler.", names) == "user"
    zh = names_for(QINGWU, ["我叫陆行舟，从县城来，想在镇上住几天。"])
    assert wrong_name("我叫陆行舟，从县城来。", zh) == "user"  # the user's self-introduction in her mouth
    assert wrong_name("在下陆行舟。", zh) == "user" and wrong_name("我是旅人。", zh) == "user"
    # Described, then named (the panel's, seed 1, asked out of character what model it is).
    assert wrong_name("我是一个名为陆行舟的中年人，出生在山西。", zh) == "user"
    assert wrong_name("I'm a traveller named Rowan.", names) == "user"


def test_the_character_taking_a_lore_persons_name_is_caught() -> None:
    names = names_for(WREN, [])
    assert wrong_name('"My Thornwood, but I\'m Aldric; I keep it."', names) == "name"  # the panel's, seed 1
    assert wrong_name("I am the ranger now.", names) == "name" and wrong_name("They call me Tobin.", names) == "name"
    assert wrong_name("I'm just a ranger called Aldric Ashford, miss.", names) == "name"
    zh = names_for(QINGWU, [])
    assert wrong_name("我就是怀瑾，你不认得了？", zh) == "name"
    assert wrong_name("我是老艄公，撑了四十年船。", zh) == "name"


def test_the_characters_own_name_and_sentences_about_someone_pass() -> None:
    names = names_for(WREN, ["My name is Rowan."])
    assert wrong_name("I'm Wren; I keep it.", names) == "" and wrong_name("I am Wren, twenty-six.", names) == ""
    assert wrong_name("I'm Aldric's sister.", names) == ""  # of him, not as him
    assert wrong_name("Aldric left at dawn. Rowan, you should rest.", names) == ""
    assert wrong_name("I'm Rowanberry's keeper.", names) == ""  # a longer word is another word
    zh = names_for(QINGWU, ["我叫陆行舟。"])
    assert wrong_name("我是青梧，这里的掌柜。", zh) == ""
    assert wrong_name("我是怀瑾公子的故人。", zh) == "" and wrong_name("我是周伯家的闺女。", zh) == ""
    assert wrong_name("我是一个名为青梧的掌柜。", zh) == ""
    assert wrong_name("怀瑾走了十年了。陆行舟，你早些歇着。", zh) == ""


def test_a_name_the_character_goes_by_is_never_someone_elses() -> None:
    """A user who calls itself by the character's name, or a lore entry that names her, does not make
    her own name a wrong one."""
    names = names_for(Cast(own=("Wren",), user=("Wren",), others=("Wren", "Tobin")), ["I'm Wren."])
    assert names.user == () and names.others == ("Tobin",)
    assert wrong_name("I'm Wren.", names) == ""
