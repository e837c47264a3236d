"""``pear chat``: play a card in the terminal (interactive, or one beat with ``--once``).

This module declares the command for typer; its work is :func:`._chat.chat`, which :mod:`._light`
calls without typer when the command line is a plain one.
"""

from __future__ import annotations

import typer

from peargarden.app.play import MODE_NAMES

from . import _chat
from ._app import app


@app.command("chat")
def chat_command(
    card: str | None = typer.Option(None, "--card", help="卡名（默认：青梧）。"),
    mode: str | None = typer.Option(
        None, "--mode", help=f"{' | '.join(MODE_NAMES)}（默认来自设置；work 是工作模式）。"
    ),
    base_url: str | None = typer.Option(
        None, "--base-url", help="OpenAI 兼容服务的地址，如 https://api.deepseek.com/v1"
    ),
    model: str | None = typer.Option(None, "--model", help="模型名。"),
    api_key_env: str | None = typer.Option(None, "--api-key-env", help="存放 API 密钥的环境变量名。"),
    local_model: str | None = typer.Option(
        None,
        "--local-model",
        help="在本机运行的 GGUF 模型文件（或内置模型名 qwen-0.5b / qwen-1.5b / smollm2），代替默认的内置模型。",
    ),
    thinking: str | None = typer.Option(None, "--thinking", help="off | minimal | low | medium | high | xhigh"),
    persona: str | None = typer.Option(None, "--persona", help="你在故事里的名字（默认来自设置）。"),
    chat_id: str | None = typer.Option(None, "--chat", help="接着已有的对话（对话 id，见 pear sessions list）。"),
    group: str | None = typer.Option(None, "--group", help="和一个群聊对话（群名，见 pear group list）。"),
    once: str | None = typer.Option(None, "--once", help="只走一拍：发送这句话，打印回复后退出。"),
    as_json: bool = typer.Option(False, "--json", help="与 --once 一起：把事件流按 JSON 行打印。"),
    connect_timeout: float | None = typer.Option(None, "--connect-timeout", help="连接的时限（秒，默认 10）。"),
    first_byte_timeout: float | None = typer.Option(
        None, "--first-byte-timeout", help="发出请求后等回应的时限（秒，默认 120）。"
    ),
    idle_timeout: float | None = typer.Option(None, "--idle-timeout", help="回复中途停顿的时限（秒，默认 60）。"),
    total_timeout: float | None = typer.Option(
        None, "--total-timeout", help="一次请求连同重试的总时限（秒，默认 600）。"
    ),
    still_waiting: float = typer.Option(
        10.0, "--still-waiting", help="没有新内容时，每隔这么多秒提示一次已等多久（0：不提示）。"
    ),
) -> None:
    """和一张卡对话（交互式、流式输出）；--once 只走一拍。"""
    _chat.chat(
        card=card,
        mode=mode,
        base_url=base_url,
        model=model,
        api_key_env=api_key_env,
        local_model=local_model,
        thinking=thinking,
        persona=persona,
        chat_id=chat_id,
        group=group,
        once=once,
        as_json=as_json,
        connect_timeout=connect_timeout,
        first_byte_timeout=first_byte_timeout,
        idle_timeout=idle_timeout,
        total_timeout=total_timeout,
        still_waiting=still_waiting,
    )
