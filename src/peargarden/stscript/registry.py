"""The commands an STscript can call: their names, aliases, arguments and help.

The parser asks a :class:`Registry` whether a name exists and whether the command splits its
unnamed argument into words; the interpreter asks it for the command to run; the page's
autocomplete and ``/help`` read the argument lists and help text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec

# A command's handler: called with the interpreter's ``runtime.Call`` (named here by what it is, not
# imported: the interpreter reads this module's ``Registry``, and the two must not need each other).
Handler = Callable[[Any], Any]


class Arg(msgspec.Struct, frozen=True):
    """One argument as the help shows it."""

    name: str
    description: str = ""
    types: tuple[str, ...] = ("string",)
    required: bool = False
    default: str | None = None
    multiple: bool = False
    choices: tuple[str, ...] = ()


class Command(msgspec.Struct, frozen=True):
    name: str
    run: Handler
    help: str = ""
    aliases: tuple[str, ...] = ()
    named: tuple[Arg, ...] = ()
    unnamed: tuple[Arg, ...] = ()
    # The unnamed argument is read as words (quoted text, ``[lists]`` and closures kept whole); with
    # ``split_count`` only that many words, the rest one value.
    split: bool = False
    split_count: int | None = None
    returns: str = ""
    # The quotes around the unnamed argument are kept (SillyTavern's ``rawQuotes``): ``/echo "hi"``
    # shows the quotes; ``raw=false`` takes them off.
    raw_quotes: bool = False


class Registry:
    """Commands by name and alias.  Names are case-sensitive, as in SillyTavern."""

    def __init__(self, commands: Iterable[Command] = ()) -> None:
        self._by_name: dict[str, Command] = {}
        self._primary: dict[str, Command] = {}
        for command in commands:
            self.add(command)

    def add(self, command: Command) -> None:
        self._primary[command.name] = command
        for name in (command.name, *command.aliases):
            self._by_name[name] = command

    def get(self, name: str) -> Command | None:
        return self._by_name.get(name)

    def exists(self, name: str) -> bool:
        return name in self._by_name

    def splits(self, name: str) -> tuple[bool, int | None]:
        command = self._by_name.get(name)
        if command is None or not command.unnamed or not command.split:
            return False, None
        return True, command.split_count

    def raw_quotes(self, name: str) -> bool:
        command = self._by_name.get(name)
        return command is not None and command.raw_quotes

    def commands(self) -> list[Command]:
        """Each command once, by name."""
        return [self._primary[name] for name in sorted(self._primary)]

    def names(self) -> list[str]:
        return sorted(self._by_name)


__all__ = ["Arg", "Command", "Handler", "Registry"]
