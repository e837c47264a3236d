"""Example dialogues: the card's ``mes_example`` string → blocks → Chat Completion messages."""

from __future__ import annotations

import re
from collections.abc import Sequence

import msgspec

from peargarden.text.jsstring import js_trim

_START = re.compile("<START>", re.IGNORECASE)


class ExampleMessage(msgspec.Struct, frozen=True):
    content: str
    name: str  # example_user / example_assistant


def parse_mes_examples(text: str) -> list[str]:
    """``parseMesExamples`` (Chat Completion heading): one ``<START>\\n…\\n`` string per block."""
    if not text or text == "<START>":
        return []
    if not text.startswith("<START>"):
        text = "<START>\n" + js_trim(text)
    return ["<START>\n" + js_trim(part) + "\n" for part in _START.split(text)[1:]]


def block_to_messages(
    block: str,
    user: str,
    char: str,
    *,
    group_names: Sequence[str] = (),
    prefix_names: bool = False,
) -> list[ExampleMessage]:
    """``parseExampleIntoIndividual`` for one block.

    In a group chat (``prefix_names``) every message starts with ``"<speaker>: "``; with
    ``group_names`` (1.18) a line opened by any member's name is a bot line, and that member stays
    the bot's name for the rest of the block (as in SillyTavern, even after a line by ``char``).
    """
    text = _START.sub("{Example Dialogue:}", block, count=1).replace("\r", "")
    lines = text.split("\n")
    out: list[ExampleMessage] = []
    current: list[str] = []
    in_user = in_bot = False
    member_prefixes = [name + ":" for name in group_names]
    bot = char

    def flush(speaker: str, tag: str) -> None:
        body = js_trim("\n".join(current).replace(speaker + ":", "", 1))
        if prefix_names:
            body = f"{speaker}: {body}"
        out.append(ExampleMessage(content=body, name=tag))
        current.clear()

    for line in lines[1:]:
        if line.startswith(user + ":"):
            in_user = True
            if in_bot:
                flush(bot, "example_assistant")
            in_bot = False
        elif line.startswith(char + ":") or any(line.startswith(p) for p in member_prefixes):
            if not line.startswith(char + ":") and member_prefixes:
                bot = line.split(":")[0]
            in_bot = True
            if in_user:
                flush(user, "example_user")
            in_user = False
        current.append(line)
    if in_user:
        flush(user, "example_user")
    elif in_bot:
        flush(bot, "example_assistant")
    return out
