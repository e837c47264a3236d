"""The table of ``pear`` commands: which module defines each one, and the line ``pear --help`` shows.

Importing every command module up front made each ``pear`` invocation pay for the whole program (the
chat loop, the web server, tree-sitter, jsonschema, tiktoken, Pillow…): about 600 modules before
``pear --help`` printed a line.  So the root group (:class:`._app.LazyCommands`) lists its commands
from :data:`COMMANDS` and imports ``cli/<module>.py`` the first time that command is resolved;
``pear --help`` prints the summaries written here and imports no command module at all.

Each command module still defines its command on the root ``app`` of :mod:`._app` (``@app.command``
or ``app.add_typer``); the table only says where to find it.  ``tests/cli/test_cli_startup.py``
checks that the table names every ``*_cmd.py`` module, that each entry really defines its command,
and that each summary is the command's own short help, so the table cannot drift from the code.
"""

from __future__ import annotations


class CommandEntry:
    """One row of the table.  A plain class: ``dataclasses`` (with the ``inspect`` it loads) would be
    most of what ``pear --help`` imports."""

    __slots__ = ("module", "summary")

    def __init__(self, module: str, summary: str) -> None:
        self.module = module  # the module in peargarden.cli that defines the command
        self.summary = summary  # the one line `pear --help` shows: the command's own short help


COMMANDS: dict[str, CommandEntry] = {
    "card": CommandEntry("card_cmd", "创作/：把卡展开成一槽一文件，检查，写回，撤销（card authoring project）。"),
    "cards": CommandEntry("cards_cmd", "List the cards: folder, name, card file, mounted lorebooks, number of chats."),
    "chat": CommandEntry("chat_cmd", "和一张卡对话（交互式、流式输出）；--once 只走一拍。"),
    "entries": CommandEntry("entries_cmd", "Entries of APPEND_SYSTEM.md / AGENTS.md: list them, switch one on or off."),
    "expression": CommandEntry("expression_cmd", "一条回复的表情和卡的表情立绘：--chat ID --message N --json。"),
    "export": CommandEntry("export_cmd", "Export a card (PNG, JSON, CHARX) or a lorebook (SillyTavern JSON)."),
    "group": CommandEntry("group_cmd", "群聊：建群、列出、修改、静音成员、删除、导入导出 SillyTavern 群聊。"),
    "imagine": CommandEntry("imagine_cmd", "为对话生成一张图（存进对话并写到文件）：--chat ID --out FILE。"),
    "import": CommandEntry("import_cmd", "Import SillyTavern files."),
    "init": CommandEntry(
        "init_cmd", "Create the data folder with its defaults; never overwrites what is already there."
    ),
    "lore": CommandEntry("lore_cmd", "A card's lore (mounted books + 补充设定集): search."),
    "lorebook": CommandEntry("lorebook_cmd", "Shared lorebooks (library/lorebooks/): list, mount on a card, unmount."),
    "models": CommandEntry(
        "models_cmd", "List the models an endpoint offers (default: the main connection in config.toml)."
    ),
    "preset": CommandEntry("preset_cmd", "预设声明：把酒馆预设分块贴标签，分流进卡的提示词文件。"),
    "sandbox": CommandEntry("sandbox_cmd", "The sandbox that judges every tool call."),
    "script": CommandEntry("script_cmd", "TavernHelper 脚本：replay CASE_DIR 回放录制的案例。"),
    "serve": CommandEntry("serve_cmd", "网页界面（web UI）：FastAPI + uvicorn，默认只监听本机。"),
    "sessions": CommandEntry("sessions_cmd", "对话（会话树）：列出、查看、导出。"),
    "slash": CommandEntry("slash_cmd", "STscript：--chat ID SCRIPT 在对话里运行脚本；replay CASE_DIR 回放录制的案例。"),
    "sprites": CommandEntry("expression_cmd", "卡的表情立绘：列出，或从酒馆的文件夹、zip、CHARX 导入。"),
    "stage": CommandEntry("stage_cmd", "The stage (agent way to play a card): inspect a beat's request."),
    "story": CommandEntry("story_cmd", "剧情记忆：场记（世界状态与登场名录）、压缩、卡的常驻记忆。"),
    "tavern": CommandEntry("tavern_cmd", "SillyTavern 兼容的提示词拼装 (tavern mode)."),
    "theme": CommandEntry("theme_cmd", "酒馆主题（美化）：导入、导出、选用、明暗、自定义 CSS。"),
    "translate": CommandEntry("translate_cmd", "翻译对话里的一条消息（原文保留）：--chat ID --message N --to LANG。"),
    "tts": CommandEntry("tts_cmd", "朗读对话里的一条消息，把语音写进文件：--chat ID --message N --out FILE。"),
    "vars": CommandEntry("vars_cmd", "聊天变量（MVU）：一条回复做了什么，一段对话里有什么。"),
    "vault": CommandEntry("vault_cmd", "资产保险库：整个数据文件夹的快照（世界书、预设、人设、技能、每张卡和对话）。"),
}
