/**
 * @module server/body
 * The shared body parser: reads a request body within the size limit and turns JSON, form-urlencoded and multipart
 * bodies into the same plain value before any schema validates it (form keys use the bracket notation of
 * {@link formFieldsToObject}). Routes say which encodings they accept; anything else is a 415.
 */
import { formatIssuePath } from "../contract/index.js";
import { type FieldIssue, ValidationError } from "../core/errors.js";
import type { BodyEncoding, FormFile, UploadSpec } from "../service/index.js";
import { formFieldsToObject, malformedBody } from "./form-fields.js";
import { HttpError } from "./http-error.js";

/** A body encoding a route may accept; a raw upload a route streams itself (a CSV file): media types and limits. */
export type { BodyEncoding, UploadSpec };

/** Media type of each encoding. */
export const MEDIA_TYPES: Readonly<Record<BodyEncoding, string>> = {
  json: "application/json",
  form: "application/x-www-form-urlencoded",
  multipart: "multipart/form-data",
};

/** Default body size limit: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Options of {@link readBody}. */
export interface ReadBodyOptions {
  /** Encodings the route accepts. */
  accept: readonly BodyEncoding[];
  /** Largest body accepted, in bytes. @default DEFAULT_MAX_BODY_BYTES */
  maxBytes?: number;
  /** Names of the file parts a multipart body may carry (read as UTF-8 text); any other file part is refused. */
  files?: readonly string[];
}

/** A parsed body and how it was encoded. */
export interface ParsedBody {
  value: unknown;
  encoding: BodyEncoding;
  /** The accepted file parts of a multipart body, by part name (empty for other encodings). */
  files: Record<string, FormFile>;
}

/** Media type (lower case, no parameters) and parameters of a Content-Type header. */
export function parseContentType(header: string): { mediaType: string; params: Map<string, string> } {
  const [type = "", ...rest] = header.split(";");
  const params = new Map<string, string>();
  for (const p of rest) {
    const eq = p.indexOf("=");
    if (eq < 0) continue;
    let v = p.slice(eq + 1).trim();
    if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) v = v.slice(1, -1);
    params.set(p.slice(0, eq).trim().toLowerCase(), v);
  }
  return { mediaType: type.trim().toLowerCase(), params };
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

function tooLarge(maxBytes: number, size?: number): HttpError {
  return new HttpError(
    "payload_too_large",
    `The request body ${size === undefined ? "is larger than" : `has ${size} bytes; more than`} the limit of ${formatBytes(maxBytes)}.`,
  );
}

/** Reads the raw bytes of a body, stopping as soon as they pass `maxBytes`. @throws {HttpError} 413 */
export async function readBodyBytes(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > maxBytes)
    throw tooLarge(maxBytes, Number(declared));
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      // Stop reading: the rest of an oversized upload is never buffered.
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw malformedBody("The request body is not valid UTF-8 text.");
  }
}

/** True when a parsed JSON value has an own `__proto__` key anywhere (it would pollute prototypes if merged). */
function hasProtoKey(value: unknown): boolean {
  if (value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return value.some(hasProtoKey);
  for (const k of Object.keys(value)) {
    if (k === "__proto__") return true;
    if (hasProtoKey((value as Record<string, unknown>)[k])) return true;
  }
  return false;
}

/**
 * Deepest nesting of arrays and objects a JSON body may have. The validation and serialization that follow the
 * parse recurse once per level; thousands of levels (10 KB of brackets) would exhaust the stack and end as a 500.
 * No operation's shape goes deeper than a few levels; free-form `metadata` gets the rest.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Position (0-based) of the first `[` or `{` that opens level `maxDepth + 1` of `text`, outside strings; -1 when the
 * nesting stays within `maxDepth`. A linear scan without recursion, run before JSON.parse.
 */
export function jsonDepthExcess(text: string, maxDepth = MAX_JSON_DEPTH): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return -1;
}

/**
 * The first key that an object of the (valid) JSON `text` repeats, with the position of its second occurrence;
 * undefined when none does. Parsers disagree on which of two values wins (JSON.parse keeps the last, others the
 * first), so a body with one is ambiguous: a proxy or an auditor may read another request than the one served.
 * Keys compare after their escapes are decoded (`"a"` and `"\u0061"` are the same key). A linear scan.
 */
export function jsonDuplicateKey(text: string): { key: string; at: number } | undefined {
  // One entry per open array or object: the keys seen so far (objects), or null (arrays).
  const open: (Set<string> | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i;
      let escaped = false;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) {
          escaped = true;
          i++;
        } else if (d === 0x22) break;
      }
      if (expectKey) {
        const raw = text.slice(start, i + 1);
        const key = escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        const keys = open[open.length - 1]!;
        if (keys.has(key)) return { key, at: start };
        keys.add(key);
        expectKey = false;
      }
    } else if (c === 0x7b) {
      open.push(new Set());
      expectKey = true;
    } else if (c === 0x5b) {
      open.push(null);
      expectKey = false;
    } else if (c === 0x7d || c === 0x5d) {
      open.pop();
      expectKey = false;
    } else if (c === 0x2c) expectKey = open[open.length - 1] instanceof Set;
  }
  return undefined;
}

/** Parses a JSON body. @throws {ValidationError} `malformed_body` */
export function parseJsonText(text: string): unknown {
  if (text.trim() === "")
    throw malformedBody("The request body is empty; send a JSON object (an empty object {} is fine).");
  const deep = jsonDepthExcess(text);
  if (deep >= 0)
    throw malformedBody(
      `The JSON body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep (at character ${deep}); flatten it.`,
    );
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw malformedBody(`The request body is not valid JSON: ${(err as Error).message}.`);
  }
  if (text.includes("__proto__") && hasProtoKey(value))
    throw malformedBody('The JSON body uses the key "__proto__", which is not allowed.');
  const duplicate = jsonDuplicateKey(text);
  if (duplicate !== undefined)
    throw malformedBody(
      `The JSON body repeats the key ${JSON.stringify(duplicate.key)} in one object (again at character ${duplicate.at}); JSON parsers disagree on which value counts, so send each key once.`,
    );
  return value;
}

/** Parses an application/x-www-form-urlencoded body. @throws {ValidationError} `malformed_body` */
export function parseUrlEncodedText(text: string): Record<string, unknown> {
  return formFieldsToObject(new URLSearchParams(text).entries());
}

/** A file name without its folders (browsers send the bare name; others may not). */
function bareName(name: string): string {
  return name.split(/[\\/]/).pop() ?? "";
}

async function parseMultipart(
  bytes: Uint8Array,
  contentType: string,
  fileParts: readonly string[],
): Promise<{ value: Record<string, unknown>; files: Record<string, FormFile> }> {
  let form: FormData;
  try {
    form = await new Response(bytes as Uint8Array<ArrayBuffer>, {
      headers: { "content-type": contentType },
    }).formData();
  } catch {
    throw malformedBody(
      "The multipart/form-data body cannot be parsed (check the boundary parameter and the part headers).",
    );
  }
  const fields: [string, string][] = [];
  const refused: string[] = [];
  const files: Record<string, FormFile> = {};
  for (const [k, v] of form.entries()) {
    if (typeof v === "string") fields.push([k, v]);
    else if (!fileParts.includes(k)) refused.push(k);
    else if (Object.hasOwn(files, k))
      throw malformedBody(`The form has two files named ${k}; send one.`, [
        { path: k, message: "one file per part name" },
      ]);
    else {
      let text: string;
      try {
        text = UTF8.decode(await v.arrayBuffer());
      } catch {
        throw malformedBody(`The file ${k} is not valid UTF-8 text.`, [{ path: k, message: "not UTF-8" }]);
      }
      files[k] = { name: bareName((v as File).name ?? "") || k, text };
    }
  }
  if (refused.length > 0)
    throw malformedBody(
      fileParts.length === 0
        ? `File parts are not accepted (${refused.join(", ")}); send every field as a text part.`
        : `File parts ${refused.join(", ")} are not accepted here; the files this form takes: ${fileParts.join(", ")}.`,
      refused.map((path) => ({
        path,
        message:
          fileParts.length === 0
            ? "file parts are not accepted; send the field as text"
            : `unknown file part; expected one of ${fileParts.join(", ")}`,
      })),
    );
  return { value: formFieldsToObject(fields), files };
}

/** A UTF-16 code unit of a surrogate pair without its other half (JavaScript strings allow them; UTF-8 cannot). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Most issues listed for lone surrogates (the message counts them all). */
const MAX_SURROGATE_ISSUES = 20;

function surrogateMessage(s: string, what: string): string | undefined {
  const m = LONE_SURROGATE.exec(s);
  if (!m) return undefined;
  const unit = m[0].charCodeAt(0).toString(16);
  return `${what} contains a lone UTF-16 surrogate (\\u${unit} at character ${m.index}); send well-formed Unicode text`;
}

/**
 * Every string and key of a parsed body that holds a lone surrogate (a JSON escape such as "\ud800" without its
 * pair): such text cannot be stored as UTF-8 and would come back altered, so it is refused for every field at once.
 */
export function loneSurrogateIssues(value: unknown): { issues: FieldIssue[]; count: number } {
  const issues: FieldIssue[] = [];
  let count = 0;
  const add = (path: PropertyKey[], message: string) => {
    count++;
    if (issues.length < MAX_SURROGATE_ISSUES) issues.push({ path: formatIssuePath(path), message });
  };
  const visit = (v: unknown, path: PropertyKey[]): void => {
    if (typeof v === "string") {
      const m = surrogateMessage(v, "the text");
      if (m) add(path, m);
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) visit(v[i], [...path, i]);
    } else if (v !== null && typeof v === "object")
      for (const [k, x] of Object.entries(v)) {
        const m = surrogateMessage(k, "the key");
        if (m) add([...path, k], m);
        visit(x, [...path, k]);
      }
  };
  visit(value, []);
  return { issues, count };
}

/** @throws {ValidationError} when a string or key of `value` holds a lone surrogate. */
function refuseLoneSurrogates(value: unknown): void {
  const { issues, count } = loneSurrogateIssues(value);
  if (count === 0) return;
  throw new ValidationError(
    `Invalid request body: ${count} text value(s) contain a lone UTF-16 surrogate (${issues
      .slice(0, 3)
      .map((i) => i.path)
      .join(", ")}${count > 3 ? ", ..." : ""}); send well-formed Unicode text.`,
    issues,
  );
}

/**
 * Bodies are read as sent: a content coding other than `identity` (gzip, br, ...) is refused with a 415 naming it
 * (RFC 9110, section 15.5.16), instead of failing later as text that is not UTF-8.
 * @throws {HttpError} 415 `unsupported_media_type`
 */
function refuseContentEncoding(request: Request): void {
  const header = request.headers.get("content-encoding");
  if (header === null) return;
  const codings = header
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== "" && c !== "identity");
  if (codings.length > 0)
    throw new HttpError(
      "unsupported_media_type",
      `Content-Encoding ${codings.join(", ")} is not supported; send the body uncompressed.`,
    );
}

/**
 * Reads and parses the body of `request`.
 * @throws {HttpError} 415 for a missing or unaccepted Content-Type (or a charset other than UTF-8), 413 for a body
 * over the limit.
 * @throws {ValidationError} code `malformed_body` (400) for a body that does not parse.
 * @example const { value } = await readBody(c.req.raw, { accept: ["json", "form", "multipart"] })
 */
export async function readBody(request: Request, options: ReadBodyOptions): Promise<ParsedBody> {
  refuseContentEncoding(request);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BODY_BYTES;
  const header = request.headers.get("content-type");
  const accepted = options.accept.map((e) => MEDIA_TYPES[e]).join(", ");
  if (header === null || header.trim() === "")
    throw new HttpError(
      "unsupported_media_type",
      `A Content-Type header is required for this request body; accepted: ${accepted}.`,
    );
  const { mediaType, params } = parseContentType(header);
  const encoding = options.accept.find((e) => MEDIA_TYPES[e] === mediaType);
  if (encoding === undefined)
    throw new HttpError(
      "unsupported_media_type",
      `Content-Type ${mediaType || header} is not accepted here; accepted: ${accepted}.`,
    );
  const charset = params.get("charset")?.toLowerCase();
  if (charset !== undefined && charset !== "utf-8" && charset !== "utf8")
    throw new HttpError("unsupported_media_type", `Charset ${charset} is not supported; send UTF-8.`);
  if (encoding === "multipart") {
    const { value, files } = await parseMultipart(
      await readBodyBytes(request, maxBytes),
      header,
      options.files ?? [],
    );
    refuseLoneSurrogates(value);
    return { value, encoding, files };
  }
  // The bytes are not kept past the decoding: a large upload does not hold both copies while it is parsed.
  const text = decodeUtf8(await readBodyBytes(request, maxBytes));
  if (encoding === "json") {
    const value = parseJsonText(text);
    // Strict UTF-8 text has no lone surrogate: only a \u escape can make one.
    if (text.includes("\\u")) refuseLoneSurrogates(value);
    return { value, encoding, files: {} };
  }
  if (text.trim() === "") throw malformedBody("The form body is empty.");
  const value = parseUrlEncodedText(text);
  refuseLoneSurrogates(value);
  return { value, encoding, files: {} };
}

/** Media types of an upload: the file as the body, or as the file part of a form. */
export const UPLOAD_MEDIA_TYPES = ["text/csv", "multipart/form-data"] as const;

/** The bytes of a body as they arrive; throws a 413 as soon as they pass `maxBytes`. */
async function* streamedBody(request: Request, maxBytes: number): AsyncIterable<Uint8Array> {
  if (request.body === null) return;
  const reader = request.body.getReader();
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      total += value.byteLength;
      if (total > maxBytes) throw tooLarge(maxBytes);
      yield value;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * The uploaded file of a request as a stream of bytes: a `text/csv` body is streamed within `spec.maxBytes`
 * (never held whole); a `multipart/form-data` body is read within `spec.multipartMaxBytes` and its one file part
 * (or its `file` field) streamed from there.
 * @throws {HttpError} 415 for another Content-Type or charset, 413 for a body over the limit
 * @throws {ValidationError} `malformed_body` for a form without exactly one file
 */
export async function readUpload(request: Request, spec: UploadSpec): Promise<AsyncIterable<Uint8Array>> {
  refuseContentEncoding(request);
  const header = request.headers.get("content-type") ?? "";
  const { mediaType, params } = parseContentType(header);
  const accepted = UPLOAD_MEDIA_TYPES.join(", ");
  if (!(UPLOAD_MEDIA_TYPES as readonly string[]).includes(mediaType))
    throw new HttpError(
      "unsupported_media_type",
      header.trim() === ""
        ? `A Content-Type header is required for this upload; accepted: ${accepted}.`
        : `Content-Type ${mediaType || header} is not accepted here; accepted: ${accepted}.`,
    );
  const charset = params.get("charset")?.toLowerCase();
  if (charset !== undefined && charset !== "utf-8" && charset !== "utf8")
    throw new HttpError("unsupported_media_type", `Charset ${charset} is not supported; send UTF-8.`);
  if (mediaType === "text/csv") {
    const declared = request.headers.get("content-length");
    if (declared !== null && /^\d+$/.test(declared) && Number(declared) > spec.maxBytes)
      throw tooLarge(spec.maxBytes, Number(declared));
    return streamedBody(request, spec.maxBytes);
  }
  const bytes = await readBodyBytes(request, spec.multipartMaxBytes);
  let form: FormData;
  try {
    form = await new Response(bytes as Uint8Array<ArrayBuffer>, {
      headers: { "content-type": header },
    }).formData();
  } catch {
    throw malformedBody(
      "The multipart/form-data body cannot be parsed (check the boundary parameter and the part headers).",
    );
  }
  const files = [...form.entries()].filter(([, v]) => typeof v !== "string") as [string, Blob][];
  const text = form.get("file");
  if (files.length === 1) return files[0]![1].stream() as unknown as AsyncIterable<Uint8Array>;
  if (files.length === 0 && typeof text === "string")
    return (async function* () {
      yield new TextEncoder().encode(text);
    })();
  throw malformedBody(
    files.length === 0
      ? 'The form has no file: send the CSV as the part named "file".'
      : `The form has ${files.length} files (${files.map(([k]) => k).join(", ")}); send one.`,
    [{ path: "file", message: "exactly one CSV file part is expected" }],
  );
}
