"""Sandbox verdicts: the spec's vectors, the seed's ten calls, and an adversarial suite."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from peargarden.sandbox import Grants, SandboxContext, grant_unit, judge
from peargarden.workspace.home import Home
from peargarden.workspace.sandbox_context import sandbox_context

HERE = Path(__file__).parent
ADVERSARIAL = [json.loads(line) for line in (HERE / "adversarial.jsonl").read_text("utf-8").splitlines()]


def _args(case: dict[str, str]) -> dict[str, object]:
    return {"command": case["command"]} if case["tool"] == "bash" else {"path": case["path"]}


def test_adversarial_suite_is_large_enough() -> None:
    assert len(ADVERSARIAL) >= 200
    assert sum(1 for c in ADVERSARIAL if c["expect"] != "allow") >= 200


def _case_id(case: dict[str, str]) -> str:
    return f"{case['tool']}:{case.get('path', case.get('command'))!r}"


@pytest.mark.parametrize("case", ADVERSARIAL, ids=_case_id)
def test_adversarial_call(case: dict[str, str], ctx: SandboxContext) -> None:
    verdict = judge(case["tool"], _args(case), ctx)
    if case["expect"] != "allow":
        assert verdict.kind != "allow", f"wrongful allow: {verdict.reason}"
    assert verdict.kind == case["expect"], verdict.reason


def root_ctx(data_root: Path, **kw: object) -> SandboxContext:
    """Paths relative to the data folder, as `pear sandbox check` reads them."""
    return sandbox_context(Home(data_root), "青梧", chat_id="当前局", paths_relative_to_root=True, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("tool", "path", "kind", "unit"),
    [
        ("read", "cards/青梧/青梧.png", "allow", None),
        ("write", "cards/青梧/创作/新目录/新文件.txt", "allow", None),
        ("read", "cards/青梧/chats", "allow", None),
        ("read", "library/lorebooks/栖水镇.json", "allow", None),
        ("write", "library/lorebooks/栖水镇.json", "ask", "library/lorebooks"),
        ("read", "web/src/a.ts", "ask", "web"),
        ("read", "cards/其他/其他.png", "ask", "cards/其他"),
        ("read", "SYSTEM.md", "allow", None),
        ("ls", None, "ask", "."),
        ("read", "cards/青梧/../其他/其他.png", "ask", "cards/其他"),
        ("read", "cards", "ask", "cards"),
    ],
)
def test_spec_vectors(data_root: Path, tool: str, path: str | None, kind: str, unit: str | None) -> None:
    args: dict[str, object] = {} if path is None else {"path": path}
    verdict = judge(tool, args, root_ctx(data_root))
    assert verdict.kind == kind, verdict.reason
    assert verdict.unit == unit


def test_root_level_file_is_its_own_unit(data_root: Path) -> None:
    (data_root / "notes.txt").write_text("x", encoding="utf-8")
    verdict = judge("read", {"path": "notes.txt"}, root_ctx(data_root))
    assert (verdict.kind, verdict.unit) == ("ask", "notes.txt")


def test_outside_the_data_folder_unit_is_the_directory(data_root: Path) -> None:
    outside = data_root.parent / "别处"
    outside.mkdir()
    (outside / "x.txt").write_text("x", encoding="utf-8")
    ctx = root_ctx(data_root)
    verdict = judge("read", {"path": str(outside / "x.txt")}, ctx)
    assert verdict.kind == "ask"
    assert verdict.unit == ctx.realpath(str(outside))
    assert grant_unit(ctx.realpath(str(outside)), ctx) == ctx.realpath(str(outside))


def test_grant_allows_its_unit_only(data_root: Path) -> None:
    ctx = root_ctx(data_root, grant_paths=["web"])
    assert judge("read", {"path": "web/src/b.ts"}, ctx).kind == "allow"
    assert judge("write", {"path": "web/src/新.ts"}, ctx).kind == "allow"
    assert judge("read", {"path": "cards/其他/其他.png"}, ctx).kind == "ask"


def test_grants_never_open_forbidden_or_protected_files(data_root: Path) -> None:
    ctx = root_ctx(data_root, grant_paths=["."])
    assert judge("read", {"path": "config.toml"}, ctx).kind == "deny"
    assert judge("read", {"path": "vault/objects/aa"}, ctx).kind == "deny"
    assert judge("write", {"path": "SYSTEM.md"}, ctx).kind == "ask"
    assert judge("write", {"path": "cards/青梧/卡.json"}, ctx).kind == "ask"
    assert judge("read", {"path": "web/src/a.ts"}, ctx).kind == "allow"


def test_symlink_out_is_judged_where_it_points(data_root: Path) -> None:
    ctx = root_ctx(data_root)
    verdict = judge("read", {"path": "cards/青梧/偷渡/presets/p.json"}, ctx)
    assert verdict.kind == "allow"  # the shared library is readable
    verdict = judge("write", {"path": "cards/青梧/偷渡/presets/p.json"}, ctx)
    assert (verdict.kind, verdict.unit) == ("ask", "library/presets")


def test_bash_grant_allows_everything_but_the_blacklist(ctx: SandboxContext) -> None:
    granted = msgspec.structs.replace(ctx, grants=Grants(bash=True))
    assert judge("bash", {"command": "python cleanup.py"}, granted).kind == "allow"
    assert judge("bash", {"command": "rm -rf /"}, granted).kind == "deny"


def test_without_a_current_chat_every_chat_is_another(data_root: Path) -> None:
    ctx = sandbox_context(Home(data_root), "青梧", paths_relative_to_root=True)
    assert judge("read", {"path": "cards/青梧/chats/当前局/session.jsonl"}, ctx).kind == "deny"


def test_tools_outside_the_sandbox_are_allowed(ctx: SandboxContext) -> None:
    assert judge("lorebook_search", {"query": "怀瑾"}, ctx).kind == "allow"


def test_seed_ten_calls(data_root: Path) -> None:
    ctx = root_ctx(data_root)
    outside = data_root.parent / "外部"
    outside.mkdir()
    calls = [
        ("write", {"path": "cards/青梧/创作/新.md"}, "allow"),
        ("read", {"path": "library/lorebooks/栖水镇.json"}, "allow"),
        ("write", {"path": "library/lorebooks/栖水镇.json"}, "ask"),
        ("read", {"path": "cards/青梧/chats/旧局/session.jsonl"}, "deny"),
        ("read", {"path": "vault/objects/aa"}, "deny"),
        ("bash", {"command": "cat AGENTS.md"}, "allow"),
        ("bash", {"command": "cd cards && rm -rf 青梧"}, "ask"),
        ("bash", {"command": "rm -rf /"}, "deny"),
        ("bash", {"command": "python cleanup.py"}, "ask"),
        ("read", {"path": str(outside / "x.txt")}, "ask"),
    ]
    assert [judge(tool, args, ctx).kind for tool, args, _ in calls] == [kind for _, _, kind in calls]


def test_user_lists_replace_the_defaults(ctx: SandboxContext) -> None:
    custom = msgspec.structs.replace(ctx, no_ask=("ls", "python3 -m json.tool"), blacklist=(r"\bcat\b",))
    assert judge("bash", {"command": "cat AGENTS.md"}, custom).kind == "deny"
    assert judge("bash", {"command": "python3 -m json.tool 卡.json"}, custom).kind == "allow"
    assert judge("bash", {"command": "rm -rf /"}, custom).kind == "ask"  # no longer blacklisted, still asked


def test_broken_user_pattern_does_not_open_the_gate(ctx: SandboxContext) -> None:
    custom = msgspec.structs.replace(ctx, blacklist=("([", r"\bshred\b"))
    assert judge("bash", {"command": "shred x"}, custom).kind == "deny"


def test_stored_keys_are_forbidden(data_root: Path) -> None:
    (data_root / "keys").mkdir()
    (data_root / "keys" / "deepseek.key").write_text("sk-secret", encoding="utf-8")
    ctx = root_ctx(data_root)
    assert judge("read", {"path": "keys/deepseek.key"}, ctx).kind == "deny"
    assert judge("ls", {"path": "keys"}, ctx).kind == "deny"
    assert judge("bash", {"command": "cat ../../keys/deepseek.key"}, ctx).kind == "ask"
