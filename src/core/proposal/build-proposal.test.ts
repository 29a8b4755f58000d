import { Decimal } from "decimal.js";
import { describe, expect, it } from "vitest";
import { createLot, type TaxLot } from "../tax/index.js";
import { buildProposal } from "./build-proposal.js";
import type { ProposalInput, ProposalSecurity } from "./proposal-input.js";
import type { ProposalOrder, ProposalResult } from "./proposal-result.js";

const AS_OF = "2025-03-03";
const USD = (symbol: string, wholeSharesOnly = false): ProposalSecurity => ({
  symbol,
  currency: "USD",
  wholeSharesOnly,
});
const SECURITIES: Record<string, ProposalSecurity> = {
  "XYZ:XNYS": USD("XYZ"),
  "ABC:XNAS": USD("ABC"),
  "AAA:XNYS": USD("AAA"),
  "BBB:XNYS": USD("BBB"),
  "CCC:XNYS": USD("CCC"),
  "BAD:XNYS": USD("BAD"),
  "BIG:XNYS": USD("BIG"),
  "RY:XTSE": { symbol: "RY", currency: "CAD" },
};

const lot = (
  id: string,
  asset: string,
  quantity: Decimal.Value,
  perShare: Decimal.Value,
  tradeDate: string,
  extra: Partial<Parameters<typeof createLot>[0]> = {},
): TaxLot =>
  createLot({ id, themeAssetId: asset, quantity, costBasisPerShare: perShare, tradeDate, ...extra });

function propose(partial: Partial<ProposalInput>): ProposalResult {
  return buildProposal({
    asOf: AS_OF,
    lots: [],
    cashUsd: 0,
    securities: SECURITIES,
    prices: {},
    targets: [],
    ...partial,
  });
}

const str = (d: Decimal | null | undefined) => (d == null ? d : d.toString());
const lines = (o: ProposalOrder | undefined) =>
  (o?.taxLots ?? []).map((l) => ({
    lot: l.lotId,
    quantity: str(l.quantity),
    costBasisUsd: str(l.costBasisUsd),
    gain: str(l.gainUsd),
    term: l.term,
    disallowed: str(l.disallowedLossUsd),
  }));
const find = (r: ProposalResult, id: string, category = "long") =>
  r.orders.find((o) => o.themeAssetId === id && o.category === category);

describe("buildProposal: lot selection of sells", () => {
  // XYZ at 50.25; NAV = 40 x 50.25 = 2010; targets 0.5 / 0.5 -> 1005 each; sell 1005 / 50.25 = 20 shares.
  const lots = [
    lot("L1", "XYZ:XNYS", 10, "60.10", "2024-06-03"), // ST, loss 50.25 - 60.10 = -9.85 / share
    lot("L2", "XYZ:XNYS", 20, "40.05", "2022-01-10"), // LT, gain 50.25 - 40.05 = +10.20 / share
    lot("L3", "XYZ:XNYS", 10, "30.00", "2024-12-02"), // ST, gain +20.25 / share
  ];
  const input: Partial<ProposalInput> = {
    lots,
    prices: { "XYZ:XNYS": "50.25", "ABC:XNAS": "100" },
    targets: [
      { themeAssetId: "XYZ:XNYS", weight: "0.5" },
      { themeAssetId: "ABC:XNAS", weight: "0.5" },
    ],
  };

  it("sells the loss lot before the long-term gain lot, to the cent", () => {
    const r = propose(input);
    const sell = find(r, "XYZ:XNYS");
    expect(sell).toMatchObject({ side: "sell", type: "qty", reason: "weight_decreased" });
    expect(str(sell?.amount)).toBe("-20");
    expect(str(sell?.amountUsd)).toBe("-1005");
    // L1: basis 10 x 60.10 = 601.00, gain 10 x 50.25 - 601.00 = -98.50 (short-term).
    // L2: basis 10 x 40.05 = 400.50, gain 502.50 - 400.50 = 102.00 (long-term). L3 (ST gain) untouched.
    expect(lines(sell)).toEqual([
      { lot: "L1", quantity: "10", costBasisUsd: "601", gain: "-98.5", term: "short_term", disallowed: "0" },
      { lot: "L2", quantity: "10", costBasisUsd: "400.5", gain: "102", term: "long_term", disallowed: "0" },
    ]);
    expect(str(r.realized.shortTermUsd)).toBe("-98.5");
    expect(str(r.realized.longTermUsd)).toBe("102");
    // The sale funds the buy: 0 + 1005 - 1005 = 0 cash left.
    const buy = find(r, "ABC:XNAS");
    expect(buy).toMatchObject({ side: "buy", type: "notional", reason: "added_to_target" });
    expect(str(buy?.amount)).toBe("1005");
    expect(str(r.postTrade.cashUsd)).toBe("0");
  });

  it("sells exactly the lots it is given (the optimizer's choice) instead of the policy's", () => {
    // Chosen: all 10 shares of L3 (ST gain) and 9 of L2 (LT gain): 19 shares,
    // where the weights alone ask for 20. The sale is for the 19 chosen shares: proceeds 19 x 50.25 = 954.75.
    const r = propose({
      ...input,
      lotChoices: {
        "XYZ:XNYS": [
          { lotId: "L3", quantity: "10" },
          { lotId: "L2", quantity: "9" },
        ],
      },
    });
    const sell = find(r, "XYZ:XNYS");
    expect(str(sell?.amount)).toBe("-19");
    expect(str(sell?.amountUsd)).toBe("-954.75");
    // L3: 10 x (50.25 - 30.00) = 202.50 ST; L2: 9 x (50.25 - 40.05) = 91.80 LT.
    expect(lines(sell).map((l) => [l.lot, l.quantity, l.gain, l.term])).toEqual([
      ["L3", "10", "202.5", "short_term"],
      ["L2", "9", "91.8", "long_term"],
    ]);
    expect(str(r.realized.shortTermUsd)).toBe("202.5");
    expect(str(r.realized.longTermUsd)).toBe("91.8");
    // A full liquidation ignores a partial choice: every lot is sold.
    const out = propose({
      ...input,
      targets: [{ themeAssetId: "ABC:XNAS", weight: "1" }],
      lotChoices: { "XYZ:XNYS": [{ lotId: "L3", quantity: "10" }] },
    });
    expect(str(find(out, "XYZ:XNYS")?.amount)).toBe("-40");
    // A choice that is not a held lot of the asset is refused by the tax engine, naming the lot.
    expect(() =>
      propose({ ...input, lotChoices: { "XYZ:XNYS": [{ lotId: "NOPE", quantity: "5" }] } }),
    ).toThrow(/Lot NOPE/);
  });

  it("reports existing quantity, value and weight and the target weight of each order", () => {
    const sell = find(propose(input), "XYZ:XNYS")!;
    expect([sell.existingQuantity, sell.existingMarketValueUsd, sell.existingWeight].map(str)).toEqual([
      "40",
      "2010",
      "1",
    ]);
    expect([str(sell.targetWeight), str(sell.targetValueUsd)]).toEqual(["0.5", "1005"]);
  });

  it("applies a capital-gains reduction to the asset's positive net gain", () => {
    // Net recognized = -98.50 + 102.00 = 3.50; DOLLARS 500 -> reduction min(500, 3.50) = 3.50, all on the
    // only positive part (long-term): taxable LT 102.00 - 3.50 = 98.50; ST stays -98.50.
    const dollars = propose({ ...input, config: { capitalGainsReductions: { "XYZ:XNYS": "500" } } });
    expect(str(dollars.realized.capitalGainsReductionUsd)).toBe("3.5");
    expect(str(dollars.realized.taxableLongTermUsd)).toBe("98.5");
    expect(str(dollars.realized.taxableShortTermUsd)).toBe("-98.5");
    // PERCENT 50 -> 50% x 3.50 = 1.75.
    const percent = propose({
      ...input,
      config: { capitalGainsReductions: { "XYZ:XNYS": "50" }, capitalGainsReductionsUnits: "PERCENT" },
    });
    expect(str(percent.realized.capitalGainsReductionUsd)).toBe("1.75");
    expect(str(percent.realized.taxableLongTermUsd)).toBe("100.25");
  });

  it("uses FIFO when the configuration asks for it", () => {
    // FIFO: oldest first = L2 (2022-01-10): 20 shares, basis 801.00, gain 1005 - 801 = 204 (long-term).
    const r = propose({ ...input, config: { lotSelectionPolicy: "FIFO" } });
    expect(lines(find(r, "XYZ:XNYS"))).toEqual([
      { lot: "L2", quantity: "20", costBasisUsd: "801", gain: "204", term: "long_term", disallowed: "0" },
    ]);
  });

  it("does not mutate its input", () => {
    const copy = { ...input, lots: lots.map((l) => ({ ...l })) };
    const before = JSON.stringify(copy);
    propose(copy);
    expect(JSON.stringify(copy)).toBe(before);
  });
});

describe("buildProposal: short-term / long-term boundary", () => {
  // Sale on 2025-03-03 at 100. A: bought 2024-03-03, held 365 days (no Feb 29 in between) -> short-term.
  // B: bought 2024-03-02, held 366 days -> long-term. Both gain 100 - 80 = 20 / share.
  const lots = [lot("A", "XYZ:XNYS", 10, 80, "2024-03-03"), lot("B", "XYZ:XNYS", 10, 80, "2024-03-02")];

  it("labels 365 days short-term and 366 days long-term, and sells the long-term gain first", () => {
    // NAV = 20 x 100 = 2000; weight 0.25 -> 500; sell 1500 / 100 = 15 shares: B (LT) 10, then A (ST) 5.
    const r = propose({
      lots,
      prices: { "XYZ:XNYS": 100 },
      targets: [{ themeAssetId: "XYZ:XNYS", weight: "0.25" }],
    });
    expect(lines(find(r, "XYZ:XNYS"))).toEqual([
      { lot: "B", quantity: "10", costBasisUsd: "800", gain: "200", term: "long_term", disallowed: "0" },
      { lot: "A", quantity: "5", costBasisUsd: "400", gain: "100", term: "short_term", disallowed: "0" },
    ]);
    expect([str(r.realized.longTermUsd), str(r.realized.shortTermUsd)]).toEqual(["200", "100"]);
  });

  it("honors a configured long-term threshold", () => {
    // Threshold 366 days: B (366 days) is no longer held MORE than 366 -> short-term too.
    const r = propose({
      lots,
      prices: { "XYZ:XNYS": 100 },
      targets: [{ themeAssetId: "XYZ:XNYS", weight: "0.25" }],
      config: { taxPreferences: { longTermThreshold: 366 } },
    });
    expect(find(r, "XYZ:XNYS")?.taxLots?.map((l) => l.term)).toEqual(["short_term", "short_term"]);
  });
});

describe("buildProposal: wash sales", () => {
  // Price 100 on 2025-03-03. OLD: 10 @ 120 (2023-01-05): long-term loss 10 x (100 - 120) = -200.
  // NEW: 10 @ 95 bought 2025-02-21, 10 days before: short-term gain 10 x 5 = +50. NAV 2000, weight 0.5
  // -> sell 10 shares.
  const lots = [lot("OLD", "XYZ:XNYS", 10, 120, "2023-01-05"), lot("NEW", "XYZ:XNYS", 10, 95, "2025-02-21")];
  const base: Partial<ProposalInput> = {
    lots,
    prices: { "XYZ:XNYS": 100 },
    targets: [{ themeAssetId: "XYZ:XNYS", weight: "0.5" }],
  };

  it("flags the loss as washed by the purchase 10 days before (loss disallowed, nothing recognized)", () => {
    // Default handling: the exposed loss still goes before gains; NEW's 10 shares replace the 10 sold,
    // so the whole 200 loss is disallowed: recognized = -200 + 200 = 0.
    const r = propose(base);
    expect(lines(find(r, "XYZ:XNYS"))).toEqual([
      {
        lot: "OLD",
        quantity: "10",
        costBasisUsd: "1200",
        gain: "-200",
        term: "long_term",
        disallowed: "200",
      },
    ]);
    expect(str(r.realized.longTermUsd)).toBe("0");
    expect(str(r.realized.disallowedLossUsd)).toBe("200");
  });

  it("sells the gain lot instead under prevent_tlh_invalidating_sale", () => {
    const r = propose({ ...base, config: { taxPreferences: { preventTlhInvalidatingSale: true } } });
    expect(lines(find(r, "XYZ:XNYS"))).toEqual([
      { lot: "NEW", quantity: "10", costBasisUsd: "950", gain: "50", term: "short_term", disallowed: "0" },
    ]);
  });

  it("counts a household purchase in another account as a replacement", () => {
    // Account: 20 @ 120; household lot of 5 shares bought 2025-02-21. Selling 10 at a loss of 200:
    // 5 of 10 shares replaced -> disallowed 200 x 5 / 10 = 100; recognized -100.
    const r = propose({
      lots: [lot("OLD", "XYZ:XNYS", 20, 120, "2023-01-05")],
      householdLots: [lot("H1", "XYZ:XNYS", 5, 98, "2025-02-21", { accountId: "other" })],
      prices: { "XYZ:XNYS": 100 },
      targets: [{ themeAssetId: "XYZ:XNYS", weight: "0.5" }],
    });
    expect(lines(find(r, "XYZ:XNYS"))[0]?.disallowed).toBe("100");
    expect(str(r.realized.longTermUsd)).toBe("-100");
  });

  const lossMarked: Partial<ProposalInput> = {
    cashUsd: 1000,
    lots: [lot("X1", "XYZ:XNYS", 1, 150, "2022-01-03", { lastSoldForLossDate: "2025-02-20" })],
    prices: { "XYZ:XNYS": 100 },
    targets: [{ themeAssetId: "XYZ:XNYS", weight: "0.5" }],
  };

  it("drops a buy that would wash a recent loss under prevent_tlh_invalidating_purchase", () => {
    // NAV = 1000 + 100 = 1100; target 550 -> buy 450, but XYZ was sold at a loss on 2025-02-20.
    const r = propose({
      ...lossMarked,
      config: { taxPreferences: { preventTlhInvalidatingPurchase: true } },
    });
    expect(r.orders).toEqual([]);
    expect(r.dropped).toMatchObject([
      { themeAssetId: "XYZ:XNYS", side: "buy", reason: "wash_sale_prevented" },
    ]);
    expect(str(r.dropped[0]?.wantedAmountUsd)).toBe("450");
  });

  it("keeps that buy with a warning when purchases are not prevented", () => {
    const r = propose(lossMarked);
    expect(str(find(r, "XYZ:XNYS")?.amount)).toBe("450");
    // The targets leave cash uninvested, which the weights-below-one warning says.
    expect(r.warnings.map((w) => w.code)).toEqual(["purchase_washes_recent_loss", "weights_below_one"]);
  });

  it("looks at household loss sales outside the window as harmless", () => {
    // A loss sale 31 days ago (2025-01-31) is outside the 30-day window.
    const r = propose({
      ...lossMarked,
      lots: [lot("X1", "XYZ:XNYS", 1, 150, "2022-01-03")],
      recentSales: [{ themeAssetId: "XYZ:XNYS", saleDate: "2025-01-31", quantity: 5, gainUsd: -40 }],
      config: { taxPreferences: { preventTlhInvalidatingPurchase: true } },
    });
    expect(r.orders).toHaveLength(1);
  });
});

describe("buildProposal: whole shares and cash buffers", () => {
  const whole = { requireWholeShares: true, wholeShareAssets: null };

  it("buys whole shares that spend the cash down to the buffer exactly, never below", () => {
    // Cash 1000, buffer 100 -> investable 900; ABC at 9 -> 900 / 9 = 100 shares = 900.00; cash after 100.00.
    const r = propose({
      cashUsd: 1000,
      prices: { "ABC:XNAS": 9 },
      targets: [{ themeAssetId: "ABC:XNAS", weight: 1 }],
      config: { ...whole, cashBufferUsdAmount: 100 },
    });
    expect(find(r, "ABC:XNAS")).toMatchObject({ type: "qty" });
    expect(str(find(r, "ABC:XNAS")?.amount)).toBe("100");
    expect(str(r.postTrade.cashUsd)).toBe("100");
    expect(str(r.cashBufferUsdAmount)).toBe("100");
  });

  it("reserves a withdrawal like a buffer: weights of NAV - buffer - withdrawal, buys never spend it", () => {
    // Cash 1000, buffer 100, withdrawal 400 -> investable 500; ABC at 9 -> floor(500 / 9) = 55 shares = 495.
    const r = propose({
      cashUsd: 1000,
      prices: { "ABC:XNAS": 9 },
      targets: [{ themeAssetId: "ABC:XNAS", weight: 1 }],
      config: { ...whole, cashBufferUsdAmount: 100 },
      withdrawalUsd: "400",
    });
    expect(str(r.investableUsd)).toBe("500");
    expect(str(r.reservedCashUsd)).toBe("500");
    expect(str(find(r, "ABC:XNAS")?.amount)).toBe("55");
    expect(str(r.postTrade.cashUsd)).toBe("505");
    // More than the NAV less the buffer: refused, naming the withdrawal.
    expect(() =>
      propose({ cashUsd: 1000, config: { cashBufferUsdAmount: 100 }, withdrawalUsd: "950" }),
    ).toThrow(
      /withdrawal \(950 USD\) and the cash buffers \(100 USD\) exceed the account's NAV \(1000 USD\)/,
    );
  });

  it("rounds whole-share buys down when rounding to the nearest share would overspend", () => {
    // Budget 900; A and B at 300 want 450 / 300 = 1.5 shares each; nearest = 2 + 2 = 1200 > 900.
    // Scale s = min(1, 900 / 900) = 1: floor -> 1 + 1 (600); 300 left buys one more share for the largest
    // remainder (0.5 each, tie broken by id -> A). A 2, B 1: 900 spent, cash 100.00 = buffer.
    const r = propose({
      cashUsd: 1000,
      prices: { "AAA:XNYS": 300, "BBB:XNYS": 300 },
      targets: [
        { themeAssetId: "AAA:XNYS", weight: "0.5" },
        { themeAssetId: "BBB:XNYS", weight: "0.5" },
      ],
      config: { ...whole, cashBufferUsdAmount: 100 },
    });
    expect(r.orders.map((o) => [o.themeAssetId, str(o.amount)])).toEqual([
      ["AAA:XNYS", "2"],
      ["BBB:XNYS", "1"],
    ]);
    expect(str(r.postTrade.cashUsd)).toBe("100");
  });

  it("rounds whole shares only for the listed whole_share_assets", () => {
    // Only AAA is whole-share: 450 / 300 = 1.5 -> 2 shares (600); BBB notional 450. 600 + 450 = 1050 > 900:
    // s = 900 / (1.5 x 300 + 450) = 1 -> AAA floor 1 share (300), BBB floor_cent(450) = 450; 150 left < 300.
    const r = propose({
      cashUsd: 1000,
      prices: { "AAA:XNYS": 300, "BBB:XNYS": 300 },
      targets: [
        { themeAssetId: "AAA:XNYS", weight: "0.5" },
        { themeAssetId: "BBB:XNYS", weight: "0.5" },
      ],
      config: { requireWholeShares: true, wholeShareAssets: ["AAA:XNYS"], cashBufferUsdAmount: 100 },
    });
    expect(r.orders.map((o) => [o.themeAssetId, o.type, str(o.amount)])).toEqual([
      ["AAA:XNYS", "qty", "1"],
      ["BBB:XNYS", "notional", "450"],
    ]);
    expect(str(r.postTrade.cashUsd)).toBe("250");
  });

  it("sizes the USD buffer by fraction of NAV, rounded up to the cent", () => {
    // NAV 10,000.10 x 0.05 = 500.005 -> 500.01; investable 9,500.09 -> buy 9,500.09; cash after 500.01.
    const r = propose({
      cashUsd: "10000.10",
      prices: { "ABC:XNAS": 100 },
      targets: [{ themeAssetId: "ABC:XNAS", weight: 1 }],
      config: { cashBufferUsd: "0.05" },
    });
    expect(str(r.cashBufferUsdAmount)).toBe("500.01");
    expect(str(r.investableUsd)).toBe("9500.09");
    expect(str(find(r, "ABC:XNAS")?.amount)).toBe("9500.09");
    expect(str(r.postTrade.cashUsd)).toBe("500.01");
    expect(r.cashBufferCadAmount).toBeNull();
  });

  it("lets the buffer amount win over the fraction", () => {
    // Amount 750 overrides 5%: investable 10,000.10 - 750 = 9,250.10.
    const r = propose({
      cashUsd: "10000.10",
      prices: { "ABC:XNAS": 100 },
      targets: [{ themeAssetId: "ABC:XNAS", weight: 1 }],
      config: { cashBufferUsd: "0.05", cashBufferUsdAmount: 750 },
    });
    expect(str(r.cashBufferUsdAmount)).toBe("750");
    expect(str(find(r, "ABC:XNAS")?.amount)).toBe("9250.1");
    expect(str(r.postTrade.cashUsd)).toBe("750");
  });

  it("expresses the CAD buffer in CAD and reserves its USD value", () => {
    // CAD fraction 0.02 x NAV 10,000 x 1.35 CAD/USD = 270.00 CAD -> 270 / 1.35 = 200 USD reserved.
    const byFraction = propose({
      cashUsd: 10000,
      prices: { "ABC:XNAS": 100 },
      fxRates: { CAD: "1.35" },
      targets: [{ themeAssetId: "ABC:XNAS", weight: 1 }],
      config: { cashBufferCad: "0.02" },
    });
    expect(str(byFraction.cashBufferCadAmount)).toBe("270");
    expect(str(byFraction.reservedCashUsd)).toBe("200");
    expect(str(byFraction.investableUsd)).toBe("9800");
    // CAD amount 135 wins over the fraction: 135 / 1.35 = 100 USD reserved.
    const byAmount = propose({
      cashUsd: 10000,
      prices: { "ABC:XNAS": 100 },
      fxRates: { CAD: "1.35" },
      targets: [{ themeAssetId: "ABC:XNAS", weight: 1 }],
      config: { cashBufferCad: "0.02", cashBufferCadAmount: 135 },
    });
    expect(str(byAmount.cashBufferCadAmount)).toBe("135");
    expect(str(byAmount.reservedCashUsd)).toBe("100");
  });

  it("scales every buy when the cash above the buffer is short", () => {
    // XYZ (no-trade) 10 x 100 = 1000, cash 1000 -> NAV 2000; buffer 600 -> investable 1400.
    // ABC weight 0.5 -> 700 wanted; budget = 1000 - 600 = 400 -> s = 400 / 700; 700 x s = 400.00.
    const r = propose({
      cashUsd: 1000,
      lots: [lot("X", "XYZ:XNYS", 10, 90, "2020-01-02")],
      prices: { "XYZ:XNYS": 100, "ABC:XNAS": 100 },
      targets: [
        { themeAssetId: "XYZ:XNYS", weight: "0.5" },
        { themeAssetId: "ABC:XNAS", weight: "0.5" },
      ],
      config: { cashBufferUsdAmount: 600, noTradeTickers: ["XYZ:XNYS"] },
    });
    expect(str(find(r, "ABC:XNAS")?.amount)).toBe("400");
    expect(r.buyScale.toFixed(10)).toBe("0.5714285714");
    expect(str(r.postTrade.cashUsd)).toBe("600");
    expect(r.warnings.map((w) => w.code)).toEqual(["buys_scaled"]);
  });
});

describe("buildProposal: Canadian listing and FX fee", () => {
  // RY:XTSE at 135.00 CAD, 1.35 CAD per USD -> 100 USD per share. Default fee 0.25%.
  const fx = { CAD: "1.35" };

  it("buys notional USD, grossed up for the fee so the converted amount reaches the target", () => {
    // Target 0.5 x 10,000 = 5,000 USD. base = floor_cent(5000 / (1 - 0.0025)) = floor_cent(5012.5313...) =
    // 5012.53; fee = 5012.53 x 0.25 / 100 = 12.531325; net = 5012.53 - 12.531325 = 4999.998675 (within a
    // cent of 5000); estimated shares = 4999.998675 / 100.
    const r = propose({
      cashUsd: 10000,
      prices: { "RY:XTSE": 135 },
      fxRates: fx,
      targets: [{ themeAssetId: "RY:XTSE", weight: "0.5" }],
    });
    const o = find(r, "RY:XTSE")!;
    expect(o).toMatchObject({ type: "notional", currency: "CAD", side: "buy" });
    expect([str(o.amount), str(o.amountUsd), str(o.quantity)]).toEqual(["5012.53", "5012.53", "49.99998675"]);
    expect(o.fxCostBreakdown).not.toBeNull();
    const b = o.fxCostBreakdown!;
    expect([b.currency, str(b.fxRate), str(b.baseAmountUsd), str(b.feePercentage)]).toEqual([
      "CAD",
      "1.35",
      "5012.53",
      "0.25",
    ]);
    expect([str(b.feeAmountUsd), str(b.netAmountUsd)]).toEqual(["12.531325", "4999.998675"]);
    // Cash 10,000 - 5,012.53 = 4,987.47; NAV after = 4,987.47 + 4,999.998675 = 10,000 - 12.531325.
    expect(str(r.postTrade.cashUsd)).toBe("4987.47");
    expect(str(r.postTrade.navUsd)).toBe("9987.468675");
    expect(str(r.fxFeesUsd)).toBe("12.531325");
  });

  it("sells a CAD lot: gain translated at each date's rate, fee taken from the proceeds", () => {
    // 100 shares bought at 120 CAD (12,000 CAD) when 1.25 CAD = 1 USD -> basis 9,600 USD.
    // Proceeds 100 x 135 / 1.35 = 10,000 USD -> gain 400 USD (long-term). Fee 0.25% = 25; cash + 9,975.
    const r = propose({
      lots: [lot("R1", "RY:XTSE", 100, 120, "2020-05-01", { currency: "CAD", fxRate: "1.25" })],
      prices: { "RY:XTSE": 135 },
      fxRates: fx,
      targets: [],
    });
    const o = find(r, "RY:XTSE")!;
    expect([o.reason, str(o.amount), str(o.amountUsd)]).toEqual(["removed_from_target", "-100", "-10000"]);
    expect(o.taxLots?.map((l) => [str(l.costBasis), str(l.costBasisUsd), str(l.gainUsd), l.term])).toEqual([
      ["12000", "9600", "400", "long_term"],
    ]);
    const b = o.fxCostBreakdown!;
    expect([str(b.baseAmountUsd), str(b.feeAmountUsd), str(b.netAmountUsd)]).toEqual(["10000", "25", "9975"]);
    expect(str(r.postTrade.cashUsd)).toBe("9975");
  });

  it("buys whole CAD shares: the base is grossed up so the net pays exactly for the shares", () => {
    // 5,000 / 100 = 50 shares; net = 50 x 135 / 1.35 = 5,000; base = 5,000 / 0.9975 = 5,012.5313283208...;
    // fee = base - net = 12.5313283208... (= base x 0.25%).
    const r = propose({
      cashUsd: 10000,
      securities: { ...SECURITIES, "RY:XTSE": { symbol: "RY", currency: "CAD", wholeSharesOnly: true } },
      prices: { "RY:XTSE": 135 },
      fxRates: fx,
      targets: [{ themeAssetId: "RY:XTSE", weight: "0.5" }],
    });
    const o = find(r, "RY:XTSE")!;
    expect([o.type, str(o.amount)]).toEqual(["qty", "50"]);
    const b = o.fxCostBreakdown!;
    expect(str(b.netAmountUsd)).toBe("5000");
    expect(b.baseAmountUsd.toFixed(10)).toBe("5012.5313283208");
    expect(b.feeAmountUsd.toFixed(10)).toBe("12.5313283208");
    expect(b.baseAmountUsd.times("0.0025").minus(b.feeAmountUsd).abs().lt("1e-50")).toBe(true);
    expect(o.amountUsd.eq(b.baseAmountUsd)).toBe(true);
  });

  it("honors a custom FX fee percentage", () => {
    // 1% fee: base = floor_cent(5000 / 0.99) = 5050.50; fee 50.505; net 4999.995.
    const r = propose({
      cashUsd: 10000,
      prices: { "RY:XTSE": 135 },
      fxRates: fx,
      targets: [{ themeAssetId: "RY:XTSE", weight: "0.5" }],
      options: { fxFeePercentage: 1 },
    });
    const b = find(r, "RY:XTSE")!.fxCostBreakdown!;
    expect([str(b.baseAmountUsd), str(b.feeAmountUsd), str(b.netAmountUsd)]).toEqual([
      "5050.5",
      "50.505",
      "4999.995",
    ]);
  });
});

describe("buildProposal: long-short accounts", () => {
  // Cash 8,500; AAA long 20 @ 90 (price 100, value 2,000); BBB short 10 owed, proceeds 600 (price 50,
  // value -500); NAV = 8,500 + 2,000 - 500 = 10,000 = investable.
  const base: Partial<ProposalInput> = {
    cashUsd: 8500,
    lots: [lot("A1", "AAA:XNYS", 20, 90, "2020-01-02")],
    shortLots: [{ id: "S1", themeAssetId: "BBB:XNYS", quantity: 10, proceeds: 600, openDate: "2024-11-01" }],
    prices: { "AAA:XNYS": 100, "BBB:XNYS": 50, "CCC:XNYS": 25 },
    config: { optimizationMode: "LONG_SHORT", longWeightSum: "1.3", shortWeightSum: "-0.3" },
  };

  it("goes short with short_order and buys back with short_cover", () => {
    // AAA -0.1 -> -1,000: sell the 20 long shares (LT gain 20 x 10 = 200), then short 1,000 / 100 = 10.
    // BBB +0.1 -> +1,000: cover the 10 owed (cost 500, ST gain 600 - 500 = 100), then buy 1,000 notional.
    // CCC +0.5 -> buy 5,000. Cash: 8,500 + 2,000 + 1,000 - 500 - 1,000 - 5,000 = 5,000.
    const r = propose({
      ...base,
      targets: [
        { themeAssetId: "AAA:XNYS", weight: "-0.1" },
        { themeAssetId: "BBB:XNYS", weight: "0.1" },
        { themeAssetId: "CCC:XNYS", weight: "0.5" },
      ],
    });
    expect(
      r.orders.map((o) => [o.themeAssetId, o.side, o.category, o.type, str(o.amount), o.reason]),
    ).toEqual([
      ["AAA:XNYS", "sell", "long", "qty", "-20", "weight_decreased"],
      ["AAA:XNYS", "sell", "short_order", "qty", "-10", "weight_decreased"],
      ["BBB:XNYS", "buy", "short_cover", "qty", "10", "weight_increased"],
      ["BBB:XNYS", "buy", "long", "notional", "1000", "weight_increased"],
      ["CCC:XNYS", "buy", "long", "notional", "5000", "added_to_target"],
    ]);
    expect(lines(find(r, "BBB:XNYS", "short_cover"))).toEqual([
      { lot: "S1", quantity: "10", costBasisUsd: "500", gain: "100", term: "short_term", disallowed: "0" },
    ]);
    expect(find(r, "AAA:XNYS", "short_order")?.taxLots).toBeNull();
    expect([str(r.realized.shortTermUsd), str(r.realized.longTermUsd)]).toEqual(["100", "200"]);
    expect(str(r.postTrade.cashUsd)).toBe("5000");
    expect(
      r.postTrade.positions.map((p) => [p.themeAssetId, str(p.quantity), str(p.marketValueUsd)]),
    ).toEqual([
      ["AAA:XNYS", "-10", "-1000"],
      ["BBB:XNYS", "20", "1000"],
      ["CCC:XNYS", "200", "5000"],
    ]);
  });

  it("a partial cover names the chosen short lots and quantities (lotChoices), else covers the lowest proceeds first", () => {
    // BBB owes S1 10 (proceeds 60 a share) and S2 10 (45 a share) at price 50; cash 8,950: NAV 9,950.
    // Target -0.05 -> -497.5: cover 502.5 / 50 = 10.05 -> 10 shares, by the rule S2 (gain 450 - 500 = -50).
    const two: Partial<ProposalInput> = {
      ...base,
      cashUsd: 8950,
      shortLots: [
        ...base.shortLots!,
        { id: "S2", themeAssetId: "BBB:XNYS", quantity: 10, proceeds: 450, openDate: "2024-12-02" },
      ],
      targets: [
        { themeAssetId: "AAA:XNYS", weight: "0.2" },
        { themeAssetId: "BBB:XNYS", weight: "-0.05" },
      ],
    };
    const byRule = find(propose(two), "BBB:XNYS", "short_cover")!;
    expect(str(byRule.amount)).toBe("10");
    expect(lines(byRule).map((l) => [l.lot, l.quantity, l.gain])).toEqual([["S2", "10", "-50"]]);
    // The optimizer chose 4 shares of S1: the cover is for exactly those (gain 4 x (60 - 50) = 40).
    const chosen = find(
      propose({ ...two, lotChoices: { "BBB:XNYS": [{ lotId: "S1", quantity: "4" }] } }),
      "BBB:XNYS",
      "short_cover",
    )!;
    expect(str(chosen.amount)).toBe("4");
    expect(lines(chosen).map((l) => [l.lot, l.quantity, l.gain])).toEqual([["S1", "4", "40"]]);
  });

  it("funds covers before long buys and buys an asset long only once its short is closed", () => {
    // Cash 600; AAA long 20 x 100 (no-trade); BBB short 10 x 50. NAV = 600 + 2,000 - 500 = 2,100.
    // BBB 0.05 -> 105: cover 10 (500), then buy 105; CCC 0.05 -> buy 105. Budget 600: the cover takes 500,
    // the 100 left funds the long buys at 100 / 210: each 105 x 100 / 210 = 50.00.
    const tight: Partial<ProposalInput> = {
      ...base,
      cashUsd: 600,
      targets: [
        { themeAssetId: "AAA:XNYS", weight: "0.9" },
        { themeAssetId: "BBB:XNYS", weight: "0.05" },
        { themeAssetId: "CCC:XNYS", weight: "0.05" },
      ],
      config: { ...base.config, noTradeTickers: ["AAA:XNYS"] },
    };
    const r = propose(tight);
    expect(r.orders.map((o) => [o.themeAssetId, o.category, str(o.amount)])).toEqual([
      ["BBB:XNYS", "short_cover", "10"],
      ["BBB:XNYS", "long", "50"],
      ["CCC:XNYS", "long", "50"],
    ]);
    expect(str(r.postTrade.cashUsd)).toBe("0");
    // Cash 300: the cover is scaled to 300 / 500 x 10 = 6 shares; BBB stays short, so no long buy of BBB,
    // and nothing is left for CCC.
    const short = propose({ ...tight, cashUsd: 300 });
    expect(short.orders.map((o) => [o.themeAssetId, o.category, str(o.amount)])).toEqual([
      ["BBB:XNYS", "short_cover", "6"],
    ]);
    expect(short.dropped.map((d) => [d.themeAssetId, d.reason])).toEqual([
      ["AAA:XNYS", "no_trade"],
      ["BBB:XNYS", "scaled_to_zero"],
      ["CCC:XNYS", "scaled_to_zero"],
    ]);
    expect(str(short.postTrade.cashUsd)).toBe("0");
  });

  it("sells a long position of any size in full before going short", () => {
    // AAA: 0.001 shares (0.10 USD, below the 1 USD minimum) and a target of -0.1 x 10,000.10 = -1,000.01:
    // the 0.001 shares are sold anyway, then 1,000.01 / 100 -> 10 shares shorted.
    const r = propose({
      ...base,
      cashUsd: 10000,
      lots: [lot("A1", "AAA:XNYS", "0.001", 90, "2020-01-02")],
      shortLots: [],
      targets: [{ themeAssetId: "AAA:XNYS", weight: "-0.1" }],
    });
    expect(r.orders.map((o) => [o.category, str(o.amount)])).toEqual([
      ["long", "-0.001"],
      ["short_order", "-10"],
    ]);
  });

  it("covers part of a short and deepens another", () => {
    // BBB -0.02 -> -200: from -500, cover 300 / 50 = 6 shares; gain 6 x (60 - 50) = 60 (short-term).
    // AAA at -0.05 needs the long 20 sold and 5 shorted; CCC unchanged.
    const r = propose({
      ...base,
      targets: [
        { themeAssetId: "AAA:XNYS", weight: "-0.05" },
        { themeAssetId: "BBB:XNYS", weight: "-0.02" },
      ],
    });
    const cover = find(r, "BBB:XNYS", "short_cover")!;
    expect([str(cover.amount), cover.reason]).toEqual(["6", "weight_increased"]);
    expect(lines(cover)[0]?.gain).toBe("60");
    expect(str(find(r, "AAA:XNYS", "short_order")?.amount)).toBe("-5");
    expect(r.postTrade.positions.find((p) => p.themeAssetId === "BBB:XNYS")?.quantity.toString()).toBe("-4");
  });
});

describe("buildProposal: restrictions and minimum sizes", () => {
  it("leaves no-trade assets alone (counted in NAV) and sells no-hold assets in full", () => {
    // Cash 1,000 + XYZ 10 x 100 + BAD 5 x 50 = 2,250 NAV. XYZ (no-trade) target 0.2 x 2,250 = 450: no order,
    // reported with the wanted -550. BAD (no-hold) sold in full: +250. ABC 0.5 -> buy 1,125.
    const r = propose({
      cashUsd: 1000,
      lots: [lot("X", "XYZ:XNYS", 10, 90, "2020-01-02"), lot("B", "BAD:XNYS", 5, 40, "2020-01-02")],
      prices: { "XYZ:XNYS": 100, "BAD:XNYS": 50, "ABC:XNAS": 100 },
      targets: [
        { themeAssetId: "XYZ:XNYS", weight: "0.2" },
        { themeAssetId: "ABC:XNAS", weight: "0.5" },
      ],
      config: { noTradeTickers: ["XYZ:XNYS"], noHoldTickers: ["BAD:XNYS"] },
    });
    expect(str(r.navUsd)).toBe("2250");
    expect(r.orders.map((o) => [o.themeAssetId, str(o.amount), o.reason])).toEqual([
      ["BAD:XNYS", "-5", "removed_from_target"],
      ["ABC:XNAS", "1125", "added_to_target"],
    ]);
    expect(r.dropped).toMatchObject([{ themeAssetId: "XYZ:XNYS", reason: "no_trade", side: "sell" }]);
    expect(str(r.dropped[0]?.wantedAmountUsd)).toBe("-550");
    expect(str(r.postTrade.cashUsd)).toBe("125");
  });

  it("drops orders below the minimum size and reports them", () => {
    // ABC: 10 shares at 100, target 0.9995 x 1,000 = 999.50 -> sell 0.005 shares = 0.50 USD < 1 USD.
    // BIG at 100,000: 1 share, target 0.99995 x NAV -> sell 0.00005 shares (5 USD) < 0.0001 shares.
    // XYZ: buy 0.50 USD < 1 USD. NAV = 2 + 1,000 + 100,000 = 101,002.
    const r = propose({
      cashUsd: "2",
      lots: [lot("A", "ABC:XNAS", 10, 90, "2020-01-02"), lot("G", "BIG:XNYS", 1, 90000, "2020-01-02")],
      prices: { "ABC:XNAS": 100, "BIG:XNYS": 100000, "XYZ:XNYS": 10 },
      targets: [
        { themeAssetId: "ABC:XNAS", weight: new Decimal("999.5").dividedBy("101002").toFixed(10) },
        { themeAssetId: "BIG:XNYS", weight: new Decimal("99995").dividedBy("101002").toFixed(10) },
        { themeAssetId: "XYZ:XNYS", weight: new Decimal("0.5").dividedBy("101002").toFixed(10) },
      ],
    });
    expect(r.orders).toEqual([]);
    expect(r.dropped.map((d) => [d.themeAssetId, d.side, d.reason])).toEqual([
      ["ABC:XNAS", "sell", "below_min_notional"],
      ["BIG:XNYS", "sell", "below_min_quantity"],
      ["XYZ:XNYS", "buy", "below_min_notional"],
    ]);
    expect(r.dropped[0]?.message).toContain("ABC:XNAS");
  });

  it("still sells a position removed from the target when it is worth less than the minimum", () => {
    // 0.002 shares x 100 = 0.20 USD: removal is not subject to the minimum, nothing is left behind.
    const r = propose({
      lots: [lot("A", "ABC:XNAS", "0.002", 90, "2020-01-02")],
      prices: { "ABC:XNAS": 100 },
      targets: [],
    });
    expect(r.orders.map((o) => [str(o.amount), o.reason])).toEqual([["-0.002", "removed_from_target"]]);
  });

  it("treats a gap under half a cent as on target, but still sells dust of a removed position", () => {
    // ABC: 10 shares at 100 + cash 0.004 -> NAV 1,000.004; weight 0.999996 -> target
    // 1,000.004 x 0.999996 = 999.999999984: the gap (0.000000016 USD) is under half a cent, so no order and
    // nothing reported.
    const near = propose({
      cashUsd: "0.004",
      lots: [lot("A", "ABC:XNAS", 10, 90, "2020-01-02")],
      prices: { "ABC:XNAS": 100 },
      targets: [{ themeAssetId: "ABC:XNAS", weight: "0.999996" }],
    });
    expect([near.orders, near.dropped]).toEqual([[], []]);
    // 0.00001 shares x 100 = 0.001 USD, removed from the target: sold anyway.
    const dust = propose({
      lots: [lot("A", "ABC:XNAS", "0.00001", 90, "2020-01-02")],
      prices: { "ABC:XNAS": 100 },
      targets: [],
    });
    expect(dust.orders.map((o) => str(o.amount))).toEqual(["-0.00001"]);
  });

  it("orders sells before buys, each by theme_asset_id", () => {
    const r = propose({
      cashUsd: 100,
      lots: [lot("X", "XYZ:XNYS", 10, 90, "2020-01-02"), lot("B", "BBB:XNYS", 10, 90, "2020-01-02")],
      prices: { "XYZ:XNYS": 100, "BBB:XNYS": 100, "ABC:XNAS": 100, "AAA:XNYS": 100 },
      targets: [
        { themeAssetId: "ABC:XNAS", weight: "0.3" },
        { themeAssetId: "AAA:XNYS", weight: "0.3" },
        { themeAssetId: "XYZ:XNYS", weight: "0.2" },
        { themeAssetId: "BBB:XNYS", weight: "0.2" },
      ],
    });
    expect(r.orders.map((o) => `${o.side} ${o.themeAssetId}`)).toEqual([
      "sell BBB:XNYS",
      "sell XYZ:XNYS",
      "buy AAA:XNYS",
      "buy ABC:XNAS",
    ]);
  });
});
