"""Themes (SillyTavern's UI themes, 「美化」): theme files in and out in SillyTavern's format, light and
dark, user CSS that can neither load anything nor close its style element; `pear theme`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from extras_world import World

from kit.cli import pear_in_process
from peargarden.app.extras.themes import (
    OWN_THEME,
    delete_theme,
    export_theme,
    import_theme,
    list_themes,
    page_style,
    save_css,
    use_theme,
)
from peargarden.errors import FormatError, NotFound
from peargarden.extras.themes import clean_css, page_css
from peargarden.formats import read_theme, theme_to_json

HOSTILE_CSS = """@import url('https://fonts.googleapis.com/css2?family=Noto+Serif+SC');
@IMPORT "http://127.0.0.1:9/b.css";
body { background: url(http://127.0.0.1:9/leak.png) no-repeat; }
.a { background-image: image-set("http://127.0.0.1:9/c.png" 1x); content: "伞</style>"; }
.b { background: u\\72l(http://127.0.0.1:9/escaped.png); }
</style><script>document.body.dataset.pwned = "1"</script>
.c { background: url("data:image/png;base64,iVBORw0KGgo="); color: #b5652a }
.mes_text { font-family: "Noto Serif SC", serif; }"""


def theme(**fields: object) -> dict[str, object]:
    """A theme as SillyTavern 1.12 exports it (our own values)."""
    found: dict[str, object] = {
        "name": "青瓷", "blur_strength": 8, "main_text_color": "rgba(40, 60, 70, 1)",
        "italics_text_color": "rgba(90, 110, 120, 1)", "underline_text_color": "rgba(10, 120, 100, 1)",
        "quote_text_color": "rgba(200, 90, 40, 1)", "blur_tint_color": "rgba(230, 240, 238, 0.8)",
        "chat_tint_color": "rgba(220, 235, 230, 0.5)", "user_mes_blur_tint_color": "rgba(200, 225, 215, 0.9)",
        "bot_mes_blur_tint_color": "rgba(245, 250, 248, 0.9)", "shadow_color": "rgba(0, 0, 0, 0.3)",
        "shadow_width": 2, "border_color": "rgba(120, 150, 140, 1)", "font_scale": 1.1, "fast_ui_mode": False,
        "waifuMode": False, "avatar_style": 2, "chat_display": 1, "noShadows": False, "chat_width": 60,
        "timer_enabled": True, "custom_css": ".md { letter-spacing: .02em; }", "自己的字段": "留着",
    }  # fmt: skip
    found.update(fields)
    return found


def test_a_theme_file_reads_and_writes_back_in_sillytaverns_order() -> None:
    data = json.dumps(theme(), ensure_ascii=False).encode("utf-8")
    read = read_theme(data, "青瓷.json")
    written = theme_to_json(read)
    assert written.decode("utf-8").startswith('{\n    "name": "青瓷",\n    "blur_strength": 8,')
    assert json.loads(written) == theme() and list(json.loads(written))[-1] == "自己的字段"
    with pytest.raises(FormatError, match="没有颜色、模糊、字号等字段"):
        read_theme(b'{"name": "x", "temperature": 1}', "预设.json")
    with pytest.raises(FormatError, match="font_scale 应是数字"):
        read_theme(json.dumps(theme(font_scale="big")).encode(), "坏.json")


def test_user_css_can_neither_load_anything_nor_close_its_element() -> None:
    css, removed = clean_css(HOSTILE_CSS)
    assert "http" not in css and "@import" not in css.lower() and "<" not in css
    assert "image-set" not in css and 'url("data:image/png;base64,iVBORw0KGgo=")' in css
    assert '.mes_text { font-family: "Noto Serif SC", serif; }' in css
    assert any(item.startswith("@import url('https://fonts.googleapis.com") for item in removed)
    assert "url(http://127.0.0.1:9/leak.png)" in removed and "url(http://127.0.0.1:9/escaped.png)" in removed


def test_the_page_css_carries_the_theme_and_the_mode() -> None:
    css, _ = page_css(theme(main_text_color="red; } body { background: url(x)"), "light")
    assert "--st-quote: rgba(200, 90, 40, 1);" in css and "red; }" not in css
    assert "backdrop-filter: blur(8px)" in css and "font-size: 110%" in css and "border-radius: 0;" in css
    assert page_css(None, "light") == ("", [])
    dark, _ = page_css(None, "dark")
    assert dark.startswith(":root { --ink: #e6e1d6; --paper: #1d2320;")
    auto, _ = page_css(None, "auto")
    assert auto.startswith("@media (prefers-color-scheme: dark) {")


def test_themes_are_kept_chosen_and_shown_on_every_page(world: World) -> None:
    done = import_theme(world.home, json.dumps(theme(custom_css=HOSTILE_CSS), ensure_ascii=False).encode(), "青瓷.json")
    assert done["name"] == "青瓷" and len(done["removed"]) >= 4
    assert (world.home.root / "library" / "themes" / "青瓷.json").is_file()
    assert page_style(world.home) == ""  # kept, not yet chosen
    use_theme(world.home, "青瓷")
    style = page_style(world.home)
    assert "--st-main: rgba(40, 60, 70, 1);" in style and "Noto Serif SC" in style and "http" not in style
    assert list_themes(world.home) == [{"name": "青瓷", "active": True, "error": ""}]
    name, data = export_theme(world.home)
    assert name == "青瓷" and json.loads(data)["custom_css"] == HOSTILE_CSS  # the user's own text, as it was
    delete_theme(world.home, "青瓷")
    assert page_style(world.home) == "" and list_themes(world.home) == []
    with pytest.raises(NotFound, match="没有主题「青瓷」"):
        use_theme(world.home, "青瓷")


def test_user_css_with_no_theme_becomes_my_theme(world: World) -> None:
    saved = save_css(world.home, ".msg { border-radius: 0 } body { background: url(//evil/x.png) }")
    assert saved["name"] == OWN_THEME and saved["removed"] == ["url(//evil/x.png)"]
    style = page_style(world.home)
    assert ".msg { border-radius: 0 }" in style and "evil" not in style
    name, data = export_theme(world.home)
    exported = json.loads(data)
    assert name == OWN_THEME and exported["name"] == OWN_THEME and "main_text_color" in exported


def test_pear_theme(world: World, tmp_path: Path) -> None:
    source = tmp_path / "青瓷.json"
    source.write_text(json.dumps(theme(), ensure_ascii=False), encoding="utf-8")
    assert pear_in_process(world.home.root, "theme", "import", str(source), check=True).stdout == "青瓷\n"
    pear_in_process(world.home.root, "theme", "use", "青瓷", check=True)
    pear_in_process(world.home.root, "theme", "mode", "dark", check=True)
    listed = json.loads(pear_in_process(world.home.root, "theme", "list", "--json", check=True).stdout)
    assert listed == {"themes": [{"name": "青瓷", "active": True, "error": ""}], "active": "青瓷", "mode": "dark"}
    out = tmp_path / "out.json"
    pear_in_process(world.home.root, "theme", "export", "--out", str(out), check=True)
    assert json.loads(out.read_text(encoding="utf-8")) == theme()
    css = tmp_path / "my.css"
    css.write_text("@import url(http://x/y.css);\n.md q { color: teal }", encoding="utf-8")
    done = pear_in_process(world.home.root, "theme", "css", str(css), check=True)
    assert "已从自定义 CSS 里去掉：@import url(http://x/y.css);" in done.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x"}', encoding="utf-8")
    refused = pear_in_process(world.home.root, "theme", "import", str(bad))
    assert refused.returncode == 2 and refused.stderr.startswith(f"pear: {bad}:") and "Traceback" not in refused.stderr
    wrong = pear_in_process(world.home.root, "theme", "mode", "sepia")
    assert wrong.returncode == 2 and "[theme] mode 只能是" in wrong.stderr
    missing = pear_in_process(world.home.root, "theme", "css", str(tmp_path / "none.css"))
    assert missing.returncode == 2 and "没有这个文件" in missing.stderr
