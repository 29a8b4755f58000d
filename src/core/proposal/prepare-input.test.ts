import { describe, expect, it } from "vitest";
import { DataError, MissingPriceError, NonFiniteError, ValidationError } from "../errors.js";
import { createLot } from "../tax/index.js";
import { buildProposal } from "./build-proposal.js";
import type { ProposalInput } from "./proposal-input.js";

const AS_OF = "2025-03-03";
const BASE: ProposalInput = {
  asOf: AS_OF,
  lots: [
    createLot({
      id: "L1",
      themeAssetId: "XYZ:XNYS",
      quantity: 10,
      costBasisPerShare: 90,
      tradeDate: "2020-01-02",
    }),
  ],
  cashUsd: 1000,
  securities: {
    "XYZ:XNYS": { symbol: "XYZ", currency: "USD" },
    "ABC:XNAS": { symbol: "ABC", currency: "USD" },
    "RY:XTSE": { symbol: "RY", currency: "CAD" },
  },
  prices: { "XYZ:XNYS": 100, "ABC:XNAS": 50, "RY:XTSE": 135 },
  fxRates: { CAD: "1.35" },
  targets: [
    { themeAssetId: "XYZ:XNYS", weight: "0.4" },
    { themeAssetId: "ABC:XNAS", weight: "0.5" },
  ],
};

/** Runs the builder and returns the thrown error (fails the test when nothing is thrown). */
function errorOf(patch: Partial<ProposalInput>): unknown {
  try {
    buildProposal({ ...BASE, ...patch });
  } catch (e) {
    return e;
  }
  throw new Error("expected buildProposal to throw");
}

function issuesOf(patch: Partial<ProposalInput>): { path: string; message: string }[] {
  const e = errorOf(patch);
  expect(e).toBeInstanceOf(ValidationError);
  return (e as ValidationError).issues;
}

describe("buildProposal: bad input", () => {
  it("accepts the base request (the cases below each break one thing)", () => {
    expect(buildProposal(BASE).orders.length).toBeGreaterThan(0);
  });

  it("refuses a negative weight in a LONG_ONLY account, naming the asset", () => {
    const issues = issuesOf({
      targets: [
        { themeAssetId: "XYZ:XNYS", weight: "0.4" },
        { themeAssetId: "ABC:XNAS", weight: "-0.1" },
      ],
    });
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toBe("targets[1].weight");
    expect(issues[0]?.message).toContain("ABC:XNAS");
    expect(issues[0]?.message).toContain("LONG_ONLY");
  });

  it("refuses weights summing above 1 beyond the 1e-6 tolerance and accepts them within it", () => {
    const over = issuesOf({
      targets: [
        { themeAssetId: "XYZ:XNYS", weight: "0.6" },
        { themeAssetId: "ABC:XNAS", weight: "0.4000011" },
      ],
    });
    expect(over).toEqual([{ path: "targets", message: expect.stringContaining("1.0000011") }]);
    expect(() =>
      buildProposal({
        ...BASE,
        targets: [
          { themeAssetId: "XYZ:XNYS", weight: "0.6" },
          { themeAssetId: "ABC:XNAS", weight: "0.4000009" },
        ],
      }),
    ).not.toThrow();
  });

  it("refuses a no-hold ticker with a positive weight", () => {
    const issues = issuesOf({ config: { noHoldTickers: ["ABC:XNAS"] } });
    expect(issues).toEqual([
      { path: "targets[1].weight", message: expect.stringMatching(/ABC:XNAS is a no-hold ticker/) },
    ]);
  });

  it("refuses a duplicate ticker, pointing at both places", () => {
    const issues = issuesOf({
      targets: [
        { themeAssetId: "XYZ:XNYS", weight: "0.2" },
        { themeAssetId: "ABC:XNAS", weight: "0.2" },
        { themeAssetId: "XYZ:XNYS", weight: "0.3" },
      ],
    });
    expect(issues).toEqual([
      {
        path: "targets[2].themeAssetId",
        message: expect.stringContaining("XYZ:XNYS is already given at targets[0]"),
      },
    ]);
  });

  it("reports every problem of a request at once", () => {
    const issues = issuesOf({
      targets: [
        { themeAssetId: "XYZ:XNYS", weight: "-0.2" },
        { themeAssetId: "XYZ:XNYS", weight: "0.2" },
        { themeAssetId: "ABC:XNAS", weight: "0.5" },
      ],
      config: { noHoldTickers: ["ABC:XNAS"] },
    });
    expect(issues.map((i) => i.path)).toEqual([
      "targets[0].weight",
      "targets[1].themeAssetId",
      "targets[2].weight",
    ]);
  });

  it("raises MissingPriceError naming an unknown ticker and listing the others", () => {
    const e = errorOf({
      targets: [
        { themeAssetId: "ZZZ:XNYS", weight: "0.1" },
        { themeAssetId: "QQQ:XNAS", weight: "0.1" },
      ],
    });
    expect(e).toBeInstanceOf(MissingPriceError);
    expect((e as MissingPriceError).themeAssetId).toBe("QQQ:XNAS");
    expect((e as MissingPriceError).message).toContain("Also missing: ZZZ:XNYS");
    expect((e as MissingPriceError).message).toContain("no security info");
  });

  it("raises MissingPriceError for a held asset with security info but no price", () => {
    const e = errorOf({ prices: { "ABC:XNAS": 50 } });
    expect(e).toBeInstanceOf(MissingPriceError);
    expect((e as MissingPriceError).themeAssetId).toBe("XYZ:XNYS");
    expect((e as MissingPriceError).date).toBe(AS_OF);
  });

  it("refuses a non-positive price and a NaN price", () => {
    expect(issuesOf({ prices: { ...BASE.prices, "ABC:XNAS": 0 } })).toEqual([
      { path: "prices.ABC:XNAS", message: expect.stringContaining("must be > 0") },
    ]);
    expect(errorOf({ prices: { ...BASE.prices, "ABC:XNAS": Number.NaN } })).toBeInstanceOf(NonFiniteError);
  });

  it("raises a missing_fx_rate DataError for a CAD asset without a rate", () => {
    const e = errorOf({ fxRates: {}, targets: [{ themeAssetId: "RY:XTSE", weight: "0.5" }] });
    expect(e).toBeInstanceOf(DataError);
    expect((e as DataError).code).toBe("missing_fx_rate");
    expect((e as DataError).message).toContain("RY:XTSE");
  });

  it("checks the long, short and net sums of LONG_SHORT and the net long of LONG_BIASED", () => {
    const ls = { optimizationMode: "LONG_SHORT" as const, longWeightSum: "1.3", shortWeightSum: "-0.3" };
    // Long 0.9 + 0.5 = 1.4 > 1.3 (short -0.45 within -0.5, net 0.95).
    const longTooBig = issuesOf({
      config: { ...ls, shortWeightSum: "-0.5" },
      targets: [
        { themeAssetId: "XYZ:XNYS", weight: "0.9" },
        { themeAssetId: "ABC:XNAS", weight: "0.5" },
        { themeAssetId: "RY:XTSE", weight: "-0.45" },
      ],
    });
    expect(longTooBig.map((i) => i.message)).toEqual([
      expect.stringContaining("above the long weight sum 1.3"),
    ]);
    const shortTooBig = issuesOf({
      config: ls,
      targets: [
        { themeAssetId: "XYZ:XNYS", weight: "0.5" },
        { themeAssetId: "RY:XTSE", weight: "-0.4" },
      ],
    });
    expect(shortTooBig.map((i) => i.message)).toEqual([
      expect.stringContaining("below the short weight sum -0.3"),
    ]);
    const netTooBig = issuesOf({
      config: ls,
      targets: [
        { themeAssetId: "XYZ:XNYS", weight: "0.7" },
        { themeAssetId: "ABC:XNAS", weight: "0.5" },
        { themeAssetId: "RY:XTSE", weight: "-0.1" },
      ],
    });
    expect(netTooBig.map((i) => i.message)).toEqual([
      expect.stringContaining("net weight (long + short) is 1.1"),
    ]);
    const netShort = issuesOf({
      config: { optimizationMode: "LONG_BIASED" },
      targets: [
        { themeAssetId: "XYZ:XNYS", weight: "0.1" },
        { themeAssetId: "RY:XTSE", weight: "-0.2" },
      ],
    });
    expect(netShort.map((i) => i.message)).toEqual([expect.stringContaining("must stay net long")]);
  });

  it("refuses buffers larger than NAV", () => {
    // NAV = 1000 + 10 x 100 = 2000 < 2500.
    const e = errorOf({ config: { cashBufferUsdAmount: 2500 } });
    expect(e).toBeInstanceOf(ValidationError);
    expect((e as ValidationError).message).toContain("exceed the account's NAV");
  });

  it("refuses an asset both no-hold and no-trade, and a buffer fraction above 1", () => {
    const issues = issuesOf({
      config: { noHoldTickers: ["RY:XTSE"], noTradeTickers: ["RY:XTSE"], cashBufferUsd: "1.5" },
    });
    expect(issues.map((i) => i.path).sort()).toEqual(["config.cashBufferUsd", "config.noHoldTickers"]);
    expect(issues.find((i) => i.path === "config.noHoldTickers")?.message).toContain("RY:XTSE");
  });

  it("refuses lots bought after the as-of date or in another currency than their security", () => {
    const future = issuesOf({
      lots: [
        createLot({
          id: "F",
          themeAssetId: "XYZ:XNYS",
          quantity: 1,
          costBasisPerShare: 1,
          tradeDate: "2025-03-04",
        }),
      ],
    });
    expect(future).toEqual([
      { path: "lots[0].tradeDate", message: expect.stringContaining("after the as-of date") },
    ]);
    const currency = issuesOf({
      lots: [
        createLot({
          id: "C",
          themeAssetId: "XYZ:XNYS",
          quantity: 1,
          costBasisPerShare: 1,
          tradeDate: "2024-01-02",
          currency: "CAD",
          fxRate: "1.3",
        }),
      ],
    });
    expect(currency).toEqual([
      {
        path: "lots[0].currency",
        message: expect.stringContaining(
          "lot C of XYZ:XNYS has cost_basis_currency CAD, but XYZ:XNYS trades in USD: correct the lot (cost_basis_currency USD",
        ),
      },
    ]);
  });

  it("refuses the SPECIFIC lot policy, bad tax thresholds and a non-positive NAV", () => {
    expect(issuesOf({ config: { lotSelectionPolicy: "SPECIFIC" } }).map((i) => i.path)).toEqual([
      "config.lotSelectionPolicy",
    ]);
    expect(issuesOf({ config: { taxPreferences: { washSaleThreshold: -1 } } }).map((i) => i.path)).toEqual([
      "config.taxPreferences",
    ]);
    expect(issuesOf({ cashUsd: -1000 }).map((i) => i.path)).toEqual(["cashUsd"]);
  });

  it("refuses a long and a short position in the same asset", () => {
    const issues = issuesOf({
      shortLots: [{ id: "S", themeAssetId: "XYZ:XNYS", quantity: 1, proceeds: 100, openDate: "2025-01-02" }],
    });
    expect(issues).toEqual([
      { path: "shortLots", message: expect.stringContaining("XYZ:XNYS is held both long and short") },
    ]);
  });

  it("throws a TypeError naming the function for a malformed request", () => {
    expect(() => buildProposal({ ...BASE, lots: undefined as never })).toThrow(
      /buildProposal: lots must be an array/,
    );
    expect(() => buildProposal({ ...BASE, asOf: "03/03/2025" })).toThrow(RangeError);
  });
});
