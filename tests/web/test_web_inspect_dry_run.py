"""The inspector's dry runs are previews: they write nothing, whatever a beat would do first (defect 3)."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from pathlib import Path

from web_harness import LiveServer

from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


def test_a_dry_run_of_the_inspector_writes_nothing_even_with_a_changed_preset(home_dir: Path) -> None:
    from peargarden.modes.stage.preset import declare_preset

    home = Home(home_dir)
    seed_home(home)
    prompts = [{"identifier": "main", "name": "身份", "role": "system", "content": "你是资深写手。"},
               {"identifier": "chatHistory", "name": "Chat History", "marker": True}]  # fmt: skip
    order = [{"identifier": "main", "enabled": True}, {"identifier": "chatHistory", "enabled": True}]
    preset = {"prompts": prompts, "prompt_order": [{"character_id": 100001, "order": order}]}
    (home.presets_dir / "雨夜.json").write_text(json.dumps(preset), encoding="utf-8")
    declare_preset(home, "青梧", "雨夜", given=[{"id": "main", "station": "identity"}])
    preset["temperature"] = 0.7  # changed since it was declared: the next beat declares it again
    (home.presets_dir / "雨夜.json").write_text(json.dumps(preset), encoding="utf-8")
    with LiveServer(home) as server:
        card = urllib.parse.quote("青梧")
        request = urllib.request.Request(f"{server.base_url}/api/chats/{card}", data=b"{}",
                                         headers={"Content-Type": "application/json"})  # fmt: skip
        with urllib.request.urlopen(request, timeout=30) as response:
            chat = json.loads(response.read())["chat_id"]
        before = {p: p.read_bytes() for p in sorted(home.root.rglob("*")) if p.is_file()}
        url = f"{server.base_url}/api/inspect/{card}/{chat}?source=dry:stage"
        with urllib.request.urlopen(url, timeout=60) as response:
            assert response.status == 200
        after = {p: p.read_bytes() for p in sorted(home.root.rglob("*")) if p.is_file()}
    assert after == before
