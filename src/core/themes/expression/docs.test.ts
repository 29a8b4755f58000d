/** Keeps docs/expression-language.md honest: its examples compile and its error messages are the real ones. */
// biome-ignore lint/style/noRestrictedImports: a test may read the documentation it checks; the code under test stays pure.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileExpression, safeCompileExpression } from "./compile.js";
import { fieldCatalog } from "./fields.js";

const doc = readFileSync(new URL("../../../../docs/expression-language.md", import.meta.url), "utf8");
const fields = fieldCatalog();

/** Rows `| a | b | c |` of the table that follows `heading` (up to the next blank line). */
function tableAfter(heading: string): string[][] {
  const start = doc.indexOf(heading);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const lines = doc.slice(start).split("\n");
  const first = lines.findIndex((l) => l.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

const code = (cell: string): string => {
  const m = /^`(.*)`/.exec(cell);
  if (m === null) throw new Error(`no code in ${cell}`);
  return m[1]!;
};

describe("docs/expression-language.md", () => {
  it("shows examples that compile as the kind they are listed as", () => {
    const rows = tableAfter("One small language");
    expect(rows.length).toBe(5);
    for (const [, kind, example] of rows) {
      expect(() =>
        compileExpression(code(example!), { fields, kind: kind as "filter" | "score" }),
      ).not.toThrow();
    }
    expect(() =>
      compileExpression("country = 'US' and sector = 45 and dividend_yield > 1%", { fields }),
    ).not.toThrow();
  });

  it("quotes the error messages exactly as produced", () => {
    const rows = tableAfter("Messages, as produced:");
    expect(rows.length).toBeGreaterThanOrEqual(10);
    for (const [input, message] of rows) {
      const source = input === "(empty text)" ? "" : code(input!);
      const result = safeCompileExpression(source, { fields });
      expect(result.success, source).toBe(false);
      if (!result.success) expect(result.error.message).toBe(message);
    }
  });

  it("lists every limit with its value", () => {
    const rows = tableAfter("## Limits");
    const documented = Object.fromEntries(
      rows.map(([name, value]) => [code(name!), Number(value!.replace(",", ""))]),
    );
    return import("./limits.js").then((limits) => {
      expect(documented).toEqual({ ...limits });
    });
  });
});
