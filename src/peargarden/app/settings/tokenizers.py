"""Token counts' rank tables read from the data folder's cache (:mod:`peargarden.workspace.tokenizer_cache`):
a front calls :func:`cache_tokenizers_in` once it knows the data folder."""

from __future__ import annotations

from peargarden.workspace.tokenizer_cache import cache_tokenizers_in

__all__ = ["cache_tokenizers_in"]
