/**
 * @module market/synthetic/simulate
 * The day-by-day simulation of the synthetic market: factor returns, each listing's return, raw closes with splits
 * and dividends, volumes, FX, and the quarterly fundamentals. The model is documented in docs/market-data.md
 * ("Synthetic market"); the equations are repeated at the places that implement them.
 *
 * Loop order is time-major (all names of day t, then day t + 1), which matches the row-major panel layout and
 * lets month-end steps (style loadings, valuation drift) see the whole cross-section.
 */

import type { Dividend, Split } from "../../core/data/types.js";
import type { SeededRandom } from "../../core/random.js";
import type { FxSimulator } from "./fx.js";
import type { ResolvedSyntheticMarketOptions } from "./options.js";
import { SECTOR_PROFILES } from "./sector-profiles.js";
import type { FactorReturns, FundamentalsPanel } from "./types.js";
import type { ListingSpec } from "./universe.js";

/** Trading days per year used to scale annual parameters to daily ones. */
export const DAYS_PER_YEAR = 252;

/** Style factors: name, annualized volatility, annual premium per unit of (z-score) exposure. */
export const STYLE_FACTORS = Object.freeze([
  { name: "size", volatility: 0.05, premium: 0.01 },
  { name: "value", volatility: 0.05, premium: 0.01 },
  { name: "momentum", volatility: 0.07, premium: 0.03 },
  { name: "quality", volatility: 0.035, premium: 0.015 },
] as const);

/** Fixed model constants (documented in docs/market-data.md). */
export const MODEL = Object.freeze({
  /** GARCH(1,1) of the market factor: h_t = omega + a h_{t-1} e_{t-1}^2 + b h_{t-1}. */
  marketGarchA: 0.06,
  marketGarchB: 0.92,
  /** GARCH(1,1) of each idiosyncratic shock. */
  idioGarchA: 0.05,
  idioGarchB: 0.9,
  /** Market-wide jump: daily probability and normal size law. */
  marketJumpPerYear: 0.25,
  marketJumpMean: -0.04,
  marketJumpSd: 0.03,
  /** Idiosyncratic news jump (earnings surprises): per name-year, symmetric. */
  idioJumpPerYear: 1.5,
  idioJumpSd: 0.07,
  /** Collapse: per name-year probability of a -35% to -75% one-day fall that also hits fundamentals. */
  collapsePerYear: 0.02,
  /** Canadian market factor: annualized volatility and premium per unit of loading. */
  cadMarketVolatility: 0.1,
  cadMarketPremium: 0.045,
  /** Valuation anchor: drift kappa * log(fair value / market cap) per year, log gap clamped to +-1.5. */
  valuationKappa: 0.12,
  /** Fair P/E as a function of long-run growth g: clamp(12 + 100 g, 8, 40). */
  fairPeBase: 12,
  fairPeSlope: 100,
  /** Quarterly fundamentals: AR(1) persistence and shock sizes. */
  growthPersistence: 0.8,
  growthShockSd: 0.03,
  salesShockSd: 0.03,
  marginPersistence: 0.85,
  /** Quarterly pull of book equity toward its long-run ratio to sales (buybacks / issuance). */
  bookReversion: 0.1,
  /** Share of a quarter's return news that feeds into sales (prices lead fundamentals). */
  newsFeedback: 0.35,
  /** Forward split: daily probability once the price is above the name's threshold; reverse split below $1. */
  splitDailyProbability: 0.03,
  reverseSplitPrice: 1,
  reverseSplitDailyProbability: 0.02,
  minDaysBetweenSplits: 250,
  /** Quarters of fundamentals simulated before the first trading date. */
  preHistoryQuarters: 8,
});

/** Everything the simulation produces; `generateMarket` assembles it with the indexes and characteristics. */
export interface SimulationResult {
  close: Float64Array;
  volume: Float64Array;
  initialShares: Float64Array;
  finalShares: Float64Array;
  splits: Split[];
  dividends: Dividend[];
  fx: FxSimulator["paths"];
  fundamentals: FundamentalsPanel;
  factorReturns: FactorReturns;
}

function fairPe(growth: number): number {
  const pe = MODEL.fairPeBase + MODEL.fairPeSlope * growth;
  return pe < 8 ? 8 : Math.min(pe, 40);
}

function roundPrice(p: number): number {
  // Exchange ticks: cents at $1 and above, 1/100 cent below.
  if (p >= 1) return Math.round(p * 100) / 100;
  const r = Math.round(p * 10_000) / 10_000;
  return Math.max(r, 0.0001);
}

/**
 * Style exposures in the manner of Barra-type models: (x - cap-weighted mean) / equal-weighted std over the names
 * with `mask[i] = 1`, winsorized at +-3.5; others get 0. The cap-weighted market then has no style exposure, so
 * betas against a cap-weighted index average about one.
 */
function exposuresInPlace(x: Float64Array, mask: Uint8Array, cap: Float64Array, out: Float64Array): void {
  let n = 0;
  let sum = 0;
  let wSum = 0;
  let wxSum = 0;
  for (let i = 0; i < x.length; i++)
    if (mask[i]) {
      n++;
      sum += x[i]!;
      wSum += cap[i]!;
      wxSum += cap[i]! * x[i]!;
    }
  const mean = n > 0 ? sum / n : 0;
  const capMean = wSum > 0 ? wxSum / wSum : mean;
  let ss = 0;
  for (let i = 0; i < x.length; i++) if (mask[i]) ss += (x[i]! - mean) ** 2;
  const sd = n > 1 ? Math.sqrt(ss / (n - 1)) : 0;
  for (let i = 0; i < x.length; i++) {
    if (!mask[i] || sd === 0) {
      out[i] = 0;
      continue;
    }
    const z = (x[i]! - capMean) / sd;
    out[i] = z > 3.5 ? 3.5 : Math.max(z, -3.5);
  }
}

/** Calendar quarter end (`YYYY-MM-DD`) of quarter index k = year * 4 + (quarter - 1). */
function quarterEndOf(k: number): string {
  const y = Math.floor(k / 4);
  const q = k % 4;
  return `${String(y).padStart(4, "0")}-${["03-31", "06-30", "09-30", "12-31"][q]}`;
}

function quarterIndexOf(date: string): number {
  return Number(date.slice(0, 4)) * 4 + Math.floor((Number(date.slice(5, 7)) - 1) / 3);
}

/** Random streams used by the simulation, one per concern so that each is reproducible on its own. */
export interface SimulationStreams {
  factors: SeededRandom;
  idio: SeededRandom;
  events: SeededRandom;
  fundamentals: SeededRandom;
}

/**
 * Run the simulation over the trading `dates` for the `specs` listings.
 * Prices are raw closes (a split divides the price on its date; an ex-dividend date lowers it by the dividend).
 */
export function simulateMarket(
  options: ResolvedSyntheticMarketOptions,
  dates: readonly string[],
  specs: readonly ListingSpec[],
  ids: readonly string[],
  streams: SimulationStreams,
  fxSim: FxSimulator,
): SimulationResult {
  const T = dates.length;
  const N = specs.length;
  const { factors: frng, idio: irng, events: erng, fundamentals: qrng } = streams;
  const nu = options.tailDegreesOfFreedom;
  const tScale = Math.sqrt((nu - 2) / nu);
  const clustering = options.volatilityClustering;
  const sqrtDay = Math.sqrt(1 / DAYS_PER_YEAR);

  // ── Output buffers.
  const close = new Float64Array(T * N).fill(Number.NaN);
  const volume = new Float64Array(T * N).fill(Number.NaN);
  const splits: Split[] = [];
  const dividends: Dividend[] = [];
  const nSectors = SECTOR_PROFILES.length;
  const factorNames = [
    "market",
    ...SECTOR_PROFILES.map((p) => `sector_${p.sector}`),
    ...STYLE_FACTORS.map((s) => s.name),
    "cad_market",
  ];
  const K = factorNames.length;
  const factorValues = new Float64Array(T * K);

  // ── Quarters: pre-history quarters end before dates[0]; simulated quarters end on or before the last date.
  const firstQuarter = quarterIndexOf(dates[0]!);
  const qStart = firstQuarter - MODEL.preHistoryQuarters;
  let lastQuarter = quarterIndexOf(dates[T - 1]!);
  if (quarterEndOf(lastQuarter) > dates[T - 1]!) lastQuarter--;
  const Q = Math.max(lastQuarter - qStart + 1, MODEL.preHistoryQuarters);
  const quarterEnds = Array.from({ length: Q }, (_, q) => quarterEndOf(qStart + q));
  const qSales = new Float64Array(Q * N).fill(Number.NaN);
  const qIncome = new Float64Array(Q * N).fill(Number.NaN);
  const qBook = new Float64Array(Q * N).fill(Number.NaN);
  const reportLagDays = Int32Array.from(specs, (s) => s.reportLag);
  // Row at which each simulated quarter closes (its last trading date), -1 when none.
  const quarterCloseRow = new Int32Array(T).fill(-1);
  for (let t = 0; t < T; t++) {
    const next = dates[t + 1];
    if (next === undefined || quarterIndexOf(next) !== quarterIndexOf(dates[t]!)) {
      const q = quarterIndexOf(dates[t]!) - qStart;
      if (q < Q && quarterEnds[q]! >= dates[t]!) quarterCloseRow[t] = q;
    }
  }
  const isMonthEnd = new Uint8Array(T);
  for (let t = 0; t < T; t++) {
    const next = dates[t + 1];
    isMonthEnd[t] = next === undefined || next.slice(0, 7) !== dates[t]!.slice(0, 7) ? 1 : 0;
  }

  // ── Per-name state.
  const sector = Int32Array.from(specs, (s) => s.sectorIndex);
  const listRow = Int32Array.from(specs, (s) => s.listRow);
  const beta = Float64Array.from(specs, (s) => s.beta);
  const sLoad = Float64Array.from(specs, (s) => s.sectorLoading);
  const cLoad = Float64Array.from(specs, (s) => s.cadLoading);
  const turnover = Float64Array.from(specs, (s) => s.turnover);
  const splitThreshold = Float64Array.from(specs, (s) => s.splitThreshold);
  const isCad = Uint8Array.from(specs, (s) => (s.currency === "CAD" ? 1 : 0));
  const aI = clustering ? MODEL.idioGarchA : 0;
  const bI = clustering ? MODEL.idioGarchB : 0;
  const hBar = Float64Array.from(specs, (s) => (s.idioVol * s.idioVol) / DAYS_PER_YEAR);
  const omega = Float64Array.from(hBar, (h) => h * (1 - aI - bI));
  const h = Float64Array.from(hBar);
  const price = new Float64Array(N);
  const shares = new Float64Array(N);
  const initialShares = new Float64Array(N);
  const tr = new Float64Array(N).fill(1);
  const alpha = new Float64Array(N);
  const xStyle = [
    new Float64Array(N),
    new Float64Array(N),
    new Float64Array(N),
    new Float64Array(N),
  ] as const;
  const dps = new Float64Array(N);
  const nextExRow = new Int32Array(N).fill(-1);
  const exCount = new Int32Array(N);
  const lastSplitRow = new Int32Array(N).fill(-1_000_000);
  const pendingSplitRow = new Int32Array(N).fill(-1);
  const pendingSplitRatio = new Float64Array(N);
  const news = new Float64Array(N);
  const collapseLog = new Float64Array(N);
  const divPaid = new Float64Array(N);
  // Fundamentals state: last quarter's sales, growth and margin, book equity, and the last four quarters.
  const salesQ = new Float64Array(N);
  const growthQ = Float64Array.from(specs, (s) => s.growth);
  const marginQ = Float64Array.from(specs, (s) => s.margin);
  const book = new Float64Array(N);
  const lastQuarterRow = new Int32Array(N).fill(-1);
  // Month-end total-return ring for momentum (13 slots).
  const trRing = new Float64Array(13 * N).fill(Number.NaN);
  let monthCount = 0;

  // ── Ex-dividend schedule: the first trading date on or after (year, month, exDay).
  const rowOnOrAfter = (y: number, m: number, d: number): number => {
    const key = `${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
    let lo = 0;
    let hi = T;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (dates[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo < T ? lo : -1;
  };
  const scheduleNextEx = (i: number, fromRow: number): void => {
    const s = specs[i]!;
    const d = dates[fromRow]!;
    let y = Number(d.slice(0, 4));
    let m = Number(d.slice(5, 7));
    // Ex months: exMonth, +3, +6, +9; find the first ex-date strictly after fromRow.
    for (let guard = 0; guard < 30; guard++) {
      if ((m - s.exMonth) % 3 === 0 && m >= s.exMonth) {
        const r = rowOnOrAfter(y, m, s.exDay);
        if (r > fromRow) {
          nextExRow[i] = r;
          return;
        }
        if (r < 0) break;
      }
      m++;
      if (m > 12) {
        m = 1;
        y++;
      }
    }
    nextExRow[i] = -1;
  };

  // ── Fundamentals: one quarter step for name i (see docs: sales, margin, book by clean surplus).
  const quarterStep = (i: number, q: number, listed: boolean): void => {
    const s = specs[i]!;
    const g =
      s.growth + MODEL.growthPersistence * (growthQ[i]! - s.growth) + MODEL.growthShockSd * qrng.normal();
    growthQ[i] = g;
    const feedback = listed ? MODEL.newsFeedback * news[i]! + (1 - MODEL.newsFeedback) * collapseLog[i]! : 0;
    const sd = MODEL.salesShockSd;
    salesQ[i] = salesQ[i]! * Math.exp(g / 4 - (sd * sd) / 2 + sd * qrng.normal() + feedback);
    const mSd = 0.15 * s.margin + 0.01;
    marginQ[i] = s.margin + MODEL.marginPersistence * (marginQ[i]! - s.margin) + mSd * qrng.normal();
    const income = marginQ[i]! * salesQ[i]!;
    // Clean surplus, plus a pull toward the long-run book/sales ratio that stands in for buybacks and issuance.
    const bookTarget = (4 * salesQ[i]! * s.margin) / s.roe;
    book[i] = book[i]! + income - divPaid[i]! - MODEL.bookReversion * (book[i]! - bookTarget);
    qSales[q * N + i] = salesQ[i]!;
    qIncome[q * N + i] = income;
    qBook[q * N + i] = book[i]!;
    divPaid[i] = 0;
    news[i] = 0;
    collapseLog[i] = 0;
    lastQuarterRow[i] = q;
  };
  const salesTtm = (i: number): number => {
    const q = lastQuarterRow[i]!;
    let sum = 0;
    for (let k = q; k > q - 4; k--) sum += qSales[k * N + i]!;
    return sum;
  };
  const incomeTtm = (i: number): number => {
    const q = lastQuarterRow[i]!;
    let sum = 0;
    for (let k = q; k > q - 4; k--) sum += qIncome[k * N + i]!;
    return sum;
  };
  const fairValue = (i: number): number => {
    const s = specs[i]!;
    return salesTtm(i) * s.margin * fairPe(s.growth);
  };

  // Pre-history in unit scale (first quarter's sales = 1); listing rescales to the drawn market cap.
  for (let i = 0; i < N; i++) {
    const s = specs[i]!;
    salesQ[i] = 1;
    book[i] = (4 * s.margin) / s.roe;
    for (let q = 0; q < MODEL.preHistoryQuarters; q++) quarterStep(i, q, false);
  }

  const listName = (i: number, t: number, cadPerUsd: number): void => {
    const s = specs[i]!;
    const capLocal = s.capUsd * (isCad[i] ? cadPerUsd : 1);
    // Scale the unit-scale fundamentals so that fair value = cap * exp(-mispricing); all of them are linear in it.
    const scale = (capLocal * Math.exp(-s.mispricing)) / fairValue(i);
    for (let q = 0; q <= lastQuarterRow[i]!; q++) {
      qSales[q * N + i] = qSales[q * N + i]! * scale;
      qIncome[q * N + i] = qIncome[q * N + i]! * scale;
      qBook[q * N + i] = qBook[q * N + i]! * scale;
    }
    salesQ[i] = salesQ[i]! * scale;
    book[i] = book[i]! * scale;
    price[i] = roundPrice(s.price);
    // Whole multiples of 10,000 shares, so later 3:2 and 1-for-10 splits keep whole share counts in practice.
    shares[i] = Math.max(10_000, Math.round(capLocal / price[i]! / 10_000) * 10_000);
    initialShares[i] = shares[i]!;
    tr[i] = 1;
    alpha[i] = MODEL.valuationKappa * -s.mispricing;
    updateDrift(i);
    close[t * N + i] = price[i]!;
    volume[t * N + i] = Math.round(shares[i]! * turnover[i]! * 3);
    if (s.targetYield > 0) {
      // IPOs start paying after about two quarters; seasoned names pay from the start.
      const startRow = t === 0 ? 0 : Math.min(T - 1, t + 126);
      dps[i] = Math.max(0.01, Math.round(((s.targetYield * price[i]!) / 4) * 100) / 100);
      scheduleNextEx(i, startRow);
    }
  };

  // ── Factor state.
  const hMBar = options.marketVolatility ** 2 / DAYS_PER_YEAR;
  const aM = clustering ? MODEL.marketGarchA : 0;
  const bM = clustering ? MODEL.marketGarchB : 0;
  let hM = hMBar;
  const fSector = new Float64Array(nSectors);
  const sectorVol = Float64Array.from(SECTOR_PROFILES, (p) => p.sectorVolatility * sqrtDay);
  const fStyle = new Float64Array(4);
  const styleVol = Float64Array.from(STYLE_FACTORS, (s) => s.volatility * sqrtDay);
  const styleDrift = Float64Array.from(STYLE_FACTORS, (s) => s.premium / DAYS_PER_YEAR);
  const pMarketJump = MODEL.marketJumpPerYear / DAYS_PER_YEAR;
  const pIdioJump = MODEL.idioJumpPerYear / DAYS_PER_YEAR;
  const pCollapse = MODEL.collapsePerYear / DAYS_PER_YEAR;
  const idioJumpLimit = pIdioJump * 4_294_967_296;
  const collapseLimit = (pIdioJump + pCollapse) * 4_294_967_296;
  // Expected collapse loss, added back to the drift so the expected return stays as documented.
  const collapseCompensation = pCollapse * 0.55;
  const rfDaily = options.riskFreeRate / DAYS_PER_YEAR;
  const mrpDaily = options.equityPremium / DAYS_PER_YEAR;
  const cadPremiumDaily = MODEL.cadMarketPremium / DAYS_PER_YEAR;
  const cadVol = MODEL.cadMarketVolatility * sqrtDay;
  const [xs0, xs1, xs2, xs3] = xStyle;
  // Expected daily return, refreshed when exposures or the valuation drift change (listing, month ends):
  // mu = (rf + beta ERP + c ERP_CAD + sum_k x_k lambda_k + alpha + collapse compensation) / 252.
  const drift = new Float64Array(N);
  function updateDrift(i: number): void {
    drift[i] =
      rfDaily +
      beta[i]! * mrpDaily +
      cLoad[i]! * cadPremiumDaily +
      xs0[i]! * styleDrift[0]! +
      xs1[i]! * styleDrift[1]! +
      xs2[i]! * styleDrift[2]! +
      xs3[i]! * styleDrift[3]! +
      (alpha[i]! + collapseCompensation) / DAYS_PER_YEAR;
  }

  // Month-end scratch.
  const mask = new Uint8Array(N);
  const scratch = new Float64Array(N);
  const capUsd = new Float64Array(N);

  for (let t = 0; t < T; t++) {
    // ── Factor returns of day t (none on the first row: it only sets the starting prices).
    let fM = 0;
    let fCad = 0;
    let fs0 = 0;
    let fs1 = 0;
    let fs2 = 0;
    let fs3 = 0;
    let eCad = 0;
    if (t > 0) {
      const eM = frng.standardT(nu);
      fM = Math.sqrt(hM) * eM;
      if (frng.bernoulli(pMarketJump)) fM += frng.normal(MODEL.marketJumpMean, MODEL.marketJumpSd);
      fM -= pMarketJump * MODEL.marketJumpMean; // zero-mean jump component
      const regime = Math.sqrt(hM / hMBar);
      hM = hMBar * (1 - aM - bM) + aM * hM * eM * eM + bM * hM;
      for (let s = 0; s < nSectors; s++) fSector[s] = sectorVol[s]! * regime * frng.standardT(nu);
      for (let k = 0; k < 4; k++) fStyle[k] = styleVol[k]! * frng.standardT(nu);
      fs0 = fStyle[0]!;
      fs1 = fStyle[1]!;
      fs2 = fStyle[2]!;
      fs3 = fStyle[3]!;
      eCad = frng.standardT(nu);
      fCad = cadVol * regime * eCad;
      const row = t * K;
      factorValues[row] = mrpDaily + fM;
      for (let s = 0; s < nSectors; s++) factorValues[row + 1 + s] = fSector[s]!;
      for (let k = 0; k < 4; k++) factorValues[row + 1 + nSectors + k] = fStyle[k]! + styleDrift[k]!;
      factorValues[row + K - 1] = cadPremiumDaily + fCad;
    }
    fxSim.step(eCad);
    const cadPerUsd = fxSim.paths.CAD[t]!;

    const base = t * N;
    for (let i = 0; i < N; i++) {
      const lr = listRow[i]!;
      if (t < lr) {
        if (quarterCloseRow[t]! >= 0) quarterStep(i, quarterCloseRow[t]!, false);
        continue;
      }
      if (t === lr) {
        if (quarterCloseRow[t]! >= 0) quarterStep(i, quarterCloseRow[t]!, false);
        listName(i, t, cadPerUsd);
        continue;
      }
      // Split effective today: the previous close is restated per new share.
      let prev = price[i]!;
      if (pendingSplitRow[i] === t) {
        const ratio = pendingSplitRatio[i]!;
        prev /= ratio;
        shares[i] = shares[i]! * ratio; // unrounded, as every consumer recomputes it from initial shares x ratios
        dps[i] = dps[i]! > 0 ? Math.max(0.01, Math.round((dps[i]! / ratio) * 100) / 100) : 0;
        splits.push({ themeAssetId: ids[i]!, date: dates[t]!, ratio });
        lastSplitRow[i] = t;
        pendingSplitRow[i] = -1;
      }
      // Return of day t: R = mu + beta fM + s fS + sum_k x_k f_k + c fCAD + sqrt(h) e + J.
      const mu = drift[i]!;
      const systematic =
        beta[i]! * fM +
        sLoad[i]! * fSector[sector[i]!]! +
        xs0[i]! * fs0 +
        xs1[i]! * fs1 +
        xs2[i]! * fs2 +
        xs3[i]! * fs3 +
        cLoad[i]! * fCad;
      const e = irng.studentT(nu) * tScale;
      const hi = h[i]!;
      let r = mu + systematic + Math.sqrt(hi) * e;
      h[i] = omega[i]! + aI * hi * e * e + bI * hi;
      const u = irng.uint32();
      if (u < idioJumpLimit) r += irng.normal(0, MODEL.idioJumpSd);
      else if (u < collapseLimit) {
        const j = -irng.uniform(0.35, 0.75);
        r += j;
        collapseLog[i] = collapseLog[i]! + Math.log1p(j);
      }
      if (r < -0.9) r = -0.9;
      news[i] = news[i]! + (r - mu);
      // Ex-dividend today: the close drops by the dividend (total return unchanged).
      let div = 0;
      if (nextExRow[i] === t) {
        const d = dps[i]!;
        if (d > 0 && d < 0.2 * prev) {
          div = d;
          dividends.push({ themeAssetId: ids[i]!, exDate: dates[t]!, amount: d });
          divPaid[i] = divPaid[i]! + d * shares[i]!;
        }
        exCount[i] = exCount[i]! + 1;
        scheduleNextEx(i, t);
      }
      const p = roundPrice(prev * (1 + r) - div);
      tr[i] = (tr[i]! * (p + div)) / prev;
      price[i] = p;
      close[base + i] = p;
      const z = irng.normal();
      volume[base + i] = Math.round(
        shares[i]! * turnover[i]! * Math.exp(0.4 * z - 0.08) * (0.6 + 25 * Math.abs(r)),
      );

      // Split decisions, effective on the next trading day (never on an ex-dividend date).
      if (pendingSplitRow[i] < 0 && t - lastSplitRow[i]! > MODEL.minDaysBetweenSplits && t + 2 < T) {
        let ratio = 0;
        const thr = splitThreshold[i]!;
        if (p > thr && erng.bernoulli(MODEL.splitDailyProbability)) {
          ratio = p > 2.5 * thr ? (erng.bernoulli(0.5) ? 3 : 4) : erng.bernoulli(0.8) ? 2 : 1.5;
        } else if (p < MODEL.reverseSplitPrice && erng.bernoulli(MODEL.reverseSplitDailyProbability)) {
          ratio = p < 0.5 ? 0.1 : 0.2;
        }
        if (ratio > 0) {
          pendingSplitRatio[i] = ratio;
          pendingSplitRow[i] = nextExRow[i] === t + 1 ? t + 2 : t + 1;
        }
      }
      if (quarterCloseRow[t]! >= 0) quarterStep(i, quarterCloseRow[t]!, true);
    }

    // Month end: momentum ring, style exposures and valuation drift for the next month, from data up to today.
    if (isMonthEnd[t]) {
      monthCount++;
      const slot = monthCount % 13;
      const slotBack1 = (monthCount - 1 + 13) % 13;
      const slotBack12 = (monthCount - 12 + 13) % 13;
      // Record month-end total-return index values for momentum.
      for (let i = 0; i < N; i++) trRing[slot * N + i] = t >= listRow[i]! ? tr[i]! : Number.NaN;
      // Style exposures for next month: size = -z(log cap USD), value = z(log book/cap), momentum = z(12-1 TR),
      // quality = z(ROE). Names without the data get 0.
      for (let i = 0; i < N; i++) {
        const listed = t >= listRow[i]!;
        mask[i] = listed ? 1 : 0;
        capUsd[i] = listed ? (shares[i]! * price[i]!) / (isCad[i] ? cadPerUsd : 1) : 0;
        scratch[i] = listed ? -Math.log(capUsd[i]!) : 0;
      }
      exposuresInPlace(scratch, mask, capUsd, xStyle[0]);
      for (let i = 0; i < N; i++) {
        const ok = mask[i] === 1 && book[i]! > 0;
        scratch[i] = ok ? Math.log(book[i]! / (shares[i]! * price[i]!)) : 0;
        mask[i] = ok ? 1 : 0;
      }
      exposuresInPlace(scratch, mask, capUsd, xStyle[1]);
      for (let i = 0; i < N; i++) {
        const a = trRing[slotBack1 * N + i]!;
        const z = trRing[slotBack12 * N + i]!;
        const ok = t >= listRow[i]! && !Number.isNaN(a) && !Number.isNaN(z) && monthCount >= 12;
        mask[i] = ok ? 1 : 0;
        scratch[i] = ok ? a / z - 1 : 0;
      }
      exposuresInPlace(scratch, mask, capUsd, xStyle[2]);
      for (let i = 0; i < N; i++) {
        const ok = t >= listRow[i]! && book[i]! > 0;
        mask[i] = ok ? 1 : 0;
        scratch[i] = ok ? incomeTtm(i) / book[i]! : 0;
      }
      exposuresInPlace(scratch, mask, capUsd, xStyle[3]);
      // Valuation drift: alpha = kappa * clamp(log(fair value / cap), -1.5, 1.5).
      for (let i = 0; i < N; i++) {
        if (t < listRow[i]!) continue;
        let gap = Math.log(fairValue(i) / (shares[i]! * price[i]!));
        if (Number.isNaN(gap)) gap = 0;
        gap = gap > 1.5 ? 1.5 : Math.max(gap, -1.5);
        alpha[i] = MODEL.valuationKappa * gap;
      }
      for (let i = 0; i < N; i++) updateDrift(i);
    }

    // Annual dividend policy: reset the amount the day before every fourth ex-date (not before the first payment).
    for (let i = 0; i < N; i++) {
      if (nextExRow[i] !== t + 1 || specs[i]!.targetYield === 0 || t < listRow[i]!) continue;
      if (exCount[i] === 0 || exCount[i]! % 4 !== 0) continue;
      resetDividend(i);
    }
  }

  function resetDividend(i: number): void {
    const s = specs[i]!;
    const p = price[i]!;
    const target = (s.targetYield * p) / 4;
    const old = dps[i]!;
    const earning = lastQuarterRow[i]! >= 3 && incomeTtm(i) > 0;
    let next: number;
    if (!earning || p < 2)
      next = 0; // suspend while losing money or after a collapse
    else if (old === 0) next = target;
    else {
      // Sticky policy: raise with growth; cut only when the yield has drifted far above target; catch up when far below.
      next = old * (1 + Math.max(0, growthQ[i]!));
      if (next > 2.5 * target) next = target;
      if (next < 0.6 * target) next = target;
    }
    dps[i] = next > 0 ? Math.max(0.01, Math.round(next * 100) / 100) : 0;
  }

  return {
    close,
    volume,
    initialShares,
    finalShares: Float64Array.from(shares),
    splits,
    dividends,
    fx: fxSim.paths,
    fundamentals: {
      quarterEnds,
      ids: [...ids],
      reportLagDays,
      sales: qSales,
      netIncome: qIncome,
      bookEquity: qBook,
    },
    factorReturns: { dates: [...dates], names: factorNames, values: factorValues },
  };
}
