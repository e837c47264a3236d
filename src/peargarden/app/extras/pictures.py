"""A picture of the chat (SillyTavern's image generation extension): ``pear imagine`` and the page.

The prompt: a free one as it is, else the side model's from the chat (the last reply, the character,
the scene), following ``[pictures.instructions]`` or ours.  The picture: from the configured server
(``openai``, ``sdwebui``, ``comfyui``), saved in the chat's ``images/`` folder (with the chat, in the
vault's snapshots) and written into the chat as SillyTavern's picture message: a hidden character
message (``is_system``: the model never reads it) whose ``extra`` holds ``image``, ``title``,
``generationType``, ``negative``, ``inline_image`` and ``image_swipes`` as SillyTavern writes them.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from peargarden.errors import BadInput, NotFound, ProviderError
from peargarden.extras import pictures as pic
from peargarden.extras.media_types import IMAGE_TYPES, image_kind
from peargarden.workspace import atomic
from peargarden.workspace.home import Home, sanitize_name
from peargarden.workspace.text_files import read_user_text

from . import chat_files
from .settings import PictureSettings, endpoint, off, picture_settings, save_settings

if TYPE_CHECKING:
    from ..play.chat_core import ChatCore


class Picture(msgspec.Struct, frozen=True):
    file: Path  # in the chat's images/ folder
    data: bytes
    prompt: str
    kind: str
    index: int  # the picture message's number on the branch


class Overrides(msgspec.Struct, frozen=True):
    """What ``pear imagine`` flags say instead of ``[pictures]``: an address and a model."""

    base_url: str = ""
    model: str = ""


def _history(session: ChatCore) -> list[tuple[str, str]]:
    """The branch's last words as (speaker, text), pictures and hidden messages left out."""
    found: list[tuple[str, str]] = []
    for entry in session.chat.tree.messages()[-12:]:
        if entry.role in ("user", "assistant") and not entry.hidden and chat_files.content_of(entry):
            speaker = "user" if entry.role == "user" else str(entry.message.get("name") or session.env.char_name)
            found.append((speaker, chat_files.content_of(entry)))
    return found


def picture_prompt(home: Home, session: ChatCore, kind: str, cfg: PictureSettings | None = None) -> str:
    """The side model's prompt for a picture of *kind* (``last``, ``character``, ``scene``)."""
    cfg = cfg or picture_settings(home)
    if kind not in pic.DEFAULT_INSTRUCTIONS:
        raise BadInput(f"图片种类只能是 {' | '.join(pic.KINDS)}，实际是 {kind!r}（free：自己写提示词）")
    fields = session.env.card.data
    card = {key: str(fields.get(key) or "") for key in ("name", "description", "personality", "scenario")}
    context = pic.context_text(kind, card, _history(session))
    if not context.strip():
        raise BadInput("对话里还没有可以画的内容")
    system = pic.instruction(kind, cfg.instructions, session.env.char_name, session.env.user_name)
    answer = session.side_call()(system, context, 600, purpose="picture-prompt")
    prompt = pic.clean_prompt(answer)
    if not prompt:
        raise ProviderError("生图：副模型没有写出提示词")
    return prompt


def _request(home: Home, cfg: PictureSettings, backend: str, prompt: str, model: str) -> dict[str, Any]:
    if backend == "openai":
        return pic.openai_body(prompt, model, cfg.width, cfg.height)
    if backend == "sdwebui":
        return pic.sd_body(prompt, cfg.negative, sampler=cfg.sampler, steps=cfg.steps, scale=cfg.cfg_scale,
                           width=cfg.width, height=cfg.height, seed=cfg.seed)  # fmt: skip
    if not cfg.workflow:
        raise BadInput("[pictures] backend = \"comfyui\" 需要 workflow（ComfyUI 以 API 格式保存的工作流文件）")
    path = Path(cfg.workflow).expanduser()
    path = path if path.is_absolute() else home.root / path
    try:
        template = read_user_text(path)
    except OSError as error:
        raise BadInput(f"读不了 ComfyUI 工作流：{error.strerror or error}", path=path) from None
    seed = cfg.seed if cfg.seed >= 0 else secrets.randbelow(2**48)  # SillyTavern's random seed
    values = {"prompt": prompt, "negative_prompt": cfg.negative, "seed": seed, "width": cfg.width,
              "height": cfg.height, "steps": cfg.steps, "scale": cfg.cfg_scale, "sampler": cfg.sampler,
              "model": model}  # fmt: skip
    return pic.comfy_workflow(template, values, str(path))


def imagine(
    home: Home, session: ChatCore, kind: str = "last", prompt: str | None = None, overrides: Overrides | None = None
) -> Picture:
    """A picture of *kind* (or of *prompt*, a free one), kept with the chat and shown as a message."""
    given = overrides or Overrides()
    cfg = picture_settings(home)
    backend = cfg.backend or ("openai" if given.base_url else "")
    if not backend:
        raise off("pictures")
    if prompt is not None and not prompt.strip():
        raise BadInput("提示词是空的")
    kind = "free" if prompt is not None else kind
    written = prompt.strip() if prompt is not None else picture_prompt(home, session, kind, cfg)
    full = pic.full_prompt(cfg.prefix, written)
    connection = "" if given.base_url else cfg.connection
    found = endpoint(home, "pictures", given.base_url or cfg.base_url, cfg.api_key_env, connection)
    if not found.base_url:
        raise BadInput(f"[pictures] backend = {backend!r} 需要 base_url（服务器地址）")
    from peargarden.providers.pictures import generate

    body = _request(home, cfg, backend, full, given.model or cfg.model)
    data = generate(backend, found.base_url, found.api_key, body)
    kind_of = image_kind(data) or "png"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    name = f"{stamp}-{hashlib.sha256(data).hexdigest()[:8]}.{'jpg' if kind_of == 'jpeg' else kind_of}"
    file = chat_files.chat_dir(session) / chat_files.IMAGES_DIR / name
    atomic.write_bytes(file, data)
    image = f"{chat_files.IMAGES_DIR}/{name}"
    char = session.env.char_name
    session.insert_message({
        "role": "assistant",
        "name": char,
        "content": f"[{char}发来一张图：{written}]",
        "tags": ["hidden"],
        "extra": {"image": image, "title": full, "generationType": pic.GENERATION_TYPE[kind], "negative": cfg.negative,
                  "inline_image": False, "image_swipes": [image]},
    })  # fmt: skip
    return Picture(file, data, full, kind, len(session.chat.tree.messages()) - 1)


def picture_file(session: ChatCore, name: str) -> tuple[bytes, str]:
    """One of the chat's pictures and its content type."""
    path = chat_files.chat_dir(session) / chat_files.IMAGES_DIR / name
    if "/" in name or "\\" in name or name.startswith(".") or not path.is_file():
        raise NotFound(f"这段对话没有图片 {name}")
    data = path.read_bytes()
    return data, IMAGE_TYPES[image_kind(data) or "png"]


WORKFLOWS_DIR = "library/comfyui"


def save_workflow(home: Home, name: str, text: str) -> str:
    """A ComfyUI workflow (API format) kept in ``library/comfyui/`` and named in ``[pictures] workflow``;
    checked first (JSON, API format, ``"%prompt%"`` in it).  Returns its path in the data folder."""
    stem = sanitize_name(Path(name).stem)
    if not stem:
        raise BadInput(f"工作流的文件名不能用：{name!r}")
    pic.comfy_workflow(text, {"prompt": "", "negative_prompt": "", "seed": 0, "width": 1, "height": 1, "steps": 1,
                              "scale": 1, "sampler": "", "model": ""}, name)  # fmt: skip
    relative = f"{WORKFLOWS_DIR}/{stem}.json"
    atomic.write_text(home.root / relative, text)
    save_settings(home, "pictures", {"workflow": relative})
    return relative
