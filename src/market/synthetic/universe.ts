/**
 * @module market/synthetic/universe
 * Draws the listings of the synthetic market and their fixed parameters: exchange and currency, sub-industry,
 * name and symbol, size, listing date, factor loadings, idiosyncratic volatility, dividend policy, split habits
 * and the long-run fundamentals (growth, margin, return on equity).
 */

import { industryChildren, industryCodesOf, industryNodesAtLevel } from "../../core/catalog/taxonomy.js";
import type { Currency } from "../../core/data/types.js";
import type { SeededRandom } from "../../core/random.js";
import { NameBook } from "./names.js";
import type { ResolvedSyntheticMarketOptions } from "./options.js";
import { GROUP_NOUNS, INDUSTRY_SIC_CODES, SECTOR_PROFILES, type SectorProfile } from "./sector-profiles.js";

/** The fixed draw of one listing (internal to the generator). */
export interface ListingSpec {
  symbol: string;
  mic: "XNYS" | "XNAS" | "XTSE";
  name: string;
  currency: Currency;
  country: "US" | "CA";
  subIndustry: number;
  sectorIndex: number;
  profile: SectorProfile;
  sicCode: number | null;
  /** Row of the first trading date (0 unless a late listing). */
  listRow: number;
  /** Market cap in USD at the first trading date. */
  capUsd: number;
  /** Price on the first trading date (listing currency). */
  price: number;
  /** Loading on the US market factor. */
  beta: number;
  /** Loading on the own-sector factor. */
  sectorLoading: number;
  /** Loading on the Canadian market factor (0 for US listings). */
  cadLoading: number;
  /** Annualized idiosyncratic volatility (long-run). */
  idioVol: number;
  /** Daily turnover (volume / shares outstanding), median. */
  turnover: number;
  /** Dividend yield aimed at by the dividend policy; 0 for non-payers. */
  targetYield: number;
  /** First ex-dividend month of the year (1, 2 or 3); ex-dates fall in that month + 0, 3, 6, 9. */
  exMonth: number;
  /** Calendar day of the month of the ex-date (the next trading day when it is not one). */
  exDay: number;
  /** Price above which the company considers a forward split; Infinity when it never splits. */
  splitThreshold: number;
  /** Long-run annual sales growth. */
  growth: number;
  /** Long-run net margin. */
  margin: number;
  /** Long-run return on equity. */
  roe: number;
  /** Initial log mispricing: log(market cap / fair value) on the first trading date. */
  mispricing: number;
  /** Days from quarter end to publication of the quarter's figures. */
  reportLag: number;
}

/** Lower bound of the cap distribution (USD). */
const CAP_MIN_USD = 5e8;
/** Pareto tail index of the cap distribution: smaller means more concentrated. */
const CAP_TAIL = 1.1;
const CAP_MAX_USD = 2e12;

function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : Math.min(x, hi);
}

/**
 * Draw the listings. `tradingDays` is the number of rows of the calendar; late listings get a first row spread
 * over its 5%..95% span. `cadPerUsd0` (the starting USD/CAD rate) scales Canadian split thresholds to CAD.
 */
export function drawUniverse(
  rng: SeededRandom,
  nameRng: SeededRandom,
  options: ResolvedSyntheticMarketOptions,
  tradingDays: number,
  cadPerUsd0: number,
): ListingSpec[] {
  const n = options.securities;
  const nCa = Math.round(n * options.canadianShare);
  const nLate = Math.round(n * options.lateListingShare);
  const sectors = industryNodesAtLevel(1).map((s) => s.id);
  const subsBySector = sectors.map((s) =>
    industryChildren(s)
      .flatMap((g) => industryChildren(g.id))
      .flatMap((ind) => industryChildren(ind.id))
      .map((sub) => sub.id),
  );
  const profiles = sectors.map((s) => SECTOR_PROFILES.find((p) => p.sector === s)!);
  const weightsUs = profiles.map((p) => p.weightUs);
  const weightsCa = profiles.map((p) => p.weightCa);
  // Which listings are Canadian and which list late: fixed counts, random positions.
  const order = rng.shuffleInPlace(Array.from({ length: n }, (_, i) => i));
  const isCa = new Uint8Array(n);
  for (let k = 0; k < nCa; k++) isCa[order[k]!] = 1;
  const lateOrder = rng.shuffleInPlace(Array.from({ length: n }, (_, i) => i));
  const isLate = new Uint8Array(n);
  for (let k = 0; k < nLate; k++) isLate[lateOrder[k]!] = 1;

  const names = new NameBook(nameRng);
  const out: ListingSpec[] = [];
  for (let i = 0; i < n; i++) {
    const ca = isCa[i] === 1;
    const sectorIndex = rng.weightedIndex(ca ? weightsCa : weightsUs);
    const profile = profiles[sectorIndex]!;
    const subIndustry = rng.pick(subsBySector[sectorIndex]!);
    const codes = industryCodesOf(subIndustry);
    const mic: ListingSpec["mic"] = ca ? "XTSE" : rng.bernoulli(profile.nasdaqShare) ? "XNAS" : "XNYS";
    const { name, symbol } = names.draw(GROUP_NOUNS[codes.industryGroup]!, mic);
    const sics = INDUSTRY_SIC_CODES[codes.industry];
    const sicCode = ca || !sics ? null : sics[rng.int(0, sics.length)]!;

    const late = isLate[i] === 1 && tradingDays > 40;
    const listRow = late
      ? rng.int(
          Math.floor(tradingDays * 0.05),
          Math.max(Math.floor(tradingDays * 0.95), Math.floor(tradingDays * 0.05) + 1),
        )
      : 0;
    // Pareto caps: many small companies, few giants; IPOs are smaller and Canadian companies a bit smaller.
    let capUsd = CAP_MIN_USD * (1 - rng.next()) ** (-1 / CAP_TAIL);
    if (late) capUsd *= 0.5;
    if (ca) capUsd *= 0.7;
    capUsd = Math.min(capUsd, CAP_MAX_USD);
    const logCapZ = (Math.log(capUsd) - Math.log(CAP_MIN_USD * 2)) / 1.2;
    const splitThreshold = rng.bernoulli(0.12)
      ? Number.POSITIVE_INFINITY
      : rng.pick([120, 150, 200, 250, 400]);
    // Companies that split keep their price below their threshold; the others may trade at any level.
    const priceCap = Number.isFinite(splitThreshold) ? splitThreshold * rng.uniform(0.3, 0.9) : 2000;
    const drawnPrice = late
      ? clamp(Math.exp(rng.normal(Math.log(20), 0.35)), 8, 60)
      : clamp(Math.exp(rng.normal(Math.log(ca ? 30 : 45) + 0.15 * logCapZ, 0.75)), 2.5, 800);
    const price = Math.min(drawnPrice, priceCap);

    const beta = clamp(profile.beta + rng.normal(0, 0.25), 0.2, 2.5);
    const sectorLoading = clamp(rng.normal(1, 0.2), 0.3, 1.8);
    const cadLoading = ca ? clamp(rng.normal(0.8, 0.2), 0.3, 1.4) : 0;
    // Smaller companies are more volatile; the spread across names is lognormal.
    const idioVol = clamp(
      profile.idioVolatility * Math.exp(rng.normal(0, 0.35) - 0.12 * logCapZ + (late ? 0.2 : 0)),
      0.07,
      0.9,
    );
    const turnover = clamp(Math.exp(rng.normal(Math.log(ca ? 0.003 : 0.006), 0.5)), 0.0005, 0.05);

    const payerProbability = clamp(options.dividendPayerShare * profile.payerTilt, 0, 0.97);
    const payer = rng.bernoulli(payerProbability) && !(late && rng.bernoulli(0.5));
    const targetYield = payer ? clamp(profile.dividendYield * Math.exp(rng.normal(0, 0.45)), 0.004, 0.07) : 0;
    const exMonth = rng.int(1, 4);
    const exDay = rng.int(3, 26);

    const growth = clamp(profile.growth + rng.normal(0, 0.04) + (late ? 0.05 : 0), -0.05, 0.35);
    const margin = clamp(profile.netMargin * Math.exp(rng.normal(0, 0.35)), 0.01, 0.45);
    const roe = clamp(profile.roe * Math.exp(rng.normal(0, 0.3)), 0.03, 0.45);
    const mispricing = clamp(rng.normal(0, 0.3), -0.8, 0.8);
    const reportLag = rng.int(25, 46);

    out.push({
      symbol,
      mic,
      name,
      currency: ca ? "CAD" : "USD",
      country: ca ? "CA" : "US",
      subIndustry,
      sectorIndex,
      profile,
      sicCode,
      listRow,
      capUsd,
      price,
      beta: ca ? beta * 0.6 : beta,
      sectorLoading,
      cadLoading,
      idioVol,
      turnover,
      targetYield,
      exMonth,
      exDay,
      splitThreshold: ca ? splitThreshold * Math.min(cadPerUsd0, 1.5) : splitThreshold,
      growth,
      margin,
      roe,
      mispricing,
      reportLag,
    });
  }
  return out;
}
