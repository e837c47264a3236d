"""Translation servers: LibreTranslate, DeepL and DeepLX, as SillyTavern's translate extension calls
them (the bodies are :mod:`peargarden.extras.translation`'s)."""

from __future__ import annotations

from peargarden.errors import ProviderError
from peargarden.extras import translation as tr

from .media_http import MediaClient

_NAMES = {"libre": "翻译（LibreTranslate）", "deepl": "翻译（DeepL）", "deeplx": "翻译（DeepLX）"}


def translate(backend: str, base_url: str, api_key: str, text: str, target: str) -> tr.Translation:
    """*text* into *target* through the server *backend* (``libre``, ``deepl``, ``deeplx``) at *base_url*."""
    what = _NAMES[backend]
    client = MediaClient(what, timeout=120)
    try:
        if backend == "libre":
            url = tr.endpoint_url(base_url, "/translate")
            return tr.libre_answer(client.post_json(url, tr.libre_body(text, target, api_key)).json(what, url))
        if backend == "deepl":
            url = tr.endpoint_url(base_url, "/v2/translate")
            headers = {"Accept": "application/json", "Authorization": f"DeepL-Auth-Key {api_key}"}
            return tr.deepl_answer(client.post_form(url, tr.deepl_form(text, target), headers).json(what, url))
        url = base_url.strip()
        headers = {"Accept": "application/json", **({"Authorization": f"Bearer {api_key}"} if api_key else {})}
        return tr.deeplx_answer(client.post_json(url, tr.deeplx_body(text, target), headers).json(what, url))
    except tr.BadAnswer as bad:
        raise ProviderError(f"{what}：{bad}") from None
