"""The work-mode file tools and bash, run for real on a small data folder."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from peargarden.agent.tools import ToolContext
from peargarden.modes.work.bash_tool import BashTool, bubblewrap_works
from peargarden.modes.work.file_tools import EditTool, FindTool, GrepTool, LsTool, ReadTool, WriteTool


@pytest.fixture
def tctx(data_root: Path) -> ToolContext:
    return ToolContext(home=data_root, card_dir=data_root / "cards" / "青梧", chat_id="当前局", mode="work")


def test_read_pages_long_files(tctx: ToolContext) -> None:
    card = Path(tctx.card_dir or "")
    (card / "长.txt").write_text("\n".join(f"第{i}行" for i in range(1, 3001)), encoding="utf-8")
    first = ReadTool().run({"path": "长.txt"}, tctx)
    assert first.text.splitlines()[0] == "第1行"
    assert "[Showing lines 1-2000 of 3000. Use offset=2001 to continue.]" in first.text
    page = ReadTool().run({"path": "长.txt", "offset": 2999, "limit": 1}, tctx)
    assert page.text.startswith("第2999行\n\n[1 more lines in file. Use offset=3000 to continue.]")
    beyond = ReadTool().run({"path": "长.txt", "offset": 5000}, tctx)
    assert beyond.is_error and "beyond end of file (3000 lines total)" in beyond.text
    missing = ReadTool().run({"path": "没有.txt"}, tctx)
    assert missing.is_error


def test_read_cuts_at_50kb_without_partial_lines(tctx: ToolContext) -> None:
    card = Path(tctx.card_dir or "")
    line = "雨" * 100  # 300 bytes
    (card / "大.txt").write_text("\n".join([line] * 400), encoding="utf-8")
    result = ReadTool().run({"path": "大.txt"}, tctx)
    body, note = result.text.split("\n\n[")
    assert all(shown == line for shown in body.split("\n"))
    assert "(50.0KB limit)" in note


def test_write_then_edit_keeps_chinese_punctuation(tctx: ToolContext) -> None:
    wrote = WriteTool().run({"path": "创作/新/描述.txt", "content": "青梧，听雨轩掌柜。\n她说：“雨还没停。”  \n"}, tctx)
    assert wrote.text.startswith("Successfully wrote")
    target = Path(tctx.card_dir or "") / "创作" / "新" / "描述.txt"
    # Curly quotes and trailing spaces in the file; the model types straight quotes.
    args = {"path": "创作/新/描述.txt", "oldText": '她说："雨还没停。"', "newText": "她说：“雨停了。”"}
    edited = EditTool().run(args, tctx)
    assert not edited.is_error, edited.text
    assert target.read_text(encoding="utf-8") == "青梧，听雨轩掌柜。\n她说：“雨停了。”\n"


def test_edit_needs_exactly_one_match(tctx: ToolContext) -> None:
    card = Path(tctx.card_dir or "")
    (card / "重复.md").write_text("雨\n雨\n", encoding="utf-8")
    twice = EditTool().run({"path": "重复.md", "oldText": "雨", "newText": "晴"}, tctx)
    assert twice.is_error and "Found 2 occurrences" in twice.text
    none = EditTool().run({"path": "重复.md", "oldText": "雪", "newText": "晴"}, tctx)
    assert none.is_error and "Could not find" in none.text
    same = EditTool().run({"path": "重复.md", "oldText": "雨\n雨", "newText": "雨\n雨"}, tctx)
    assert same.is_error and "No changes made" in same.text


def test_edit_keeps_crlf_and_bom(tctx: ToolContext) -> None:
    path = Path(tctx.card_dir or "") / "旧.txt"
    path.write_bytes("\ufeff一\r\n二\r\n".encode())
    EditTool().run({"path": "旧.txt", "oldText": "二", "newText": "贰"}, tctx)
    assert path.read_bytes() == "\ufeff一\r\n贰\r\n".encode()


def test_walking_tools_skip_other_chats_and_symlinks_out(tctx: ToolContext) -> None:
    found = FindTool().run({"pattern": "*.jsonl"}, tctx)
    assert "chats/当前局/session.jsonl" in found.text
    assert "旧局" not in found.text
    grep = GrepTool().run({"pattern": "secret|{}"}, tctx)
    assert "旧局" not in grep.text and "钥匙" not in grep.text and "secret" not in grep.text
    listing = LsTool().run({}, tctx)
    assert "AGENTS.md" in listing.text and "创作/" in listing.text


def test_grep_output_shape(tctx: ToolContext) -> None:
    card = Path(tctx.card_dir or "")
    (card / "创作" / "条目.md").write_text("序\n怀瑾公子\n尾\n", encoding="utf-8")
    result = GrepTool().run({"pattern": "怀瑾", "path": "创作", "context": 1}, tctx)
    assert result.text.splitlines() == ["创作/条目.md-1- 序", "创作/条目.md:2: 怀瑾公子", "创作/条目.md-3- 尾"]
    assert GrepTool().run({"pattern": "不存在的词"}, tctx).text == "No matches found"


def test_bash_runs_in_the_card_folder(tctx: ToolContext) -> None:
    result = BashTool(isolate=False).run({"command": "pwd; echo 错误 >&2; exit 3"}, tctx)
    assert result.is_error
    assert result.text.splitlines()[0] == str(Path(tctx.card_dir or "").resolve())
    assert "错误" in result.text and "Command exited with code 3" in result.text


def test_bash_timeout_kills_the_process_tree(tctx: ToolContext, tmp_path: Path) -> None:
    marker = tmp_path / "child.pid"
    result = BashTool(isolate=False).run({"command": f"sleep 30 & echo $! > {marker}; wait", "timeout": 0.5}, tctx)
    assert result.is_error and "timed out after 0.5 seconds" in result.text
    child = int(marker.read_text())
    status = Path(f"/proc/{child}/status")
    for _ in range(50):  # the kill is asynchronous: give the kernel a moment
        if not status.exists() or "State:\tZ" in status.read_text():
            break
        time.sleep(0.02)
    # Gone, or a zombie waiting for init to reap it: either way no longer running.
    assert not status.exists() or "State:\tZ" in status.read_text()


def test_bash_abort_keeps_partial_output(tctx: ToolContext) -> None:
    threading.Timer(0.5, tctx.cancel.set).start()
    result = BashTool(isolate=False).run({"command": "echo 已开始; sleep 30"}, tctx)
    assert result.is_error and "已开始" in result.text and "Command aborted" in result.text


def test_bash_long_output_keeps_the_end_and_a_full_log(tctx: ToolContext) -> None:
    result = BashTool(isolate=False).run({"command": "seq 1 5000"}, tctx)
    assert result.text.split("\n\n[")[0].splitlines()[-1] == "5000"
    assert "Showing lines 3001-5000 of 5000" in result.text
    log = Path(result.details["log"] if result.details else "")
    assert log.read_text().splitlines()[0] == "1"
    log.unlink()


@pytest.mark.skipif(not bubblewrap_works(), reason="bubblewrap is not usable on this machine")
def test_bash_in_bubblewrap_can_write_only_the_card(tctx: ToolContext, data_root: Path) -> None:
    result = BashTool(isolate=True).run(
        {"command": f"echo 可写 > 新.txt && cat 新.txt; echo x > {data_root}/SYSTEM.md; echo y > /etc/pear-test"}, tctx
    )
    assert "可写" in result.text and result.is_error  # /etc is read-only inside
    assert (Path(tctx.card_dir or "") / "新.txt").read_text(encoding="utf-8") == "可写\n"
    assert (data_root / "SYSTEM.md").read_text(encoding="utf-8") == "base\n"
    assert not Path("/etc/pear-test").exists()


def test_bash_announces_its_writes_to_the_vault(tctx: ToolContext) -> None:
    from peargarden.workspace import atomic

    seen: list[Path] = []

    def listener(path: Path, kind: str) -> None:
        seen.append(Path(path))

    atomic.add_write_listener(listener)
    try:
        BashTool(isolate=False).run({"command": "echo 新 > 新文件.txt"}, tctx)
    finally:
        atomic.remove_write_listener(listener)
    assert Path(tctx.card_dir or "") in seen
