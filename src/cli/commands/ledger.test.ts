import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ExecutionList, RealizedLedger } from "../../contract/index.js";
import { readFillsFileLines, renderExecutionList, renderRealizedLedger } from "./ledger.js";

const execution = (
  over: Partial<ExecutionList["executions"][number]>,
): ExecutionList["executions"][number] => ({
  execution_id: "A-1",
  source: "trade_file",
  proposal_uuid: null,
  order_index: null,
  side: "buy",
  ticker: "DEL:XNYS",
  trade_date: "2025-12-16",
  quantity: "10",
  price: "12",
  fees: "0.5",
  currency: "USD",
  fx_rate: "1",
  lots: null,
  lot_id: null,
  applied_at: "2025-12-16T10:00:00.000Z",
  ...over,
});

describe("lotwise trades list", () => {
  it("names each price's currency and shows price and fees with cents, keeping the broker's further digits", () => {
    const text = renderExecutionList({
      account_uuid: "18d8bfa1-7b62-4c91-9579-4dbe7ad3ebbc",
      executions: [
        execution({}),
        execution({
          execution_id: "A-2",
          ticker: "VRV:XTSE",
          price: "1250.125",
          fees: "5",
          currency: "CAD",
          fx_rate: "1.27",
        }),
      ],
    });
    const rows = text.split("\n").filter((l) => l.includes("A-"));
    const cells = rows.map((l) => l.split("│").map((c) => c.trim()));
    expect(cells.map((c) => [c[6], c[7]])).toEqual([
      ["12.00 USD", "0.50"],
      ["1,250.125 CAD", "5.00"],
    ]);
  });
});

const A = "18d8bfa1-7b62-4c91-9579-4dbe7ad3ebbc";
const B = "ce6d3610-dd9f-4577-af20-d68fb1a8680d";
const C = "2b7c1d7e-5e0e-4d57-8a3f-1a9f3b0e6c11";

function row(account: string, description: string): RealizedLedger["rows"][number] {
  return {
    entry_id: `${description}:1`,
    source_id: description,
    account_uuid: account,
    lot_id: "L1",
    ticker: "OSM:XNYS",
    side: "long",
    description,
    quantity: "100",
    date_acquired: "2025-09-02",
    date_sold: "2025-12-15",
    proceeds: "1250",
    cost_basis: "1547.43",
    adjustment_code: "",
    adjustment: "0",
    gain: "-297.43",
    form_8949_gain: "-297.43",
    term: "short_term",
  };
}

function household(rows: RealizedLedger["rows"]): RealizedLedger {
  const term = {
    proceeds: "0",
    cost_basis: "0",
    adjustments: "0",
    gains: "0",
    losses: "0",
    net: "0",
    rows: 0,
  };
  return {
    scope: "client",
    client_uuid: "33bbc301-54ca-401d-b12f-86cef6484f2e",
    account_uuid: null,
    year: 2025,
    rows,
    totals: { year: 2025, short_term: term, long_term: term, disallowed_loss: "0", net: "0" },
    schedule_d: [],
    form_8949_csv: "",
  };
}

/** The first two cells of each realized row of the rendered ledger. */
const firstCells = (text: string) =>
  text
    .split("\n")
    .filter((l) => /\d{4}-\d{2}-\d{2}/.test(l))
    .map((l) =>
      l
        .split("│")
        .map((c) => c.trim())
        .slice(1, 3),
    );

describe("lotwise ledger show --client", () => {
  it("says which account sold each row of the household, by its name", () => {
    const text = renderRealizedLedger(
      household([row(A, "1000 OSM"), row(B, "100 OSM")]),
      new Map([
        [A, "Joint taxable"],
        [B, "IRA"],
      ]),
    );
    expect(text).toMatch(/│ Account +│ Description/);
    expect(firstCells(text)).toEqual([
      ["Joint taxable", "1000 OSM"],
      ["IRA", "100 OSM"],
    ]);
  });

  it("names an account by its uuid when it has no name, or shares its name with another account", () => {
    const text = renderRealizedLedger(
      household([row(A, "1000 OSM"), row(B, "100 OSM"), row(C, "5 OSM")]),
      new Map([
        [A, "Taxable"],
        [B, "Taxable"],
        [C, null],
      ]),
    );
    expect(firstCells(text)).toEqual([
      [A, "1000 OSM"],
      [B, "100 OSM"],
      [C, "5 OSM"],
    ]);
  });

  it("keeps an account's own ledger without the Account column", () => {
    const text = renderRealizedLedger({
      ...household([row(A, "1000 OSM")]),
      scope: "account",
      account_uuid: A,
    });
    expect(text).toMatch(/│ Description +│ Acquired/);
  });
});

describe("lotwise trades apply-proposal --fills", () => {
  it("reads the broker's fill ids with each fill's line, and leaves them out where the cell is empty", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lotwise-fills-"));
    try {
      const file = join(dir, "fills.csv");
      writeFileSync(file, "Order,Quantity,Price,Fill ID\n0,5,108,B-77\n\n1,2,40.5,\n");
      expect(await readFillsFileLines(file)).toEqual({
        fills: [
          { order: 0, quantity: "5", price: "108", fill_id: "B-77" },
          { order: 1, quantity: "2", price: "40.5" },
        ],
        lines: [2, 4],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
