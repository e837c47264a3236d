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


def test_a_token_in_the_query_sets_the_cookie_that_then_stands_alone(seeded_home: Home) -> None:
    """``?token=`` once (the link `pear serve` prints) sets an HttpOnly, SameSite=Strict cookie; the
    cookie alone then passes; a wrong or missing token is 401 and sets nothing; the guards answer
    before the frame headers are added, and a page behind them still gets those headers."""
    with LiveServer(seeded_home, token="s3cret-Tok_en", host="0.0.0.0") as server:  # new_token()'s alphabet
        own = f"127.0.0.1:{server.port}"
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        connection.request("GET", "/api/health?token=s3cret-Tok_en", headers={"Host": own})
        response = connection.getresponse()
        response.read()
        cookie = response.getheader("set-cookie") or ""
        assert response.status == 200 and response.getheader("x-frame-options") == "DENY"
        assert cookie.startswith("pear_token=") and "HttpOnly" in cookie and "SameSite=strict" in cookie
        connection.request("GET", "/", headers={"Host": own, "Cookie": cookie.split(";")[0]})
        page = connection.getresponse()
        assert page.status == 200 and "梨园" in page.read().decode("utf-8") and page.getheader("set-cookie") is None
        for wrong in ({"Cookie": "pear_token=x"}, {"Authorization": "Bearer x"}, {}):
            path = "/api/cards" if wrong else "/api/cards?token=x"
            connection.request("GET", path, headers={"Host": own, **wrong})
            refused = connection.getresponse()
            assert refused.status == 401 and json.loads(refused.read())["error"]
            assert refused.getheader("set-cookie") is None


def test_a_streamed_answer_comes_through_the_guards_whole(seeded_home: Home) -> None:
    """A beat's event stream passes both guards chunk by chunk, ending with its done event."""
    from web_harness import fake_provider_config

    from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply

    with FakeOpenAIServer() as fake:
        seeded_home.config_file.write_text(fake_provider_config(fake.base_url), encoding="utf-8")
        fake.script([text_reply("雨停了，", "掌柜抬起头。")])
        with LiveServer(seeded_home) as server:
            own = f"127.0.0.1:{server.port}"
            headers = {"Host": own, "Origin": f"http://{own}", "Content-Type": "application/json"}
            status, body = request(server, "POST", "/api/chats/%E9%9D%92%E6%A2%A7", headers, b"{}")
            chat_id = json.loads(body)["chat_id"]
            payload = json.dumps({"text": "掌柜在吗？"}, ensure_ascii=False).encode("utf-8")
            status, stream = request(server, "POST", f"/api/chats/%E9%9D%92%E6%A2%A7/{chat_id}/beat", headers, payload)
    assert status == 200, stream
    assert "掌柜抬起头" in stream and '"done"' in stream
