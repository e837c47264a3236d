"""Server-rendered pages: each page is a template plus its own JavaScript module (``static/<page>.js``)
that talks to the JSON API.  The routes here only pick the template and pass the names it needs."""

from __future__ import annotations

from collections import Counter
from urllib.parse import quote, unquote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from peargarden.app.cards import renamed_card
from peargarden.app.library import open_card
from peargarden.app.play import MODE_NAMES

from .api_cards import cards
from .deps import home_of, hub_of, templates_of
from .first_answers import chat_page_answers

router = APIRouter()


def _page(request: Request, template: str, **context: object) -> HTMLResponse:
    return templates_of(request).TemplateResponse(request, template, context)


@router.get("/", response_class=HTMLResponse)
def home_page(request: Request) -> HTMLResponse:
    listed = cards(request)
    counts = Counter(tag for card in listed for tag in card["tags"])
    tags = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return _page(request, "home.html", cards=listed, tags=tags)


@router.get("/chat/{card}", response_class=HTMLResponse)
def chat_latest(request: Request, card: str) -> Response:
    """The card's newest chat; without one, a page whose button starts one (a GET changes nothing:
    an ``<img src>`` on another site must not create chats)."""
    chats = hub_of(request).app.list_chats(card)
    if not chats:
        return _page(request, "chat_start.html", card=open_card(home_of(request), card).folder)
    return RedirectResponse(f"/chat/{quote(card, safe='')}/{quote(chats[-1].chat_id, safe='')}", status_code=303)


@router.get("/chat/{card}/{chat_id}", response_class=HTMLResponse)
def chat_page(request: Request, card: str, chat_id: str) -> HTMLResponse:
    hub_of(request).chat(card, chat_id)  # an unknown chat is a 404 before the page is drawn
    return _page(request, "chat.html", card=card, chat_id=chat_id, first=chat_page_answers(request, card, chat_id))


@router.get("/inspect/{card}/{chat_id}", response_class=HTMLResponse)
def inspect_page(request: Request, card: str, chat_id: str) -> HTMLResponse:
    hub_of(request).chat(card, chat_id)  # an unknown chat is a 404, as on the chat page
    return _page(request, "inspect.html", card=card, chat_id=chat_id)


@router.get("/entries/{card}", response_class=HTMLResponse)
def entries_page(request: Request, card: str) -> HTMLResponse:
    open_card(home_of(request), card)
    return _page(request, "entries.html", card=card)


@router.get("/studio/{card}", response_class=HTMLResponse)
def studio_page(request: Request, card: str) -> HTMLResponse:
    open_card(home_of(request), card)
    return _page(request, "studio.html", card=card)


@router.get("/vault", response_class=HTMLResponse)
def vault_page(request: Request) -> HTMLResponse:
    return _page(request, "vault.html")


@router.get("/settings", response_class=HTMLResponse)
def settings_page(request: Request) -> HTMLResponse:
    return _page(request, "settings.html", modes=MODE_NAMES)


@router.get("/presets/{card}", response_class=HTMLResponse)
def presets_page(request: Request, card: str) -> HTMLResponse:
    open_card(home_of(request), card)
    return _page(request, "presets.html", card=card)


@router.get("/tavern/{card}/{chat_id}", response_class=HTMLResponse)
def tavern_page(request: Request, card: str, chat_id: str) -> HTMLResponse:
    hub_of(request).chat(card, chat_id)
    return _page(request, "tavern.html", card=card, chat_id=chat_id)


@router.get("/lore", response_class=HTMLResponse)
def lore_page(request: Request) -> HTMLResponse:
    """The lorebook editor (``?book=<name>`` or ``?supplement=<card>`` opens one book)."""
    return _page(request, "lore.html")


_CARD_PAGES = ("chat", "studio", "entries", "presets", "tavern", "inspect")


def renamed_page(request: Request) -> Response | None:
    """A page of a card that was renamed since the link was made: the same page under the new name."""
    parts = request.url.path.split("/")
    if request.method not in ("GET", "HEAD") or len(parts) < 3 or parts[1] not in _CARD_PAGES:
        return None
    moved = renamed_card(home_of(request), unquote(parts[2]))
    if moved is None:
        return None
    parts[2] = quote(moved.folder, safe="")
    query = f"?{request.url.query}" if request.url.query else ""
    return RedirectResponse("/".join(parts) + query, status_code=301)
