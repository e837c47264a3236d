"""Other web sites cannot drive the loopback server through the user's browser."""

from __future__ import annotations

import http.client
import json

from web_harness import LiveServer

from peargarden.workspace.home import Home


def request(server: LiveServer, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.putrequest(method, path, skip_host=True)
    for name, value in headers.items():
        connection.putheader(name, value)
    connection.putheader("Content-Length", str(len(body)))
    connection.endheaders(body)
    response = connection.getresponse()
    return response.status, response.read().decode("utf-8")


def test_foreign_hosts_and_cross_site_writes_are_refused(live_server: LiveServer, seeded_home: Home) -> None:
    own = f"127.0.0.1:{live_server.port}"
    assert request(live_server, "GET", "/api/health", {"Host": own})[0] == 200
    assert request(live_server, "GET", "/api/health", {"Host": f"localhost:{live_server.port}"})[0] == 200
    # DNS rebinding: an attacker's name that resolves to 127.0.0.1.
    status, body = request(live_server, "GET", "/api/cards", {"Host": "evil.example:8420"})
    assert status == 403 and json.loads(body)["error"]
    # A write sent by another site's page.
    payload = json.dumps({"key": "sk-x", "connection": "fake"}).encode()
    headers = {"Host": own, "Origin": "https://evil.example", "Content-Type": "application/json"}
    assert request(live_server, "POST", "/api/settings/key", headers, payload)[0] == 403
    # The page's own writes (same origin) go through to the handler.
    same = {"Host": own, "Origin": f"http://{own}", "Content-Type": "application/json"}
    status, body = request(live_server, "POST", "/api/vault/snapshot", same, b"{}")
    assert status == 200 and "snapshot" in json.loads(body)
