import { parse } from "csv-parse/sync";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CsvTokenizer } from "./csv-tokenizer.js";
import { CsvFormatError } from "./errors.js";

/** Tokenizes `text` fed in the given chunk sizes (cycled); returns [fields, line] pairs. */
function tokenize(text: string, chunkSizes: number[] = [text.length || 1]): [string[], number][] {
  const out: [string[], number][] = [];
  const t = new CsvTokenizer("t.csv", (f, l) => out.push([f, l]));
  let pos = 0;
  let k = 0;
  while (pos < text.length) {
    const n = Math.max(1, chunkSizes[k++ % chunkSizes.length]!);
    t.push(text.slice(pos, pos + n));
    pos += n;
  }
  t.end();
  return out;
}

function quoteField(s: string): string {
  return /[",\r\n]/.test(s) || s === "" ? `"${s.replace(/"/g, '""')}"` : s;
}

describe("CsvTokenizer", () => {
  it("splits unquoted lines and numbers records by physical line", () => {
    expect(tokenize("a,b\n1,2\n3,4")).toEqual([
      [["a", "b"], 1],
      [["1", "2"], 2],
      [["3", "4"], 3],
    ]);
  });

  it("skips blank lines but keeps counting them", () => {
    expect(tokenize("a\n\n\r\nb\n")).toEqual([
      [["a"], 1],
      [["b"], 4],
    ]);
  });

  it("reads quoted fields with commas, doubled quotes, CRLF and line breaks inside quotes", () => {
    const text = 'name,notes\r\n"Smith, J.","said ""hi""\r\nthen left"\r\nx,"y"\r\n';
    expect(tokenize(text)).toEqual([
      [["name", "notes"], 1],
      [["Smith, J.", 'said "hi"\r\nthen left'], 2],
      [["x", "y"], 4],
    ]);
  });

  it("keeps empty fields, including a trailing one", () => {
    expect(tokenize('a,,"",c,\n')).toEqual([[["a", "", "", "c", ""], 1]]);
  });

  it("strips a UTF-8 byte-order mark", () => {
    expect(tokenize("\uFEFFdate,close\n")).toEqual([[["date", "close"], 1]]);
  });

  it("gives the same records whatever the chunk boundaries (even one character at a time)", () => {
    const text = 'h1,h2\n"a\nb",c\r\n"x""",y\n1,2';
    const whole = tokenize(text);
    expect(tokenize(text, [1])).toEqual(whole);
    expect(tokenize(text, [2, 3, 5])).toEqual(whole);
  });

  it("rejects an unterminated quote, naming the line where it opened", () => {
    expect(() => tokenize('a,b\n1,"2\n3,4\n')).toThrowError(CsvFormatError);
    expect(() => tokenize('a,b\n1,"2\n3,4\n')).toThrowError(
      /t\.csv, line 2, column "field 2": a quoted field is never closed/,
    );
  });

  it("rejects a quote inside an unquoted field and text after a closing quote", () => {
    expect(() => tokenize('a,b\n1,2"3\n')).toThrowError(
      /line 2, column "field 2": a double quote inside an unquoted field/,
    );
    expect(() => tokenize('a,b\n"1"x,2\n')).toThrowError(
      /line 2, column "field 1": unexpected character "x" after a closing double quote/,
    );
  });

  it("names the column from the header once it is known", () => {
    const t = new CsvTokenizer("p.csv", () => {
      t.columnNames = ["date", "close"];
    });
    expect(() => {
      t.push('date,close\n2020-01-02,"1\n');
      t.end();
    }).toThrowError(/p\.csv, line 2, column "close"/);
  });

  it("agrees with csv-parse on random well-formed CSV, under random chunking", () => {
    const field = fc.string({
      unit: fc.constantFrom("a", "b", "1", ".", ",", '"', "\n", "\r\n", " ", "é"),
      maxLength: 6,
    });
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 4 })
          .chain((w) =>
            fc.array(fc.array(field, { minLength: w, maxLength: w }), { minLength: 1, maxLength: 6 }),
          ),
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 4 }),
        (rows, chunks) => {
          // A record consisting of one empty field serializes as "" (quoted) so it is not a blank line.
          const text = rows.map((r) => r.map(quoteField).join(",")).join("\n");
          const expected = parse(text, { relax_column_count: true }) as string[][];
          expect(tokenize(text, chunks).map(([f]) => f)).toEqual(expected);
          expect(tokenize(text, chunks).map(([f]) => f)).toEqual(rows);
        },
      ),
      { numRuns: 300 },
    );
  });
});
