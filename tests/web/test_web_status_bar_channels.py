"""A status bar sends nothing past its frame's CSP (issue 46, item 10): WebRTC is no fetch, and an
RTCPeerConnection with a ``stun:`` server sent STUN over UDP from a bar's script to any address.

The card's bar tries it every way a script can — in its own window, under WebRTC's webkit name, and from
frames of its own (an ``<iframe srcdoc>`` made by ``createElement``, by ``innerHTML``, inside a closed
shadow root, inside a declarative shadow root of the card's HTML, and one written by ``document.write``
in two halves) — at a UDP port this test listens on.  Real Chromium, the real page: the port hears
nothing, the bar says it tried, and the frame's line names what was refused."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from status_card import add_status_card, frame_of, reply, tavern_config, wait_text
from web_harness import LiveServer, Served, beats_done, open_new_chat

from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

if TYPE_CHECKING:
    from playwright.sync_api import Page

CARD = "暗号"

# What one window of the bar (or a frame it made) runs: an RTCPeerConnection with the listener as
# its STUN server, whose ICE gathering would send binding requests there.
CALL = """async function call(win, tag, say) {
  try {
    const pc = new win.RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:PORT' }] });
    pc.createDataChannel('暗号');
    await pc.setLocalDescription(await pc.createOffer());
    say(tag + ':sent');
  } catch (error) { say(tag + ':' + error.name); }
}"""

# A frame's document that runs CALL itself and tells the bar (its parent).
CHILD = "<body><script>CALL; call(window, 'TAG', (s) => parent.postMessage(s, '*'));</script>"

BAR = """<!doctype html><html><body><p id="probe"></p><div id="nests"></div>
<div id="declared"><template shadowrootmode="closed"><iframe srcdoc="DECLARED"></iframe></template></div>
<script>
const seen = [];
const say = (text) => { seen.push(text); document.getElementById('probe').textContent = seen.join(' '); };
window.addEventListener('message', (event) => say(String(event.data)));
const child = (tag) => CHILD_JS.replace('TAG', tag);
</script>
<script>
CALL
(async () => {
  await call(window, 'window', say);
  await call({ RTCPeerConnection: window.webkitRTCPeerConnection }, 'webkit', say);
  const made = document.createElement('iframe');
  made.srcdoc = child('created');
  document.getElementById('nests').append(made);
  document.getElementById('nests').insertAdjacentHTML('beforeend',
    '<iframe srcdoc="' + child('inserted').replace(/"/g, '&quot;') + '"></iframe>');
  const host = document.createElement('div');
  document.body.append(host);
  const root = host.attachShadow({ mode: 'closed' });
  const hidden = document.createElement('iframe');
  hidden.srcdoc = child('shadow');
  root.append(hidden);
  say('done');
})();
</script>
<script>
const written = child('written').replace(/"/g, '&quot;');
document.write('<div id="written"><template shadowroo');  // the attribute's name in two halves
document.write('tmode="closed"><iframe srcdoc="' + written + '"></iframe></template></div>');
</script></body></html>"""


class Listener:
    """A UDP socket on loopback that counts what reaches it."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.1)
        self.port = int(self.sock.getsockname()[1])
        self.packets: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._listen, daemon=True)
        self._thread.start()

    def _listen(self) -> None:
        while not self._stop.is_set():
            try:
                data, _ = self.sock.recvfrom(4096)
            except TimeoutError:
                continue
            except OSError:
                return
            self.packets.append(data)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.sock.close()


def status_bar(port: int) -> str:
    """The bar's document, calling the listener on *port*."""
    call = CALL.replace("PORT", str(port))
    child = CHILD.replace("CALL", " ".join(call.split()))
    declared = child.replace("TAG", "declared").replace("&", "&amp;").replace('"', "&quot;")
    child_js = json.dumps(child, ensure_ascii=False).replace("</", "<\\/")  # the string is "</script>"
    return BAR.replace("DECLARED", declared).replace("CHILD_JS", child_js).replace("CALL", call)


@pytest.fixture(scope="module")
def listener() -> Iterator[Listener]:
    heard = Listener()
    yield heard
    heard.close()


@pytest.fixture(scope="module")
def channels_served(tmp_path_factory: pytest.TempPathFactory, listener: Listener) -> Iterator[Served]:
    home = Home(tmp_path_factory.mktemp("channels-home"))
    seed_home(home)
    add_status_card(home, status_bar(listener.port), CARD)
    with FakeOpenAIServer() as fake:
        home.config_file.write_text(tavern_config(fake.base_url), encoding="utf-8")
        with LiveServer(home) as server:
            yield Served(home, server, fake)


def test_a_status_bar_sends_no_udp_through_webrtc(channels_served: Served, listener: Listener, page: Page) -> None:
    channels_served.fake.script([text_reply(reply("林晚压低声音：“暗号对上了。”", "_.set('林晚.好感度', 10, 11);"))])
    open_new_chat(page, channels_served.url, CARD)
    page.fill("#composer", "天王盖地虎")
    page.click("#send")
    beats_done(page, 1)
    bar = page.locator("#messages li.msg[data-index='2'] iframe.status-frame")
    frame = frame_of(bar)
    wait_text(frame, "#probe", "done")
    time.sleep(2.0)  # ICE gathering sends its STUN requests within a few hundred milliseconds
    probe = frame.locator("#probe").inner_text()
    assert listener.packets == [], (len(listener.packets), probe)
    assert "window:NotAllowedError" in probe and "webkit:NotAllowedError" in probe, probe
    assert "sent" not in probe, probe  # no frame of the bar's got as far as an offer
    assert frame.locator("iframe").count() == 0  # every frame it made was taken out before it loaded
    line = frame.locator(".pear-blocked").inner_text()
    assert "WebRTC" in line and "iframe" in line, line
