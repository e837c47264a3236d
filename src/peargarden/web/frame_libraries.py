"""The libraries a card's frame gets without the network: jQuery 3.7.1, lodash 4.16.4 and js-yaml
3.13.1 as the XStatic packages ship them (MIT; installed with the app, never copied into this
repository), Vue 3's classic build from its npm package (MIT; ``npm ci`` at set-up,
``app/play/packaged_modules.py``), and ``z``, our own zod (``app/play/card_frames.py``).

TavernHelper puts ``$``, ``_``, ``z`` and ``YAML`` into every frame it draws, and status bars load
them (and more) from CDNs.  The page asks ``GET /api/frame-libs/{name}`` once and puts the text into
each frame that uses the library (``status_frame.py`` says which); no frame fetches anything itself.
``YAML`` is TavernHelper's name (the ``yaml`` package's ``parse``/``stringify``), given over js-yaml.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from peargarden.app.play import own_libraries, own_library, vue_global
from peargarden.errors import NotFound

# name → (package, file): the minified builds.
FRAME_LIBRARIES = {
    "jquery": ("xstatic.pkg.jquery", "jquery.min.js"),
    "lodash": ("xstatic.pkg.lodash", "lodash.min.js"),
    "yaml": ("xstatic.pkg.js_yaml", "js-yaml.js"),
}
# What a library's text gets after it: TavernHelper's names for it.
_AFTER = {
    # zod's namespace holds ``z`` too (``import {z} from 'zod'``, a bundle's external ``z``: ``B.z.object``).
    "zod": "\n;if (typeof z === 'object' && !('z' in z)) z.z = z;",
    "yaml": "\n;var YAML = {parse: (text) => jsyaml.load(String(text)), stringify: (value) => jsyaml.safeDump(value)};"
}


@cache
def library_text(name: str) -> str:
    """The library's JavaScript; ``NotFound`` for a name no frame gets."""
    if name in own_libraries():
        text = own_library(name) + _AFTER.get(name, "")
    elif name == "vue":  # the global ``Vue`` TavernHelper's frame template loads
        text = vue_global()
    elif name in FRAME_LIBRARIES:
        package, file = FRAME_LIBRARIES[name]
        text = (resources.files(package) / "data" / file).read_text(encoding="utf-8") + _AFTER.get(name, "")
    else:
        known = "、".join([*FRAME_LIBRARIES, "vue", *own_libraries()])
        raise NotFound(f"状态栏没有这个库：{name}（有：{known}）")
    # Put inside a <script> of the frame's document: a "</script" would end it early.
    return text.replace("</script", "<\\/script")
