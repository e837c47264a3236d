// Pear Garden's own small zod (the `z` a TavernHelper script sees), written for the schema sandbox
// (variables/zod_schema.py).  It covers the part of zod 4's API that MVU schema scripts use and
// follows zod 4's documented parsing rules:
//   - z.object strips unknown keys (z.looseObject keeps them after the shape's keys, z.strictObject
//     refuses them); the output lists the shape's keys in the shape's order; a key whose value
//     parses to undefined is written only when the input had it;
//   - .default(v) answers v for undefined without parsing it, .prefault(v) parses v instead;
//   - z.coerce.number() is Number(input) first; numbers must be finite (NaN and Infinity refused);
//   - .transform(fn) and .pipe() run only on input that parsed without issues;
//   - z.record(z.string(), V) keeps the input's keys in JavaScript's order;
//   - .refine() / checks keep the schema's class (a refined z.object is still a ZodObject).
// A failed parse gives issues {code, message, path, input} and error messages in zod 4's words.
"use strict";
var z = (function () {
  const received = (v) =>
    v === undefined ? "undefined" : v === null ? "null" : Array.isArray(v) ? "array"
      : typeof v === "number" ? (v !== v ? "NaN" : isFinite(v) ? "number" : "Infinity")
        : v instanceof Date ? "date" : typeof v;
  const isPlain = (v) => v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date);
  const text = (v) => (typeof v === "string" ? JSON.stringify(v) : String(v));
  const message = (params, fallback) => {
    if (typeof params === "string") return params;
    if (params && typeof params.message === "string") return params.message;
    if (params && typeof params.error === "string") return params.error;
    if (params && typeof params.error === "function") return params.error() || fallback;
    return fallback;
  };
  const NEVER = Object.freeze({ status: "aborted" });

  class ZodError extends Error {
    constructor(issues) {
      super(JSON.stringify(issues, null, 2));
      this.name = "ZodError";
      this.issues = issues;
    }
    get errors() { return this.issues; }
    flatten() {
      const fieldErrors = {};
      const formErrors = [];
      for (const issue of this.issues) {
        if (issue.path.length) (fieldErrors[issue.path[0]] ||= []).push(issue.message);
        else formErrors.push(issue.message);
      }
      return { formErrors, fieldErrors };
    }
  }

  const add = (issues, path, issue) => issues.push({ ...issue, path: [...path, ...(issue.path || [])] });
  const invalidType = (issues, path, expected, input) =>
    add(issues, path, { code: "invalid_type", expected, input, message: `Invalid input: expected ${expected}, received ${received(input)}` });

  class ZodType {
    constructor(def) {
      this.def = def;
      this._def = def;
      this.description = def.description;
    }
    _with(extra) { return new this.constructor({ ...this.def, ...extra }); }
    _check(fn) { return this._with({ checks: [...(this.def.checks || []), fn] }); }
    // One value through the schema: the output, with any issues pushed (paths from the root).
    _run(value, issues, path) {
      const before = issues.length;
      let out = this._parse(value, issues, path);
      if (issues.length === before) for (const check of this.def.checks || []) out = check(out, issues, path);
      return out;
    }
    safeParse(value) {
      const issues = [];
      const data = this._run(value, issues, []);
      return issues.length ? { success: false, error: new ZodError(issues) } : { success: true, data };
    }
    parse(value) {
      const result = this.safeParse(value);
      if (!result.success) throw result.error;
      return result.data;
    }
    safeParseAsync(value) { return Promise.resolve(this.safeParse(value)); }
    parseAsync(value) { return new Promise((resolve) => resolve(this.parse(value))); }
    spa(value) { return this.safeParseAsync(value); }
    optional() { return new ZodOptional({ inner: this }); }
    exactOptional() { return new ZodOptional({ inner: this }); }
    nullable() { return new ZodNullable({ inner: this }); }
    nullish() { return this.nullable().optional(); }
    nonoptional() { return new ZodNonOptional({ inner: this }); }
    default(value) { return new ZodDefault({ inner: this, value }); }
    prefault(value) { return new ZodPrefault({ inner: this, value }); }
    catch(value) { return new ZodCatch({ inner: this, value }); }
    transform(fn) { return new ZodPipe({ in: this, out: new ZodTransform({ fn }) }); }
    pipe(next) { return new ZodPipe({ in: this, out: next }); }
    overwrite(fn) { return this._check((v) => fn(v)); }
    refine(fn, params) {
      return this._check((v, issues, path) => {
        if (!fn(v)) add(issues, path, { code: "custom", input: v, message: message(params, "Invalid input"), path: (params && params.path) || [] });
        return v;
      });
    }
    superRefine(fn) {
      return this._check((v, issues, path) => {
        fn(v, refinementContext(v, issues, path));
        return v;
      });
    }
    check(...fns) {
      return fns.reduce((schema, fn) => (typeof fn === "function" ? schema.superRefine((v, ctx) => fn({ value: v, issues: ctx.issues, addIssue: ctx.addIssue })) : schema), this);
    }
    describe(description) { return this._with({ description }); }
    meta(data) { return data === undefined ? {} : this._with({ meta: data }); }
    brand() { return this; }
    readonly() { return this; }
    array() { return new ZodArray({ element: this }); }
    or(other) { return new ZodUnion({ options: [this, other] }); }
    and(other) { return new ZodIntersection({ left: this, right: other }); }
    isOptional() { return this.safeParse(undefined).success; }
    isNullable() { return this.safeParse(null).success; }
    clone(def) { return new this.constructor({ ...this.def, ...(def || {}) }); }
  }

  function refinementContext(value, issues, path) {
    return {
      value,
      issues,
      addIssue(issue) {
        const given = typeof issue === "string" ? { message: issue } : issue || {};
        add(issues, path, { code: given.code || "custom", input: value, message: given.message || "Invalid input", path: given.path || [] });
      },
    };
  }

  // --- primitives --------------------------------------------------------------------------------
  const sizeCheck = (what, unit, measure) => (op, limit, params) => (v, issues, path) => {
    const size = measure(v);
    const ok = op === ">=" ? size >= limit : op === "<=" ? size <= limit : op === ">" ? size > limit : op === "<" ? size < limit : size === limit;
    if (!ok) {
      const big = op === "<=" || op === "<" || (op === "==" && size > limit);
      const bound = op === "==" ? "" : op;
      add(issues, path, {
        code: big ? "too_big" : "too_small",
        input: v,
        message: message(params, `Too ${big ? "big" : "small"}: expected ${what} to ${unit ? `have ${bound}${limit} ${unit}` : `be ${bound}${limit}`}`),
      });
    }
    return v;
  };
  const stringSize = sizeCheck("string", "characters", (v) => v.length);
  const arraySize = sizeCheck("array", "items", (v) => v.length);
  const numberSize = sizeCheck("number", "", (v) => v);

  class ZodString extends ZodType {
    _parse(v, issues, path) {
      if (this.def.coerce) try { v = String(v); } catch (e) { /* left as it is */ }
      if (typeof v !== "string") invalidType(issues, path, "string", v);
      return v;
    }
    min(n, p) { return this._check(stringSize(">=", n, p)); }
    max(n, p) { return this._check(stringSize("<=", n, p)); }
    length(n, p) { return this._check(stringSize("==", n, p)); }
    nonempty(p) { return this.min(1, p); }
    _pattern(test, format, p) {
      return this._check((v, issues, path) => {
        if (!test(v)) add(issues, path, { code: "invalid_format", format, input: v, message: message(p, `Invalid ${format}`) });
        return v;
      });
    }
    regex(re, p) { return this._pattern((v) => { re.lastIndex = 0; return re.test(v); }, "string", p || `Invalid string: must match pattern ${re}`); }
    startsWith(s, p) { return this._pattern((v) => v.startsWith(s), "string", p || `Invalid string: must start with "${s}"`); }
    endsWith(s, p) { return this._pattern((v) => v.endsWith(s), "string", p || `Invalid string: must end with "${s}"`); }
    includes(s, p) { return this._pattern((v) => v.includes(s), "string", p || `Invalid string: must include "${s}"`); }
    email(p) { return this._pattern((v) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v), "email", p || "Invalid email address"); }
    url(p) { return this._pattern((v) => /^[a-z][a-z\d+.-]*:\/\/\S+$/i.test(v), "url", p || "Invalid URL"); }
    uuid(p) { return this._pattern((v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v), "uuid", p || "Invalid UUID"); }
    datetime(p) { return this._pattern((v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/.test(v), "datetime", p || "Invalid ISO datetime"); }
    date(p) { return this._pattern((v) => /^\d{4}-\d{2}-\d{2}$/.test(v), "date", p || "Invalid ISO date"); }
    time(p) { return this._pattern((v) => /^\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/.test(v), "time", p || "Invalid ISO time"); }
    ipv4(p) { return this._pattern((v) => /^(?:\d{1,3}\.){3}\d{1,3}$/.test(v), "ipv4", p || "Invalid IPv4 address"); }
    emoji() { return this; }
    cuid() { return this; }
    cuid2() { return this; }
    ulid() { return this; }
    nanoid() { return this; }
    base64() { return this; }
    hex() { return this; }
    normalize(form) { return this.overwrite((v) => v.normalize(form)); }
    trim() { return this.overwrite((v) => v.trim()); }
    toLowerCase() { return this.overwrite((v) => v.toLowerCase()); }
    toUpperCase() { return this.overwrite((v) => v.toUpperCase()); }
  }

  class ZodNumber extends ZodType {
    _parse(v, issues, path) {
      if (this.def.coerce) try { v = Number(v); } catch (e) { /* left as it is */ }
      if (typeof v !== "number" || v !== v || !isFinite(v)) invalidType(issues, path, "number", v);
      return v;
    }
    min(n, p) { return this._check(numberSize(">=", n, p)); }
    gte(n, p) { return this.min(n, p); }
    max(n, p) { return this._check(numberSize("<=", n, p)); }
    lte(n, p) { return this.max(n, p); }
    gt(n, p) { return this._check(numberSize(">", n, p)); }
    lt(n, p) { return this._check(numberSize("<", n, p)); }
    positive(p) { return this.gt(0, p); }
    nonnegative(p) { return this.min(0, p); }
    negative(p) { return this.lt(0, p); }
    nonpositive(p) { return this.max(0, p); }
    int(p) {
      return this._check((v, issues, path) => {
        if (!Number.isSafeInteger(v)) add(issues, path, { code: "invalid_type", expected: "int", input: v, message: message(p, "Invalid input: expected int, received number") });
        return v;
      });
    }
    safe(p) { return this.int(p); }
    finite() { return this; }
    multipleOf(n, p) {
      return this._check((v, issues, path) => {
        const ratio = v / n;
        if (Math.abs(ratio - Math.round(ratio)) > 1e-9) add(issues, path, { code: "not_multiple_of", input: v, message: message(p, `Invalid number: must be a multiple of ${n}`) });
        return v;
      });
    }
    step(n, p) { return this.multipleOf(n, p); }
  }

  class ZodBoolean extends ZodType {
    _parse(v, issues, path) {
      if (this.def.coerce) v = Boolean(v);
      if (typeof v !== "boolean") invalidType(issues, path, "boolean", v);
      return v;
    }
  }

  class ZodDate extends ZodType {
    _parse(v, issues, path) {
      if (this.def.coerce) try { v = new Date(v); } catch (e) { /* left as it is */ }
      if (!(v instanceof Date) || isNaN(v.getTime())) invalidType(issues, path, "date", v);
      return v;
    }
  }

  class ZodBigInt extends ZodType {
    _parse(v, issues, path) {
      if (this.def.coerce) try { v = BigInt(v); } catch (e) { /* left as it is */ }
      if (typeof v !== "bigint") invalidType(issues, path, "bigint", v);
      return v;
    }
  }

  const exact = (expected, test) =>
    class extends ZodType {
      _parse(v, issues, path) {
        if (!test(v)) invalidType(issues, path, expected, v);
        return v;
      }
    };
  const ZodNull = exact("null", (v) => v === null);
  const ZodUndefined = exact("undefined", (v) => v === undefined);
  const ZodVoid = exact("void", (v) => v === undefined);
  const ZodNever = exact("never", () => false);
  class ZodAny extends ZodType { _parse(v) { return v; } }
  class ZodUnknown extends ZodType { _parse(v) { return v; } }

  class ZodLiteral extends ZodType {
    get value() { return this.def.values[0]; }
    get values() { return new Set(this.def.values); }
    _parse(v, issues, path) {
      if (!this.def.values.some((x) => x === v || (x !== x && v !== v))) {
        const one = this.def.values.length === 1;
        add(issues, path, {
          code: "invalid_value", values: this.def.values, input: v,
          message: one ? `Invalid input: expected ${text(this.def.values[0])}` : `Invalid option: expected one of ${this.def.values.map(text).join("|")}`,
        });
      }
      return v;
    }
  }

  class ZodEnum extends ZodType {
    get options() { return Object.values(this.def.entries); }
    get enum() { return { ...this.def.entries }; }
    get Enum() { return this.enum; }
    get Values() { return this.enum; }
    _parse(v, issues, path) {
      const values = this.options;
      if (!values.includes(v)) {
        add(issues, path, { code: "invalid_value", values, input: v, message: message(this.def.params, `Invalid option: expected one of ${values.map(text).join("|")}`) });
      }
      return v;
    }
    extract(values, params) { return makeEnum(this.options.filter((x) => values.includes(x)), params); }
    exclude(values, params) { return makeEnum(this.options.filter((x) => !values.includes(x)), params); }
  }
  function makeEnum(values, params) {
    const entries = Array.isArray(values) ? Object.fromEntries(values.map((x) => [x, x])) : { ...values };
    return new ZodEnum({ entries, params });
  }

  // --- containers --------------------------------------------------------------------------------
  class ZodArray extends ZodType {
    get element() { return this.def.element; }
    unwrap() { return this.def.element; }
    _parse(v, issues, path) {
      if (!Array.isArray(v)) {
        invalidType(issues, path, "array", v);
        return v;
      }
      return v.map((item, i) => this.def.element._run(item, issues, [...path, i]));
    }
    min(n, p) { return this._check(arraySize(">=", n, p)); }
    max(n, p) { return this._check(arraySize("<=", n, p)); }
    length(n, p) { return this._check(arraySize("==", n, p)); }
    nonempty(p) { return this.min(1, p); }
  }

  class ZodTuple extends ZodType {
    _parse(v, issues, path) {
      if (!Array.isArray(v)) {
        invalidType(issues, path, "tuple", v);
        return v;
      }
      const items = this.def.items;
      if (!this.def.rest && v.length > items.length) add(issues, path, { code: "too_big", input: v, message: `Too big: expected array to have <=${items.length} items` });
      const out = items.map((item, i) => item._run(v[i], issues, [...path, i]));
      if (this.def.rest) for (let i = items.length; i < v.length; i++) out.push(this.def.rest._run(v[i], issues, [...path, i]));
      return out;
    }
    rest(schema) { return this._with({ rest: schema }); }
  }

  class ZodObject extends ZodType {
    get shape() { return this.def.shape; }
    _parse(v, issues, path) {
      if (!isPlain(v)) {
        invalidType(issues, path, "object", v);
        return v;
      }
      const out = {};
      const shape = this.def.shape;
      for (const key of Object.keys(shape)) {
        const value = shape[key]._run(v[key], issues, [...path, key]);
        if (value !== undefined) out[key] = value;
        else if (key in v) out[key] = undefined;
      }
      const extra = this.def.catchall;
      if (extra === "strip" || extra === undefined) return out;
      const unknown = Object.keys(v).filter((key) => !Object.prototype.hasOwnProperty.call(shape, key));
      if (extra === "strict") {
        if (unknown.length) add(issues, path, { code: "unrecognized_keys", keys: unknown, input: v, message: `Unrecognized key${unknown.length > 1 ? "s" : ""}: ${unknown.map(text).join(", ")}` });
      } else {
        for (const key of unknown) out[key] = extra === "loose" ? v[key] : extra._run(v[key], issues, [...path, key]);
      }
      return out;
    }
    extend(shape) { return this._with({ shape: { ...this.def.shape, ...shape }, checks: [] }); }
    safeExtend(shape) { return this.extend(shape); }
    merge(other) { return this._with({ shape: { ...this.def.shape, ...other.def.shape }, catchall: other.def.catchall, checks: [] }); }
    pick(mask) { return this._with({ shape: Object.fromEntries(Object.entries(this.def.shape).filter(([k]) => mask[k])), checks: [] }); }
    omit(mask) { return this._with({ shape: Object.fromEntries(Object.entries(this.def.shape).filter(([k]) => !mask[k])), checks: [] }); }
    partial(mask) {
      const shape = Object.fromEntries(Object.entries(this.def.shape).map(([k, s]) => [k, !mask || mask[k] ? s.optional() : s]));
      return this._with({ shape, checks: [] });
    }
    required(mask) {
      const shape = Object.fromEntries(Object.entries(this.def.shape).map(([k, s]) => [k, !mask || mask[k] ? s.nonoptional() : s]));
      return this._with({ shape, checks: [] });
    }
    strict() { return this._with({ catchall: "strict" }); }
    strip() { return this._with({ catchall: "strip" }); }
    passthrough() { return this._with({ catchall: "loose" }); }
    loose() { return this._with({ catchall: "loose" }); }
    catchall(schema) { return this._with({ catchall: schema }); }
    keyof() { return makeEnum(Object.keys(this.def.shape)); }
  }

  class ZodRecord extends ZodType {
    get keyType() { return this.def.key; }
    get valueType() { return this.def.value; }
    _parse(v, issues, path) {
      if (!isPlain(v)) {
        invalidType(issues, path, "record", v);
        return v;
      }
      const out = {};
      const keys = this.def.key instanceof ZodEnum && !this.def.partial ? this.def.key.options : null;
      if (keys) {
        for (const key of keys) {
          const value = this.def.value._run(v[key], issues, [...path, key]);
          if (value !== undefined || key in v) out[key] = value;
        }
        const unknown = Object.keys(v).filter((key) => !keys.includes(key));
        if (unknown.length) add(issues, path, { code: "unrecognized_keys", keys: unknown, input: v, message: `Unrecognized key${unknown.length > 1 ? "s" : ""}: ${unknown.map(text).join(", ")}` });
        return out;
      }
      for (const key of Object.keys(v)) {
        if (key === "__proto__") continue;
        const keyIssues = [];
        const name = this.def.key._run(key, keyIssues, []);
        if (keyIssues.length) {
          add(issues, path, { code: "invalid_key", origin: "record", issues: keyIssues, input: key, path: [key], message: "Invalid key in record" });
          continue;
        }
        out[name] = this.def.value._run(v[key], issues, [...path, key]);
      }
      return out;
    }
  }

  class ZodUnion extends ZodType {
    get options() { return this.def.options; }
    _parse(v, issues, path) {
      const failures = [];
      for (const option of this.def.options) {
        const mine = [];
        const out = option._run(v, mine, path);
        if (!mine.length) return out;
        failures.push(mine);
      }
      add(issues, path, { code: "invalid_union", errors: failures, input: v, message: "Invalid input" });
      return v;
    }
  }

  class ZodIntersection extends ZodType {
    _parse(v, issues, path) {
      const left = this.def.left._run(v, issues, path);
      const right = this.def.right._run(v, issues, path);
      return isPlain(left) && isPlain(right) ? { ...left, ...right } : right;
    }
  }

  // --- wrappers ----------------------------------------------------------------------------------
  class ZodOptional extends ZodType {
    unwrap() { return this.def.inner; }
    _parse(v, issues, path) { return v === undefined ? undefined : this.def.inner._run(v, issues, path); }
  }
  class ZodNonOptional extends ZodType {
    unwrap() { return this.def.inner; }
    _parse(v, issues, path) {
      if (v === undefined) {
        invalidType(issues, path, "nonoptional", v);
        return v;
      }
      return this.def.inner._run(v, issues, path);
    }
  }
  class ZodNullable extends ZodType {
    unwrap() { return this.def.inner; }
    _parse(v, issues, path) { return v === null ? null : this.def.inner._run(v, issues, path); }
  }
  const copy = (value) => (Array.isArray(value) ? value.slice() : isPlain(value) ? { ...value } : value);
  const given = (value) => (typeof value === "function" ? value() : copy(value));
  class ZodDefault extends ZodType {
    unwrap() { return this.def.inner; }
    removeDefault() { return this.def.inner; }
    _parse(v, issues, path) { return v === undefined ? given(this.def.value) : this.def.inner._run(v, issues, path); }
  }
  class ZodPrefault extends ZodType {
    unwrap() { return this.def.inner; }
    _parse(v, issues, path) { return this.def.inner._run(v === undefined ? given(this.def.value) : v, issues, path); }
  }
  class ZodCatch extends ZodType {
    unwrap() { return this.def.inner; }
    removeCatch() { return this.def.inner; }
    _parse(v, issues, path) {
      const mine = [];
      const out = this.def.inner._run(v, mine, path);
      if (!mine.length) return out;
      const fallback = this.def.value;
      return typeof fallback === "function" ? fallback({ error: new ZodError(mine), input: v, issues: mine }) : fallback;
    }
  }
  class ZodTransform extends ZodType {
    _parse(v, issues, path) {
      const out = this.def.fn(v, refinementContext(v, issues, path));
      if (out instanceof Promise) throw new Error("asynchronous transforms are not supported here");
      return out === NEVER ? v : out;
    }
  }
  class ZodPipe extends ZodType {
    get in() { return this.def.in; }
    get out() { return this.def.out; }
    _parse(v, issues, path) {
      const before = issues.length;
      const middle = this.def.in._run(v, issues, path);
      return issues.length === before ? this.def.out._run(middle, issues, path) : middle;
    }
  }
  class ZodLazy extends ZodType {
    get schema() { return this.def.getter(); }
    _parse(v, issues, path) { return this.def.getter()._run(v, issues, path); }
  }
  class ZodCustom extends ZodType {
    _parse(v, issues, path) {
      if (this.def.fn && !this.def.fn(v)) add(issues, path, { code: "custom", input: v, message: message(this.def.params, "Invalid input") });
      return v;
    }
  }

  const object = (shape, catchall) => new ZodObject({ shape: { ...(shape || {}) }, catchall });
  const coerce = {
    string: () => new ZodString({ coerce: true }),
    number: () => new ZodNumber({ coerce: true }),
    boolean: () => new ZodBoolean({ coerce: true }),
    date: () => new ZodDate({ coerce: true }),
    bigint: () => new ZodBigInt({ coerce: true }),
  };

  function prettifyError(error) {
    const issues = [...(error.issues || [])].sort((a, b) => (a.path || []).length - (b.path || []).length);
    return issues
      .map((issue) => {
        const where = issue.path && issue.path.length ? `\n  → at ${issue.path.map((p) => (typeof p === "number" ? `[${p}]` : /^[A-Za-z_$][\w$]*$/.test(p) ? p : `[${JSON.stringify(p)}]`)).join(".").replace(/\.\[/g, "[")}` : "";
        return `✖ ${issue.message}${where}`;
      })
      .join("\n");
  }

  return {
    ZodType, ZodError, ZodString, ZodNumber, ZodBoolean, ZodDate, ZodBigInt, ZodNull, ZodUndefined, ZodVoid,
    ZodNever, ZodAny, ZodUnknown, ZodLiteral, ZodEnum, ZodArray, ZodTuple, ZodObject, ZodRecord, ZodUnion,
    ZodDiscriminatedUnion: ZodUnion, ZodIntersection, ZodOptional, ZodNonOptional, ZodNullable, ZodDefault,
    ZodPrefault, ZodCatch, ZodTransform, ZodPipe, ZodLazy, ZodCustom, NEVER,
    string: (p) => new ZodString({ params: p }),
    number: (p) => new ZodNumber({ params: p }),
    int: (p) => new ZodNumber({ params: p }).int(),
    boolean: (p) => new ZodBoolean({ params: p }),
    date: (p) => new ZodDate({ params: p }),
    bigint: (p) => new ZodBigInt({ params: p }),
    null: () => new ZodNull({}),
    undefined: () => new ZodUndefined({}),
    void: () => new ZodVoid({}),
    never: () => new ZodNever({}),
    any: () => new ZodAny({}),
    unknown: () => new ZodUnknown({}),
    literal: (value) => new ZodLiteral({ values: Array.isArray(value) ? value : [value] }),
    enum: makeEnum,
    nativeEnum: (values) => makeEnum(Object.fromEntries(Object.entries(values).filter(([k]) => isNaN(Number(k))))),
    array: (element) => new ZodArray({ element }),
    tuple: (items, rest) => new ZodTuple({ items, rest }),
    object: (shape) => object(shape, "strip"),
    looseObject: (shape) => object(shape, "loose"),
    strictObject: (shape) => object(shape, "strict"),
    record: (key, value) => (value === undefined ? new ZodRecord({ key: new ZodString({}), value: key }) : new ZodRecord({ key, value })),
    partialRecord: (key, value) => new ZodRecord({ key, value, partial: true }),
    union: (options) => new ZodUnion({ options }),
    discriminatedUnion: (key, options) => new ZodUnion({ options: Array.isArray(key) ? key : options }),
    intersection: (left, right) => new ZodIntersection({ left, right }),
    optional: (inner) => inner.optional(),
    nullable: (inner) => inner.nullable(),
    lazy: (getter) => new ZodLazy({ getter }),
    custom: (fn, params) => new ZodCustom({ fn, params }),
    preprocess: (fn, schema) => new ZodPipe({ in: new ZodTransform({ fn }), out: schema }),
    transform: (fn) => new ZodTransform({ fn }),
    stringbool: () => new ZodPipe({
      in: new ZodString({}),
      out: new ZodTransform({
        fn: (v, ctx) => {
          const word = v.trim().toLowerCase();
          if (["true", "1", "yes", "on", "y", "enabled"].includes(word)) return true;
          if (["false", "0", "no", "off", "n", "disabled"].includes(word)) return false;
          ctx.addIssue({ code: "invalid_value", message: "Invalid input: expected a boolean word" });
          return NEVER;
        },
      }),
    }),
    coerce,
    email: (p) => new ZodString({}).email(p),
    url: (p) => new ZodString({}).url(p),
    uuid: (p) => new ZodString({}).uuid(p),
    iso: {
      datetime: (p) => new ZodString({}).datetime(p),
      date: (p) => new ZodString({}).date(p),
      time: (p) => new ZodString({}).time(p),
    },
    nan: () => new ZodCustom({ fn: (v) => typeof v === "number" && v !== v }),
    symbol: () => new ZodCustom({ fn: (v) => typeof v === "symbol" }),
    instanceof: (cls, params) => new ZodCustom({ fn: (v) => v instanceof cls, params }),
    json: () => new ZodAny({}),
    function: () => new ZodCustom({ fn: (v) => typeof v === "function" }),
    prettifyError,
    treeifyError: (error) => ({ errors: error.issues.map((i) => i.message) }),
    flattenError: (error) => error.flatten(),
  };
})();
