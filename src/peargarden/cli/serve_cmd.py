"""``pear serve``: the web app."""

from __future__ import annotations

import typer

from peargarden.app.library import init_home
from peargarden.errors import BadInput
from peargarden.web.addresses import reachable_urls

from ._app import app, state
from ._vault import vault_snapshots


@app.command("serve")
def serve_command(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (anything but loopback needs the token)."),
    port: int = typer.Option(8420, "--port"),
) -> None:
    """网页界面（web UI）：FastAPI + uvicorn，默认只监听本机。"""
    import uvicorn

    from peargarden.web.guards import is_loopback
    from peargarden.web.server import WebConfig, create_app, new_token

    token = None if is_loopback(host) else new_token()
    if not 0 < port < 65536:
        raise BadInput(f"端口不对：{port}（bad port）")
    if not state.home.exists():
        # A fresh machine: the bundled card and files, as `pear chat` and `pear init` make them (the
        # page then shows how to get a model; nothing else needs a shell).
        init_home(state.home)
        typer.echo(f"已创建数据文件夹：{state.home.root}")
    config = WebConfig(home=state.home, host=host, token=token)
    if token:
        # The token goes into the browser's cookie on the first visit and out of the address bar.
        typer.echo(f"访问令牌（token）：{token}")
        for url in reachable_urls(host, port, f"?token={token}"):
            typer.echo(f"打开 {url}")
    else:
        typer.echo(f"梨园网页：{reachable_urls(host, port)[0]}")
    with vault_snapshots(state.home):
        uvicorn.run(create_app(config), host=host, port=port, log_level="warning")
