"""What a voice speaks of a message, and the requests of the speech servers (pure).

The text follows SillyTavern's TTS options, in its order: code blocks (fenced, and lines indented four
spaces) left out; ``*actions*`` left out with "ignore text inside asterisks", else only the asterisks
dropped; with "only the quotes", the quoted parts joined (curly quotes, « », and the Chinese 「」 『』
counted as quotes; a message with none is spoken whole, as SillyTavern does); HTML tags dropped; runs
of white space one space.

- OpenAI-compatible ``POST …/v1/audio/speech``: ``{"model", "input", "voice", "response_format",
  "speed"}`` (what SillyTavern's OpenAI-compatible provider sends);
- GPT-SoVITS ``POST /tts`` (api_v2): ``{"text", "text_lang", "ref_audio_path", "prompt_text",
  "prompt_lang", "text_split_method": "cut5", "batch_size": 1, "media_type": "wav", "streaming_mode":
  false, "speed_factor"}``.  A voice is its reference audio's path; its words are the file's name (the
  convention SillyTavern's GPT-SoVITS providers use, ``[tags]`` dropped), or given after ``|``.
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Any

# OpenAI's limit on ``input``; a longer message is cut at a sentence end before it.
MAX_INPUT = 4096

_FENCED = re.compile(r"```.*?```", re.S)
_INDENTED = re.compile(r"^\s{4}.*$", re.M)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_TAGS = re.compile(r"<[^>\n]*>")
_ACTIONS = re.compile(r"\*[^*]*?(\*|$)")
_QUOTE_MARKS = str.maketrans({"“": '"', "”": '"', "«": '"', "»": '"'})
_QUOTED = re.compile(r'"[^"]*?"|「[^」]*」|『[^』]*』')
_SENTENCE_END = re.compile(r"[。！？!?.…」』\"”]")


def spoken_text(text: str, *, quotes_only: bool = False, skip_asterisks: bool = False, skip_code: bool = True) -> str:
    """The part of *text* a voice speaks (SillyTavern's options; see the module's docstring)."""
    if skip_code:
        text = _INLINE_CODE.sub("", _FENCED.sub("", _INDENTED.sub("", text)))
    text = _ACTIONS.sub("", text) if skip_asterisks else text.replace("*", "")
    if quotes_only:
        quoted = _QUOTED.findall(text.translate(_QUOTE_MARKS))
        if quoted:
            text = " ".join(quoted)
    text = _TAGS.sub(" ", text)
    return " ".join(text.split())


def clipped(text: str, limit: int = MAX_INPUT) -> str:
    """*text* within *limit* characters, cut after the last sentence end that fits (else at the limit)."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    ends = [match.end() for match in _SENTENCE_END.finditer(head)]
    return head[: ends[-1]] if ends and ends[-1] > limit // 2 else head


def openai_body(text: str, model: str, voice: str, speed: float, response_format: str = "mp3") -> dict[str, Any]:
    return {"model": model, "input": clipped(text), "voice": voice, "response_format": response_format, "speed": speed}


def sovits_reference(voice: str) -> tuple[str, str]:
    """A GPT-SoVITS voice as (reference audio path, its words): ``path|words``, or the words read off
    the file's name with ``[tags]`` dropped."""
    path, _, words = voice.partition("|")
    if not words:
        words = re.sub(r"\[.*?\]", "", PurePath(path.replace("\\", "/")).stem).strip()
    return path.strip(), words.strip()


def sovits_body(text: str, voice: str, text_lang: str, prompt_lang: str, speed: float) -> dict[str, Any]:
    path, words = sovits_reference(voice)
    return {
        "text": text,
        "text_lang": text_lang,
        "ref_audio_path": path,
        "prompt_text": words,
        "prompt_lang": prompt_lang,
        "text_split_method": "cut5",
        "batch_size": 1,
        "media_type": "wav",
        "streaming_mode": False,
        "speed_factor": speed,
    }
