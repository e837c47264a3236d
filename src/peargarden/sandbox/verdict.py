"""The sandbox verdict for one tool call: a pure function of the call and the context.

Order of judgement for path tools (read: read/grep/find/ls; write: edit/write):
forbidden zone → deny (reading included); a protected prompt/permission file written → ask;
the card folder (with ``创作/`` and the current chat) → allow; shared libraries and mounted books →
read allow, write ask (unit = that library folder); granted folders or files → allow; anything else →
ask with the grant unit.  bash: blacklist → deny; bash granted → allow; otherwise the command is
parsed and allowed only when every simple command is a no-ask prefix with its paths inside the zones
and nothing writes (see :mod:`peargarden.sandbox._bash`).  Any other tool is not sandboxed here.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Sequence
from typing import Literal

import msgspec

from ._bash import BashFinding, analyse_command
from ._paths import Realpath, absolute, inside, relative_to
from .defaults import DEFAULT_BLACKLIST, DEFAULT_NO_ASK

Access = Literal["read", "write", "bash"]
VerdictKind = Literal["allow", "ask", "deny"]

TOOL_ACCESS: dict[str, Access] = {
    "read": "read",
    "grep": "read",
    "find": "read",
    "ls": "read",
    "edit": "write",
    "write": "write",
    "bash": "bash",
}

VERBS: dict[str, str] = {
    "read": "读取",
    "grep": "搜索",
    "find": "查找",
    "ls": "列出",
    "edit": "修改",
    "write": "写入",
    "bash": "执行命令",
}


class Grants(msgspec.Struct, frozen=True):
    """What the user allowed: session grants (from the branch) ∪ permanent grants (卡.json)."""

    paths: tuple[str, ...] = ()  # real absolute folders or files
    bash: bool = False


class SandboxContext(msgspec.Struct, frozen=True):
    """Everything the verdict needs, already resolved to real absolute paths."""

    data_root: str
    card_dir: str
    home_dir: str
    realpath: Realpath
    is_dir: Callable[[str], bool]
    current_chat: str | None = None  # chat id; every other folder under chats/ is forbidden
    # Where relative paths of path tools are resolved (the file tools' working folder); bash always
    # runs in the card folder.  None means the card folder.
    path_cwd: str | None = None
    shared_roots: tuple[str, ...] = ()  # readable without asking, writing asks
    mounted_books: tuple[str, ...] = ()  # book files outside the shared roots, readable
    grants: Grants = msgspec.field(default_factory=Grants)
    blacklist: Sequence[str] = DEFAULT_BLACKLIST
    no_ask: Sequence[str] = DEFAULT_NO_ASK

    @property
    def card_settings(self) -> str:
        return posixpath.join(self.card_dir, "卡.json")

    @property
    def protected_files(self) -> tuple[str, ...]:
        """Readable, but never written by a tool without asking: they hold permissions and prompts."""
        return (
            self.card_settings,
            posixpath.join(self.data_root, "SYSTEM.md"),
            posixpath.join(self.data_root, "APPEND_SYSTEM.md"),
            posixpath.join(self.data_root, "AUTHORING.md"),
        )


class Verdict(msgspec.Struct, frozen=True):
    kind: VerdictKind
    reason: str
    tool: str = ""
    target: str | None = None  # real absolute path judged (path tools)
    unit: str | None = None  # what a grant would cover: a folder/file (relative to the data root when inside)

    def to_json(self) -> dict[str, str | None]:
        return {"verdict": self.kind, "unit": self.unit, "reason": self.reason}


def forbidden_reason(path: str, ctx: SandboxContext) -> str | None:
    """Why *path* may not even be read, or None.  Used by ls/grep/find to skip subtrees too."""
    root = ctx.data_root
    if inside(path, posixpath.join(root, "vault")):
        return "资产库（vault）由程序管理，工具不可访问"
    if path == posixpath.join(root, "config.toml"):
        return "config.toml 存有密钥，工具不可读取"
    if inside(path, posixpath.join(root, "keys")):
        return "keys/ 存有 API 密钥，工具不可访问"
    rel = relative_to(path, posixpath.join(root, "cards"))
    if rel and rel != ".":
        parts = rel.split("/")
        if len(parts) >= 3 and parts[1] == "chats":
            card_folder = posixpath.join(root, "cards", parts[0])
            if card_folder == ctx.card_dir and parts[2] == ctx.current_chat:
                return None
            return "其他对话的会话记录不可访问"
    return None


def grant_unit(target: str, ctx: SandboxContext) -> str:
    """The folder or file a grant for *target* would cover (spec liyuan §6.5)."""
    root = ctx.data_root
    rel = relative_to(target, root)
    if rel is None:
        return target if ctx.is_dir(target) else (posixpath.dirname(target) or "/")
    if rel == ".":
        return "."
    parts = rel.split("/")
    if parts[0] in ("cards", "library"):
        if len(parts) == 1:
            return parts[0]
        return "/".join(parts[:2])
    return parts[0]


def unit_path(unit: str, ctx: SandboxContext) -> str:
    """A unit as returned by :func:`grant_unit` → the real absolute path to store as a grant."""
    if unit.startswith("/"):
        return unit
    return ctx.data_root if unit == "." else posixpath.join(ctx.data_root, unit)


def _in_any(path: str, roots: Sequence[str]) -> bool:
    return any(inside(path, r) for r in roots)


def judge_path(tool: str, access: Access, raw_path: str | None, ctx: SandboxContext) -> Verdict:
    target = ctx.realpath(absolute(raw_path or ".", ctx.path_cwd or ctx.card_dir, ctx.home_dir))
    why = forbidden_reason(target, ctx)
    if why:
        return Verdict("deny", why, tool, target)
    if target in ctx.protected_files:
        if access == "read":
            return Verdict("allow", "提示词与权限文件可读", tool, target)
        return Verdict("ask", "该文件保存权限或提示词，写入需要确认", tool, target, _display(target, ctx))
    if inside(target, ctx.card_dir):
        return Verdict("allow", "当前卡目录内", tool, target)
    if _in_any(target, ctx.shared_roots) or target in ctx.mounted_books:
        if access == "read":
            return Verdict("allow", "共享资料库可读", tool, target)
        return Verdict("ask", "写入共享资料库需要确认", tool, target, grant_unit(target, ctx))
    if _in_any(target, ctx.grants.paths):
        return Verdict("allow", "用户已授权", tool, target)
    return Verdict("ask", "卡目录之外的访问需要确认", tool, target, grant_unit(target, ctx))


def _display(target: str, ctx: SandboxContext) -> str:
    rel = relative_to(target, ctx.data_root)
    return rel if rel is not None else target


def _blacklisted(command: str, patterns: Sequence[str]) -> str | None:
    for pattern in patterns:
        try:
            if re.search(pattern, command, re.IGNORECASE):
                return pattern
        except re.error:
            continue  # a broken user pattern must not open the gate; the others still apply
    return None


def judge_bash(command: str, ctx: SandboxContext) -> Verdict:
    hit = _blacklisted(command, ctx.blacklist)
    if hit:
        return Verdict("deny", f"命令命中黑名单：{hit}", "bash")
    if ctx.grants.bash:
        return Verdict("allow", "用户已授权 bash", "bash")
    finding: BashFinding = analyse_command(command, ctx.card_dir, ctx.no_ask, _path_ok(ctx))
    if finding.safe:
        return Verdict("allow", "每一段都是免询问的只读命令", "bash")
    return Verdict("ask", finding.reason, "bash", unit="bash")


def _path_ok(ctx: SandboxContext) -> Callable[[str, bool], bool]:
    """For no-ask bash commands: may this (absolute, unresolved) path be read without asking?"""

    def check(path: str, recursive: bool) -> bool:
        # bash paths arrive absolute (joined onto the folder the command has cd'ed to).
        verdict = judge_path("read", "read", path, ctx)
        if verdict.kind != "allow" or verdict.target is None:
            return False
        return not (recursive and holds_forbidden(verdict.target, ctx))

    return check


def holds_forbidden(folder: str, ctx: SandboxContext) -> bool:
    """Could a recursive read of *folder* reach a forbidden zone (another chat, the vault, keys)?"""
    zones = (
        posixpath.join(ctx.card_dir, "chats"),
        posixpath.join(ctx.data_root, "vault"),
        posixpath.join(ctx.data_root, "config.toml"),
        posixpath.join(ctx.data_root, "keys"),
        posixpath.join(ctx.data_root, "cards"),
    )
    return any(inside(zone, folder) for zone in zones)


def judge(tool: str, args: dict[str, object], ctx: SandboxContext) -> Verdict:
    """The verdict for calling *tool* with *args*."""
    access = TOOL_ACCESS.get(tool)
    if access is None:
        return Verdict("allow", "不受文件沙箱管辖的工具", tool)
    if access == "bash":
        command = args.get("command")
        if not isinstance(command, str):
            return Verdict("ask", "bash 调用缺少命令文本", "bash", unit="bash")
        return judge_bash(command, ctx)
    raw = args.get("path")
    if raw is not None and not isinstance(raw, str):
        return Verdict("ask", "路径参数不是字符串", tool, unit=".")
    return judge_path(tool, access, raw, ctx)
