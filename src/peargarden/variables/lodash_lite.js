// Pear Garden's own small lodash (the `_` a TavernHelper script sees), written for the schema
// sandbox (variables/zod_schema.py).  Only the functions card scripts and the MVU schema glue use;
// each follows lodash's documented behaviour (paths like `a.b[0]["c d"]`, `_.set` making arrays for
// index keys, `_.clamp(n, lower, upper)`, `_.round(n, precision)` …).  `_(value)` chains them and
// `.value()` ends the chain.
"use strict";
var _ = (function () {
  const PROP = /[^.[\]]+|\[(?:(-?\d+(?:\.\d+)?)|(["'])((?:(?!\2)[^\\]|\\.)*?)\2)\]|(?=(?:\.|\[\])(?:\.|\[\]|$))/g;
  const DEEP = /\.|\[(?:[^[\]]*|(["'])(?:(?!\1)[^\\]|\\.)*?\1)\]/;
  const PLAIN = /^\w*$/;
  const INDEX = /^(?:0|[1-9]\d*)$/;

  const isArray = Array.isArray;
  const isObject = (v) => v !== null && (typeof v === "object" || typeof v === "function");
  const isObjectLike = (v) => v !== null && typeof v === "object";
  const isPlainObject = (v) => {
    if (!isObjectLike(v) || Object.prototype.toString.call(v) !== "[object Object]") return false;
    const proto = Object.getPrototypeOf(v);
    return proto === null || proto === Object.prototype;
  };
  const isNil = (v) => v === null || v === undefined;
  const isIndex = (key, length) => {
    const text = typeof key === "number" ? String(key) : key;
    if (typeof text !== "string" || !INDEX.test(text)) return false;
    return length === undefined || Number(text) < length;
  };

  function toPath(value) {
    if (isArray(value)) return value.map(String);
    const text = String(value);
    const out = [];
    if (text.charCodeAt(0) === 46) out.push("");
    text.replace(PROP, (match, number, quote, inner) => {
      out.push(quote ? inner.replace(/\\(\\)?/g, "$1") : number || match);
      return match;
    });
    return out;
  }
  function isKey(value, object) {
    if (isArray(value)) return false;
    const kind = typeof value;
    if (kind === "number" || kind === "boolean" || value === null || value === undefined) return true;
    return PLAIN.test(value) || !DEEP.test(value) || (object !== null && object !== undefined && value in Object(object));
  }
  const castPath = (value, object) => (isArray(value) ? value.map(String) : isKey(value, object) ? [String(value)] : toPath(value));

  function get(object, path, fallback) {
    const keys = castPath(path, object);
    let node = object;
    for (let i = 0; i < keys.length && node !== null && node !== undefined; i++) node = node[keys[i]];
    return node === undefined ? fallback : node;
  }
  function has(object, path) {
    const keys = castPath(path, object);
    if (!keys.length) return false;
    let node = object;
    for (const key of keys) {
      if (node === null || node === undefined || !Object.prototype.hasOwnProperty.call(Object(node), key)) return false;
      node = node[key];
    }
    return true;
  }
  function hasIn(object, path) {
    const keys = castPath(path, object);
    if (!keys.length) return false;
    let node = object;
    for (const key of keys) {
      if (node === null || node === undefined || !(key in Object(node))) return false;
      node = node[key];
    }
    return true;
  }
  function set(object, path, value) {
    if (!isObject(object)) return object;
    const keys = castPath(path, object);
    let node = object;
    keys.forEach((key, i) => {
      if (key === "__proto__" || key === "constructor" || key === "prototype") return;
      if (i === keys.length - 1) {
        node[key] = value;
        return;
      }
      if (!isObject(node[key])) node[key] = isIndex(keys[i + 1]) ? [] : {};
      node = node[key];
    });
    return object;
  }
  function unset(object, path) {
    if (isNil(object)) return true;
    const keys = castPath(path, object);
    const parent = keys.length > 1 ? get(object, keys.slice(0, -1)) : object;
    if (isNil(parent)) return true;
    return delete parent[keys[keys.length - 1]];
  }
  const update = (object, path, updater) => set(object, path, updater(get(object, path)));

  function isEqual(a, b) {
    if (a === b) return true;
    if (typeof a === "number" && typeof b === "number") return a !== a && b !== b;
    if (!isObjectLike(a) || !isObjectLike(b)) return false;
    if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
    if (isArray(a) !== isArray(b)) return false;
    if (isArray(a)) return a.length === b.length && a.every((item, i) => isEqual(item, b[i]));
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && isEqual(a[key], b[key]));
  }
  function cloneDeep(value) {
    if (isArray(value)) return value.map(cloneDeep);
    if (value instanceof Date) return new Date(value.getTime());
    if (isObjectLike(value)) {
      const out = {};
      for (const key of Object.keys(value)) out[key] = cloneDeep(value[key]);
      return out;
    }
    return value;
  }
  const clone = (value) => (isArray(value) ? value.slice() : isPlainObject(value) ? Object.assign({}, value) : value);
  const flatKeys = (args) => args.flat(Infinity);
  function pick(object, ...paths) {
    const out = {};
    if (isNil(object)) return out;
    for (const path of flatKeys(paths)) if (hasIn(object, path)) set(out, castPath(path, object), get(object, path));
    return out;
  }
  function omit(object, ...paths) {
    const out = cloneDeep(object) || {};
    for (const path of flatKeys(paths)) unset(out, path);
    return out;
  }
  function merge(target, ...sources) {
    for (const source of sources) {
      if (!isObjectLike(source)) continue;
      for (const key of Object.keys(source)) {
        const value = source[key];
        if (isObjectLike(value) && (isPlainObject(value) || isArray(value))) {
          if (!isObjectLike(target[key])) target[key] = isArray(value) ? [] : {};
          merge(target[key], value);
        } else if (value !== undefined || !(key in target)) {
          target[key] = value;
        }
      }
    }
    return target;
  }
  function defaults(target, ...sources) {
    for (const source of sources) {
      if (!isObjectLike(source)) continue;
      for (const key of Object.keys(source)) if (target[key] === undefined) target[key] = source[key];
    }
    return target;
  }
  function toNumber(value) {
    if (typeof value === "number") return value;
    if (typeof value === "symbol") return NaN;
    if (isObject(value)) value = String(value.valueOf());
    if (typeof value !== "string") return value === 0 ? value : +value;
    const text = value.trim();
    if (/^[-+]0x[0-9a-f]+$/i.test(text)) return NaN;
    if (/^0b[01]+$/i.test(text)) return parseInt(text.slice(2), 2);
    if (/^0o[0-7]+$/i.test(text)) return parseInt(text.slice(2), 8);
    return +text;
  }
  function toInteger(value) {
    let number = toNumber(value);
    if (number === Infinity || number === -Infinity) number = (number < 0 ? -1 : 1) * Number.MAX_VALUE;
    if (number !== number) return 0;
    return Math.trunc(number);
  }
  function clamp(number, lower, upper) {
    if (upper === undefined) {
      upper = lower;
      lower = undefined;
    }
    const bound = (v) => {
      const n = toNumber(v);
      return n === n ? n : 0;
    };
    if (upper !== undefined) upper = bound(upper);
    if (lower !== undefined) lower = bound(lower);
    let n = toNumber(number);
    if (n === n) {
      if (upper !== undefined) n = n <= upper ? n : upper;
      if (lower !== undefined) n = n >= lower ? n : lower;
    }
    return n;
  }
  function inRange(number, start, end) {
    if (end === undefined) {
      end = start;
      start = 0;
    }
    const n = toNumber(number);
    return n >= Math.min(start, end) && n < Math.max(start, end);
  }
  // Rounding at a precision shifts the exponent in the number's text, so 1.005 rounds to 1.01.
  const rounder = (method) => (number, precision) => {
    const n = toNumber(number);
    const digits = precision === undefined ? 0 : Math.min(toInteger(precision), 292);
    if (!digits || !isFinite(n)) return Math[method](n);
    const [mantissa, exponent = "0"] = String(n).split("e");
    const shifted = Math[method](Number(`${mantissa}e${Number(exponent) + digits}`));
    const [m2, e2 = "0"] = String(shifted).split("e");
    return Number(`${m2}e${Number(e2) - digits}`);
  };
  function pullAt(array, ...indexes) {
    const wanted = flatKeys(indexes);
    const removed = wanted.map((i) => array[i]);
    const order = [...new Set(wanted.map(String))].sort((x, y) => Number(y) - Number(x));
    for (const key of order) {
      if (isIndex(key)) array.splice(Number(key), 1);
      else delete array[key];
    }
    return removed;
  }
  const iteratee = (fn) => {
    if (typeof fn === "function") return fn;
    if (fn === undefined || fn === null) return (v) => v;
    if (isArray(fn)) return (v) => isEqual(get(v, fn[0]), fn[1]);
    if (isObjectLike(fn)) return (v) => Object.keys(fn).every((k) => isEqual(get(v, k), fn[k]));
    return (v) => get(v, fn);
  };
  const collection = (c) => (isArray(c) ? c : isObjectLike(c) ? Object.values(c) : typeof c === "string" ? [...c] : []);
  const numbers = (c, fn) => collection(c).map(iteratee(fn));

  const api = {
    isArray, isObject, isObjectLike, isPlainObject, isNil,
    isNull: (v) => v === null,
    isUndefined: (v) => v === undefined,
    isString: (v) => typeof v === "string",
    isNumber: (v) => typeof v === "number",
    isBoolean: (v) => typeof v === "boolean",
    isFunction: (v) => typeof v === "function",
    isFinite: (v) => typeof v === "number" && isFinite(v),
    isInteger: (v) => Number.isInteger(v),
    isNaN: (v) => typeof v === "number" && v !== v,
    isDate: (v) => v instanceof Date,
    isEmpty: (v) => (isNil(v) ? true : isArray(v) || typeof v === "string" ? v.length === 0 : isObjectLike(v) ? Object.keys(v).length === 0 : true),
    isEqual, toPath, get, has, hasIn, set, unset, update, pick, omit, merge, defaults, clone, cloneDeep,
    assign: Object.assign,
    keys: (o) => (isNil(o) ? [] : Object.keys(Object(o))),
    values: (o) => (isNil(o) ? [] : Object.values(Object(o))),
    entries: (o) => (isNil(o) ? [] : Object.entries(Object(o))),
    toPairs: (o) => (isNil(o) ? [] : Object.entries(Object(o))),
    fromPairs: (pairs) => Object.fromEntries(pairs || []),
    mapValues: (o, fn) => Object.fromEntries(Object.entries(o || {}).map(([k, v]) => [k, iteratee(fn)(v, k, o)])),
    mapKeys: (o, fn) => Object.fromEntries(Object.entries(o || {}).map(([k, v]) => [iteratee(fn)(v, k, o), v])),
    pickBy: (o, fn) => Object.fromEntries(Object.entries(o || {}).filter(([k, v]) => iteratee(fn)(v, k))),
    omitBy: (o, fn) => Object.fromEntries(Object.entries(o || {}).filter(([k, v]) => !iteratee(fn)(v, k))),
    map: (c, fn) => (isArray(c) ? c.map((v, i) => iteratee(fn)(v, i, c)) : Object.entries(c || {}).map(([k, v]) => iteratee(fn)(v, k, c))),
    filter: (c, fn) => collection(c).filter(iteratee(fn)),
    reject: (c, fn) => collection(c).filter((v) => !iteratee(fn)(v)),
    find: (c, fn) => collection(c).find(iteratee(fn)),
    findIndex: (a, fn) => (a || []).findIndex(iteratee(fn)),
    some: (c, fn) => collection(c).some(iteratee(fn)),
    every: (c, fn) => collection(c).every(iteratee(fn)),
    forEach: (c, fn) => (isArray(c) ? c.forEach(fn) : Object.entries(c || {}).forEach(([k, v]) => fn(v, k, c)), c),
    each: (c, fn) => api.forEach(c, fn),
    reduce: (c, fn, init) => (isArray(c) ? c.reduce(fn, init) : Object.entries(c || {}).reduce((acc, [k, v]) => fn(acc, v, k), init)),
    includes: (c, v) => (typeof c === "string" ? c.includes(v) : collection(c).some((item) => item === v || (item !== item && v !== v))),
    size: (c) => collection(c).length,
    uniq: (a) => [...new Set(a || [])],
    uniqBy: (a, fn) => {
      const seen = new Set();
      return (a || []).filter((v) => (seen.has(iteratee(fn)(v)) ? false : (seen.add(iteratee(fn)(v)), true)));
    },
    compact: (a) => (a || []).filter(Boolean),
    flatten: (a) => (a || []).flat(1),
    flattenDeep: (a) => (a || []).flat(Infinity),
    concat: (a, ...rest) => [].concat(a, ...rest),
    union: (...arrays) => [...new Set(arrays.flat(1))],
    difference: (a, ...rest) => (a || []).filter((v) => !rest.flat(1).includes(v)),
    intersection: (a, ...rest) => [...new Set((a || []).filter((v) => rest.every((r) => r.includes(v))))],
    without: (a, ...values) => (a || []).filter((v) => !values.includes(v)),
    pull: (a, ...values) => {
      for (let i = a.length - 1; i >= 0; i--) if (values.includes(a[i])) a.splice(i, 1);
      return a;
    },
    pullAt,
    remove: (a, fn) => {
      const removed = [];
      for (let i = a.length - 1; i >= 0; i--) if (iteratee(fn)(a[i], i, a)) removed.unshift(...a.splice(i, 1));
      return removed;
    },
    chunk: (a, size = 1) => {
      const out = [];
      for (let i = 0; i < (a || []).length; i += Math.max(toInteger(size), 1)) out.push(a.slice(i, i + Math.max(toInteger(size), 1)));
      return out;
    },
    first: (a) => (a && a.length ? a[0] : undefined),
    head: (a) => (a && a.length ? a[0] : undefined),
    last: (a) => (a && a.length ? a[a.length - 1] : undefined),
    nth: (a, n = 0) => (a ? a[n < 0 ? a.length + n : n] : undefined),
    initial: (a) => (a || []).slice(0, -1),
    tail: (a) => (a || []).slice(1),
    take: (a, n = 1) => (a || []).slice(0, Math.max(toInteger(n), 0)),
    takeRight: (a, n = 1) => (toInteger(n) > 0 ? (a || []).slice(-toInteger(n)) : []),
    drop: (a, n = 1) => (a || []).slice(Math.max(toInteger(n), 0)),
    dropRight: (a, n = 1) => (a || []).slice(0, Math.max((a || []).length - Math.max(toInteger(n), 0), 0)),
    reverse: (a) => (a ? a.reverse() : a),
    indexOf: (a, v) => (a || []).indexOf(v),
    sortBy: (c, ...fns) => {
      const keys = flatKeys(fns).map(iteratee);
      if (!keys.length) keys.push((v) => v);
      const compare = (x, y) => (x === y ? 0 : x === undefined ? 1 : y === undefined ? -1 : x > y ? 1 : x < y ? -1 : 0);
      return collection(c)
        .map((v, i) => [v, i])
        .sort((a, b) => keys.reduce((r, k) => r || compare(k(a[0]), k(b[0])), 0) || a[1] - b[1])
        .map(([v]) => v);
    },
    groupBy: (c, fn) => collection(c).reduce((o, v) => ((o[iteratee(fn)(v)] ||= []).push(v), o), {}),
    countBy: (c, fn) => collection(c).reduce((o, v) => ((o[iteratee(fn)(v)] = (o[iteratee(fn)(v)] || 0) + 1), o), {}),
    keyBy: (c, fn) => collection(c).reduce((o, v) => ((o[iteratee(fn)(v)] = v), o), {}),
    range: (start, end, step) => {
      if (end === undefined) [start, end] = [0, start];
      step = step === undefined ? (start < end ? 1 : -1) : step;
      const out = [];
      for (let v = start; step > 0 ? v < end : v > end; v += step || 1) {
        out.push(v);
        if (!step) break;
      }
      return out;
    },
    times: (n, fn) => Array.from({ length: Math.max(toInteger(n), 0) }, (v, i) => (fn ? fn(i) : i)),
    sum: (a) => numbers(a).reduce((s, v) => (v === undefined ? s : s + v), 0),
    sumBy: (a, fn) => numbers(a, fn).reduce((s, v) => (v === undefined ? s : s + v), 0),
    mean: (a) => (collection(a).length ? api.sum(a) / collection(a).length : NaN),
    max: (a) => (collection(a).length ? collection(a).reduce((m, v) => (v > m ? v : m)) : undefined),
    min: (a) => (collection(a).length ? collection(a).reduce((m, v) => (v < m ? v : m)) : undefined),
    maxBy: (a, fn) => collection(a).reduce((m, v) => (m === undefined || iteratee(fn)(v) > iteratee(fn)(m) ? v : m), undefined),
    minBy: (a, fn) => collection(a).reduce((m, v) => (m === undefined || iteratee(fn)(v) < iteratee(fn)(m) ? v : m), undefined),
    add: (a, b) => a + b,
    subtract: (a, b) => a - b,
    clamp, inRange, toNumber, toInteger,
    toFinite: (v) => {
      const n = toNumber(v);
      return n === Infinity || n === -Infinity ? (n < 0 ? -1 : 1) * Number.MAX_VALUE : n === n ? n : 0;
    },
    toString: (v) => (isNil(v) ? "" : String(v)),
    round: rounder("round"),
    floor: rounder("floor"),
    ceil: rounder("ceil"),
    trim: (s, chars) => (chars === undefined ? String(s ?? "").trim() : String(s ?? "").replace(new RegExp(`^[${chars}]+|[${chars}]+$`, "g"), "")),
    startsWith: (s, t, p) => String(s ?? "").startsWith(t, p),
    endsWith: (s, t, p) => String(s ?? "").endsWith(t, p),
    padStart: (s, n, c = " ") => String(s ?? "").padStart(n, c),
    padEnd: (s, n, c = " ") => String(s ?? "").padEnd(n, c),
    repeat: (s, n) => String(s ?? "").repeat(Math.max(toInteger(n), 0)),
    capitalize: (s) => (s ? String(s).charAt(0).toUpperCase() + String(s).slice(1).toLowerCase() : ""),
    identity: (v) => v,
    noop: () => undefined,
    constant: (v) => () => v,
    castArray: (...v) => (v.length ? (isArray(v[0]) ? v[0] : [v[0]]) : []),
  };

  function chain(value) {
    const wrapper = { value: () => value, valueOf: () => value, toJSON: () => value };
    for (const name of Object.keys(api)) wrapper[name] = (...args) => chain(api[name](value, ...args));
    return wrapper;
  }
  return Object.assign(chain, api, { chain });
})();
