"""``card_project``: the work-mode tool over the card project ``创作/`` (one file per slot).

Actions: ``list`` (the slots and their files), ``expand`` (write the files), ``check`` (what changed,
syntax problems, whether the card changed underneath), ``apply`` (write back only the changed slots),
``undo`` (put back the card as it was before the last apply).  Files are shown relative to the card
folder, which is where the file tools and ``bash`` work, so the model can ``read``/``edit`` them as
listed.  Refusals (conflicts, syntax errors) come back as error results with the program's message.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from peargarden.agent.tools import Tool, ToolContext, ToolResult
from peargarden.errors import NotFound
from peargarden.modes.work.project import MANIFEST, CardProject
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.home import AUTHORING_DIR, Home

ACTIONS = ("list", "expand", "check", "apply", "undo")


def _project(ctx: ToolContext) -> CardProject:
    if ctx.home is None or ctx.card_dir is None:
        raise NotFound("这次对话没有打开的卡（no card）")
    return CardProject(CardFolder(Home(Path(ctx.home)), Path(ctx.card_dir).name))


def _listing(project: CardProject) -> str:

    manifest = json.loads((project.root / MANIFEST).read_text(encoding="utf-8"))
    lines = [
        f"{AUTHORING_DIR}/{info['file']}  {info['label']}（{info['kind']}）" for info in manifest["slots"].values()
    ]
    return "\n".join(lines) or "（这张卡没有可编辑的槽位）"


class CardProjectTool(Tool):
    name = "card_project"
    description = (
        "角色卡工程 创作/：list 列出槽位和对应文件；expand 把卡展开成一槽一文件；check 检查改动、脚本语法和冲突；"
        "apply 只把改过的槽位写回卡文件；undo 撤销上一次写回。文件路径相对卡目录，可直接用 read/edit/write 修改。"
    )
    parameters: dict[str, Any] = {  # noqa: RUF012
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": list(ACTIONS)},
            "force": {
                "type": "boolean",
                "description": "expand only: overwrite edited files, dropping unapplied edits",
            },
        },
        "required": ["action"],
    }
    access = "write"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        project = _project(ctx)
        action = args["action"]
        if action == "expand":
            written = project.expand(force=bool(args.get("force")))
            return ToolResult(
                f"已展开：写出 {len(written)} 个文件。\n{_listing(project)}", details={"written": written}
            )
        if action == "list":
            if not (project.root / MANIFEST).exists():
                return ToolResult("还没有展开这张卡：先用 action=expand。", is_error=True)
            return ToolResult(_listing(project))
        if action == "check":
            report = project.check()
            lines = [f"改动：{c.label}（{AUTHORING_DIR}/{c.file}）" for c in report.changes]
            lines += [f"问题：{AUTHORING_DIR}/{p}" for p in report.problems]
            if report.stale:
                lines.append("原卡在展开后被修改：" + ("、".join(report.changed_underneath) or "仅格式或图片"))
            blocked = bool(report.problems or report.stale)
            text = "\n".join(lines) or "没有改动。"
            return ToolResult(text, details=report.to_json(), is_error=blocked)
        if action == "apply":
            changes = project.apply()
            if not changes:
                return ToolResult("没有改动，卡文件未动。")
            names = "、".join(c.label for c in changes)
            return ToolResult(
                f"已写回 {len(changes)} 个槽位：{names}。", details={"applied": [c.slot for c in changes]}
            )
        project.undo()
        return ToolResult("已撤销上一次写回。")
