// Frames a card's script makes inside its own frame (issue 45): 房东模拟器's phone draws its screen in
// `$('<iframe>')` with `srcdoc = iframeHTML`, and that screen's script reads its clock from
// `window.parent.Mvu.getMvuData(…)` and posts to its parent.  In TavernHelper these frames are all
// same-origin; here the script's frame is sandboxed, and a frame made in it gets the same sandbox, the
// same CSP and (in Chromium) an opaque origin of its own: nothing of its parent can be read from it.
// So each such frame gets the frame world a script's frame has, with its own copy of the chat's data:
//
// * every srcdoc given to an iframe here (the property, or setAttribute) starts with the guard's
//   preamble (frame_guard.js: this frame's CSP and the guard, first), then the frame world, jQuery,
//   lodash, frame_fetch.js, frame_apis.js and the script bridge with the script's data, then the card's document;
//   frame_guard.js keeps no other frame (a srcdoc set another way is taken out, one line);
// * this frame answers the inner frame's hello as the page answers a script's frame: a port, on which
//   its calls, module and web requests, notes and toasts go on to the page as this script's own (the
//   page checks them as it checks this frame's), and the chat's new data and events come back;
// * what it cannot have: this frame's objects (`parent.PhoneSystem`) and its document, nor this frame
//   its document (`iframe.contentWindow.document` throws SecurityError) — different origins.
//
// The bridge installs this: `window.__pearNested({boot(), ask(message), send(message)})`, and hands
// it the page's messages (`fromPage`).
(function () {
  "use strict";
  const preamble = window.__pearNestedPreamble;
  const own = (name) => {
    const tag = document.querySelector(`script[data-pear="${name}"]`);
    return tag ? tag.textContent : "";
  };

  window.__pearNested = function install(hooks) {
    delete window.__pearNested;
    if (typeof preamble !== "string") return { fromPage() {} };
    // Read while the bridge installs this (its tag is in the document by then), before a card's script
    // runs (which could change the tags).
    const parts = ["world", "lib-jquery", "lib-lodash", "fetch", "apis", "bridge"].map(own);
    const nonces = new Set();
    const ports = [];

    function wrap(html) {
      const text = String(html);
      if (text.startsWith(preamble)) return text;
      const bytes = new Uint8Array(16);
      crypto.getRandomValues(bytes);
      const nonce = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
      nonces.add(nonce);
      const boot = JSON.stringify({ ...hooks.boot(), nonce }).replace(/</g, "\\u003c");
      return `${preamble}<script type="application/json" id="pear-frame-data">${boot}</script>`
        + parts.map((code) => `<script>${code}</script>`).join("") + text;
    }

    const slot = Object.getOwnPropertyDescriptor(HTMLIFrameElement.prototype, "srcdoc");
    Object.defineProperty(HTMLIFrameElement.prototype, "srcdoc", {
      configurable: true, enumerable: slot.enumerable, get: slot.get,
      set(value) { slot.set.call(this, wrap(value)); },
    });
    const setAttribute = Element.prototype.setAttribute;
    Element.prototype.setAttribute = function (name, value) {
      const wrapped = this instanceof HTMLIFrameElement && String(name).toLowerCase() === "srcdoc" ? wrap(value) : value;
      return Reflect.apply(setAttribute, this, [name, wrapped]);
    };

    // The inner frame's hello: answered with a port, as the page answers this frame's.
    window.addEventListener("message", (event) => {
      const data = event.data;
      if (!data || typeof data !== "object" || data.pear !== "frame" || data.kind !== "hello" || !nonces.has(data.nonce)) return;
      event.stopImmediatePropagation();  // ours: the card's own listeners do not hear it
      nonces.delete(data.nonce);
      const channel = new MessageChannel();
      const port = channel.port1;
      ports.push(port);
      port.onmessage = (message) => relay(port, message.data);
      event.source.postMessage({ pear: "page", kind: "port", nonce: data.nonce }, "*", [channel.port2]);
    }, true);

    function relay(port, data) {
      if (!data || typeof data !== "object") return;
      if (data.kind === "call" || data.kind === "module") {
        hooks.ask(data).then(
          (value) => port.postMessage({ kind: "answer", id: data.id, json: value === undefined ? undefined : JSON.stringify(value) }),
          (error) => port.postMessage({ kind: "answer", id: data.id, error: String(error.message) }));
      } else if (data.kind === "note" || data.kind === "toast" || data.kind === "emit") {
        hooks.send(data);
      }
      // size, ready, ack, pong, buttons: this frame's own business, not the inner frame's
    }

    return {
      // The page's new data and events, for the inner frames too.
      fromPage(data) {
        if (data.kind === "world" || data.kind === "event") for (const port of ports) port.postMessage(data);
      },
    };
  };
})();
