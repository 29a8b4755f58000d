/**
 * @module market/synthetic/generate-market
 * {@link generateMarket}: the seeded synthetic equity market (PRODUCT.md section 3) — the embedded default market
 * of the demo, of tests and of scale benchmarks. See docs/market-data.md, "Synthetic market", for the model.
 */

import { getIndustryNode, industryCodesOf } from "../../core/catalog/taxonomy.js";
import type { CharacteristicPanel } from "../../core/data/panel.js";
import type { FxRate, Security } from "../../core/data/types.js";
import { addDays, addMonths } from "../../core/dates.js";
import { deriveSeed, SeededRandom } from "../../core/random.js";
import { syntheticTradingDates } from "./calendar.js";
import { buildCapWeightedIndex } from "./cap-weighted-index.js";
import { computeCharacteristics } from "./characteristics.js";
import { FX_PROCESSES, FxSimulator } from "./fx.js";
import { resolveSyntheticMarketOptions, type SyntheticMarketOptions } from "./options.js";
import { simulateMarket } from "./simulate.js";
import type { SyntheticIndex, SyntheticMarket } from "./types.js";
import { drawUniverse } from "./universe.js";

/** Identifier of the index of the largest US listings. */
export const SYNTH500 = "SYNTH500";
/** Identifier of the index of every listing (US and Canada, in USD). */
export const SYNTHTOTAL = "SYNTHTOTAL";

const EXCHANGE_NAMES: Record<string, string> = {
  XNYS: "the New York Stock Exchange",
  XNAS: "Nasdaq",
  XTSE: "the Toronto Stock Exchange",
};

/** Stream numbers of {@link deriveSeed}: one independent random stream per concern. */
const STREAM = { universe: 1, names: 2, factors: 3, idio: 4, events: 5, fundamentals: 6, fx: 7 } as const;

/**
 * Generate a synthetic market: securities, raw daily closes and volumes, splits, dividends, FX, quarterly
 * fundamentals, month-end characteristics, two cap-weighted indexes and the latent factor returns.
 * Pure and deterministic: the same options give byte-identical output.
 *
 * The history runs from the day after `endDate` minus `years` years to `endDate`, on the synthetic trading
 * calendar (weekdays minus six holidays, see `calendar.ts`).
 *
 * @throws {ValidationError} when an option is out of range (every problem is listed in `issues`), e.g.
 * "generateMarket: securities must be an integer from 50 to 5000, got 10".
 * @example
 * const market = generateMarket({ seed: 42, securities: 200, years: 5 });
 * market.securities[0].themeAssetId; // e.g. "VELT:XNAS"
 * market.prices.close[t * market.prices.ids.length + i]; // raw close of security i on date t
 */
export function generateMarket(options: SyntheticMarketOptions): SyntheticMarket {
  const o = resolveSyntheticMarketOptions(options);
  const start = addDays(addMonths(o.endDate, -12 * o.years), 1);
  const dates = syntheticTradingDates(start, o.endDate);
  const T = dates.length;
  const stream = (k: number) => new SeededRandom(deriveSeed(o.seed, k));

  const fxSim = new FxSimulator(stream(STREAM.fx), T);
  const specs = drawUniverse(stream(STREAM.universe), stream(STREAM.names), o, T, fxSim.initialCadPerUsd());
  const ids = specs.map((s) => `${s.symbol}:${s.mic}`);
  const sim = simulateMarket(
    o,
    dates,
    specs,
    ids,
    {
      factors: stream(STREAM.factors),
      idio: stream(STREAM.idio),
      events: stream(STREAM.events),
      fundamentals: stream(STREAM.fundamentals),
    },
    fxSim,
  );

  const securities: Security[] = specs.map((s, i) => {
    const codes = industryCodesOf(s.subIndustry);
    const sub = getIndustryNode(s.subIndustry);
    return {
      themeAssetId: ids[i]!,
      symbol: s.symbol,
      mic: s.mic,
      name: s.name,
      currency: s.currency,
      country: s.country,
      assetType: "equity",
      sector: codes.sector,
      industryGroup: codes.industryGroup,
      industry: codes.industry,
      subIndustry: codes.subIndustry,
      sicCode: s.sicCode,
      sharesOutstanding: sim.finalShares[i]!,
      description: `Synthetic company (${sub.name}) listed on ${EXCHANGE_NAMES[s.mic]}.`,
      listedFrom: dates[s.listRow]!,
      delistedOn: null,
    };
  });

  // FX as published: 4 decimals (JPY 2), one row per trading date and currency.
  const fxRates: FxRate[] = [];
  for (let t = 0; t < T; t++)
    for (const p of FX_PROCESSES) {
      const digits = p.currency === "JPY" ? 100 : 10_000;
      fxRates.push({
        date: dates[t]!,
        currency: p.currency,
        perUsd: Math.round(sim.fx[p.currency][t]! * digits) / digits,
      });
    }

  const prices = { dates, ids, close: sim.close, volume: sim.volume };
  const currencies = specs.map((s) => s.currency);
  const indexes: SyntheticIndex[] = [
    buildCapWeightedIndex({
      prices,
      currencies,
      initialShares: sim.initialShares,
      splits: sim.splits,
      fxRates,
      eligible: Uint8Array.from(specs, (s) => (s.country === "US" ? 1 : 0)),
      maxConstituents: o.indexSize,
      info: {
        identifier: SYNTH500,
        name: "Synthetic 500",
        currency: "USD",
        description: `Cap-weighted price index of the ${o.indexSize} largest US listings of the synthetic market, reselected at each month end.`,
      },
    }),
    buildCapWeightedIndex({
      prices,
      currencies,
      initialShares: sim.initialShares,
      splits: sim.splits,
      fxRates,
      eligible: new Uint8Array(specs.length).fill(1),
      maxConstituents: specs.length,
      info: {
        identifier: SYNTHTOTAL,
        name: "Synthetic Total Market",
        currency: "USD",
        description:
          "Cap-weighted price index of every listing of the synthetic market (US and Canada), in USD.",
      },
    }),
  ];

  const characteristics: CharacteristicPanel = o.characteristics
    ? computeCharacteristics({
        prices,
        currencies,
        initialShares: sim.initialShares,
        splits: sim.splits,
        dividends: sim.dividends,
        fxRates,
        fundamentals: sim.fundamentals,
        benchmarkLevels: indexes[0]!.levels,
      })
    : { dates: [], ids: [...ids], values: {} };

  return {
    options: o,
    securities,
    prices,
    initialShares: sim.initialShares,
    splits: sim.splits,
    dividends: sim.dividends,
    fxRates,
    fundamentals: sim.fundamentals,
    characteristics,
    indexes,
    factorReturns: sim.factorReturns,
  };
}
