import { describe, expect, it } from "vitest";
import type { FactorModel } from "../../risk/index.js";
import {
  assetVariances,
  basisResetOrders,
  correlationSubstitutes,
  DEFAULT_BASIS_RESET_MAX_GAIN,
  defaultBasisResetMaxGain,
  harvestPays,
  harvestTrackingCostUsd,
  type ResetCandidate,
} from "./harvest-rules.js";

// One market factor (variance 0.04) and one sector factor (variance 0.01); A, B, C in sector 10, D in sector 20.
function model(): FactorModel {
  return {
    assets: ["A", "B", "C", "D"],
    factors: ["market", "tech"],
    // A, B: market 1 + tech 1; C: market 1 + tech 0.2; D: market 1, no tech.
    exposures: Float64Array.from([1, 1, 1, 1, 1, 0.2, 1, 0]),
    factorCovariance: Float64Array.from([0.04, 0, 0, 0.01]),
    specificVariance: Float64Array.from([0.05, 0.05, 0.05, 0.05]),
    annualization: 1,
    diagnostics: {} as FactorModel["diagnostics"],
  };
}
const sectors: Record<string, number> = { A: 10, B: 10, C: 10, D: 20 };

describe("harvestPays", () => {
  it("harvests a $1,000 short-term loss on $20,000 at 35%: $350 of tax value against $20 of round trip", () => {
    // cost = 2 x 5 bps x 20,000 = 20; value = 0.35 x 1,000 = 350.
    expect(
      harvestPays({
        taxValueUsd: 350,
        valueUsd: 20_000,
        washedFraction: 0,
        oneWayCost: 5e-4,
        trackingCostUsd: 0,
      }),
    ).toBe(true);
  });
  it("skips the harvest when a recent purchase washes 95% of it (17.50 of value left against 20 of cost)", () => {
    expect(
      harvestPays({
        taxValueUsd: 350,
        valueUsd: 20_000,
        washedFraction: 0.95,
        oneWayCost: 5e-4,
        trackingCostUsd: 0,
      }),
    ).toBe(false);
  });
  it("still harvests when only 5 of 100 shares are washed (332.50 against 20)", () => {
    expect(
      harvestPays({
        taxValueUsd: 350,
        valueUsd: 20_000,
        washedFraction: 0.05,
        oneWayCost: 5e-4,
        trackingCostUsd: 0,
      }),
    ).toBe(true);
  });
  it("skips the harvest when the tracking it adds costs more than its tax value", () => {
    expect(
      harvestPays({
        taxValueUsd: 350,
        valueUsd: 20_000,
        washedFraction: 0,
        oneWayCost: 5e-4,
        trackingCostUsd: 331,
      }),
    ).toBe(false);
  });
});

describe("harvestTrackingCostUsd", () => {
  it("is lambda x w^2 x specific variance x 30/365 x NAV", () => {
    // w = 50,000 / 1,000,000 = 0.05; 2 x 0.0025 x 0.09 x 30/365 x 1e6 = 36.986...
    expect(harvestTrackingCostUsd(2, 50_000, 1_000_000, 0.09, 30)).toBeCloseTo(
      (2 * 0.0025 * 0.09 * 30 * 1e6) / 365,
      9,
    );
    expect(harvestTrackingCostUsd(2, 50_000, 0, 0.09, 30)).toBe(0);
  });
});

describe("correlationSubstitutes", () => {
  it("computes the total variances of the factor model", () => {
    // A: 0.04 + 0.01 + 0.05 = 0.10; C: 0.04 + 0.0004 + 0.05 = 0.0904; D: 0.04 + 0.05 = 0.09.
    const v = assetVariances(model());
    expect(v[0]).toBeCloseTo(0.1, 12);
    expect(v[2]).toBeCloseTo(0.0904, 12);
    expect(v[3]).toBeCloseTo(0.09, 12);
  });
  it("ranks the sector's names by correlation with the sold one and never returns the sold asset", () => {
    // cov(A,B) = 0.04 + 0.01 = 0.05, corr 0.5; cov(A,C) = 0.04 + 0.002 = 0.042, corr 0.042/sqrt(0.1 x 0.0904).
    const subs = correlationSubstitutes(model(), "A", ["A", "B", "C", "D"], (id) => sectors[id] ?? null, 3);
    expect(subs.map((s) => s.id)).toEqual(["B", "C"]);
    expect(subs[0]!.correlation).toBeCloseTo(0.5, 12);
    expect(subs[1]!.correlation).toBeCloseTo(0.042 / Math.sqrt(0.1 * 0.0904), 12);
  });
  it("goes outside the sector only when no name of the sector is eligible", () => {
    const subs = correlationSubstitutes(model(), "A", ["D"], (id) => sectors[id] ?? null, 3);
    expect(subs.map((s) => s.id)).toEqual(["D"]);
    expect(subs[0]!.correlation).toBeCloseTo(0.04 / Math.sqrt(0.1 * 0.09), 12);
    expect(correlationSubstitutes(model(), "Z", ["B"], () => 10)).toEqual([]);
  });
});

describe("basisResetOrders", () => {
  const band = { minGain: 0, maxGain: 0.1 };
  const lot = (lotId: string, valueUsd: number, gainUsd: number, longTerm = true): ResetCandidate => ({
    lotId,
    quantity: "10",
    valueUsd,
    gainUsd,
    longTerm,
  });

  it("sells long-term lots whose gain is within the band and buys their value back less the round trip", () => {
    const r = basisResetOrders(
      [lot("in", 1_000, 80), lot("edge", 500, 50), lot("above", 2_000, 400), lot("short", 700, 10, false)],
      { minGain: 0, maxGain: 0.1 },
      0.0005,
      100,
    );
    expect(r?.lots).toEqual([
      { lotId: "in", quantity: "10" },
      { lotId: "edge", quantity: "10" },
    ]);
    expect(r?.valueUsd).toBe(1_500);
    // 1,500 x (1 - 2 x 5 bps) = 1,498.50
    expect(r?.buyUsd).toBeCloseTo(1_498.5, 9);
  });

  it("leaves an asset holding a lot at a loss alone: the buy-back would wash that loss", () => {
    expect(basisResetOrders([lot("gain", 1_000, 20), lot("loss", 1_000, -1)], band, 0.0005, 0)).toBeNull();
  });

  it("keeps a lot whose gain is thinner than the margin: it could be a loss at the execution price", () => {
    const r = basisResetOrders(
      [lot("thin", 1_000, 30), lot("wide", 1_000, 80)],
      { minGain: 0.05, maxGain: 0.1 },
      0,
      0,
    );
    expect(r?.lots).toEqual([{ lotId: "wide", quantity: "10" }]);
  });

  it("makes no reset below the minimum trade, with a band of 0, or with nothing in the band", () => {
    expect(basisResetOrders([lot("small", 90, 1)], band, 0, 100)).toBeNull();
    expect(basisResetOrders([lot("a", 1_000, 1)], { minGain: 0, maxGain: 0 }, 0, 0)).toBeNull();
    expect(basisResetOrders([lot("a", 1_000, 200), lot("b", 1_000, 5, false)], band, 0, 0)).toBeNull();
  });
});

describe("defaultBasisResetMaxGain", () => {
  const base = {
    lossUsage: "outside_gains",
    liquidateAtEnd: true,
    shortTermRate: 0.37,
    longTermRate: 0.2,
  } as const;

  it("resets within 10% with outside_gains, liquidation at the end and a short-term rate above the long-term", () => {
    expect(defaultBasisResetMaxGain(base)).toBe(DEFAULT_BASIS_RESET_MAX_GAIN);
    expect(DEFAULT_BASIS_RESET_MAX_GAIN).toBe(0.1);
  });

  it("does not reset when any of the three does not hold", () => {
    expect(defaultBasisResetMaxGain({ ...base, lossUsage: "account_only" })).toBe(0);
    expect(defaultBasisResetMaxGain({ ...base, liquidateAtEnd: false })).toBe(0);
    expect(defaultBasisResetMaxGain({ ...base, shortTermRate: 0.2 })).toBe(0);
  });
});
