import { stripVTControlCharacters } from "node:util";
import { Chalk } from "chalk";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import { colourLevel, colours, decideColours, paintStatus } from "./colour.js";
import { reportError, usageError } from "./errors.js";
import { breakLongWords, fitColumnWidths, memoryOutput, renderKeyValues, renderTable } from "./output.js";

describe("tables that fit the terminal", () => {
  it("leaves a table that fits as it is", () => {
    // 1 + (10 + 3) + (5 + 3) = 22 characters.
    expect(fitColumnWidths([10, 5], [true, false], 22)).toBeNull();
  });

  it("narrows the widest text column first, never a number column, down to the width", () => {
    // Natural: 1 + (40 + 3) + (30 + 3) + (8 + 3) = 88; to fit 70 the text columns give up 18.
    // The 40 comes down to 30 (10), then both share the last 8: 26 and 26 in some order.
    const w = fitColumnWidths([40, 30, 8], [true, true, false], 70)!;
    expect(w[2]).toBe(8);
    expect(1 + w.reduce((s, x) => s + x + 3, 0)).toBe(70);
    expect(Math.max(w[0]!, w[1]!) - Math.min(w[0]!, w[1]!)).toBeLessThanOrEqual(1);
  });

  it("gives up (null) when even the narrowest wrapped columns do not fit", () => {
    expect(fitColumnWidths([40, 12], [true, false], 20)).toBeNull();
  });

  it("wraps long text so that every line fits and no word is lost", () => {
    const rows = [
      {
        rule: "evaluation_rules[0].rules[1]",
        why: 'cron "0 9 * * 1-5" fires on 2025-12-31 (Wednesday); condition "harvest_value_usd > 1000" holds (harvest_value_usd = 9200.71)',
        priority: 5,
      },
    ];
    const columns = [
      { header: "Rule", value: (r: (typeof rows)[number]) => r.rule },
      { header: "Why", value: (r: (typeof rows)[number]) => r.why },
      { header: "Priority", value: (r: (typeof rows)[number]) => r.priority, align: "right" as const },
    ];
    const wide = renderTable(rows, columns, undefined, undefined);
    expect(Math.max(...wide.split("\n").map((l) => l.length))).toBeGreaterThan(150);
    const narrow = renderTable(rows, columns, undefined, 80);
    const lines = narrow.split("\n");
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(80);
    const words = (text: string) =>
      text
        .replace(/[│┌┐└┘┬┴─]/g, " ")
        .split(/\s+/)
        .filter(Boolean);
    expect(words(narrow).sort()).toEqual(words(wide).sort());
  });

  it("breaks a code longer than its narrowed column after an underscore instead of cutting it with …", () => {
    // The proposal's Orders table on a 120-column terminal: the Reason column narrows below its codes' length.
    const rows = [
      { ticker: "CLEA", book: "long position", reason: "removed_from_target", amount: "-530" },
      { ticker: "ELF", book: "long position", reason: "weight_decreased", amount: "-502.336394" },
    ];
    const columns = [
      { header: "Ticker", value: (r: (typeof rows)[number]) => r.ticker },
      { header: "Book", value: (r: (typeof rows)[number]) => r.book },
      { header: "Reason", value: (r: (typeof rows)[number]) => r.reason },
      { header: "Amount", value: (r: (typeof rows)[number]) => r.amount, align: "right" as const },
    ];
    const narrow = renderTable(rows, columns, undefined, 50);
    expect(Math.max(...narrow.split("\n").map((l) => l.length))).toBeLessThanOrEqual(50);
    expect(narrow).not.toContain("…");
    const reasons = narrow
      .split("\n")
      .map((l) => l.split("│")[3]?.trim() ?? "")
      .filter((c) => c !== "" && c !== "Reason");
    expect(reasons.join("")).toBe("removed_from_targetweight_decreased");
    expect(breakLongWords("weight_decreased of 2", 10)).toBe("weight_\ndecreased of 2");
    expect(breakLongWords("abcdefghijkl", 5)).toBe("abcde\nfghij\nkl");
  });

  it("fits a key/value table by wrapping long values, keeping keys, uuids and API keys whole", () => {
    const id = "bc8b9faf-2f7a-4de7-a763-8e0f2c1d9a01";
    const key = "lw_0aebd849f438_MUUA2C1LrC42o83_rmb663HaLuF6SN_eBlTrADPybPk";
    const listings = Array.from({ length: 20 }, (_, i) => `L${i}:XNYS`).join(", ");
    const pairs: [string, string][] = [
      ["Proposal", id],
      ["API key", key],
      ["Listings added", `20: ${listings}`],
    ];
    const wide = renderKeyValues(pairs, "Plan", undefined);
    expect(Math.max(...wide.split("\n").map((l) => l.length))).toBeGreaterThan(120);
    // Without a width (pipes, files) the table is as before: one line per pair.
    expect(wide.split("\n")).toHaveLength(pairs.length + 3);
    const narrow = renderKeyValues(pairs, "Plan", 100);
    expect(Math.max(...narrow.split("\n").map((l) => l.length))).toBeLessThanOrEqual(100);
    expect(narrow).toContain(id);
    expect(narrow).toContain(key);
    expect(narrow).toContain("│ Listings added │");
    expect(narrow.replace(/[│┌┐└┘┬┴─\s]/g, "")).toBe(wide.replace(/[│┌┐└┘┬┴─\s]/g, ""));
  });

  it("never cuts an identifier: a uuid column keeps its width and other text wraps around it", () => {
    const id = "bc8b9faf-2f7a-4de7-a763-8e0f2c1d9a01";
    const rows = [
      { run: id, selection: "every account of the organization, when breached", status: "completed" },
    ];
    const columns = [
      { header: "Run", value: (r: (typeof rows)[number]) => r.run },
      { header: "Selection", value: (r: (typeof rows)[number]) => r.selection },
      { header: "Status", value: (r: (typeof rows)[number]) => r.status },
    ];
    const narrow = renderTable(rows, columns, undefined, 70);
    expect(narrow).toContain(id);
    expect(Math.max(...narrow.split("\n").map((l) => l.length))).toBeLessThanOrEqual(70);
    // Too narrow for the identifier and the rest: the table keeps its full lines rather than cut it.
    expect(renderTable(rows, columns, undefined, 40)).toContain(id);
  });

  it("wraps text beside an identifier in the same cell after the word before it, keeping the uuid whole", () => {
    const id = "0d4f3a51-7c2e-4b8a-9f10-5e6d7c8b9a0f";
    const rows = [{ run: id, selection: `client ${id}`, outcomes: "12 created, 3 skipped, 0 failed" }];
    const columns = [
      { header: "Run", value: (r: (typeof rows)[number]) => r.run },
      { header: "Selection", value: (r: (typeof rows)[number]) => r.selection },
      { header: "Outcomes", value: (r: (typeof rows)[number]) => r.outcomes },
    ];
    const narrow = renderTable(rows, columns, undefined, 100);
    const lines = narrow.split("\n");
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(100);
    expect(lines.filter((l) => l.includes(id))).toHaveLength(2); // the Run cell and the Selection cell, each whole
    expect(lines.some((l) => /│ client\s+│/.test(l))).toBe(true);
  });
});

describe("colour", () => {
  it("is on for a terminal only, off with NO_COLOR or --no-color, forced with FORCE_COLOR", () => {
    expect(colourLevel({}, [], true)).toBe(1);
    expect(colourLevel({}, [], false)).toBe(0);
    expect(colourLevel({ NO_COLOR: "1" }, [], true)).toBe(0);
    expect(colourLevel({ NO_COLOR: "" }, [], true)).toBe(1); // an empty NO_COLOR does not count (no-color.org)
    expect(colourLevel({}, ["node", "lotwise", "scan", "--no-color"], true)).toBe(0);
    expect(colourLevel({ FORCE_COLOR: "3" }, [], false)).toBe(3);
    expect(colourLevel({ TERM: "dumb" }, [], true)).toBe(0);
  });

  it("is decided per run from the arguments main() is given, not the process's", () => {
    try {
      decideColours(["node", "lotwise", "scan", "--no-color"], { FORCE_COLOR: "1" }, true);
      expect(colours().level).toBe(0);
      decideColours(["node", "lotwise", "scan"], { FORCE_COLOR: "1" }, true);
      expect(colours().level).toBe(1);
    } finally {
      decideColours(process.argv, process.env, Boolean(process.stdout.isTTY));
    }
  });

  it("paints statuses by severity and leaves other words alone", () => {
    const on = new Chalk({ level: 1 });
    expect(paintStatus("breach", on)).toBe("\u001b[31mbreach\u001b[39m");
    expect(paintStatus("WARNING", on)).toBe("\u001b[33mWARNING\u001b[39m");
    expect(paintStatus("ok", on)).toBe("\u001b[32mok\u001b[39m");
    expect(paintStatus("pending", on)).toBe("pending");
    expect(paintStatus("breach", new Chalk({ level: 0 }))).toBe("breach");
  });

  it("measures coloured cells without their escape codes when fitting a table", () => {
    const on = new Chalk({ level: 1 });
    const rows = [{ s: on.red("breach"), why: "word ".repeat(30).trim() }];
    const cols = [
      { header: "Status", value: (r: (typeof rows)[number]) => r.s },
      { header: "Why", value: (r: (typeof rows)[number]) => r.why },
    ];
    const lines = renderTable(rows, cols, undefined, 60).split("\n");
    expect(Math.max(...lines.map((l) => stripVTControlCharacters(l).length))).toBeLessThanOrEqual(60);
    expect(lines.some((l) => l.includes("\u001b[31mbreach\u001b[39m"))).toBe(true);
  });
});

describe("errors for a person", () => {
  it("prints a usage error once, not again as its own detail, and exits 2", () => {
    const out = memoryOutput(false);
    expect(
      reportError(
        usageError("--start 2025-06-02 and --start-date 2025-07-01 disagree; give one.", "--start"),
        out,
      ),
    ).toBe(2);
    expect(out.stderr).toEqual([
      "lotwise: --start 2025-06-02 and --start-date 2025-07-01 disagree; give one.",
    ]);
  });

  it("does not list again an issue the message already quotes as path: message", () => {
    const out = memoryOutput(false);
    const err = new ValidationError(
      "Invalid backtest parameters: --basis-reset-max-gain: 2 is above the maximum 1",
      [{ path: "--basis-reset-max-gain", message: "2 is above the maximum 1" }],
      "usage",
    );
    expect(reportError(err, out)).toBe(2);
    expect(out.stderr).toEqual([
      "lotwise: Invalid backtest parameters: --basis-reset-max-gain: 2 is above the maximum 1",
    ]);
  });

  it("lists the issues that add something under the message", () => {
    const out = memoryOutput(false);
    const err = new ValidationError("2 rows of lots.csv are invalid.", [
      { path: "line 3, quantity", message: "must be > 0" },
      { path: "line 7, trade_date", message: "not a date" },
    ]);
    expect(reportError(err, out)).toBe(1);
    expect(out.stderr).toEqual([
      "lotwise: 2 rows of lots.csv are invalid.",
      "  - line 3, quantity: must be > 0",
      "  - line 7, trade_date: not a date",
    ]);
  });
});
