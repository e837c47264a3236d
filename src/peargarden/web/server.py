"""``pear serve``: the FastAPI application, a thin front over the app services.

Bound to loopback by default.  Any other host needs a token: it is printed at start, and every
request must carry it (``Authorization: Bearer <token>``, the ``pear_token`` cookie, or ``?token=``
once, which sets the cookie).  Pages are server-rendered (Jinja2) with small JavaScript modules of
our own; the JSON API under ``/api`` is described by ``/openapi.json`` (no Swagger page: it would load
its scripts from a CDN, and the app works offline).
"""

from __future__ import annotations

import contextlib
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from peargarden import __version__
from peargarden.app import Home
from peargarden.app.extras import page_style
from peargarden.app.library import card_rows
from peargarden.app.settings import SetupJob, SetupSteps, real_steps
from peargarden.errors import NotFound, PearError

from . import api_status, safety
from .chat_hub import ChatHub
from .guards import RequireToken, SameOriginOnly, is_loopback
from .static_files import ImmutableStatic, static_version

HERE = Path(__file__).parent


@dataclass
class WebConfig:
    home: Home
    host: str = "127.0.0.1"
    token: str | None = None
    # What installing the embedded model does (app/settings/embedded_setup.py); tests give stand-ins.
    setup_steps: Callable[[Home], SetupSteps] = real_steps


def error_body(error: PearError) -> dict[str, str]:
    """An error as the API answers it: its line without the shell's hint (a page user has no shell),
    and ``fix``, the setting that fixes it, when it names one."""
    body = {"error": error.without_hint()}
    if error.fix:
        body["fix"] = error.fix
    return body


def new_token() -> str:
    return secrets.token_urlsafe(24)


def templates() -> Jinja2Templates:
    found = Jinja2Templates(directory=str(HERE / "templates"))
    # ``tojson`` (answers a page carries, web/first_answers.py) keeps the keys in their order, as the
    # API sends them, and CJK as itself; it still escapes < > & ' so nothing inside closes the element.
    found.env.policies["json.dumps_kwargs"] = {"sort_keys": False, "ensure_ascii": False}
    return found


def _warm_card_list(home: Home) -> None:
    """Read the card list once in the background as the server starts: the first home page then finds
    the cards in memory (500 card files take a second to read; a listing after that, a few stats)."""

    def warm() -> None:
        with contextlib.suppress(Exception):  # a card list that cannot be read says so when it is asked for
            card_rows(home)

    threading.Thread(target=warm, name="pear-card-list", daemon=True).start()


def create_app(config: WebConfig) -> FastAPI:
    if not is_loopback(config.host) and not config.token:
        raise ValueError("a token is required when serving on a non-loopback host")
    app = FastAPI(title="梨园 Pear Garden", version=__version__, docs_url=None, redoc_url=None)
    app.state.config = config
    app.state.templates = templates()

    app.state.hub = ChatHub(config.home)
    app.state.setup_job = SetupJob(lambda: config.setup_steps(config.home))
    _warm_card_list(config.home)
    safety.install(app)

    # Added last, run first: the token, then the same-origin check, then safety's headers and body cap.
    app.add_middleware(SameOriginOnly, served_host=config.host)
    app.add_middleware(RequireToken, token=config.token)

    @app.exception_handler(PearError)
    async def pear_error(request: Request, error: PearError) -> Response:
        if isinstance(error, NotFound):  # a card renamed since the link was made: its new page
            moved = renamed_page(request)
            if moved is not None:
                return moved
        return JSONResponse(error_body(error), status_code=error.http_status)

    @app.get("/api/health")
    def health() -> dict[str, str]:
        return {"status": "ok", "version": __version__}

    # The pages name their files under /static/<version>/, kept by the browser (web/static_files.py).
    version = static_version(HERE / "static")
    app.state.templates.env.globals["static"] = f"/static/{version}"
    # Every page carries the look in force (a theme, dark or light, user CSS made harmless).
    app.state.templates.env.globals["theme_style"] = lambda: page_style(config.home)
    app.mount(f"/static/{version}", ImmutableStatic(directory=str(HERE / "static")), name="static-versioned")
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    from . import (
        api_card_files,
        api_cards,
        api_chat,
        api_chat_files,
        api_embedded,
        api_entries,
        api_expressions,
        api_extras,
        api_first_reply,
        api_group_scripts,
        api_groups,
        api_inspect,
        api_lore,
        api_personas,
        api_pictures,
        api_preset_edit,
        api_presets,
        api_regex,
        api_regex_allow,
        api_remote_modules,
        api_scripts,
        api_settings,
        api_slash,
        api_studio,
        api_system_file,
        api_tavern,
        api_themes,
        api_translate,
        api_tts,
        api_vault,
        pages,
    )
    from .pages import renamed_page

    # The features beside the chat come before the groups' router: its POST …/chats/{chat}/{action}
    # would take their routes on a group's chat.
    routers = (api_card_files, api_cards, api_chat, api_chat_files, api_entries, api_inspect, api_vault, api_studio,
               api_presets, api_preset_edit, api_personas, api_tavern, api_settings, api_lore, api_regex,
               api_regex_allow, api_remote_modules, api_extras, api_translate, api_expressions, api_tts, api_pictures,
               api_themes, api_group_scripts, api_groups, api_status, api_scripts, api_slash, api_first_reply,
               api_system_file, api_embedded, pages)  # fmt: skip
    for module in routers:
        app.include_router(module.router)
    return app
