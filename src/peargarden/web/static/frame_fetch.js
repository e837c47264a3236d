// What a card's frame fetches itself (issue 45): a status bar that is `$('body').load(url)` of a page on
// a CDN (diealone's template), scripts that use `fetch`, `$.ajax`, `$.get`, an XMLHttpRequest.  The
// frame's CSP still names no host: nothing leaves the frame.  `fetch` and `XMLHttpRequest` are ours, and
// a GET of an http(s) address goes to the page, which asks the server for it as for a remote module
// (remote_modules.js, app/play/remote_modules.py): one question per card and host, fetched once,
// content-addressed and pinned in the data folder, the same text offline after; refused with one line.
//
// * A page (text/html) comes as a remote page would run: its classic `<script src>` and style sheets
//   (resolved against its own address) are fetched the same way and put into it inline, so jQuery's
//   `.load()` / `.html()` runs its scripts; a later relative address in the frame is resolved against
//   the last page it fetched (a frame's own address is about:srcdoc: nothing to resolve against).
// * A `<script src>` of a web address a script adds (jQuery's `$.getScript`, a library loaded by hand)
//   is fetched the same way, run inline, and its `load` event fired.
// * Anything but GET (and HEAD) to the web is refused with one line: a card's phone that calls a
//   model's API with a key the player typed in (房东模拟器) sends nothing from here.  SillyTavern lets
//   it through; here the key and the chat never leave the computer through a card.
// * Texts only: the server hands over the body decoded as UTF-8 (a picture fetched this way is not a
//   picture; pictures from the web are refused by the CSP, one line).
//
// The bridge installs this with its way to the page: `window.__pearFetch({ask, report, say})`, where
// `ask(url)` resolves with {url, code, type} or rejects with the page's one line.
(function () {
  "use strict";
  const NativeURL = URL;
  const NativeResponse = Response;
  const NativeBlob = Blob;
  const parse = (text) => new DOMParser().parseFromString(text, "text/html");
  const WEB = /^https?:$/;
  const READS = new Set(["GET", "HEAD"]);

  window.__pearFetch = function install(hooks) {
    delete window.__pearFetch;
    const { ask, report, say } = hooks;
    let base = null;  // the address of the last page fetched: a later relative address is resolved against it

    // The absolute address *raw* names, or null when it is not a web address (left to the browser).
    function resolve(raw) {
      const text = String(raw);
      let found;
      try { found = base ? new NativeURL(text, base) : new NativeURL(text); } catch {
        throw new TypeError(say(`没有可依据的网页地址，读不了相对地址 ${text.slice(0, 200)}`,
          `no page address to resolve the relative address ${text.slice(0, 200)} against`));
      }
      return WEB.test(found.protocol) ? found.href : null;
    }

    function refuseSending(method, url) {
      let host = url;
      try { host = new NativeURL(url).host; } catch { /* the address as written */ }
      const line = say(`不向网络发送 ${method}（${host}）：卡片的框只从网络读取（GET），不发送——玩家填的密钥和聊天不会经卡片离开这台电脑`,
        `${method} to ${host} is not sent: a card's frame only reads from the web (GET) — keys and chats never leave this computer through a card`);
      report("blocked", line);
      return new TypeError(line);
    }

    // The text at *url*: a page's scripts and style sheets put into it (see above).
    async function read(url) {
      const found = await ask(url);
      const type = String(found.type || "").toLowerCase();
      if (type === "text/html" || type === "application/xhtml+xml") {
        base = found.url || url;
        return { ...found, code: await inlined(found.code, base) };
      }
      return found;
    }

    async function inlined(code, address) {
      const doc = parse(code);
      const loads = [...doc.querySelectorAll("script[src], link[href]")].filter((node) => (node.localName === "script"
        ? !/module/i.test(node.type) : /(^|\s)stylesheet(\s|$)/i.test(node.rel)));
      if (!loads.length) return code;
      for (const node of loads) {
        const attribute = node.localName === "script" ? "src" : "href";
        let text = "";
        let url = null;
        try {
          url = new NativeURL(node.getAttribute(attribute), address).href;
          if (!WEB.test(new NativeURL(url).protocol)) continue;
          text = (await ask(url)).code;
        } catch (error) {
          report("blocked", say(`没有加载 ${url || node.getAttribute(attribute)}：${error.message}`,
            `${url || node.getAttribute(attribute)} was not loaded: ${error.message}`));
        }
        const inline = doc.createElement(node.localName === "script" ? "script" : "style");
        for (const { name, value } of [...node.attributes]) if (!["src", "href", "rel", "integrity", "crossorigin"].includes(name)) inline.setAttribute(name, value);
        inline.textContent = text;
        node.replaceWith(inline);
      }
      return `<!doctype html>${doc.documentElement.outerHTML}`;
    }

    // -- fetch ---------------------------------------------------------------------------------------
    const nativeFetch = window.fetch;
    window.fetch = async function fetch(input, init) {
      const isRequest = input instanceof Request;
      const method = String((init && init.method) || (isRequest ? input.method : "GET")).toUpperCase();
      const url = resolve(isRequest ? input.url : (input && input.href) || input);
      if (url === null) return Reflect.apply(nativeFetch, window, [input, init]);  // blob:, data: (the CSP decides)
      if (!READS.has(method)) throw refuseSending(method, url);
      const found = await read(url);
      return new NativeResponse(method === "HEAD" ? null : found.code, {
        status: 200, headers: { "content-type": found.type || "text/plain" },
      });
    };

    // -- XMLHttpRequest (jQuery's $.ajax, $.get, .load) ------------------------------------------------
    class XMLHttpRequest extends EventTarget {
      constructor() {
        super();
        this.readyState = 0;
        this.status = 0;
        this.statusText = "";
        this.responseText = "";
        this.response = "";
        this.responseType = "";
        this.responseURL = "";
        this.responseXML = null;
        this.timeout = 0;
        this.withCredentials = false;
        this.upload = new EventTarget();
        this.kind = "";
        this.aborted = false;
        for (const name of ["readystatechange", "loadstart", "progress", "load", "error", "abort", "timeout", "loadend"]) this[`on${name}`] = null;
      }
      fire(type) {
        const event = type === "readystatechange" ? new Event(type) : new ProgressEvent(type);
        const handler = this[`on${type}`];
        if (typeof handler === "function") handler.call(this, event);
        this.dispatchEvent(event);
      }
      state(value) { this.readyState = value; this.fire("readystatechange"); }
      open(method, url, async = true) {
        this.method = String(method).toUpperCase();
        this.url = String(url);
        this.async = async !== false;
        this.aborted = false;
        this.state(1);
      }
      setRequestHeader() { /* nothing is sent but the address */ }
      overrideMimeType() { /* the served type is kept */ }
      getResponseHeader(name) { return String(name).toLowerCase() === "content-type" && this.kind ? this.kind : null; }
      getAllResponseHeaders() { return this.kind ? `content-type: ${this.kind}\r\n` : ""; }
      abort() {
        if (this.readyState === 0 || this.readyState === 4) return;
        this.aborted = true;
        this.readyState = 4;
        this.fire("abort");
        this.fire("loadend");
      }
      fail(error) {
        if (this.aborted) return;
        this.status = 0;
        this.state(4);
        this.fire("error");
        this.fire("loadend");
        if (error) report("blocked", String(error.message || error));
      }
      send() {
        if (this.readyState !== 1) throw new DOMException("open() first", "InvalidStateError");
        if (!this.async) {
          // A synchronous request cannot wait for the page's answer (the page asks the server).
          const line = say(`同步请求读不了 ${this.url.slice(0, 200)}（这里只有异步的）`,
            `a synchronous request cannot read ${this.url.slice(0, 200)} (only asynchronous ones here)`);
          report("blocked", line);
          throw new DOMException(line, "NetworkError");
        }
        let url;
        try {
          url = resolve(this.url);
          if (url === null) throw new TypeError(say(`不是网络地址：${this.url.slice(0, 200)}`, `not a web address: ${this.url.slice(0, 200)}`));
        } catch (error) {
          queueMicrotask(() => this.fail(error));
          return;
        }
        if (!READS.has(this.method)) {
          refuseSending(this.method, url);  // its line said once, here
          queueMicrotask(() => this.fail(null));
          return;
        }
        this.fire("loadstart");
        read(url).then((found) => {
          if (this.aborted) return;
          this.kind = found.type || "text/plain";
          this.responseURL = found.url || url;
          this.status = 200;
          this.statusText = "OK";
          this.state(2);
          const text = this.method === "HEAD" ? "" : found.code;
          this.responseText = text;
          this.response = this.shaped(text);
          this.state(3);
          this.state(4);
          this.fire("load");
          this.fire("loadend");
        }, (error) => this.fail(error));
      }
      shaped(text) {
        switch (this.responseType) {
          case "json": try { return JSON.parse(text); } catch { return null; }
          case "blob": return new NativeBlob([text], { type: this.kind });
          case "arraybuffer": return new TextEncoder().encode(text).buffer;
          case "document": this.responseXML = parse(text); return this.responseXML;
          default: return text;
        }
      }
    }
    for (const [name, value] of Object.entries({ UNSENT: 0, OPENED: 1, HEADERS_RECEIVED: 2, LOADING: 3, DONE: 4 })) {
      XMLHttpRequest[name] = value;
      XMLHttpRequest.prototype[name] = value;
    }
    window.XMLHttpRequest = XMLHttpRequest;

    // -- a <script src> of a web address a script adds ----------------------------------------------------
    const srcSlot = Object.getOwnPropertyDescriptor(HTMLScriptElement.prototype, "src");
    const wanted = new WeakMap();  // a script element → the web address it was given
    Object.defineProperty(HTMLScriptElement.prototype, "src", {
      configurable: true,
      enumerable: srcSlot.enumerable,
      get() { return wanted.has(this) ? wanted.get(this) : srcSlot.get.call(this); },
      set(value) {
        let url = null;
        try { url = resolve(value); } catch { url = null; }
        if (url === null || /module/i.test(this.type)) { srcSlot.set.call(this, value); return; }
        wanted.set(this, url);
      },
    });
    function runAdded(node) {
      const url = wanted.get(node);
      if (!url || node.dataset.pearFetched) return;
      node.dataset.pearFetched = "1";
      read(url).then((found) => {
        const inline = document.createElement("script");
        inline.textContent = found.code;
        document.head.append(inline);
        inline.remove();
        node.dispatchEvent(new Event("load"));
      }, (error) => {
        report("blocked", say(`没有加载脚本 ${url}：${error.message}`, `the script ${url} was not loaded: ${error.message}`));
        node.dispatchEvent(new Event("error"));
      });
    }
    new MutationObserver((records) => {
      for (const record of records) {
        for (const node of record.addedNodes) {
          if (node.nodeType !== 1) continue;
          if (node.localName === "script") runAdded(node);
          else for (const script of node.getElementsByTagName("script")) runAdded(script);
        }
      }
    }).observe(document, { childList: true, subtree: true });
  };
})();
