import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as contract from "./index.js";

describe("contract index", () => {
  it("exports every named schema under a camelCase ...Schema name", () => {
    const exported = new Map(Object.entries(contract).map(([name, value]) => [value, name]));
    for (const [id, schema] of Object.entries(contract.CONTRACT_SCHEMAS)) {
      const expected = `${id[0]!.toLowerCase()}${id.slice(1)}Schema`;
      expect(exported.get(schema), id).toBe(expected);
    }
  });

  it("re-exports by name only (no export *)", () => {
    const text = readFileSync(new URL("./index.ts", import.meta.url), "utf8");
    expect(text).not.toMatch(/export \*/);
  });

  it("parses with the re-exported helpers as with the modules", () => {
    const body = contract.parseOrThrow(
      contract.proposalRequestSchema,
      contract.CONTRACT_EXAMPLES.ProposalRequest,
    );
    expect(body.optimized_weights).toHaveLength(3);
    expect(contract.formatDecimal("0.125", 1, 2)).toBe("0.12");
  });
});
