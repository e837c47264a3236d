"""Request-scoped access for routers: the data folder, the templates, the chat hub."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import Request
from fastapi.templating import Jinja2Templates

from peargarden.app import Home

if TYPE_CHECKING:  # the hub imports the routers' helpers; deps stays below them
    from .chat_hub import ChatHub


def home_of(request: Request) -> Home:
    home: Home = request.app.state.config.home
    return home


def templates_of(request: Request) -> Jinja2Templates:
    tpl: Jinja2Templates = request.app.state.templates
    return tpl


def hub_of(request: Request) -> ChatHub:
    """The open chats and running beats of this server."""
    hub: ChatHub = request.app.state.hub
    return hub
