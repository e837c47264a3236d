"""The libraries a status-bar frame gets without the network: jQuery 3.7.1 and lodash 4.16.4 as the
XStatic packages ship them (MIT; installed with the app, never copied into this repository).

TavernHelper puts ``$`` and ``_`` into every frame it draws, and status bars load them (and more) from
CDNs.  The page asks ``GET /api/frame-libs/{name}`` once and puts the text into each frame that uses
the library (``status_frame.py`` says which); no frame fetches anything itself.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from peargarden.errors import NotFound

# name → (package, file): the minified builds.
FRAME_LIBRARIES = {
    "jquery": ("xstatic.pkg.jquery", "jquery.min.js"),
    "lodash": ("xstatic.pkg.lodash", "lodash.min.js"),
}


@cache
def library_text(name: str) -> str:
    """The library's JavaScript; ``NotFound`` for a name no frame gets."""
    if name not in FRAME_LIBRARIES:
        raise NotFound(f"状态栏没有这个库：{name}（有：{'、'.join(FRAME_LIBRARIES)}）")
    package, file = FRAME_LIBRARIES[name]
    text = (resources.files(package) / "data" / file).read_text(encoding="utf-8")
    # Put inside a <script> of the frame's document: a "</script" would end it early.
    return text.replace("</script", "<\\/script")
