import { describe, expect, it } from "vitest";
import { createRandom } from "../random.js";
import { createLot, TaxDecimal } from "../tax/index.js";
import { applyExecutions } from "./apply-executions.js";
import {
  FORM_8949_CSV_COLUMNS,
  form8949,
  form8949Csv,
  realizedRows,
  scheduleD,
  yearTotals,
} from "./realized.js";
import type { Execution, LedgerBook } from "./types.js";

const XYZ = "XYZ:XNYS";
const ABC = "ABC:XNAS";
const lot = (id: string, quantity: number, perShare: number, tradeDate: string) =>
  createLot({ id, accountId: "A", themeAssetId: XYZ, quantity, costBasisPerShare: perShare, tradeDate });

/**
 * A year of hand-computed rows (2025), plus one 2024 sale:
 * - s0 2024-12-15: 10 of L1 (bought 2023-01-10 at 40) at 45: +50 long-term (2024).
 * - s1 2025-02-03: 30 of L1 at 55.555: 1,666.65 - 1,200 = +466.65 long-term.
 * - s2 2025-02-03: 20 of L2 (bought 2024-11-01 at 60) at 50: 1,000 - 1,200 = -200 short-term; the buy b1 of 5
 *   shares on 2025-02-20 washes 5/20 of it: W 50, -150.
 * - so/sc: 10 ABC shorted 2025-03-01 at 20, covered 2025-04-01 at 22.50: 200 - 225 = -25 short-term.
 * - s3 2025-06-02: 10 of L3 (bought 2025-01-02 at 30) at 33.333 with 0.01 fees: 333.32 - 300 = +33.32 short-term.
 */
function handLedger() {
  const book: LedgerBook = {
    accountId: "A",
    cashUsd: new TaxDecimal(0),
    lots: [
      lot("L1", 100, 40, "2023-01-10"),
      lot("L2", 50, 60, "2024-11-01"),
      lot("L3", 10, 30, "2025-01-02"),
    ],
  };
  const sell = (
    id: string,
    date: string,
    lotId: string,
    q: number,
    price: number | string,
    fees = 0,
  ): Execution => ({
    id,
    kind: "sell",
    themeAssetId: XYZ,
    tradeDate: date,
    quantity: q,
    price,
    fees,
    lots: [{ lotId, quantity: q }],
  });
  const r = applyExecutions(book, [
    sell("s0", "2024-12-15", "L1", 10, 45),
    sell("s1", "2025-02-03", "L1", 30, "55.555"),
    sell("s2", "2025-02-03", "L2", 20, 50),
    { id: "b1", kind: "buy", themeAssetId: XYZ, tradeDate: "2025-02-20", quantity: 5, price: 49 },
    { id: "so", kind: "short_order", themeAssetId: ABC, tradeDate: "2025-03-01", quantity: 10, price: 20 },
    {
      id: "sc",
      kind: "short_cover",
      themeAssetId: ABC,
      tradeDate: "2025-04-01",
      quantity: 10,
      price: "22.5",
    },
    sell("s3", "2025-06-02", "L3", 10, "33.333", 0.01),
  ]);
  return realizedRows(r.book.realized!);
}

describe("realized rows and year totals", () => {
  it("gives each closed lot part its 8949 fields, with the wash-sale adjustment as code W", () => {
    const rows = handLedger();
    expect(
      rows.map((r) => [
        r.entryId,
        r.description,
        r.dateAcquired,
        r.dateSold,
        r.proceeds.toString(),
        r.costBasis.toString(),
        r.adjustmentCode,
        r.adjustment.toString(),
        r.gain.toString(),
        r.term,
      ]),
    ).toEqual([
      ["s0:1", "10 XYZ", "2023-01-10", "2024-12-15", "450", "400", "", "0", "50", "long_term"],
      ["s1:1", "30 XYZ", "2023-01-10", "2025-02-03", "1666.65", "1200", "", "0", "466.65", "long_term"],
      ["s2:1", "20 XYZ", "2024-11-01", "2025-02-03", "1000", "1200", "W", "50", "-150", "short_term"],
      ["sc:1", "10 ABC", "2025-04-01", "2025-04-01", "200", "225", "", "0", "-25", "short_term"],
      ["s3:1", "10 XYZ", "2025-01-02", "2025-06-02", "333.32", "300", "", "0", "33.32", "short_term"],
    ]);
  });

  it("totals a year by character: gains, losses, disallowed loss and net", () => {
    const t = yearTotals(handLedger(), 2025);
    expect([
      t.shortTerm.proceeds.toString(),
      t.shortTerm.costBasis.toString(),
      t.shortTerm.gains.toString(),
      t.shortTerm.losses.toString(),
      t.shortTerm.net.toString(),
      t.shortTerm.rows,
    ]).toEqual(["1533.32", "1725", "33.32", "-175", "-141.68", 3]);
    expect([t.longTerm.gains.toString(), t.longTerm.losses.toString(), t.longTerm.net.toString()]).toEqual([
      "466.65",
      "0",
      "466.65",
    ]);
    expect([t.disallowedLoss.toString(), t.net.toString()]).toEqual(["50", "324.97"]);
    expect(yearTotals(handLedger(), 2024).net.toString()).toBe("50");
  });
});

describe("Form 8949 and Schedule D", () => {
  it("puts short-term rows in Part I and long-term rows in Part II under the reporting's check box", () => {
    const f = form8949(handLedger(), 2025);
    expect([f.partI.box, f.partI.lines.map((l) => l.lotId)]).toEqual(["A", ["L2", "so", "L3"]]);
    expect([f.partII.box, f.partII.lines.map((l) => l.lotId)]).toEqual(["D", ["L1"]]);
    const b = form8949(handLedger(), 2025, "basis_not_reported");
    expect([b.partI.box, b.partII.box]).toEqual(["B", "E"]);
    expect(form8949(handLedger(), 2025, "no_1099b").partII.box).toBe("F");
  });

  it("makes the 8949 lines sum to the year's realized total", () => {
    const rows = handLedger();
    const f = form8949(rows, 2025);
    const t = yearTotals(rows, 2025);
    expect(f.partI.totals.gain.toString()).toBe(t.shortTerm.net.toString());
    expect(f.partII.totals.gain.toString()).toBe(t.longTerm.net.toString());
    expect(f.partI.totals.gain.plus(f.partII.totals.gain).toString()).toBe("324.97");
    expect(f.partI.totals.adjustment.toString()).toBe("50");
  });

  it("sums Schedule D lines 1a/1b and 8a/8b: adjusted box A lines go through 8949, the others to 1a", () => {
    const lines = Object.fromEntries(
      scheduleD(handLedger(), 2025).map((l) => [
        l.line,
        [l.proceeds.toFixed(2), l.costBasis.toFixed(2), l.adjustment.toFixed(2), l.gain.toFixed(2)],
      ]),
    );
    expect(lines).toEqual({
      "1a": ["533.32", "525.00", "0.00", "8.32"],
      "1b": ["1000.00", "1200.00", "50.00", "-150.00"],
      "2": ["0.00", "0.00", "0.00", "0.00"],
      "3": ["0.00", "0.00", "0.00", "0.00"],
      "7": ["1533.32", "1725.00", "50.00", "-141.68"],
      "8a": ["1666.65", "1200.00", "0.00", "466.65"],
      "8b": ["0.00", "0.00", "0.00", "0.00"],
      "9": ["0.00", "0.00", "0.00", "0.00"],
      "10": ["0.00", "0.00", "0.00", "0.00"],
      "15": ["1666.65", "1200.00", "0.00", "466.65"],
      "16": ["3199.97", "2925.00", "50.00", "324.97"],
    });
  });

  it("writes the documented CSV layout", () => {
    const csv = form8949Csv(handLedger(), 2025);
    const lines = csv.split("\n");
    expect(lines[0]).toBe(FORM_8949_CSV_COLUMNS.join(","));
    // On the form: the washed line (W). In summary on Schedule D lines 1a/8a: the lines without an adjustment.
    expect(lines.slice(1, 7)).toEqual([
      "line,I,A,20 XYZ,2024-11-01,2025-02-03,1000.00,1200.00,W,50.00,-150.00,A,L2",
      "total,I,A,Totals Part I,,,1000.00,1200.00,,50.00,-150.00,,",
      "summary,I,A,10 ABC,2025-04-01,2025-04-01,200.00,225.00,,,-25.00,A,so",
      "summary,I,A,10 XYZ,2025-01-02,2025-06-02,333.32,300.00,,,33.32,A,L3",
      "total,II,D,Totals Part II,,,0.00,0.00,,0.00,0.00,,",
      "summary,II,D,30 XYZ,2023-01-10,2025-02-03,1666.65,1200.00,,,466.65,A,L1",
    ]);
    expect(lines[7]).toBe(
      'schedule_d,,1a,"Short-term totals, basis reported, no adjustments (not on Form 8949)",,,533.32,525.00,,0.00,8.32,,',
    );
    expect(lines.at(-2)).toBe(
      "schedule_d,,16,Net capital gain or (loss): line 7 + line 15,,,3199.97,2925.00,,50.00,324.97,,",
    );
    expect(csv.endsWith("\n")).toBe(true);
  });

  it("counts every transaction once: the form's totals are Schedule D lines 1b/8b, its summaries lines 1a/8a", () => {
    // Three boxes' worth: the hand ledger (box A/D) and the same rows without a 1099-B (box C/F: all on the form).
    for (const reporting of ["basis_reported", "no_1099b"] as const) {
      const records = form8949Csv(handLedger(), 2025, reporting)
        .trim()
        .split("\n")
        .slice(1)
        .map((x) => x.split(","));
      const sd = Object.fromEntries(
        scheduleD(handLedger(), 2025, reporting).map((l) => [l.line, l.gain.toFixed(2)]),
      );
      const sum = (kind: string, part: string) =>
        records
          .filter((r) => r[0] === kind && r[1] === part)
          .reduce((acc, r) => acc.plus(r[10]!), new TaxDecimal(0))
          .toFixed(2);
      const total = (part: string) => records.find((r) => r[0] === "total" && r[1] === part)![10];
      const [formST, formLT] = reporting === "basis_reported" ? ["1b", "8b"] : ["3", "10"];
      expect([total("I"), sum("line", "I")]).toEqual([sd[formST], sd[formST]]);
      expect([total("II"), sum("line", "II")]).toEqual([sd[formLT], sd[formLT]]);
      expect([sum("summary", "I"), sum("summary", "II")]).toEqual([sd["1a"], sd["8a"]]);
      // Each of the four transactions once, as a line or a summary.
      expect(
        records
          .filter((r) => r[0] === "line" || r[0] === "summary")
          .map((r) => r[12])
          .sort(),
      ).toEqual(["L1", "L2", "L3", "so"]);
    }
  });

  it("keeps rounded 8949 lines consistent: each line's gain is its rounded columns, totals their sums", () => {
    // 300 random sales at prices with 4 decimals: every line adds up in cents, and the total is within half a
    // cent per line of the exact realized total.
    const rng = createRandom(7);
    const lots = Array.from({ length: 300 }, (_, i) =>
      createLot({
        id: `L${i}`,
        themeAssetId: XYZ,
        quantity: 1 + Math.floor(rng.next() * 50),
        costBasisPerShare: (10 + rng.next() * 90).toFixed(4),
        tradeDate: i % 2 === 0 ? "2023-05-01" : "2025-01-02",
      }),
    );
    const executions: Execution[] = lots.map((l, i) => ({
      id: `s${i}`,
      kind: "sell",
      themeAssetId: XYZ,
      tradeDate: "2025-06-02",
      quantity: l.quantity.toString(),
      price: (10 + rng.next() * 90).toFixed(4),
      fees: (rng.next() * 2).toFixed(3),
      lots: [{ lotId: l.id, quantity: l.quantity.toString() }],
    }));
    const r = applyExecutions({ accountId: "A", cashUsd: new TaxDecimal(0), lots }, executions);
    const f = form8949(r.rows, 2025);
    const t = yearTotals(r.rows, 2025);
    for (const part of [f.partI, f.partII]) {
      let sum = new TaxDecimal(0);
      for (const l of part.lines) {
        expect(l.gain.eq(l.proceeds.minus(l.costBasis).plus(l.adjustment))).toBe(true);
        sum = sum.plus(l.gain);
      }
      expect(sum.eq(part.totals.gain)).toBe(true);
    }
    const total = f.partI.totals.gain.plus(f.partII.totals.gain);
    expect(
      total
        .minus(t.net)
        .abs()
        .lte(0.005 * 300),
    ).toBe(true);
    expect(f.partI.lines.length + f.partII.lines.length).toBe(300);
  });
});
