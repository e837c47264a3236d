"""`pear tavern set host.<host> on|off|forget --card` and `pear tavern hosts --card` (issue 45 item 4):
the same answers the chat page's question keeps in 卡.json, and the modules a card plays from the data
folder; bad hosts and values refused with one line."""

from __future__ import annotations

import json
from pathlib import Path

from kit.cli import pear_in_process as pear
from peargarden.app.play.remote_modules import card_module
from peargarden.testing.fake_cdn import FakeCdn
from peargarden.workspace.home import Home

CARD = "青梧"


def test_a_host_is_allowed_listed_and_forgotten(tmp_path: Path) -> None:
    home = tmp_path / "数据"
    pear(home, "init", check=True)
    with FakeCdn() as cdn:
        url = cdn.add("/npm/问候@1/+esm", "export default '你好';")
        said = pear(home, "tavern", "set", f"host.{cdn.host}", "on", "--card", CARD, check=True)
        assert f"卡「{CARD}」从 {cdn.host} 的远程模块：允许加载" in said.stdout
        found = card_module(Home(home), CARD, url)  # what the page's frame would get
    listed = json.loads(pear(home, "tavern", "hosts", "--card", CARD, "--json", check=True).stdout)
    assert listed["hosts"] == {cdn.host: True}
    assert listed["pins"] == [{"url": url, "sha256": found.sha256, "type": "application/javascript"}]
    assert found.sha256[:12] in pear(home, "tavern", "hosts", "--card", CARD, check=True).stdout

    forgot = pear(home, "tavern", "set", f"host.{cdn.host.upper()}", "forget", "--card", CARD, check=True)
    assert "不加载" in forgot.stdout and "删掉了 1 个已钉住的模块" in forgot.stdout
    listed = json.loads(pear(home, "tavern", "hosts", "--card", CARD, "--json", check=True).stdout)
    assert listed == {"card": CARD, "hosts": {cdn.host: False}, "pins": []}


def test_bad_hosts_and_values_are_one_line(tmp_path: Path) -> None:
    home = tmp_path / "数据"
    pear(home, "init", check=True)
    for args in (["host.a b", "on", "--card", CARD], ["host.cdn.jsdelivr.net", "也许", "--card", CARD],
                 ["host.cdn.jsdelivr.net", "on"]):  # fmt: skip
        result = pear(home, "tavern", "set", *args)
        assert result.returncode == 2, result
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert "remote_hosts" not in json.loads((home / "cards" / CARD / "卡.json").read_text(encoding="utf-8"))
