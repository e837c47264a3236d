"""``/api/themes``: SillyTavern themes in and out, the one in force, light or dark, user CSS.

- ``GET /api/themes`` → ``{"themes": [{"name", "active", "error"}], "active", "mode", "css", "removed"}``
  (``css``: the user CSS, the theme in force's ``custom_css``; ``removed``: what the page takes out of it);
- ``POST /api/themes/import`` ``{"name", "text"}`` (a SillyTavern theme file's name and text) →
  ``{"name", "removed"}``; ``GET /api/themes/export`` (``?name=``; default the one in force, else
  Pear Garden's own look) → the file as SillyTavern saves it;
- ``POST /api/themes/use`` ``{"name"}`` (``""``: Pear Garden's own), ``POST /api/themes/delete``
  ``{"name"}``, ``POST /api/themes/mode`` ``{"mode": "light"|"dark"|"auto"}``, ``POST /api/themes/css``
  ``{"css"}`` → ``{"name", "removed"}``.

The page's stylesheet itself is carried by every page (``base.html``'s ``<style id="pear-theme">``).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import BaseModel

from peargarden.app.extras import (
    delete_theme,
    export_theme,
    import_theme,
    list_themes,
    load_theme,
    page_css_removed,
    save_css,
    theme_settings,
    use_theme,
)
from peargarden.app.extras import set_theme_mode as set_mode

from .deps import home_of

router = APIRouter(prefix="/api/themes")


@router.get("")
def themes(request: Request) -> dict[str, Any]:
    home = home_of(request)
    cfg = theme_settings(home)
    css = str(load_theme(home, cfg.name).get("custom_css") or "") if cfg.name else ""
    return {"themes": list_themes(home), "active": cfg.name, "mode": cfg.mode, "css": css,
            "removed": page_css_removed(home)}  # fmt: skip


class ThemeFile(BaseModel):
    name: str
    text: str


@router.post("/import")
def import_file(request: Request, body: ThemeFile) -> dict[str, Any]:
    return import_theme(home_of(request), body.text.encode("utf-8"), body.name)


@router.get("/export")
def export(request: Request, name: str | None = None) -> Response:
    found, data = export_theme(home_of(request), name)
    disposition = {"Content-Disposition": f"attachment; filename*=UTF-8''{quote(f'{found}.json')}"}
    return Response(data, media_type="application/json", headers=disposition)


class Name(BaseModel):
    name: str


@router.post("/use")
def use(request: Request, body: Name) -> dict[str, str]:
    use_theme(home_of(request), body.name)
    return {"active": body.name}


@router.post("/delete")
def delete(request: Request, body: Name) -> dict[str, str]:
    delete_theme(home_of(request), body.name)
    return {"deleted": body.name}


class Mode(BaseModel):
    mode: str


@router.post("/mode")
def mode(request: Request, body: Mode) -> dict[str, str]:
    set_mode(home_of(request), body.mode)
    return {"mode": body.mode}


class Css(BaseModel):
    css: str


@router.post("/css")
def css(request: Request, body: Css) -> dict[str, Any]:
    return save_css(home_of(request), body.css)
