/** Keeps docs/catalog.md in step with the synonym table and the presets. */
// biome-ignore lint/style/noRestrictedImports: a test may read the documentation it checks; the code under test stays pure.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { UNIVERSE_PRESETS } from "./presets.js";
import { INDUSTRY_SYNONYMS } from "./synonyms.js";

const doc = readFileSync(new URL("../../../docs/catalog.md", import.meta.url), "utf8");

/** Rows (cells) of the first table after `heading`. */
function tableAfter(heading: string): string[][] {
  const start = doc.indexOf(heading);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const lines = doc.slice(start).split("\n");
  const first = lines.findIndex((l) => l.startsWith("|"));
  const out: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith("|")) break;
    out.push(
      line
        .split("|")
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  }
  return out;
}

describe("docs/catalog.md", () => {
  it("documents every synonym with its alternatives", () => {
    const documented = new Map<string, string>();
    for (const [words, alternatives] of tableAfter("### Synonyms"))
      for (const w of words!.split(", ")) documented.set(w, alternatives!);
    for (const [word, alternatives] of INDUSTRY_SYNONYMS)
      expect(documented.get(word), word).toBe(alternatives.join(" / "));
    expect(documented.size).toBe(INDUSTRY_SYNONYMS.size);
  });

  it("lists every preset id", () => {
    const ids = tableAfter("## Universe presets (endpoint 10)").map((row) => row[0]!.replace(/`/g, ""));
    expect(ids).toEqual(UNIVERSE_PRESETS.map((p) => p.id));
  });
});
