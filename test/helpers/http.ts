/**
 * @module test/helpers/http
 * Small helpers for HTTP tests through `app.request()`: send JSON with a key, read status, headers and body.
 */
import { type ErrorEnvelope, errorEnvelopeSchema } from "../../src/contract/index.js";

/** A request body (the lib has no DOM types, so the fetch `BodyInit` is spelled out). */
export type RequestBody =
  | string
  | Uint8Array<ArrayBuffer>
  | FormData
  | URLSearchParams
  | Blob
  | ReadableStream<Uint8Array>;

/** Anything with Hono's `request()` (the app). */
export interface Requestable {
  request(input: string, init?: RequestInit): Response | Promise<Response>;
}

/** A response read in full. */
export interface Answer {
  status: number;
  headers: Headers;
  /** Parsed JSON, or the text when it is not JSON, or undefined for an empty body. */
  body: unknown;
  text: string;
}

/** Options of {@link send}. */
export interface SendOptions {
  key?: string;
  /** JSON body (serialized; Content-Type application/json unless `headers` says otherwise). */
  json?: unknown;
  /** Raw body. */
  raw?: RequestBody;
  headers?: Record<string, string>;
}

/** Sends one request and reads the answer. */
export async function send(
  app: Requestable,
  method: string,
  path: string,
  options: SendOptions = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key !== undefined) headers["X-Api-Key"] = options.key;
  let body: RequestBody | undefined = options.raw;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers["Content-Type"] ??= "application/json";
  }
  const res = await app.request(path, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let parsed: unknown;
  if (text !== "") {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** The `error` member of an envelope, after checking the body is a valid envelope. */
export function envelope(answer: Answer): ErrorEnvelope["error"] {
  const parsed = errorEnvelopeSchema.safeParse(answer.body);
  if (!parsed.success)
    throw new Error(`not an error envelope (${answer.status}): ${answer.text.slice(0, 300)}`);
  return parsed.data.error;
}
