"""Example dialogues: the card's ``mes_example`` string → blocks → Chat Completion messages."""

from __future__ import annotations

import re
from dataclasses import dataclass

from peargarden.text.jsstring import js_trim

_START = re.compile("<START>", re.IGNORECASE)


@dataclass(frozen=True)
class ExampleMessage:
    content: str
    name: str  # example_user / example_assistant


def parse_mes_examples(text: str) -> list[str]:
    """``parseMesExamples`` (Chat Completion heading): one ``<START>\\n…\\n`` string per block."""
    if not text or text == "<START>":
        return []
    if not text.startswith("<START>"):
        text = "<START>\n" + js_trim(text)
    return ["<START>\n" + js_trim(part) + "\n" for part in _START.split(text)[1:]]


def block_to_messages(block: str, user: str, char: str) -> list[ExampleMessage]:
    """``parseExampleIntoIndividual`` for one block (1:1 chats)."""
    text = _START.sub("{Example Dialogue:}", block, count=1).replace("\r", "")
    lines = text.split("\n")
    out: list[ExampleMessage] = []
    current: list[str] = []
    in_user = in_bot = False

    def flush(speaker: str, tag: str) -> None:
        body = js_trim("\n".join(current).replace(speaker + ":", "", 1))
        out.append(ExampleMessage(content=body, name=tag))
        current.clear()

    for line in lines[1:]:
        if line.startswith(user + ":"):
            in_user = True
            if in_bot:
                flush(char, "example_assistant")
            in_bot = False
        elif line.startswith(char + ":"):
            in_bot = True
            if in_user:
                flush(user, "example_user")
            in_user = False
        current.append(line)
    if in_user:
        flush(user, "example_user")
    elif in_bot:
        flush(char, "example_assistant")
    return out
