/**
 * @module service/identifiers
 * Stable UUIDs for things the store keys by name. Benchmark indexes are identified by a canonical identifier
 * (`SP500`); the spec's tilt and asset-class shapes carry an `index_uuid`, which is the RFC 4122 version-5 UUID of
 * the identifier in a lotwise namespace, so it is the same in every store.
 */
import { createHash } from "node:crypto";

/** Namespace of index UUIDs (a fixed random UUID). */
const INDEX_NAMESPACE = "3f9d8a52-6c1e-4b7a-9a0e-5d2f1c8b7e64";

/** RFC 4122 section 4.3 name-based UUID (SHA-1, version 5). */
export function uuidV5(name: string, namespace: string): string {
  const ns = Buffer.from(namespace.replace(/-/g, ""), "hex");
  const hash = createHash("sha1").update(ns).update(name, "utf8").digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const h = hash.subarray(0, 16).toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The UUID of a benchmark index identifier. */
export function indexUuid(identifier: string): string {
  return uuidV5(identifier.toUpperCase(), INDEX_NAMESPACE);
}
