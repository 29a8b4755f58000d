/** @module store/repositories/util Small helpers shared by the repositories. */

/** Serialize a JSON document for a TEXT column (`null` stays SQL NULL). */
export function toJson(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

/** Parse a TEXT column written by {@link toJson}. */
export function fromJson<T = unknown>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}
