"""STscript text → :class:`~.syntax.Closure`, read the way SillyTavern 1.18's parser reads it.

The reading is character by character and keeps SillyTavern's decisions, quirks included, because a
script that works there must work here:

* a command runs until ``|`` or the end of its closure — a newline is *not* a separator, so the
  next line's ``/command`` becomes text of the previous command's argument;
* ``word=value`` right after the command name (and after each such pair) is a named argument, also
  when the author meant it as text (``/pass x=1``);
* ``//`` and ``/#`` comments run to the next ``|``; ``/* … *|`` is a block comment;
* ``||`` ends a command and keeps its result from the next one;
* in the loose escaping mode (the default) one backslash before a symbol makes it text; the strict
  mode (``/parser-flag STRICT_ESCAPING``) counts backslashes in pairs.

What the parser must know of the commands (whether a name exists, whether a command splits its
unnamed argument into words) comes from :class:`CommandShapes`, so the parser stays independent
of what the commands do.
"""

from __future__ import annotations

import re
from typing import Protocol

from peargarden.text.jsstring import JS_SPACE, js_trim, js_trim_end, js_trim_start

from .syntax import Closure, Executor, NamedArgument, ParserError, UnnamedArgument

STRICT_ESCAPING = "STRICT_ESCAPING"
REPLACE_GETVAR = "REPLACE_GETVAR"
PARSER_FLAGS = (STRICT_ESCAPING, REPLACE_GETVAR)

_SPACE = frozenset(JS_SPACE)
_NAMED = re.compile(r"(\w+)=", re.ASCII)
_WORD = re.compile(r"\w", re.ASCII)
_GETVAR = re.compile(r"\{\{(get(?:global)?var)::([^}]+)\}\}", re.IGNORECASE)
_TRUE_WORDS = ("on", "true", "1", "enable")


class CommandShapes(Protocol):
    """What the parser asks about a command name."""

    def exists(self, name: str) -> bool: ...

    def splits(self, name: str) -> tuple[bool, int | None]:
        """Whether the command's unnamed argument is split into words, and into at most how many."""
        ...

    def raw_quotes(self, name: str) -> bool:
        """Whether the command keeps the quotes around its unnamed argument (unless ``raw=false``)."""
        ...


def _space(char: str | None) -> bool:
    return char is not None and char in _SPACE


class _Reader:
    """The text, a position in it, and the escaping rules."""

    def __init__(self, text: str, flags: dict[str, bool]) -> None:
        self.text = text
        self.index = 0
        self.flags = flags
        # Set when the position was moved past a backslash that escapes the symbol now under it.
        self.jumped = False

    @property
    def char(self) -> str | None:
        return self.text[self.index] if self.index < len(self.text) else None

    def rest(self, offset: int = 0) -> str:
        return self.text[self.index + offset :]

    @property
    def at_end(self) -> bool:
        """The end of the text, or only whitespace left."""
        if self.index >= len(self.text):
            return True
        ahead = self.text[self.index + 1 :]
        return _space(self.char) and ahead != "" and all(c in _SPACE for c in ahead)

    def take(self, count: int = 1) -> str:
        """Move ``count`` characters on; the last one taken is returned."""
        self.jumped = False
        last = ""
        for _ in range(count):
            last = self.char or ""
            self.index += 1
        return last

    def skip_space(self) -> None:
        while _space(self.char):
            self.take()
            self.jumped = False

    def sees(self, symbol: str | re.Pattern[str], offset: int = 0) -> bool:
        """Whether ``symbol`` starts here (``offset`` characters on), not escaped.

        An escaped symbol is text: the position moves past the escaping backslash (once, and only
        when looking at the current position) so that the symbol is taken as a character next.
        """
        back = -1 if self.jumped else 0
        base = self.index + offset + back
        if self.flags.get(STRICT_ESCAPING):
            escapes = len(self.text[base:]) - len(self.text[base:].lstrip("\\"))
        else:
            escapes = 1 if 0 <= base < len(self.text) and self.text[base] == "\\" else 0
        after = self.text[base + escapes :] if base + escapes >= 0 else self.text
        found = after.startswith(symbol) if isinstance(symbol, str) else symbol.match(after) is not None
        if not found:
            return False
        if escapes == 0:
            return True
        if not self.jumped and offset == 0:
            self.index += 1
            self.jumped = True
        return False


class Parser:
    """One parse of one script.  ``parse`` is the entry point."""

    def __init__(
        self,
        text: str,
        shapes: CommandShapes,
        *,
        flags: dict[str, bool] | None = None,
        verify: bool = True,
        new_macro_engine: bool = False,
    ):
        self.r = _Reader(text, dict(flags or {}))
        self.text = text
        self.shapes = shapes
        self.verify = verify
        # 1.17+'s macro engine evaluates {{getvar::}} once, in order: REPLACE_GETVAR has nothing to do.
        self.new_macro_engine = new_macro_engine
        self._braces = (0, 0)  # (position scanned to, {{ … }} depth there): see _inside_macro
        self.depth = 0  # 0: the root closure, which has no ``{: :}`` of its own
        self.current: Closure | None = None
        self._replaced = 0

    # -- errors ----------------------------------------------------------------------------------

    def _error(self, message: str, index: int | None = None) -> ParserError:
        return ParserError(message, self.text, self.r.index if index is None else index)

    # -- closures --------------------------------------------------------------------------------

    def _closure_ends(self) -> bool:
        r = self.r
        if self.depth == 0:
            return r.index >= len(self.text)
        if not self.verify:
            if r.index >= len(self.text):
                return True
        elif len(r.rest(1)) < 1:
            raise self._error(f"Unclosed closure at position {r.index}")
        return r.sees(":}")

    def _command_ends(self) -> bool:
        if self._closure_ends():
            return True
        # A | inside an unclosed {{ … }} belongs to the macro (SillyTavern 1.18).
        return self.r.sees("|") and not self._inside_macro()

    def _inside_macro(self) -> bool:
        """Whether the text before the position leaves a ``{{`` open.  The scan goes on from where it
        last stopped (the position only moves on while a command is read), so a long argument is not
        scanned again for every character."""
        end = self.r.index
        scanned, depth = self._braces
        if end < scanned:
            scanned, depth = 0, 0
        text = self.text
        i = scanned
        while i < end:
            pair = text[i : i + 2]
            if pair == "{{" and i + 1 < end:
                depth += 1
                i += 2
            elif pair == "}}" and i + 1 < end:
                depth = max(0, depth - 1)
                i += 2
            else:
                i += 1
        self._braces = (i, depth)
        return depth > 0

    def closure(self, *, root: bool = False) -> Closure:
        r = self.r
        if not root:
            r.take(2)  # "{:"
            self.depth += 1
        text_start = r.index
        closure = Closure(full_text=self.text)
        outer = self.current
        self.current = closure
        r.skip_space()
        while self._named_here():
            closure.parameters.append(self.named_argument())
            r.skip_space()
        inject = True
        while not self._closure_ends():
            if r.sees("/*"):
                self._block_comment()
            elif r.sees(re.compile(r"/[/#]")):
                self._comment()
            elif r.sees("/parser-flag "):
                self._parser_flag()
            elif r.sees("/:") and not r.sees(":}", 1):
                closure.executors.append(self._run_shorthand())
                inject = True
            elif r.sees(re.compile(r"/breakpoint\s*\|")):
                self._breakpoint()  # a debugger stop: nothing to run outside the editor
            elif r.sees(re.compile(r"/break(\s|\||\Z)")):
                closure.executors.append(self._break())
            elif r.sees("/"):
                command = self.command()
                command.inject_pipe = inject
                closure.executors.append(command)
                inject = True
            else:
                while not self._command_ends():
                    r.take()  # text between commands is dropped
            r.skip_space()
            if r.sees("|"):
                r.take()
                if r.sees("|"):
                    inject = False
                    r.take()
            r.skip_space()
        closure.raw_text = self.text[text_start : r.index]
        if not root:
            r.take(2)  # ":}"
            self.depth -= 1
        if r.sees("()"):
            r.take(2)
            closure.execute_now = True
        self.current = outer
        return closure

    # -- comments, flags, breakpoints ------------------------------------------------------------

    def _block_comment(self) -> None:
        r = self.r
        r.take(2)  # "/*"
        while not self._block_comment_ends():
            if r.sees("/*"):
                self._block_comment()
            r.take()
        r.take(2)  # "*|"

    def _block_comment_ends(self) -> bool:
        r = self.r
        if not self.verify:
            if r.index >= len(self.text):
                return True
        elif len(r.rest(1)) < 1:
            raise self._error(f"Unclosed block comment at position {r.index}")
        return r.sees("*|")

    def _comment(self) -> None:
        r = self.r
        r.take(2)  # "//" or "/#"
        while not self._comment_ends():
            r.take()

    def _comment_ends(self) -> bool:
        r = self.r
        if not self.verify:
            if r.index >= len(self.text):
                return True
        elif r.at_end:
            raise self._error(f"Unclosed comment at position {r.index}")
        return r.sees("|")

    def _parser_flag(self) -> None:
        r = self.r
        r.take(len("/parser-flag "))
        parts = self.unnamed_arguments(split=True)
        flag = parts[0].value if parts else ""
        state = parts[1].value if len(parts) > 1 else "on"
        if isinstance(flag, str) and flag in PARSER_FLAGS:
            r.flags[flag] = isinstance(state, str) and state.strip().lower() in _TRUE_WORDS

    def _breakpoint(self) -> None:
        self.r.take(len("/breakpoint"))

    def _break(self) -> Executor:
        r = self.r
        start = r.index + 1
        r.take(len("/break"))
        r.skip_space()
        executor = Executor(name="break", start=start, kind="break")
        if not self._command_ends():
            executor.unnamed = self.unnamed_arguments(split=False)
        executor.end = r.index
        return executor

    # -- commands --------------------------------------------------------------------------------

    def _run_shorthand(self) -> Executor:
        r = self.r
        executor = Executor(name=":", start=r.index + 2, flags=self._flags())
        r.take(2)  # "/:"
        value = self._quoted() if r.sees('"') else self._word()
        executor.unnamed = [UnnamedArgument(value)]
        r.skip_space()
        while self._named_here():
            executor.named.append(self.named_argument())
            r.skip_space()
        r.skip_space()
        if not self._command_ends():
            raise self._error(f'Unexpected end of command at position {r.index}: "/{executor.name}"')
        executor.end = r.index
        return executor

    def _flags(self) -> frozenset[str]:
        return frozenset(name for name, on in self.r.flags.items() if on)

    def command(self) -> Executor:
        r = self.r
        executor = Executor(name="", start=r.index + 1, flags=self._flags())
        r.take()  # "/"
        name = []
        while not _space(r.char) and not self._command_ends():
            name.append(r.take())
        executor.name = "".join(name)
        r.skip_space()
        if self.verify and not self.shapes.exists(executor.name):
            at = r.index - len(executor.name)
            raise self._error(f'Unknown command at position {at}: "/{executor.name}"', at)
        while self._named_here():
            executor.named.append(self.named_argument())
            r.skip_space()
        r.skip_space()
        if not self._command_ends():
            split, count = self.shapes.splits(executor.name)
            raw = self.shapes.raw_quotes(executor.name)
            given = next((a for a in executor.named if a.name == "raw"), None)
            if raw and given is not None:
                raw = not (isinstance(given.value, str) and given.value.strip().lower() in ("off", "false", "0"))
            executor.unnamed = self.unnamed_arguments(split=split, count=count, raw_quotes=raw)
        if not self._command_ends():
            raise self._error(f'Unexpected end of command at position {r.index}: "/{executor.name}"')
        executor.end = r.index
        return executor

    # -- arguments -------------------------------------------------------------------------------

    def _named_here(self) -> bool:
        return _NAMED.match(self.r.rest()) is not None

    def named_argument(self) -> NamedArgument:
        r = self.r
        start = r.index
        key = []
        while r.char is not None and _WORD.match(r.char):
            key.append(r.take())
        r.take()  # "="
        value: str | Closure | None = None
        if r.sees("{:"):
            value = self.closure()
        elif r.sees('"'):
            value = self._quoted()
        elif r.sees("["):
            value = self._list()
        elif not r.sees(re.compile(r"\s")):
            value = self._word()
        return NamedArgument("".join(key), value, start, r.index)

    def unnamed_arguments(
        self, *, split: bool, count: int | None = None, raw_quotes: bool = False
    ) -> list[UnnamedArgument]:
        """The command's unnamed argument: one text, or a list of parts (words when the command
        splits, or text and closures side by side)."""
        r = self.r
        was_split = split
        value = r.take() if r.jumped else ""
        as_list = split
        parts: list[UnnamedArgument] = []
        quoted: list[bool] = []
        start = r.index

        def push(item: str | Closure, was_quoted: bool, begin: int) -> None:
            parts.append(UnnamedArgument(item, begin, r.index))
            quoted.append(was_quoted)

        if not split and not raw_quotes and r.sees('"'):
            # A quoted start: the quoted text is one part, whatever follows is another.
            begin = r.index
            push(self._quoted(), True, begin)
            as_list = True
            start = r.index
        while not self._command_ends():
            if split and count and len(parts) >= count:
                split = False  # the rest is one value
                if r.sees('"'):
                    begin = r.index
                    push(self._quoted(), True, begin)
                    start = r.index
            if r.sees("{:"):
                as_list = True
                if value:
                    push(value, False, start)
                    if not split and r.sees('"'):
                        begin = r.index
                        push(self._quoted(), True, begin)
                    else:
                        value = ""
                begin = r.index
                parts.append(UnnamedArgument(self.closure(), begin, r.index))
                quoted.append(False)
                start = r.index
                if split:
                    r.skip_space()
            elif split:
                begin = r.index
                if r.sees('"'):
                    push(self._quoted(), True, begin)
                elif r.sees("["):
                    push(self._list(), False, begin)
                elif not r.sees(re.compile(r"\s")):
                    push(self._word(), False, begin)
                else:
                    raise self._error(f"Unexpected end of unnamed argument at index {r.index}.")
                r.skip_space()
            else:
                value += r.take()
        if as_list and value:
            push(value, False, start)
        if as_list:
            return self._trim_ends(parts, quoted, was_split, count)
        text = js_trim(value)
        if r.flags.get(REPLACE_GETVAR) and not self.new_macro_engine:
            text = self._replace_getvar(text)
        return [UnnamedArgument(text, start, r.index)]

    @staticmethod
    def _trim_ends(
        parts: list[UnnamedArgument], quoted: list[bool], was_split: bool, count: int | None
    ) -> list[UnnamedArgument]:
        if parts and isinstance(parts[0].value, str):
            if not quoted[0]:
                parts[0].value = js_trim_start(parts[0].value)
            if not parts[0].value:
                parts.pop(0)
                quoted.pop(0)
        if parts and isinstance(parts[-1].value, str):
            if not quoted[-1]:
                parts[-1].value = js_trim_end(parts[-1].value)
            if not parts[-1].value:
                parts.pop()
                quoted.pop()
        if was_split and count and count + 1 < len(parts):
            # More parts than the command takes: a quoted part and text beside it. Join the
            # surplus back into one part, quotes restored.
            joined = "".join(
                f'"{part.value}"' if was_quoted else str(part.value)
                for part, was_quoted in zip(parts[count:], quoted[count:], strict=True)
            )
            parts = [*parts[:count], UnnamedArgument(joined, parts[count].start, parts[-1].end)]
        return parts

    def _quoted(self) -> str:
        r = self.r
        r.take()  # opening quote
        chars = []
        while not self._quoted_ends():
            chars.append(r.take())
        r.take()  # closing quote
        value = "".join(chars)
        if r.flags.get(REPLACE_GETVAR) and not self.new_macro_engine:
            value = self._replace_getvar(value)
        return value

    def _quoted_ends(self) -> bool:
        r = self.r
        if r.at_end:
            if self.verify:
                raise self._error(f"Unexpected end of quoted value at position {r.index}")
            return True
        if not self.verify and self._closure_ends():
            return True
        strict = r.flags.get(STRICT_ESCAPING, False)
        if self.verify and not strict and self._command_ends():
            raise self._error(f"Unexpected end of quoted value at position {r.index}")
        return r.sees('"') or (not strict and self._command_ends())

    def _list(self) -> str:
        r = self.r
        chars = [r.take()]  # "["
        while not self._list_ends():
            chars.append(r.take())
        chars.append(r.take())  # "]"
        value = "".join(chars)
        if r.flags.get(REPLACE_GETVAR) and not self.new_macro_engine:
            value = self._replace_getvar(value)
        return value

    def _list_ends(self) -> bool:
        if self.r.at_end:
            raise self._error(f"Unexpected end of list value at position {self.r.index}")
        return self.r.sees("]")

    def _word(self) -> str:
        r = self.r
        chars = [r.take()] if r.jumped else []
        while not (r.sees(re.compile(r"\s")) or self._command_ends()):
            chars.append(r.take())
        value = "".join(chars)
        if r.flags.get(REPLACE_GETVAR) and not self.new_macro_engine:
            value = self._replace_getvar(value)
        return value

    def _replace_getvar(self, value: str) -> str:
        """``REPLACE_GETVAR``: each ``{{getvar::x}}`` becomes a scoped variable read before the
        command runs, so a value that itself holds macros is not substituted twice."""
        closure = self.current
        if closure is None:
            return value

        def replace(match: re.Match[str]) -> str:
            command, name = match.group(1).lower(), js_trim(match.group(2))  # the name as registered
            self._replaced += 1
            pipe_name = f"_PARSER_PIPE_{self._replaced}"
            var_name = f"_PARSER_VAR_{self._replaced}"
            at = self.r.index
            steps = [
                Executor("let", at, unnamed=[UnnamedArgument(pipe_name), UnnamedArgument("{{pipe}}")], end=at),
                Executor(command, at, unnamed=[UnnamedArgument(name)], end=at),
                Executor("let", at, unnamed=[UnnamedArgument(var_name), UnnamedArgument("{{pipe}}")], end=at),
                Executor("return", at, unnamed=[UnnamedArgument(f"{{{{var::{pipe_name}}}}}")], end=at),
            ]
            closure.executors.extend(steps)
            return f"{{{{var::{var_name}}}}}"

        return _GETVAR.sub(replace, value)


def parse(
    text: str,
    shapes: CommandShapes,
    *,
    flags: dict[str, bool] | None = None,
    verify: bool = True,
    new_macro_engine: bool = False,
) -> Closure:
    """The script's root closure; :class:`~.syntax.ParserError` when it cannot be read."""
    return Parser(text, shapes, flags=flags, verify=verify, new_macro_engine=new_macro_engine).closure(root=True)


__all__ = ["PARSER_FLAGS", "REPLACE_GETVAR", "STRICT_ESCAPING", "CommandShapes", "Parser", "parse"]
