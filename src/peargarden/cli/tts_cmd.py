"""``pear tts``: a message of a chat spoken by its character's voice (SillyTavern's TTS extension),
the audio the speech server answers written to a file."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from peargarden.app.extras import SpeechOverrides as Overrides
from peargarden.app.extras import open_stored_chat, speak
from peargarden.app.play import save_file

from ._app import app, state


@app.command("tts")
def tts_cmd(
    chat: str = typer.Option(..., "--chat", help="对话 id（pear sessions list 可查）。"),
    message: int = typer.Option(..., "--message", help="第几条消息（从 0 数）。"),
    out: Path = typer.Option(..., "--out", help="写到这个文件（服务器给什么格式就是什么：mp3、wav…）。"),
    base_url: str | None = typer.Option(None, "--base-url", help="OpenAI 兼容的语音服务（…/v1），代替 [tts]。"),
    model: str | None = typer.Option(None, "--model", help="语音模型（如 tts-1）。"),
    voice: str | None = typer.Option(None, "--voice", help="声音（如 alloy；GPT-SoVITS 是参考音频的路径）。"),
    card: str | None = typer.Option(None, "--card", help="只在这张卡的对话里找 --chat。"),
) -> None:
    """朗读对话里的一条消息，把语音写进文件：--chat ID --message N --out FILE。"""
    session = open_stored_chat(state.home, chat, card)
    audio = speak(state.home, session, message, Overrides(base_url or "", model or "", voice or ""))
    save_file(out, audio.data)
    print(f"{out}（{audio.kind}，{len(audio.data)} 字节{'，来自缓存' if audio.cached else ''}）", file=sys.stderr)
