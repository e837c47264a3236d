"""Server-rendered pages (one module per page grows here as pages are added)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from .api_cards import cards
from .deps import templates_of

router = APIRouter()


@router.get("/", response_class=HTMLResponse)
def home_page(request: Request) -> HTMLResponse:
    return templates_of(request).TemplateResponse(request, "home.html", {"cards": cards(request)})
