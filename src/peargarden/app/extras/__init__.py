"""What SillyTavern users switch on beside the chat, as a service: each usable from the page and the
CLI, each off until configured (a page or command then says so; nothing fails).

- :mod:`.settings` — the ``[translate]``, ``[tts]``, ``[pictures]``, ``[expressions]`` and ``[theme]``
  tables of ``config.toml`` read and edited, and the back ends' keys (by environment variable, a
  connection's, or stored from the page under ``keys/``, never in config.toml by us).
- :mod:`.chat_files` — a chat's own files beside its session: what the features keep per message.
- :mod:`.translation` — a message translated and kept beside the original (``pear translate``).
- :mod:`.expressions` — the expression label of a reply (side model, cached per message, or the
  keyword fallback) and the card's sprite for it (``pear expression``); :mod:`.sprites` — a card's
  sprite set: imported from SillyTavern's folder layout, a zip, or a CHARX card's emotion assets.
- :mod:`.speech` — a message spoken by the configured voice (``pear tts``), kept per message.
- :mod:`.pictures` — a picture of the chat (``pear imagine``): its prompt from the side model, the
  picture from the image server, kept with the chat and shown as a SillyTavern image message.
- :mod:`.themes` — SillyTavern themes in and out, light or dark, user CSS; the CSS every page carries.

The fronts import these names, by job (each loaded from its module on first use); every other name and module
here is private to ``app``:

- A stored chat opened for a feature (:mod:`.chat_files`): ``open_stored_chat``.
- Expressions and sprites (:mod:`.expressions`, :mod:`.sprites`): ``expression_of``, ``speaker_card``,
  ``sprite_location``, ``MAX_SPRITE_BYTES``, ``card_sprites``, ``import_sprites``, ``sprite_file``, ``sprite_path``.
- Pictures (:mod:`.pictures`): ``PictureOverrides``, ``imagine``, ``picture_file``, ``save_workflow``.
- The features' settings and keys (:mod:`.settings`): ``all_settings``, ``save_settings``, ``save_key``,
  ``theme_settings``.
- Speech (:mod:`.speech`): ``SpeechOverrides``, ``line_of``, ``speak``.
- Themes and the CSS every page carries (:mod:`.themes`): ``list_themes``, ``load_theme``, ``use_theme``,
  ``import_theme``, ``import_theme_file``, ``export_theme``, ``delete_theme``, ``set_theme_mode``, ``save_css``,
  ``save_css_file``, ``page_css_removed``, ``page_style``.
- Translation (:mod:`.translation`): ``translate_message``, ``translate_text``, ``translations``,
  ``keep_input``, ``model_language``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from peargarden.app._lazy import lazy_names

if TYPE_CHECKING:
    from .chat_files import open_stored_chat
    from .expressions import expression_of, speaker_card, sprite_location
    from .pictures import Overrides as PictureOverrides
    from .pictures import imagine, picture_file, save_workflow
    from .settings import all_settings, save_key, save_settings, theme_settings
    from .speech import Overrides as SpeechOverrides
    from .speech import line_of, speak
    from .sprites import MAX_SPRITE_BYTES, card_sprites, import_sprites, sprite_file, sprite_path
    from .themes import (
        delete_theme,
        export_theme,
        import_theme,
        import_theme_file,
        list_themes,
        load_theme,
        page_css_removed,
        page_style,
        save_css,
        save_css_file,
        use_theme,
    )
    from .themes import set_mode as set_theme_mode
    from .translation import keep_input, model_language, translate_message, translate_text, translations

__all__ = [
    "MAX_SPRITE_BYTES",
    "PictureOverrides",
    "SpeechOverrides",
    "all_settings",
    "card_sprites",
    "delete_theme",
    "export_theme",
    "expression_of",
    "imagine",
    "import_sprites",
    "import_theme",
    "import_theme_file",
    "keep_input",
    "line_of",
    "list_themes",
    "load_theme",
    "model_language",
    "open_stored_chat",
    "page_css_removed",
    "page_style",
    "picture_file",
    "save_css",
    "save_css_file",
    "save_key",
    "save_settings",
    "save_workflow",
    "set_theme_mode",
    "speak",
    "speaker_card",
    "sprite_file",
    "sprite_location",
    "sprite_path",
    "theme_settings",
    "translate_message",
    "translate_text",
    "translations",
    "use_theme",
]

_LAZY = {
    "MAX_SPRITE_BYTES": ".sprites",
    "PictureOverrides": ".pictures:Overrides",
    "SpeechOverrides": ".speech:Overrides",
    "all_settings": ".settings",
    "card_sprites": ".sprites",
    "delete_theme": ".themes",
    "export_theme": ".themes",
    "expression_of": ".expressions",
    "imagine": ".pictures",
    "import_sprites": ".sprites",
    "import_theme": ".themes",
    "import_theme_file": ".themes",
    "keep_input": ".translation",
    "line_of": ".speech",
    "list_themes": ".themes",
    "load_theme": ".themes",
    "model_language": ".translation",
    "open_stored_chat": ".chat_files",
    "page_css_removed": ".themes",
    "page_style": ".themes",
    "picture_file": ".pictures",
    "save_css": ".themes",
    "save_css_file": ".themes",
    "save_key": ".settings",
    "save_settings": ".settings",
    "save_workflow": ".pictures",
    "set_theme_mode": ".themes:set_mode",
    "speak": ".speech",
    "speaker_card": ".expressions",
    "sprite_file": ".sprites",
    "sprite_location": ".expressions",
    "sprite_path": ".sprites",
    "theme_settings": ".settings",
    "translate_message": ".translation",
    "translate_text": ".translation",
    "translations": ".translation",
    "use_theme": ".themes",
}

__getattr__ = lazy_names(__name__, _LAZY)
