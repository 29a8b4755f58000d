import { describe, expect, it } from "vitest";
import { portfolioVariance } from "../../risk/index.js";
import { prepareBacktestMarket } from "../market-data.js";
import { MarketView } from "../market-view.js";
import { randomMarket } from "../random-market.js";
import { createRiskModelProvider } from "./risk-model-provider.js";

const market = prepareBacktestMarket(
  randomMarket({ seed: 3, assets: 40, from: "2020-01-01", to: "2021-12-31" }),
);
const at = (date: string) => new MarketView(market, market.dates.indexOf(date));

describe("createRiskModelProvider", () => {
  it("uses the structural prior until enough history exists, then a statistical model", () => {
    const provider = createRiskModelProvider();
    const early = provider(at("2020-02-03"));
    expect(early.diagnostics.model).toBe("custom");
    // Prior: market 16%, sector 8%, specific 25% -> one asset's variance 0.0256 + 0.0064 + 0.0625.
    const one = new Float64Array(40);
    one[0] = 1;
    expect(portfolioVariance(early, one)).toBeCloseTo(0.0945, 12);
    const later = provider(at("2020-12-01"));
    expect(later.diagnostics.model).toBe("pca");
    expect(later.assets).toEqual([...market.ids]);
    // The random market's specific volatility is 30%: the estimate is in that neighbourhood.
    const median = [...later.specificVariance].sort((a, b) => a - b)[20]!;
    expect(Math.sqrt(median)).toBeGreaterThan(0.22);
    expect(Math.sqrt(median)).toBeLessThan(0.38);
  });

  it("re-estimates after maxAgeDays and serves the cached model in between", () => {
    const provider = createRiskModelProvider({ maxAgeDays: 80 });
    const a = provider(at("2020-12-01"));
    expect(provider(at("2021-01-04"))).toBe(a);
    expect(provider(at("2021-03-01"))).not.toBe(a);
  });

  it("never serves a model estimated after the view's date", () => {
    const provider = createRiskModelProvider();
    const late = provider(at("2021-06-01"));
    expect(provider(at("2021-01-04"))).not.toBe(late);
  });
});
