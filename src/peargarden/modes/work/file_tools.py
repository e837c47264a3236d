"""The work-mode file tools: ``read``, ``write``, ``edit``, ``ls``, ``grep``, ``find`` (pure Python).

Paths are read the way the sandbox reads them (leading ``@``, odd spaces, ``~``, ``file://``) and
resolved against the card folder.  The sandbox judges every call before it runs; on top of that the
walking tools never descend into forbidden folders (other chats, the vault) and never follow a
symlink out of the zones the sandbox allows, so an approved ``grep -r`` over the card cannot read
another chat.  Messages to the model follow pi's wording so models trained on it feel at home.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from peargarden.agent.tools import Tool, ToolContext, ToolResult
from peargarden.sandbox import SandboxContext, forbidden_reason, judge_path
from peargarden.sandbox._paths import absolute
from peargarden.workspace import atomic
from peargarden.workspace.home import Home
from peargarden.workspace.sandbox_context import sandbox_context

from ._fuzzy import fuzzy_spans
from ._truncate import MAX_BYTES, format_size, truncate_head

GREP_LINE_LIMIT = 500
_IMAGE_MAGIC = {b"\x89PNG\r\n\x1a\n": "png", b"\xff\xd8\xff": "jpeg", b"GIF8": "gif"}


class _Where(msgspec.Struct, frozen=True):
    """Where the tools work: the card folder and the sandbox context used to skip forbidden trees."""

    cwd: str
    sandbox: SandboxContext | None

    @classmethod
    def of(cls, ctx: ToolContext) -> _Where:
        if ctx.card_dir is None:
            return cls(os.getcwd(), None)
        card_dir = Path(ctx.card_dir)
        sandbox = None
        if ctx.home is not None:
            sandbox = sandbox_context(Home(Path(ctx.home)), card_dir.name, chat_id=ctx.chat_id)
        return cls(str(card_dir), sandbox)

    def resolve(self, raw: str | None) -> Path:
        return Path(absolute(raw or ".", self.cwd, os.path.expanduser("~")))

    def shown(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.cwd)) or "."
        except ValueError:
            return str(path)

    def may_enter(self, path: Path, walk_root: Path) -> bool:
        """May a walk started at *walk_root* look at *path* (already a child it found)?"""
        if self.sandbox is None:
            return True
        real = self.sandbox.realpath(str(path))
        if forbidden_reason(real, self.sandbox):
            return False
        if path.is_symlink():
            root_real = self.sandbox.realpath(str(walk_root))
            inside_root = real == root_real or real.startswith(root_real.rstrip("/") + "/")
            return inside_root or judge_path("read", "read", real, self.sandbox).kind == "allow"
        return True


def _walk(where: _Where, root: Path) -> Iterator[tuple[Path, bool]]:
    """Depth-first (sorted) walk yielding (path, is_dir); never follows directory symlinks."""
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name.lower())
    except OSError:
        return
    for entry in entries:
        path = Path(entry.path)
        if not where.may_enter(path, root):
            continue
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        yield path, is_dir
        if is_dir and entry.name != ".git":
            yield from _walk(where, path)


class ReadTool(Tool):
    name = "read"
    description = (
        "Read a file (text, or an image's size and type). Relative paths are inside the card folder. "
        "Long files are cut at 2000 lines or 50KB; use offset/limit to page."
    )
    parameters: dict[str, Any] = {  # noqa: RUF012
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File to read"},
            "offset": {"type": "integer", "minimum": 1, "description": "First line (1-based)"},
            "limit": {"type": "integer", "minimum": 1, "description": "Number of lines"},
        },
        "required": ["path"],
    }
    access = "read"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        where = _Where.of(ctx)
        path = where.resolve(args["path"])
        try:
            data = path.read_bytes()
        except OSError as error:
            return ToolResult(f"{error.strerror or error}: {args['path']}", is_error=True)
        kind = next((k for magic, k in _IMAGE_MAGIC.items() if data.startswith(magic)), None)
        if kind is None and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            kind = "webp"
        if kind is not None:
            # Images are not sent to the model as pictures yet: say what the file is.
            return ToolResult(f"[{kind} image, {format_size(len(data))}: {where.shown(path)}]")
        text = data.decode("utf-8", "replace")
        lines = text.split("\n")
        offset = int(args.get("offset") or 1)
        if offset > len(lines):
            return ToolResult(f"Offset {offset} is beyond end of file ({len(lines)} lines total)", is_error=True)
        limit = args.get("limit")
        chosen = lines[offset - 1 : offset - 1 + int(limit)] if limit else lines[offset - 1 :]
        cut = truncate_head("\n".join(chosen))
        if cut.first_line_too_big:
            size = format_size(len(chosen[0].encode("utf-8")))
            return ToolResult(
                f"[Line {offset} is {size}, exceeds {format_size(MAX_BYTES)} limit. "
                f"Use bash: sed -n '{offset}p' {args['path']} | head -c {MAX_BYTES}]"
            )
        out = cut.text
        last = offset + cut.kept_lines - 1
        if cut.truncated:
            limit_note = f" ({format_size(MAX_BYTES)} limit)" if cut.by == "bytes" else ""
            shown_range = f"Showing lines {offset}-{last} of {len(lines)}{limit_note}"
            out += f"\n\n[{shown_range}. Use offset={last + 1} to continue.]"
        elif limit and offset - 1 + int(limit) < len(lines):
            remaining = len(lines) - (offset - 1 + int(limit))
            out += f"\n\n[{remaining} more lines in file. Use offset={offset + int(limit)} to continue.]"
        return ToolResult(out)


class WriteTool(Tool):
    name = "write"
    description = "Create or overwrite a file (parent folders are created). Relative paths are inside the card folder."
    parameters: dict[str, Any] = {  # noqa: RUF012
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    }
    access = "write"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        where = _Where.of(ctx)
        path = where.resolve(args["path"])
        content: str = args["content"]
        try:
            atomic.write_text(path, content)
        except OSError as error:
            return ToolResult(f"{error.strerror or error}: {args['path']}", is_error=True)
        units = len(content.encode("utf-16-le")) // 2
        return ToolResult(f"Successfully wrote {units} bytes to {args['path']}", details={"path": str(path)})


def _line_ending(text: str) -> str:
    crlf = text.find("\r\n")
    lf = text.find("\n")
    return "\r\n" if crlf != -1 and crlf <= lf else "\n"


class EditTool(Tool):
    name = "edit"
    description = (
        "Replace one exact occurrence of oldText with newText in a file. oldText must match exactly once "
        "(whitespace, quotes and dashes are matched tolerantly when no exact match exists)."
    )
    parameters: dict[str, Any] = {  # noqa: RUF012
        "type": "object",
        "properties": {"path": {"type": "string"}, "oldText": {"type": "string"}, "newText": {"type": "string"}},
        "required": ["path", "oldText", "newText"],
    }
    access = "write"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        where = _Where.of(ctx)
        shown = args["path"]
        path = where.resolve(shown)
        try:
            raw = path.read_bytes().decode("utf-8")
        except FileNotFoundError:
            return ToolResult(f"File not found: {shown}", is_error=True)
        except (OSError, UnicodeDecodeError) as error:
            return ToolResult(f"Cannot read {shown}: {error}", is_error=True)
        bom = "\ufeff" if raw.startswith("\ufeff") else ""
        ending = _line_ending(raw)
        text = raw[len(bom) :].replace("\r\n", "\n")
        old = args["oldText"].replace("\r\n", "\n")
        new = args["newText"].replace("\r\n", "\n")
        count = text.count(old) if old else 0
        if count == 1:
            start = text.index(old)
            spans = [(start, start + len(old))]
        elif count > 1:
            spans = [(0, 0)] * count
        else:
            spans = fuzzy_spans(text, old)
        if not spans:
            return ToolResult(
                f"Could not find the exact text in {shown}. The old text must match exactly including all "
                "whitespace and newlines.",
                is_error=True,
            )
        if len(spans) > 1:
            return ToolResult(
                f"Found {len(spans)} occurrences of the text in {shown}. The text must be unique. "
                "Please provide more context to make it unique.",
                is_error=True,
            )
        start, end = spans[0]
        result = text[:start] + new + text[end:]
        if result == text:
            return ToolResult(f"No changes made to {shown}. The replacement produced identical content.", is_error=True)
        final = bom + (result.replace("\n", "\r\n") if ending == "\r\n" else result)
        try:
            atomic.write_text(path, final)
        except OSError as error:
            return ToolResult(f"{error.strerror or error}: {shown}", is_error=True)
        first_line = text[:start].count("\n") + 1
        return ToolResult(f"Successfully replaced text in {shown}.", details={"firstChangedLine": first_line})


class LsTool(Tool):
    name = "ls"
    description = "List a folder (dot files included, folders end with /). Default: the card folder."
    parameters: dict[str, Any] = {  # noqa: RUF012
        "type": "object",
        "properties": {"path": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}},
    }
    access = "read"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        where = _Where.of(ctx)
        shown = args.get("path") or "."
        path = where.resolve(shown)
        if not path.exists():
            return ToolResult(f"Path not found: {shown}", is_error=True)
        if not path.is_dir():
            return ToolResult(f"Not a directory: {shown}", is_error=True)
        limit = int(args.get("limit") or 500)
        names: list[str] = []
        try:
            entries = sorted(os.scandir(path), key=lambda e: e.name.lower())
        except OSError as error:
            return ToolResult(f"{error.strerror or error}: {shown}", is_error=True)
        for entry in entries:
            try:
                names.append(entry.name + ("/" if entry.is_dir() else ""))
            except OSError:
                continue
        if not names:
            return ToolResult("(empty directory)")
        out = "\n".join(names[:limit])
        if len(names) > limit:
            out += f"\n\n[{limit} entries limit reached. Use limit={limit * 2} for more]"
        return ToolResult(out)


def _is_binary(data: bytes) -> bool:
    return b"\x00" in data[:8192]


class GrepTool(Tool):
    name = "grep"
    description = (
        "Search file contents for a regex (or literal text). Output: path:LINE: text. "
        "Skips binary files and folders the sandbox keeps closed."
    )
    parameters: dict[str, Any] = {  # noqa: RUF012
        "type": "object",
        "properties": {
            "pattern": {"type": "string"},
            "path": {"type": "string"},
            "glob": {"type": "string", "description": "Only files whose name matches, e.g. *.md"},
            "ignoreCase": {"type": "boolean"},
            "literal": {"type": "boolean"},
            "context": {"type": "integer", "minimum": 0},
            "limit": {"type": "integer", "minimum": 1},
        },
        "required": ["pattern"],
    }
    access = "read"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        where = _Where.of(ctx)
        shown = args.get("path") or "."
        root = where.resolve(shown)
        if not root.exists():
            return ToolResult(f"Path not found: {shown}", is_error=True)
        flags = re.IGNORECASE if args.get("ignoreCase") else 0
        source = re.escape(args["pattern"]) if args.get("literal") else args["pattern"]
        try:
            regex = re.compile(source, flags)
        except re.error as error:
            return ToolResult(f"Invalid pattern: {error}", is_error=True)
        glob = args.get("glob")
        context = int(args.get("context") or 0)
        limit = int(args.get("limit") or 100)
        files = [root] if root.is_file() else [p for p, is_dir in _walk(where, root) if not is_dir]
        out: list[str] = []
        matches = 0
        cut_lines = False
        for file in files:
            if glob and not fnmatch.fnmatch(file.name, glob) and not fnmatch.fnmatch(where.shown(file), glob):
                continue
            try:
                data = file.read_bytes()
            except OSError:
                continue
            if _is_binary(data):
                continue
            lines = data.decode("utf-8", "replace").split("\n")
            rel = where.shown(file) if file != root else shown
            shown_lines: set[int] = set()
            for number, line in enumerate(lines):
                if not regex.search(line):
                    continue
                matches += 1
                for near in range(max(0, number - context), min(len(lines), number + context + 1)):
                    if near in shown_lines:
                        continue
                    shown_lines.add(near)
                    text = lines[near]
                    if len(text) > GREP_LINE_LIMIT:
                        text = text[:GREP_LINE_LIMIT] + "... [truncated]"
                        cut_lines = True
                    sep = ":" if near == number else "-"
                    out.append(f"{rel}{sep}{near + 1}{sep} {text}")
                if matches >= limit:
                    break
            if matches >= limit:
                break
        if not out:
            return ToolResult("No matches found")
        text = "\n".join(out)
        notices = []
        if matches >= limit:
            notices.append(f"{limit} matches limit reached. Use limit={limit * 2} for more, or refine pattern")
        cut = truncate_head(text, max_lines=10**9)
        if cut.truncated:
            text = cut.text
            notices.append(f"{format_size(MAX_BYTES)} limit reached")
        if cut_lines:
            notices.append(f"Some lines truncated to {GREP_LINE_LIMIT} chars. Use read tool to see full lines")
        if notices:
            text += "\n\n[" + ". ".join(notices) + "]"
        return ToolResult(text)


class FindTool(Tool):
    name = "find"
    description = "Find files by glob pattern (e.g. *.md, 创作/**/*.txt). Results are relative; folders end with /."
    parameters: dict[str, Any] = {  # noqa: RUF012
        "type": "object",
        "properties": {"pattern": {"type": "string"}, "path": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["pattern"],
    }
    access = "read"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        where = _Where.of(ctx)
        shown = args.get("path") or "."
        root = where.resolve(shown)
        if not root.is_dir():
            return ToolResult(f"Path not found: {shown}", is_error=True)
        pattern: str = args["pattern"]
        limit = int(args.get("limit") or 1000)
        found: list[str] = []
        for path, is_dir in _walk(where, root):
            rel = path.relative_to(root).as_posix()
            target = rel if "/" in pattern else path.name
            if fnmatch.fnmatch(target, pattern) or ("**/" in pattern and fnmatch.fnmatch(rel, pattern[3:])):
                found.append(rel + ("/" if is_dir else ""))
                if len(found) >= limit:
                    break
        if not found:
            return ToolResult("No files found matching pattern")
        text = "\n".join(found)
        if len(found) >= limit:
            text += f"\n\n[{limit} results limit reached. Use limit={limit * 2} for more, or refine pattern]"
        return ToolResult(text)


def file_tools() -> list[Tool]:
    return [ReadTool(), WriteTool(), EditTool(), LsTool(), GrepTool(), FindTool()]
