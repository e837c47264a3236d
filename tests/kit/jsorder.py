"""JSON in JavaScript's key order: a variables record compared with its key order (integer-like
keys first, as JavaScript enumerates them)."""

from __future__ import annotations

import json
from typing import Any

from peargarden.variables.jsvalues import js_keys


def exact(value: Any) -> str:
    def ordered(item: Any) -> Any:
        if isinstance(item, dict):
            return {key: ordered(item[key]) for key in js_keys(item)}
        if isinstance(item, list):
            return [ordered(element) for element in item]
        return item

    return json.dumps(ordered(value), ensure_ascii=False)
