"""An action that opens on the user is the character writing the user's part (issue 49's panel)."""

from __future__ import annotations

from peargarden.providers._user_actions import action_open, acts_for_user


def test_an_action_opening_on_the_user_is_their_move_in_both_languages() -> None:
    assert acts_for_user("*You lean against the wall, looking out at the trees.*")  # Qwen2.5-1.5B as Wren
    assert acts_for_user('"Thank you." *You step out of the story and go back outside.*')
    assert acts_for_user("*Your hand finds the door.*")
    assert acts_for_user("（你推门进来，带进一阵雨气。）")
    assert acts_for_user("(你们跟着她上了楼。)")


def test_an_action_that_goes_on_from_the_sentence_before_counts_by_its_start() -> None:
    assert acts_for_user(" You follow her inside.*", before="*Wren nods.")
    assert acts_for_user("你跟着她上楼。）", before="（青梧提灯。")
    assert not acts_for_user(" You look tired.", before="*Wren nods.*")  # the action was closed: speech
    # Speech, whatever the stars around it say (Qwen2.5-0.5B's reply on the panel, one "*" too many):
    before = '*It stays.*She looks around,* "An old road.'
    assert not acts_for_user(' You\'re very close to the capital."', before=before)


def test_the_user_spoken_to_or_acted_on_is_not_their_move() -> None:
    assert not acts_for_user('"You look tired," she says.')
    assert not acts_for_user("*She hands you the key.*")
    assert not acts_for_user("*She smiles.* You look tired, traveller.")  # the "*" before "You" closes
    assert not acts_for_user("“你好，客官。”")
    assert not acts_for_user("（她笑了笑）你好啊。")
    assert not acts_for_user("（她把钥匙递给你。）")


def test_an_action_is_open_after_an_odd_star_or_an_unclosed_bracket() -> None:
    assert action_open("*She nods.") and action_open("（她点头。") and action_open("(She nods.")
    assert not action_open("*She nods.* Yes.") and not action_open("（她点头。）好。")
