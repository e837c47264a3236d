"""Honest import of cards and presets that carry TavernHelper scripts: one report line per script
(what runs here, what does not, what it loads from where), the per-card answer (``--scripts``,
``pear tavern set scripts``), and the scripts kept byte for byte through import, export and re-import."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kit.cli import pear_in_process
from peargarden.formats import read_card
from peargarden.formats.helper_scripts import helper_scripts

CASE = Path(__file__).parents[1] / "variables" / "mvu_e2e" / "01-minimal-classic-mvu"
ZOD = "https://testingcf.jsdelivr.net/gh/StageDog/tavern_resource/dist/酒馆助手/mvu_zod.js"


def _card() -> dict[str, Any]:
    """The recorded MVU card with every shape of script a real card uses besides its MVU loader."""
    card = json.loads((CASE / "card.json").read_text(encoding="utf-8"))
    helper = card["data"]["extensions"]["tavern_helper"]
    helper["scripts"] += [
        {"type": "script", "enabled": True, "name": "变量结构", "id": "z1",
         "content": f"const {{ registerMvuSchema }} = await import('{ZOD}');\n"
                    "registerMvuSchema(z.object({好感度: z.coerce.number()}));"},
        {"type": "script", "enabled": True, "name": "坏结构", "id": "z2",
         "content": f"import {{ registerMvuSchema }} from '{ZOD}';\nregisterMvuSchema(z.object({{a: z.nope()}}));"},
        {"type": "folder", "enabled": False, "name": "界面", "scripts": [
            {"type": "script", "enabled": True, "name": "状态栏按钮", "id": "u1",
             "content": "$('<div>').appendTo('body'); // 按钮\n"},
        ]},
    ]  # fmt: skip
    card["data"]["extensions"]["TavernHelper_scripts"] = [
        {"type": "script", "value": {"id": "old", "name": "旧版脚本", "content": "eventOn('message_received', f);",
                                     "enabled": True}},
    ]  # fmt: skip
    return card


def _import(home: Path, tmp_path: Path, *args: str) -> str:
    source = tmp_path / "小梨.json"
    source.write_text(json.dumps(_card(), ensure_ascii=False, indent=2), encoding="utf-8")
    done = pear_in_process(home, "import", str(source), "--regex", "allow", *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_each_script_gets_a_line_saying_what_runs_here(home_dir: Path, tmp_path: Path) -> None:
    out = _import(home_dir, tmp_path)
    lines = [line for line in out.splitlines() if line.startswith("脚本\t")]
    assert len(lines) == 5
    mvu, zod, broken, ui, old = lines
    assert "「MVU」" in mvu and "运行：MVU 变量更新" in mvu and "MagicalAstrogy/MagVarUpdate/artifact/bundle.js" in mvu
    assert "「变量结构」" in zod and "运行：它注册的 zod 变量结构" in zod and "枚举拒绝" in zod and ZOD in zod
    # A schema script our sandbox cannot run says so (and why), instead of claiming it runs.
    assert "「坏结构」" in broken and "运行失败" in broken and "not a function" in broken
    assert "「状态栏按钮」（已停用）" in ui and "运行：无" in ui and "远程" not in ui
    assert "「旧版脚本」" in old and "不运行：脚本自己的 JavaScript" in old


def test_the_answer_is_kept_per_card_and_switched_later(home_dir: Path, tmp_path: Path) -> None:
    out = _import(home_dir, tmp_path, "--scripts", "deny")
    assert "MVU 变量更新不做" in out
    settings_file = home_dir / "cards" / "小梨" / "卡.json"
    assert json.loads(settings_file.read_text(encoding="utf-8"))["scripts_allowed"] is False
    done = pear_in_process(home_dir, "tavern", "set", "scripts", "on", "--card", "小梨")
    assert done.returncode == 0 and "变量系统（MVU）运行" in done.stdout
    assert json.loads(settings_file.read_text(encoding="utf-8"))["scripts_allowed"] is True


def _scripts_json(card: dict[str, Any]) -> str:
    extensions = card["data"]["extensions"]
    kept = {key: extensions[key] for key in ("tavern_helper", "TavernHelper_scripts")}
    return json.dumps(kept, ensure_ascii=False)


def test_scripts_that_do_not_run_are_kept_byte_for_byte(home_dir: Path, tmp_path: Path) -> None:
    _import(home_dir, tmp_path)
    source = (tmp_path / "小梨.json").read_bytes()
    stored = next((home_dir / "cards" / "小梨").glob("小梨.json")).read_bytes()
    assert stored == source  # the card file as it came
    for fmt in ("json", "png"):
        out = tmp_path / f"出.{fmt}"
        done = pear_in_process(home_dir, "export", "card", "小梨", "--format", fmt, "-o", str(out))
        assert done.returncode == 0, done.stderr
        exported = read_card(out.read_bytes(), str(out))
        assert _scripts_json({"data": exported.data}) == _scripts_json(_card()), fmt
    # Imported again from the exported PNG: the same scripts, the same report.
    again = pear_in_process(home_dir, "import", str(tmp_path / "出.png"), "--regex", "allow")
    assert again.returncode == 0 and again.stdout.count("脚本\t") == 5


def test_a_presets_scripts_are_reported_and_the_preset_kept_as_it_was(home_dir: Path, tmp_path: Path) -> None:
    preset = json.loads((CASE / "preset.json").read_text(encoding="utf-8"))
    preset["extensions"] = {"tavern_helper": [["scripts", [
        {"type": "script", "enabled": True, "name": "预设美化", "id": "p1",
         "content": "import 'https://cdn.example.invalid/美化.js';"},
    ]], ["variables", {}]]}  # fmt: skip
    path = tmp_path / "梨园预设.json"
    data = json.dumps(preset, ensure_ascii=False, indent=1).encode("utf-8")
    path.write_bytes(data)
    done = pear_in_process(home_dir, "import", str(path))
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("脚本\t"))
    assert "预设的 TavernHelper 脚本「预设美化」" in line and "https://cdn.example.invalid/美化.js" in line
    assert (home_dir / "library" / "presets" / "梨园预设.json").read_bytes() == data
    assert [s.name for s in helper_scripts(preset["extensions"])] == ["预设美化"]
