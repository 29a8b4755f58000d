/**
 * @module market/importers/csv-input
 * What a parse step accepts (text, bytes, or a stream of either; gzip detected by its magic bytes) and how a
 * file is read. This is the only place the importers touch the file system or zlib.
 */
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { Readable } from "node:stream";
import { createGunzip, gunzipSync } from "node:zlib";
import { type CsvRowHandler, CsvTokenizer } from "./csv-tokenizer.js";

/**
 * Input of every parse step: the CSV text, its bytes (plain or gzip), or an async iterable of chunks such as a
 * `node:stream` Readable (`createReadStream(path)`), plain or gzip.
 */
export type CsvInput = string | Uint8Array | AsyncIterable<string | Uint8Array>;

function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

function decode(bytes: Uint8Array): string {
  const raw = isGzip(bytes) ? gunzipSync(bytes) : bytes;
  return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("utf8");
}

async function* prepend<T>(first: T, rest: AsyncIterator<T>): AsyncGenerator<T> {
  yield first;
  for (;;) {
    const r = await rest.next();
    if (r.done) return;
    yield r.value;
  }
}

/** Chunks of an async source as strings, gunzipping when the first bytes are a gzip header. */
async function* textChunks(source: AsyncIterable<string | Uint8Array>): AsyncGenerator<string> {
  const it = source[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return;
  let chunks: AsyncIterable<string | Uint8Array> = prepend(first.value, it);
  if (typeof first.value !== "string" && isGzip(first.value)) {
    const raw = Readable.from(chunks, { objectMode: false });
    const gunzip = createGunzip();
    raw.on("error", (e) => gunzip.destroy(e));
    chunks = raw.pipe(gunzip);
  }
  const decoder = new TextDecoder("utf-8");
  for await (const c of chunks) {
    if (typeof c === "string") yield c;
    else {
      const s = decoder.decode(c, { stream: true });
      if (s.length > 0) yield s;
    }
  }
  const tail = decoder.decode();
  if (tail.length > 0) yield tail;
}

/**
 * Tokenizes `input` into records, calling `onRow(fields, line)` for each non-blank record. The returned
 * tokenizer lets the caller attach header names (for quoting errors) from inside `onRow`.
 * @throws {CsvFormatError} on malformed quoting, or whatever `onRow` throws.
 */
export async function tokenizeCsv(
  input: CsvInput,
  file: string,
  onRow: (fields: string[], line: number, tokenizer: CsvTokenizer) => void,
): Promise<void> {
  // The handler needs the tokenizer (to set column names), so bind it after construction.
  let tokenizer: CsvTokenizer | undefined;
  const handler: CsvRowHandler = (fields, line) => onRow(fields, line, tokenizer!);
  tokenizer = new CsvTokenizer(file, handler);
  if (typeof input === "string") tokenizer.push(input);
  else if (input instanceof Uint8Array) tokenizer.push(decode(input));
  else for await (const chunk of textChunks(input)) tokenizer.push(chunk);
  tokenizer.end();
}

/** Reads a whole file as bytes (gzip is handled by the parse step). */
export async function readCsvFile(path: string): Promise<Uint8Array> {
  return readFile(path);
}

/**
 * The file-name stem without `.csv` / `.csv.gz` / `.txt`: `data/AAPL.csv.gz` -> `AAPL`. Used for the Yahoo
 * layout's symbol and as a default label.
 */
export function fileStem(path: string): string {
  return basename(path)
    .replace(/\.gz$/i, "")
    .replace(/\.(csv|txt)$/i, "");
}
