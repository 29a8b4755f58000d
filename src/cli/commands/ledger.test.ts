import { describe, expect, it } from "vitest";
import type { ExecutionList } from "../../contract/index.js";
import { renderExecutionList } from "./ledger.js";

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
