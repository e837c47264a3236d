"""A picture of the chat, the pure parts (SillyTavern's image generation extension).

Kinds, as SillyTavern's: the last reply (its "last message" mode), the character (its portrait), the
scene (recent events, the character and the surroundings), or a free prompt sent as it is.  For the
first three the side model writes the prompt from the chat, following an instruction the user can
edit (ours by default); its answer is cleaned into one line of comma-separated tags.

Requests, as SillyTavern sends them:

- OpenAI-compatible ``POST …/v1/images/generations``: ``{"prompt", "model", "size", "n": 1,
  "response_format": "b64_json"}`` (DALL·E 3's sizes 1024×1024, 1792×1024 or 1024×1792 by the
  picture's shape, DALL·E 2's prompt cut at 1,000 characters and DALL·E 3's at 4,000);
- Stable Diffusion WebUI ``POST /sdapi/v1/txt2img``: ``{"prompt", "negative_prompt", "sampler_name",
  "steps", "cfg_scale", "width", "height", "restore_faces", "enable_hr", "seed"?, "save_images",
  "send_images"}``, the picture in ``images[0]`` (base64);
- ComfyUI: the user's workflow (API format) with ``"%prompt%"``, ``"%negative_prompt%"``, ``"%seed%"``,
  ``"%width%"``, ``"%height%"``, ``"%steps%"``, ``"%scale%"``, ``"%sampler%"`` and ``"%model%"`` (with
  their quotes) replaced by JSON values, ``POST /prompt`` ``{"prompt": workflow}``, then ``GET
  /history/{id}`` until it is done and ``GET /view?filename&subfolder&type`` of its first picture.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping
from typing import Any

from peargarden.errors import BadInput

from .media_types import image_kind

KINDS = ("last", "character", "scene", "free")
# SillyTavern's generationType numbers (extra.generationType of its picture message).
GENERATION_TYPE = {"character": 0, "scene": 2, "last": 4, "free": 6}

DEFAULT_INSTRUCTIONS: dict[str, str] = {
    "last": (
        "Describe the picture of what happens in {{char}}'s last message, for an image generator: one line of "
        "comma-separated English keywords — the place, who is there (by appearance, not by name), what they do, "
        "{{char}}'s looks and expression, the light. Only the keywords."
    ),
    "character": (
        "Describe {{char}}'s appearance for an image generator: one line of comma-separated English keywords, "
        "starting with 'full body portrait' — gender, age, face, hair, eyes, clothing, build, anything visible. "
        "Nothing that cannot be seen. Only the keywords."
    ),
    "scene": (
        "Describe the current scene of the story for an image generator: one line of comma-separated English "
        "keywords — the place, the time of day, the weather and light, who is there and what they do, the mood. "
        "Only the keywords."
    ),
}

_FENCE = re.compile(r"^```[\w-]*\n?(.*?)\n?```$", re.S)
_LABEL = re.compile(r"^(?:prompt|keywords|tags|提示词|关键词)\s*[:：]\s*", re.I)


class BadAnswer(ValueError):
    """An image server answered 200 with no picture in it."""


def instruction(kind: str, custom: Mapping[str, str], char: str, user: str) -> str:
    """The side model's instruction for *kind* (the user's, else ours) with the names put in."""
    text = custom.get(kind) or DEFAULT_INSTRUCTIONS[kind]
    return text.replace("{{char}}", char).replace("{{user}}", user)


def context_text(kind: str, card: Mapping[str, str], history: list[tuple[str, str]]) -> str:
    """What the side model reads: the card for a portrait, the last reply, or the recent story."""
    if kind == "character":
        parts = [f"{key}: {card[key]}" for key in ("name", "description", "personality") if card.get(key)]
        return "\n".join(parts)
    if kind == "last":
        replies = [text for speaker, text in history if speaker != "user"]
        return replies[-1] if replies else ""
    lines = [f"Scenario: {card['scenario']}"] if card.get("scenario") else []
    lines += [f"{speaker}: {text}" for speaker, text in history[-6:]]
    return "\n".join(lines)


def clean_prompt(answer: str) -> str:
    """The side model's answer as one line: a code fence, a ``Prompt:`` label and quotes taken off,
    lines joined with commas."""
    text = answer.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    text = _LABEL.sub("", text).strip().strip("\"'“”")
    parts = [line.strip().strip(",") for line in text.splitlines() if line.strip()]
    return ", ".join(parts)


def full_prompt(prefix: str, prompt: str) -> str:
    return ", ".join(part.strip() for part in (prefix, prompt) if part.strip())


def openai_body(prompt: str, model: str, width: int, height: int) -> dict[str, Any]:
    size = f"{width}x{height}"
    if model == "dall-e-3":
        prompt = prompt[:4000]
        size = "1024x1024" if width == height else ("1792x1024" if width > height else "1024x1792")
    elif model == "dall-e-2":
        prompt = prompt[:1000]
        size = "512x512" if width <= 512 and height <= 512 else "1024x1024"
    body: dict[str, Any] = {"prompt": prompt, "size": size, "n": 1, "response_format": "b64_json"}
    if model:
        body["model"] = model
    return body


def sd_body(prompt: str, negative: str, *, sampler: str, steps: int, scale: float, width: int, height: int,
            seed: int) -> dict[str, Any]:  # fmt: skip
    body: dict[str, Any] = {
        "prompt": prompt, "negative_prompt": negative, "sampler_name": sampler, "steps": steps, "cfg_scale": scale,
        "width": width, "height": height, "restore_faces": False, "enable_hr": False,
        "save_images": True, "send_images": True,
    }  # fmt: skip
    if seed >= 0:  # SillyTavern leaves a random seed out
        body["seed"] = seed
    return body


def comfy_workflow(template: str, values: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The workflow *template* (API format) with each ``"%name%"`` of *values* replaced by its JSON."""
    if '"%prompt%"' not in template:
        raise BadInput('ComfyUI 工作流里没有 "%prompt%"：在正向提示词的位置写 "%prompt%"', path=where)
    text = template
    for name, value in values.items():
        text = text.replace(f'"%{name}%"', json.dumps(value, ensure_ascii=False))
    try:
        workflow = json.loads(text)
    except ValueError as error:
        raise BadInput(f"ComfyUI 工作流不是 JSON：{error}", path=where) from None
    if not isinstance(workflow, dict) or isinstance(workflow.get("nodes"), list):
        raise BadInput("这是 ComfyUI 界面格式的工作流：请在 ComfyUI 里用 Save (API Format) 另存", path=where)
    return workflow


def comfy_output(history: Any, prompt_id: str) -> dict[str, str] | None:
    """The first picture of a finished ComfyUI prompt (``filename``, ``subfolder``, ``type``); ``None``
    while it is not in the history yet."""
    item = history.get(prompt_id) if isinstance(history, dict) else None
    if not isinstance(item, dict):
        return None
    status = item.get("status")
    if isinstance(status, dict) and status.get("status_str") == "error":
        raise BadAnswer("ComfyUI 运行这个工作流出错了（status: error）")
    outputs = item.get("outputs")
    for output in outputs.values() if isinstance(outputs, dict) else []:
        for image in output.get("images") or [] if isinstance(output, dict) else []:
            if isinstance(image, dict) and image.get("filename"):
                return {key: str(image.get(key) or "") for key in ("filename", "subfolder", "type")}
    raise BadAnswer("ComfyUI 的工作流跑完了，但没有输出图片（需要一个 SaveImage 或 PreviewImage 节点）")


def picture_of(b64: Any, what: str) -> bytes:
    """A base64 picture as bytes (a ``data:`` prefix allowed); ``BadAnswer`` when it is none."""
    if not isinstance(b64, str) or not b64:
        raise BadAnswer(f"{what} 的回答里没有图片")
    try:
        data = base64.b64decode(b64.split(",", 1)[1] if b64.startswith("data:") else b64, validate=False)
    except (binascii.Error, ValueError):
        raise BadAnswer(f"{what} 的图片不是 base64") from None
    if image_kind(data) is None:
        raise BadAnswer(f"{what} 给的不是图片")
    return data
