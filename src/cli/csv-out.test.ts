import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { csvField, csvRecord, toCsv } from "./csv-out.js";

describe("csv-out (RFC 4180)", () => {
  it("leaves plain fields bare and prints empty cells for null and undefined", () => {
    expect(csvField("AAPL")).toBe("AAPL");
    expect(csvField("12.50")).toBe("12.50");
    expect(csvField(3)).toBe("3");
    expect(csvField(false)).toBe("false");
    expect(csvField(null)).toBe("");
    expect(csvField(undefined)).toBe("");
  });

  it("quotes fields with commas, quotes, newlines or edge spaces and doubles inner quotes", () => {
    expect(csvField("Smith, Jones")).toBe('"Smith, Jones"');
    expect(csvField('the "core" sleeve')).toBe('"the ""core"" sleeve"');
    expect(csvField("line one\nline two")).toBe('"line one\nline two"');
    expect(csvField("a\r\nb")).toBe('"a\r\nb"');
    expect(csvField(" padded ")).toBe('" padded "');
    expect(csvRecord(["x", "y,z", null])).toBe('x,"y,z",');
  });

  it("writes a document that csv-parse reads back to the same cells", () => {
    const rows = [
      { name: 'Acme, "Growth"', note: "two\nlines", n: 1 },
      { name: "", note: null, n: 2.5 },
    ];
    const text = toCsv(rows, [
      { header: "Name", value: (r) => r.name },
      { header: "Note", value: (r) => r.note },
      { header: "N", value: (r) => r.n },
    ]);
    expect(text.endsWith("\r\n")).toBe(true);
    expect(parse(text)).toEqual([
      ["Name", "Note", "N"],
      ['Acme, "Growth"', "two\nlines", "1"],
      ["", "", "2.5"],
    ]);
  });
});
