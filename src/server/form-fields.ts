/**
 * @module server/form-fields
 * Form fields (`application/x-www-form-urlencoded` and `multipart/form-data`) to the same nested object a JSON body
 * would give, before any schema sees it.
 *
 * Key grammar (documented in docs/http.md):
 * - `name`                              a top-level field;
 * - `name[key]` or `name.key`           a key of an object (brackets keep dots: `capital_gains_reductions[BRK.B:XNYS]`);
 * - `name[0]`, `name.0`                 an element of an array (indexes 0 to {@link MAX_FORM_ARRAY_INDEX}, contiguous);
 * - `name[]`                            appends to an array of values (only as the last segment);
 * - segments chain: `optimized_weights[0][ticker]`, `optimized_weights[0].weight`.
 *
 * Values stay strings (the contract's decimals are strings anyway; routes whose schema wants numbers convert
 * their own fields). A key given twice, a gap in an array, a key used both as a value and as a container, or a
 * segment named `__proto__`, `constructor` or `prototype` is rejected with a `malformed_body` error that names
 * the key.
 */
import { type FieldIssue, ValidationError } from "../core/errors.js";

/** Largest accepted array index in a form key (so arrays hold at most 10,000 elements). */
export const MAX_FORM_ARRAY_INDEX = 9_999;
/** Most segments in one key (`a[b][c]` has 3). */
export const MAX_FORM_KEY_DEPTH = 16;
/** Most fields in one form body. */
export const MAX_FORM_FIELDS = 50_000;

/** Segment names that would reach an object's prototype chain. */
const FORBIDDEN_SEGMENTS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);
const INDEX = /^(0|[1-9][0-9]*)$/;

/** One parsed segment of a key: an object key, an array index, or `[]` (append). */
type Segment = { kind: "key"; name: string } | { kind: "index"; index: number } | { kind: "append" };

/** The tree built from the fields before it becomes plain values. */
type Node =
  | { kind: "value"; value: string; key: string }
  | { kind: "object"; children: Map<string, Node>; key: string }
  | { kind: "array"; children: Map<number, Node>; key: string }
  | { kind: "list"; values: string[]; key: string };

/** A `malformed_body` error with one issue per offending key. */
export function malformedBody(message: string, issues: FieldIssue[] = []): ValidationError {
  return new ValidationError(message, issues, "malformed_body");
}

/** Splits a key into segments. Returns a message instead when the key is not well formed. */
export function parseFormKey(key: string): Segment[] | string {
  const segments: Segment[] = [];
  let i = 0;
  const head = /^[^[\].]+/.exec(key);
  if (!head) return "a field name must start with a name (not '[', ']' or '.')";
  const pushName = (name: string, bracketed: boolean): string | undefined => {
    if (FORBIDDEN_SEGMENTS.has(name)) return `the segment "${name}" is not allowed`;
    if (INDEX.test(name)) {
      const index = Number(name);
      if (index > MAX_FORM_ARRAY_INDEX)
        return `array index ${name} is above the limit of ${MAX_FORM_ARRAY_INDEX}`;
      segments.push({ kind: "index", index });
    } else if (/^[0-9]+$/.test(name)) return `array index ${name} has a leading zero`;
    else if (name === "" && !bracketed) return "empty segment";
    else segments.push({ kind: "key", name });
    return undefined;
  };
  const first = head[0];
  if (FORBIDDEN_SEGMENTS.has(first)) return `the segment "${first}" is not allowed`;
  segments.push({ kind: "key", name: first });
  i = first.length;
  while (i < key.length) {
    const ch = key[i];
    if (ch === "[") {
      const close = key.indexOf("]", i + 1);
      if (close < 0) return "unclosed '['";
      const inner = key.slice(i + 1, close);
      if (inner.includes("[")) return "'[' inside brackets";
      if (inner === "") {
        if (close !== key.length - 1) return "'[]' (append) is only allowed at the end of a key";
        segments.push({ kind: "append" });
      } else {
        const err = pushName(inner, true);
        if (err) return err;
      }
      i = close + 1;
    } else if (ch === ".") {
      const m = /^[^[\].]*/.exec(key.slice(i + 1))![0];
      if (m === "") return "empty segment after '.'";
      const err = pushName(m, false);
      if (err) return err;
      i += 1 + m.length;
    } else return `unexpected '${ch}' at offset ${i}`;
    if (segments.length > MAX_FORM_KEY_DEPTH)
      return `more than ${MAX_FORM_KEY_DEPTH} segments (nesting is limited)`;
  }
  return segments;
}

function describeNode(node: Node): string {
  return node.kind === "value" ? "a value" : node.kind === "list" ? "a '[]' list" : `an ${node.kind}`;
}

/**
 * Builds the nested object of a form from its fields, in order.
 * @throws {ValidationError} code `malformed_body`, one issue per offending key.
 * @example formFieldsToObject([["optimized_weights[0][ticker]", "AAPL"], ["optimized_weights[0][weight]", "1"]])
 *   // { optimized_weights: [{ ticker: "AAPL", weight: "1" }] }
 */
export function formFieldsToObject(fields: Iterable<readonly [string, string]>): Record<string, unknown> {
  const root: Node = { kind: "object", children: new Map(), key: "" };
  const issues: FieldIssue[] = [];
  let count = 0;
  for (const [key, value] of fields) {
    if (++count > MAX_FORM_FIELDS) throw malformedBody(`The form has more than ${MAX_FORM_FIELDS} fields.`);
    const segments = parseFormKey(key);
    if (typeof segments === "string") {
      issues.push({ path: key, message: `malformed field name: ${segments}` });
      continue;
    }
    const problem = insert(root, segments, value);
    if (problem) issues.push({ path: key, message: problem });
  }
  if (issues.length === 0) {
    const out = toPlain(root, issues);
    if (issues.length === 0) return out as Record<string, unknown>;
  }
  throw malformedBody(
    `The form body has ${issues.length} malformed field(s): ${issues
      .slice(0, 3)
      .map((i) => `${i.path}: ${i.message}`)
      .join("; ")}${issues.length > 3 ? "; ..." : ""}`,
    issues,
  );
}

/** Inserts one field; returns a message when it conflicts with earlier fields. */
function insert(root: Node, segments: Segment[], value: string): string | undefined {
  let node = root;
  let path = "";
  for (let s = 0; s < segments.length; s++) {
    const seg = segments[s]!;
    const next = segments[s + 1];
    // The first segment is a name and containers are created with the kind their next segment asks for, so
    // a name always addresses an object and an index an array here.
    let slot: string | number;
    if (seg.kind === "key") {
      slot = seg.name;
      path = path === "" ? seg.name : `${path}[${seg.name}]`;
    } else if (seg.kind === "index") {
      slot = seg.index;
      path = `${path}[${seg.index}]`;
    } else return "'[]' (append) is only allowed at the end of a key";
    const children = (node as { children: Map<string | number, Node> }).children;
    const existing = children.get(slot);
    if (next === undefined) {
      if (!existing) {
        children.set(slot, { kind: "value", value, key: path });
        return undefined;
      }
      return existing.kind === "value"
        ? "the field is given twice"
        : `conflicts with ${path} given as ${describeNode(existing)}`;
    }
    if (next.kind === "append") {
      if (!existing) children.set(slot, { kind: "list", values: [value], key: path });
      else if (existing.kind === "list") existing.values.push(value);
      else return `conflicts with ${path} given as ${describeNode(existing)}`;
      return undefined;
    }
    const want = next.kind === "index" ? "array" : "object";
    if (!existing) {
      const created: Node =
        want === "array"
          ? { kind: "array", children: new Map(), key: path }
          : { kind: "object", children: new Map(), key: path };
      children.set(slot, created);
      node = created;
    } else if (existing.kind === want) node = existing;
    else return `conflicts with ${path} given as ${describeNode(existing)}`;
  }
  return undefined;
}

/** Converts the tree to plain values, checking that arrays have no gaps. */
function toPlain(node: Node, issues: FieldIssue[]): unknown {
  switch (node.kind) {
    case "value":
      return node.value;
    case "list":
      return [...node.values];
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [k, child] of node.children) out[k] = toPlain(child, issues);
      return out;
    }
    case "array": {
      const n = node.children.size;
      const out: unknown[] = new Array(n);
      for (let i = 0; i < n; i++) {
        const child = node.children.get(i);
        if (!child) {
          const max = Math.max(...node.children.keys());
          issues.push({
            path: node.key,
            message: `array indexes must be contiguous from 0: index ${i} is missing (highest is ${max})`,
          });
          return out;
        }
        out[i] = toPlain(child, issues);
      }
      return out;
    }
  }
}
