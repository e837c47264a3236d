"""Content decorators (``@@activate`` / ``@@dont_activate``) at the start of an entry."""

from __future__ import annotations

KNOWN_DECORATORS = ("@@activate", "@@dont_activate")


def parse_decorators(content: str) -> tuple[tuple[str, ...], str]:
    """Leading ``@@`` lines → (known decorators, remaining content)."""
    if not content.startswith("@@"):
        return (), content

    def known(line: str) -> bool:
        if line.startswith("@@@"):
            line = line[1:]
        return any(line.startswith(d) for d in KNOWN_DECORATORS)

    lines = content.split("\n")
    decorators: list[str] = []
    new_content = content
    fallbacked = False
    for i, line in enumerate(lines):
        if line.startswith("@@"):
            if line.startswith("@@@") and not fallbacked:
                continue
            if known(line):
                decorators.append(line[1:] if line.startswith("@@@") else line)
                fallbacked = False
            else:
                fallbacked = True
        else:
            new_content = "\n".join(lines[i:])
            break
    # A content made only of decorator lines keeps its text, as in SillyTavern.
    return tuple(decorators), new_content
