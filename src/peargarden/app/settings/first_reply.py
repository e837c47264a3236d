"""A new user's first reply, for the home page: can the main model answer now, and a connection made
in one step — address, key (an environment variable's name, or the key itself stored as the settings
page stores it), model, tried — then put in force as the main model.

The connection is written the way the settings page writes one (``[providers.NAME]`` edited in place
in ``config.toml``, the key in ``keys/NAME.key``); nothing is written until the whole step is valid.
"""

from __future__ import annotations

import os
import re
import threading
import time
from typing import Any
from urllib.parse import urlsplit

import msgspec

from peargarden.errors import BadInput, PearError
from peargarden.providers.base import ChatRequest, Done, TextDelta
from peargarden.providers.llama_session import runtime_version
from peargarden.workspace.config import LOCAL_PROVIDER, load_settings
from peargarden.workspace.home import Home

from .config_edit import Value, set_values
from .stored_keys import forget_key, store_key

# The test's question and the most it may cost (a reply of a few words proves address, key and model).
TEST_PROMPT = "你好"
TEST_MAX_TOKENS = 16
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def embedded_state(local_path: str = "") -> dict[str, Any]:
    """The embedded model on this machine: its runtime (version, "" when missing), the model file it
    would run (``None`` when missing), and whether both are there."""
    from peargarden.providers.embedded import find_model_file, resolve_local_model  # the embedded room

    runtime = runtime_version()
    try:
        path = resolve_local_model(local_path) if local_path else find_model_file()
        model = path.name if path.is_file() else None
    except PearError:
        model = None
    return {"runtime": runtime, "model": model, "ready": bool(runtime) and model is not None}


def readiness(home: Home) -> dict[str, Any]:
    """Whether the main model can answer (as far as can be known without asking it): the embedded
    model with its runtime and file, or a connection with an address."""
    settings = load_settings(home.config_file)
    main = settings.main()
    embedded = embedded_state(main.local_path if main.provider == LOCAL_PROVIDER else "")
    if main.provider == LOCAL_PROVIDER:
        return {"ready": embedded["ready"], "provider": LOCAL_PROVIDER, "model": embedded["model"] or "",
                "embedded": embedded}  # fmt: skip
    conn = settings.providers.get(main.provider)
    return {
        "ready": conn is not None and bool(conn.base_url),
        "provider": main.provider,
        "model": main.model,
        "base_url": conn.base_url if conn is not None else "",
        "embedded": embedded,
    }


class Endpoint(msgspec.Struct, frozen=True):
    """An address and its key as the form gives them: *key* typed in, or *key_env* naming a variable."""

    base_url: str
    key: str = ""
    key_env: str = ""


def endpoint(base_url: str, key: str = "", key_env: str = "") -> Endpoint:
    """The form's address and key, checked (one line naming what is wrong)."""
    base_url = base_url.strip().rstrip("/")
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise BadInput(f"地址要以 http:// 或 https:// 开头，如 https://api.deepseek.com/v1（bad URL {base_url!r}）")
    key, key_env = key.strip(), key_env.strip()
    if key and key_env:
        raise BadInput("密钥和环境变量只能填一个（a key or a variable）")
    if key_env and not _ENV_NAME.match(key_env):
        raise BadInput(f"环境变量名不对：{key_env!r}（如 DEEPSEEK_API_KEY）")
    if any(ch.isspace() for ch in key):
        raise BadInput("密钥不能含空白（bad key）")
    return Endpoint(base_url, key, key_env)


def _provider(endpoint: Endpoint, model: str = "") -> Any:
    # Only this step needs the HTTP client.
    from peargarden.providers.openai_compat import OpenAICompatProvider, RetryPolicy

    key = endpoint.key or (os.environ.get(endpoint.key_env, "") if endpoint.key_env else "")
    if endpoint.key_env and not key:
        raise BadInput(f"环境变量 {endpoint.key_env} 没有设置：在启动梨园的环境里设置它，或直接粘贴密钥")
    # Interactive: one quick retry, not the chat's patient backoff.
    return OpenAICompatProvider(endpoint.base_url, model, key or None, api_key_env=endpoint.key_env or None,
                                timeout=30.0, retry=RetryPolicy(attempts=2, base_delay=1.0))  # fmt: skip


def endpoint_models(endpoint: Endpoint) -> list[str]:
    """The endpoint's model list (``/models``)."""
    provider = _provider(endpoint)
    try:
        return list(provider.list_models())
    finally:
        provider.close()


def try_endpoint(endpoint: Endpoint, model: str) -> dict[str, Any]:
    """One short request to *model*: what it said and how long it took (a failure is its one line)."""
    if not model.strip():
        raise BadInput("先选一个模型（no model）", fix="model")
    provider = _provider(endpoint, model.strip())
    request = ChatRequest([{"role": "user", "content": TEST_PROMPT}], model=model.strip(),
                          sampler={"max_tokens": TEST_MAX_TOKENS})  # fmt: skip
    started = time.monotonic()
    said: list[str] = []
    try:
        for event in provider.stream(request, threading.Event()):
            if isinstance(event, TextDelta):
                said.append(event.text)
            elif isinstance(event, Done):
                break
    finally:
        provider.close()
    return {"reply": "".join(said).strip(), "seconds": round(time.monotonic() - started, 2)}


def connection_name(base_url: str, taken: dict[str, str]) -> str:
    """A name for the connection to *base_url*: the site's own (``api.deepseek.com`` → ``deepseek``,
    ``127.0.0.1:11434`` → ``127-0-0-1-11434``), kept when a connection of that name already points
    there, numbered when it points elsewhere.  *taken*: name → base URL of the connections there."""
    host = urlsplit(base_url).netloc.lower().rsplit("@", 1)[-1]
    labels = [label for label in host.split(".") if label not in ("api", "www", "com", "cn", "net", "org", "ai", "io")]
    stem = labels[-1] if labels and not host.replace(".", "").replace(":", "").isdigit() else host
    stem = re.sub(r"[^a-z0-9_-]+", "-", stem).strip("-") or "endpoint"
    if stem == LOCAL_PROVIDER:
        stem = "local-server"
    name, number = stem, 1
    while name in taken and taken[name].rstrip("/") != base_url.rstrip("/"):
        number += 1
        name = f"{stem}-{number}"
    return name


def connect(home: Home, endpoint: Endpoint, model: str) -> str:
    """Write the connection (and its key) and make it the main model; the connection's name."""
    if not model.strip():
        raise BadInput("先选一个模型（no model）", fix="model")
    settings = load_settings(home.config_file)
    name = connection_name(endpoint.base_url, {n: c.base_url for n, c in settings.providers.items()})
    changes: dict[tuple[str, str], Value] = {
        (f"providers.{name}", "base_url"): endpoint.base_url,
        (f"providers.{name}", "api_key_env"): endpoint.key_env,
        ("model", "provider"): name,
        ("model", "model"): model.strip(),
    }
    if endpoint.key:
        store_key(home, name, endpoint.key)  # the key first: a connection in force never lacks it
    elif endpoint.key_env:
        forget_key(home, name)  # the variable's key from now on, not one stored before
    set_values(home.config_file, changes)
    return name


def use_embedded(home: Home) -> None:
    """The embedded model as the main model."""
    set_values(home.config_file, {("model", "provider"): LOCAL_PROVIDER})
