// The first script of a card's status-bar frame (status_frame.js puts it before the bridge and the
// card's HTML): it closes what the frame's CSP cannot.  A CSP bounds what a document fetches, and
// WebRTC fetches nothing: an RTCPeerConnection with a `stun:` server (or a remote candidate) sends
// UDP to any address, its ICE username a channel for any data, past `default-src 'none'`; Chromium
// enforces no `webrtc 'block'` directive (tried: a meta or a header, the packets still left).  So:
//
// * WebRTC is taken out of this window: RTCPeerConnection (and its webkit name) throw
//   NotAllowedError, as do the methods of its prototype, and cannot be put back;
// * no frame in the frame: an <iframe srcdoc> a script adds runs its own scripts in a window of its
//   own (another opaque origin: out of this script's reach), where WebRTC is whole.  Every iframe,
//   frame, object, embed and fenced frame is taken out as it is added — in this document, in any
//   shadow root made by attachShadow, and before it can load (its document comes a task later; the
//   observer runs first).  The declarative shadow roots the parser could make out of reach (closed)
//   are turned off: status_frame.py renames their attribute in the card's HTML, and here
//   setHTMLUnsafe / parseHTMLUnsafe are gone and document.write refuses one.  One exception, in a
//   script's frame only: an iframe whose document starts with this guard (below; nested_frames.js);
// * no connection ahead of a request: <link rel=dns-prefetch|preconnect|prerender> are taken out too
//   (and the frame's document turns DNS prefetching off).
//
// What it takes out is said in the frame's "could not load" line (the bridge listens for
// "pear-refused").  Everything it uses is taken now, before a card's script can change a prototype.
(function () {
  "use strict";
  const apply = Reflect.apply;
  const define = Object.defineProperty;
  const create = Object.create;
  const describe = Object.getOwnPropertyDescriptor;
  const getter = (proto, key) => describe(proto, key).get;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const Refusal = CustomEvent;
  const Refused = DOMException;
  const said = create(null);
  function refused(what) {
    if (said[what]) return;
    said[what] = true;
    try {
      apply(dispatch, document, [new Refusal("pear-refused", { detail: what })]);
    } catch {
      // the line is a courtesy: what was refused stays refused
    }
  }
  function lock(target, name, value) {
    define(target, name, { value, writable: false, configurable: false, enumerable: false });
  }

  // -- WebRTC ----------------------------------------------------------------------------------

  const WEBRTC = "WebRTC";
  function denied() {
    refused(WEBRTC);
    throw new Refused("WebRTC is not available in a status bar (状态栏里不能用 WebRTC)", "NotAllowedError");
  }
  for (const name of ["RTCPeerConnection", "webkitRTCPeerConnection"]) {
    const original = window[name];
    if (typeof original === "function" && original.prototype) {
      for (const key of Object.getOwnPropertyNames(original.prototype)) {
        const slot = describe(original.prototype, key);
        if (slot && typeof slot.value === "function" && key !== "constructor") lock(original.prototype, key, denied);
      }
    }
    if (name in window) lock(window, name, denied);
  }

  // -- frames in the frame ---------------------------------------------------------------------

  // A script's frame (its guard tag says data-nested="on") may keep an <iframe> whose document starts
  // with this guard: `preamble` is this document's CSP and this very script, read here, first; the
  // frame's nested_frames.js puts it before every srcdoc a card gives (房东模拟器's phone screen).
  // Only an iframe with no src whose srcdoc is absent (its empty about:blank) or starts with the
  // preamble is kept, checked as it is added and again whenever its srcdoc or src changes.  A frame
  // made in a sandboxed frame has the same sandbox flags and, in Chromium, an opaque origin of its
  // own and this document's CSP (measured: docs/variables.md); the guard first closes WebRTC in it.
  const me = document.currentScript;
  const cspMeta = document.querySelector("meta[http-equiv='Content-Security-Policy' i]");
  const preamble = me && me.dataset.nested === "on" && cspMeta
    ? `<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${cspMeta.content}">`
      + `<meta http-equiv="x-dns-prefetch-control" content="off"><script>${me.textContent}</script>`
    : null;
  if (preamble) define(window, "__pearNestedPreamble", { value: preamble, writable: false, configurable: false });
  const getAttribute = Element.prototype.getAttribute;
  const hasAttribute = Element.prototype.hasAttribute;
  const localName = getter(Element.prototype, "localName");
  const startsWith = String.prototype.startsWith;
  function keptFrame(element) {
    if (preamble === null || apply(localName, element, []) !== "iframe" || apply(hasAttribute, element, ["src"])) return false;
    const srcdoc = apply(getAttribute, element, ["srcdoc"]);
    return srcdoc === null || apply(startsWith, srcdoc, [preamble]);
  }

  const NESTED = "iframe, frame, object, embed, fencedframe, portal";
  const AHEAD = "link[rel~='dns-prefetch' i], link[rel~='preconnect' i], link[rel~='prerender' i]";
  const matches = Element.prototype.matches;
  const selectAll = Element.prototype.querySelectorAll;
  const selectAllIn = DocumentFragment.prototype.querySelectorAll;
  const remove = Element.prototype.remove;
  const shadowOf = getter(Element.prototype, "shadowRoot");
  const nodeType = getter(Node.prototype, "nodeType");
  const addedNodes = getter(MutationRecord.prototype, "addedNodes");
  const target = getter(MutationRecord.prototype, "target");
  const listLength = getter(NodeList.prototype, "length");
  const listItem = NodeList.prototype.item;
  const observe = MutationObserver.prototype.observe;
  const attachShadow = Element.prototype.attachShadow;

  function takeOut(element) {
    const nested = apply(matches, element, [NESTED]);
    if (nested && keptFrame(element)) return;
    apply(remove, element, []);
    refused(nested ? "iframe" : "preconnect");
  }

  function sweep(node) {
    const type = apply(nodeType, node, []);
    if (type === 1) {  // an element: itself, what is below it, the shadow roots on the way
      if (apply(matches, node, [NESTED]) || apply(matches, node, [AHEAD])) {
        takeOut(node);
        return;
      }
      const found = apply(selectAll, node, [`${NESTED}, ${AHEAD}`]);
      for (let i = 0; i < apply(listLength, found, []); i += 1) takeOut(apply(listItem, found, [i]));
      shadows(node, selectAll);
    } else if (type === 11) {  // a shadow root (or a fragment)
      const found = apply(selectAllIn, node, [`${NESTED}, ${AHEAD}`]);
      for (let i = 0; i < apply(listLength, found, []); i += 1) takeOut(apply(listItem, found, [i]));
      shadows(node, selectAllIn);
    }
  }

  function shadows(node, select) {
    const all = apply(select, node, ["*"]);
    for (let i = -1; i < apply(listLength, all, []); i += 1) {
      const element = i < 0 ? node : apply(listItem, all, [i]);
      const root = apply(nodeType, element, []) === 1 ? apply(shadowOf, element, []) : null;
      if (root) watch(root);
    }
  }

  // Index loops and the functions taken above only: a card's script may have changed any prototype
  // (an array's iterator, a WeakSet's has) by the time this runs.
  const watched = new WeakSet();
  const has = WeakSet.prototype.has;
  const add = WeakSet.prototype.add;
  const observer = new MutationObserver((records) => {
    for (let n = 0; n < records.length; n += 1) {
      const record = records[n];
      const added = apply(addedNodes, record, []);
      for (let i = 0; i < apply(listLength, added, []); i += 1) sweep(apply(listItem, added, [i]));
      const changed = apply(target, record, []);
      if (apply(nodeType, changed, []) === 1 && (apply(matches, changed, [AHEAD]) || apply(matches, changed, [NESTED]))) {
        takeOut(changed);
      }
    }
  });
  function watch(root) {
    if (apply(has, watched, [root])) return;
    apply(add, watched, [root]);
    apply(observe, observer, [root, { childList: true, subtree: true, attributes: true, attributeFilter: ["rel", "srcdoc", "src", "data", "type"] }]);
    sweep(root);
  }
  watch(document);
  lock(Element.prototype, "attachShadow", function (init) {
    const root = apply(attachShadow, this, [init]);
    watch(root);
    return root;
  });

  // Declarative shadow roots, made by a parser out of this observer's sight when closed.
  for (const [owner, name] of [[Element.prototype, "setHTMLUnsafe"], [ShadowRoot.prototype, "setHTMLUnsafe"],
    [Document, "parseHTMLUnsafe"]]) {
    if (name in owner) lock(owner, name, undefined);
  }
  const write = Document.prototype.write;
  const writeln = Document.prototype.writeln;
  const lower = String.prototype.toLowerCase;
  const indexOf = String.prototype.indexOf;
  const slice = String.prototype.slice;
  const Text = String;
  let tail = "";  // what the last write ended with: an attribute name may be split over two
  function guardedWrite(original) {
    return function (...parts) {
      // Each part made a string once (a toString may answer differently twice), kept on an object
      // without a prototype (a setter a card put on Array.prototype[0] would see an array's).
      const texts = create(null);
      texts.length = parts.length;
      let seen = tail;
      for (let i = 0; i < parts.length; i += 1) {
        texts[i] = Text(parts[i]);
        seen += texts[i];
      }
      tail = apply(slice, seen, [-16]);
      if (apply(indexOf, apply(lower, seen, []), ["shadowroot"]) >= 0) {
        refused("shadowroot");
        return undefined;
      }
      return apply(original, this, texts);
    };
  }
  lock(Document.prototype, "write", guardedWrite(write));
  lock(Document.prototype, "writeln", guardedWrite(writeln));
})();
