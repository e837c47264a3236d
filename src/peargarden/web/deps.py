"""Request-scoped access to the configuration (the data folder) for routers."""

from __future__ import annotations

from fastapi import Request
from fastapi.templating import Jinja2Templates

from peargarden.workspace.home import Home


def home_of(request: Request) -> Home:
    home: Home = request.app.state.config.home
    return home


def templates_of(request: Request) -> Jinja2Templates:
    tpl: Jinja2Templates = request.app.state.templates
    return tpl
