import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { findIndustryNode } from "../../core/catalog/taxonomy.js";
import { ValidationError } from "../../core/errors.js";
import { computeCharacteristics } from "./characteristics.js";
import { generateMarket, SYNTH500, SYNTHTOTAL } from "./generate-market.js";
import { indexLevelRows, indexWeightRows } from "./rows.js";
import type { SyntheticMarket } from "./types.js";

/** SHA-256 over the JSON of the small outputs and the raw bytes of every typed array. */
function hashMarket(m: SyntheticMarket): string {
  const h = createHash("sha256");
  h.update(JSON.stringify([m.securities, m.splits, m.dividends, m.fxRates, m.prices.dates, m.prices.ids]));
  const arrays = [
    m.prices.close,
    m.prices.volume,
    m.initialShares,
    m.fundamentals.sales,
    m.fundamentals.netIncome,
    m.fundamentals.bookEquity,
    m.factorReturns.values,
    ...Object.values(m.characteristics.values),
    ...m.indexes.flatMap((ix) => [ix.levels, ix.weights.values]),
  ];
  for (const a of arrays) h.update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  return h.digest("hex");
}

/** Split- and dividend-adjusted daily log returns of column i (only days with two closes). */
function logReturns(m: SyntheticMarket, i: number): number[] {
  const { close, dates, ids } = m.prices;
  const N = ids.length;
  const id = ids[i]!;
  const ratio = new Map(m.splits.filter((s) => s.themeAssetId === id).map((s) => [s.date, s.ratio]));
  const div = new Map(m.dividends.filter((d) => d.themeAssetId === id).map((d) => [d.exDate, d.amount]));
  const out: number[] = [];
  for (let t = 1; t < dates.length; t++) {
    const a = close[(t - 1) * N + i]!;
    const b = close[t * N + i]!;
    if (!(a > 0 && b > 0)) continue;
    out.push(Math.log(((b + (div.get(dates[t]!) ?? 0)) * (ratio.get(dates[t]!) ?? 1)) / a));
  }
  return out;
}

function mean(xs: ArrayLike<number>): number {
  let s = 0;
  for (let k = 0; k < xs.length; k++) s += xs[k]!;
  return s / xs.length;
}

function quantile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
}

let market: SyntheticMarket;
let returns: number[][];

beforeAll(() => {
  market = generateMarket({ seed: 20240601, securities: 400, years: 8 });
  returns = market.prices.ids.map((_, i) => logReturns(market, i));
});

describe("generateMarket determinism", () => {
  it("gives byte-identical output for the same seed and options, and different output for another seed", () => {
    const opts = { seed: 7, securities: 60, years: 2 };
    const a = hashMarket(generateMarket(opts));
    const b = hashMarket(generateMarket(opts));
    const c = hashMarket(generateMarket({ ...opts, seed: 8 }));
    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });
});

describe("generateMarket securities", () => {
  it("lists the requested number of unique SYMBOL:MIC ids with 2-5 letter symbols", () => {
    const s = market.securities;
    expect(s).toHaveLength(400);
    expect(new Set(s.map((x) => x.themeAssetId)).size).toBe(400);
    expect(new Set(s.map((x) => x.symbol)).size).toBe(400);
    expect(new Set(s.map((x) => x.name)).size).toBe(400);
    for (const x of s) {
      expect(x.symbol).toMatch(/^[A-Z]{2,5}$/);
      expect(x.themeAssetId).toBe(`${x.symbol}:${x.mic}`);
      expect(x.assetType).toBe("equity");
      expect(x.delistedOn).toBeNull();
    }
  });

  it("puts US listings on XNYS/XNAS in USD and Canadian listings on XTSE in CAD, about 12% of them", () => {
    const s = market.securities;
    for (const x of s) {
      if (x.mic === "XTSE") {
        expect([x.currency, x.country, x.sicCode]).toEqual(["CAD", "CA", null]);
      } else {
        expect(["XNYS", "XNAS"]).toContain(x.mic);
        expect([x.currency, x.country]).toEqual(["USD", "US"]);
        expect(x.sicCode).toBeGreaterThanOrEqual(100);
        expect(x.sicCode).toBeLessThanOrEqual(9999);
      }
    }
    // round(400 * 0.12) = 48 Canadian listings.
    expect(s.filter((x) => x.mic === "XTSE")).toHaveLength(48);
    expect(s.filter((x) => x.mic === "XNAS").length).toBeGreaterThan(60);
  });

  it("fills all four industry levels from the taxonomy, nested by prefix, and spans every sector", () => {
    for (const x of market.securities) {
      const sub = findIndustryNode(x.subIndustry!);
      expect(sub?.level).toBe(4);
      expect(x.industry).toBe(Math.floor(x.subIndustry! / 100));
      expect(x.industryGroup).toBe(Math.floor(x.subIndustry! / 10_000));
      expect(x.sector).toBe(Math.floor(x.subIndustry! / 1_000_000));
    }
    expect(new Set(market.securities.map((x) => x.sector)).size).toBe(11);
  });

  it("derives latest shares from listing shares and splits, and has late listings with no price before listedFrom", () => {
    const { dates, ids, close } = market.prices;
    const N = ids.length;
    let late = 0;
    market.securities.forEach((x, i) => {
      // Latest shares = shares at listing x every split ratio since.
      const ratios = market.splits.filter((s) => s.themeAssetId === x.themeAssetId).map((s) => s.ratio);
      expect(x.sharesOutstanding).toBe(ratios.reduce((a, r) => a * r, market.initialShares[i]!));
      expect(market.initialShares[i]! % 10_000).toBe(0);
      expect(x.sharesOutstanding).toBeGreaterThan(0);
      const first = dates.indexOf(x.listedFrom!);
      expect(first).toBeGreaterThanOrEqual(0);
      if (first > 0) late++;
      let bad = 0;
      for (let t = 0; t < first; t++) if (!Number.isNaN(close[t * N + i]!)) bad++;
      for (let t = first; t < dates.length; t++) if (!(close[t * N + i]! > 0)) bad++;
      expect(bad, x.themeAssetId).toBe(0);
    });
    // round(400 * 0.1) = 40 late listings.
    expect(late).toBe(40);
  });
});

describe("generateMarket at scale", () => {
  it("draws 5,000 listings with unique symbols and names", () => {
    const m = generateMarket({ seed: 11, securities: 5000, years: 1, characteristics: false });
    expect(new Set(m.securities.map((s) => s.symbol)).size).toBe(5000);
    expect(new Set(m.securities.map((s) => s.name)).size).toBe(5000);
    expect(m.securities.every((s) => /^[A-Z]{2,5}$/.test(s.symbol))).toBe(true);
    expect(m.prices.close.length).toBe(m.prices.dates.length * 5000);
  });
});

describe("generateMarket prices", () => {
  it("gives 90% of names an annualized volatility between 10% and 80%", () => {
    const vols = returns.map((r) => {
      const mu = mean(r);
      return Math.sqrt((252 * r.reduce((a, x) => a + (x - mu) ** 2, 0)) / (r.length - 1));
    });
    const inBand = vols.filter((v) => v > 0.1 && v < 0.8).length;
    expect(inBand / vols.length).toBeGreaterThanOrEqual(0.9);
    expect(quantile(vols, 0.5)).toBeGreaterThan(0.2);
    expect(quantile(vols, 0.5)).toBeLessThan(0.5);
  });

  it("has a positive average pairwise correlation of daily returns, between 0.1 and 0.45", () => {
    // Names listed from the start share every date, so their return series align.
    const full = returns.filter((r) => r.length === market.prices.dates.length - 1).slice(0, 120);
    let sum = 0;
    let count = 0;
    const std = full.map((r) => {
      const mu = mean(r);
      const sd = Math.sqrt(r.reduce((a, x) => a + (x - mu) ** 2, 0));
      return r.map((x) => (x - mu) / sd);
    });
    for (let a = 0; a < std.length; a++)
      for (let b = a + 1; b < std.length; b++) {
        let c = 0;
        for (let k = 0; k < std[a]!.length; k++) c += std[a]![k]! * std[b]![k]!;
        sum += c;
        count++;
      }
    const avg = sum / count;
    expect(avg).toBeGreaterThan(0.1);
    expect(avg).toBeLessThan(0.45);
  });

  it("has fat tails: positive excess kurtosis for most names and for the index", () => {
    const kurt = (r: number[]) => {
      const mu = mean(r);
      let m2 = 0;
      let m4 = 0;
      for (const x of r) {
        m2 += (x - mu) ** 2;
        m4 += (x - mu) ** 4;
      }
      m2 /= r.length;
      m4 /= r.length;
      return m4 / (m2 * m2) - 3;
    };
    const k = returns.map(kurt);
    expect(k.filter((x) => x > 0).length / k.length).toBeGreaterThan(0.95);
    expect(quantile(k, 0.5)).toBeGreaterThan(1);
    const lv = market.indexes[0]!.levels;
    const ir: number[] = [];
    for (let t = 1; t < lv.length; t++) ir.push(Math.log(lv[t]! / lv[t - 1]!));
    expect(kurt(ir)).toBeGreaterThan(0.5);
  });

  it("earns a premium per unit of beta: raising the equity premium raises average returns by about beta x premium", () => {
    const opts = { seed: 99, securities: 80, years: 3, characteristics: false };
    const low = generateMarket({ ...opts, equityPremium: 0 });
    const high = generateMarket({ ...opts, equityPremium: 0.1 });
    // The shocks are the same draws; only the drift differs. Average daily log return over all names.
    const avg = (m: SyntheticMarket) => mean(m.prices.ids.map((_, i) => mean(logReturns(m, i))));
    const diffAnnual = (avg(high) - avg(low)) * 252;
    // Mean beta of US names ~1, Canadian names 0.6x: expect about 0.1 * 0.95 = 0.095 (valuation drift absorbs a little).
    expect(diffAnnual).toBeGreaterThan(0.06);
    expect(diffAnnual).toBeLessThan(0.12);
  });

  it("records whole-share volumes, positive on trading days", () => {
    const { volume, close } = market.prices;
    for (let k = 0; k < close.length; k += 97) {
      if (Number.isNaN(close[k]!)) expect(Number.isNaN(volume[k]!)).toBe(true);
      else {
        expect(Number.isInteger(volume[k]!)).toBe(true);
        expect(volume[k]!).toBeGreaterThan(0);
      }
    }
  });

  it("trades on weekdays only and skips Christmas", () => {
    for (const d of market.prices.dates) {
      const w = new Date(`${d}T00:00:00Z`).getUTCDay();
      expect(w === 0 || w === 6).toBe(false);
      expect(d.endsWith("-12-25")).toBe(false);
    }
  });
});

describe("generateMarket corporate actions", () => {
  it("pays quarterly dividends for about 60-70% of names with yields mostly between 0.3% and 8%", () => {
    const payers = new Set(market.dividends.map((d) => d.themeAssetId));
    expect(payers.size / market.securities.length).toBeGreaterThan(0.5);
    expect(payers.size / market.securities.length).toBeLessThan(0.8);
    for (const d of market.dividends) {
      expect(d.amount).toBeGreaterThan(0);
      expect(Math.round(d.amount * 100) / 100).toBeCloseTo(d.amount, 12); // whole cents
    }
    // Trailing yields at the last month end, from the characteristics.
    const c = market.characteristics;
    const N = c.ids.length;
    const last = c.dates.length - 1;
    const yields: number[] = [];
    c.ids.forEach((id, i) => {
      if (payers.has(id)) yields.push(c.values.dividend_yield![last * N + i]!);
    });
    const positive = yields.filter((y) => y > 0);
    const inBand = positive.filter((y) => y > 0.003 && y < 0.08);
    expect(inBand.length / positive.length).toBeGreaterThan(0.85);
  });

  it("spaces a payer's ex-dates about a quarter apart", () => {
    const byId = new Map<string, string[]>();
    for (const d of market.dividends)
      byId.set(d.themeAssetId, [...(byId.get(d.themeAssetId) ?? []), d.exDate]);
    const gaps: number[] = [];
    for (const list of byId.values())
      for (let k = 1; k < list.length; k++)
        gaps.push((Date.parse(list[k]!) - Date.parse(list[k - 1]!)) / 86_400_000);
    // Consecutive payments are 3 months apart (88-95 days); a suspended dividend leaves a longer gap.
    expect(gaps.filter((g) => g >= 85 && g <= 96).length / gaps.length).toBeGreaterThan(0.95);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(85);
  });

  it("splits when prices run up, and the raw close jumps by the split ratio on the split date", () => {
    expect(market.splits.length).toBeGreaterThan(10);
    const { dates, ids, close } = market.prices;
    const N = ids.length;
    for (const s of market.splits) {
      expect([1.5, 2, 3, 4, 0.2, 0.1]).toContain(s.ratio);
      const i = ids.indexOf(s.themeAssetId);
      const t = dates.indexOf(s.date);
      const raw = close[t * N + i]! / close[(t - 1) * N + i]!;
      // Raw close ~ previous / ratio; the split-adjusted move is an ordinary daily move (< 40%).
      expect(Math.abs(Math.log(raw * s.ratio))).toBeLessThan(0.4);
      expect(Math.abs(Math.log(raw))).toBeGreaterThan(Math.log(s.ratio > 1 ? s.ratio : 1 / s.ratio) - 0.4);
      if (s.ratio > 1) expect(close[(t - 1) * N + i]!).toBeGreaterThan(100);
      else expect(close[(t - 1) * N + i]!).toBeLessThan(1);
    }
  });

  it("never puts a split and an ex-dividend date on the same day", () => {
    const ex = new Set(market.dividends.map((d) => `${d.themeAssetId}@${d.exDate}`));
    for (const s of market.splits) expect(ex.has(`${s.themeAssetId}@${s.date}`)).toBe(false);
  });
});

describe("generateMarket FX", () => {
  it("quotes CAD, EUR, GBP and JPY per USD on every trading date within plausible ranges", () => {
    const { dates } = market.prices;
    expect(market.fxRates).toHaveLength(dates.length * 4);
    const range = (cur: string) => {
      const v = market.fxRates.filter((r) => r.currency === cur).map((r) => r.perUsd);
      return [Math.min(...v), Math.max(...v)];
    };
    const [cadLo, cadHi] = range("CAD");
    expect(cadLo).toBeGreaterThan(1.0);
    expect(cadHi).toBeLessThan(1.7);
    expect(range("EUR")[0]).toBeGreaterThan(0.6);
    expect(range("EUR")[1]).toBeLessThan(1.2);
    expect(range("GBP")[0]).toBeGreaterThan(0.5);
    expect(range("JPY")[0]).toBeGreaterThan(70);
    expect(range("JPY")[1]).toBeLessThan(220);
  });

  it("keeps USD/CAD within 1.0-1.7 across seeds and 30 years", () => {
    for (const seed of [1, 2, 3]) {
      const m = generateMarket({ seed, securities: 50, years: 30, characteristics: false });
      const cad = m.fxRates.filter((r) => r.currency === "CAD").map((r) => r.perUsd);
      expect(Math.min(...cad)).toBeGreaterThan(1.0);
      expect(Math.max(...cad)).toBeLessThan(1.7);
    }
  });
});

describe("generateMarket indexes", () => {
  it("publishes SYNTH500 over US listings and SYNTHTOTAL over all, starting at 1000", () => {
    const [s500, total] = market.indexes;
    expect(s500!.info.identifier).toBe(SYNTH500);
    expect(total!.info.identifier).toBe(SYNTHTOTAL);
    expect(s500!.weights.ids.every((id) => !id.endsWith(":XTSE"))).toBe(true);
    expect(total!.weights.ids).toHaveLength(400);
    expect(s500!.levels[0]).toBe(1000);
    expect([...s500!.levels].every((x) => x > 0)).toBe(true);
  });

  it("has weights summing to 1 on each date, at most indexSize constituents", () => {
    const small = generateMarket({ seed: 3, securities: 120, years: 2, indexSize: 50 });
    for (const ix of [...market.indexes, ...small.indexes]) {
      const { dates, ids, values } = ix.weights;
      for (let m = 0; m < dates.length; m++) {
        let sum = 0;
        let count = 0;
        for (let j = 0; j < ids.length; j++) {
          sum += values[m * ids.length + j]!;
          if (values[m * ids.length + j]! > 0) count++;
        }
        expect(sum).toBeCloseTo(1, 10);
        if (ix.info.identifier === SYNTH500)
          expect(count).toBeLessThanOrEqual(ix === small.indexes[0] ? 50 : 500);
      }
    }
    expect(
      indexWeightRows(small.indexes[0]!).filter((r) => r.date === small.indexes[0]!.weights.dates[0]),
    ).toHaveLength(50);
  });

  it("moves like a buy-and-hold portfolio of its month-end weights (cap weighting identity)", () => {
    // Between selections, L_t / L_m = sum_j w_j (P_jt R_j / P_jm) for split ratio products R_j; check a quiet month.
    const ix = market.indexes[0]!;
    const { dates, ids, close } = market.prices;
    const N = ids.length;
    const col = new Map(ids.map((id, i) => [id, i]));
    const m = 30;
    const start = dates.indexOf(ix.weights.dates[m]!);
    const end = dates.indexOf(ix.weights.dates[m + 1]!);
    const splitIn = new Map<string, number>();
    for (const s of market.splits)
      if (s.date > dates[start]! && s.date <= dates[end]!) splitIn.set(s.themeAssetId, s.ratio);
    let growth = 0;
    ix.weights.ids.forEach((id, j) => {
      const w = ix.weights.values[m * ix.weights.ids.length + j]!;
      if (w === 0) return;
      const i = col.get(id)!;
      growth += (w * close[end * N + i]! * (splitIn.get(id) ?? 1)) / close[start * N + i]!;
    });
    expect(ix.levels[end]! / ix.levels[start]!).toBeCloseTo(growth, 10);
    expect(indexLevelRows(ix)).toHaveLength(dates.length);
  });
});

describe("generateMarket characteristics", () => {
  it("reports month-end values of the shared characteristic names", () => {
    const c = market.characteristics;
    expect(Object.keys(c.values).sort()).toEqual(
      [
        "beta",
        "book_to_price",
        "dividend_yield",
        "earnings_yield",
        "eps",
        "growth",
        "market_cap",
        "momentum",
        "pb",
        "pe",
        "profitability",
        "ps",
        "volatility",
      ].sort(),
    );
    expect(c.dates).toHaveLength(8 * 12);
    const N = c.ids.length;
    const last = (c.dates.length - 1) * N;
    const pe = [...c.values.pe!.subarray(last, last + N)].filter((x) => !Number.isNaN(x));
    const beta = [...c.values.beta!.subarray(last, last + N)].filter((x) => !Number.isNaN(x));
    expect(quantile(pe, 0.5)).toBeGreaterThan(6);
    expect(quantile(pe, 0.5)).toBeLessThan(40);
    expect(quantile(beta, 0.5)).toBeGreaterThan(0.6);
    expect(quantile(beta, 0.5)).toBeLessThan(1.4);
  });

  it("differentiates names: value, quality and growth spread across the cross-section", () => {
    const c = market.characteristics;
    const N = c.ids.length;
    const last = (c.dates.length - 1) * N;
    for (const name of ["book_to_price", "profitability", "growth"]) {
      const v = [...c.values[name]!.subarray(last, last + N)].filter((x) => !Number.isNaN(x));
      expect(quantile(v, 0.9) - quantile(v, 0.1), name).toBeGreaterThan(0.1);
    }
  });

  it("never uses future data: values at a month end ignore everything after it", () => {
    const m = market;
    const cut = m.characteristics.dates[50]!;
    const T = m.prices.dates.length;
    const N = m.prices.ids.length;
    const cutRow = m.prices.dates.indexOf(cut);
    // Scramble every later price, drop later actions and FX, garble unpublished fundamentals and later index levels.
    const close = Float64Array.from(m.prices.close);
    for (let k = (cutRow + 1) * N; k < T * N; k++) close[k] = close[k]! * 3 + 1;
    const bench = Float64Array.from(m.indexes[0]!.levels);
    for (let t = cutRow + 1; t < T; t++) bench[t] = bench[t]! * 0.5;
    const f = m.fundamentals;
    const sales = Float64Array.from(f.sales);
    const income = Float64Array.from(f.netIncome);
    const book = Float64Array.from(f.bookEquity);
    f.quarterEnds.forEach((qe, q) => {
      for (let i = 0; i < N; i++) {
        const published = new Date(Date.parse(qe) + f.reportLagDays[i]! * 86_400_000)
          .toISOString()
          .slice(0, 10);
        if (published > cut) {
          sales[q * N + i] = 1;
          income[q * N + i] = -1e9;
          book[q * N + i] = 5;
        }
      }
    });
    const altered = computeCharacteristics({
      prices: { ...m.prices, close },
      currencies: m.securities.map((s) => s.currency),
      initialShares: m.initialShares,
      splits: m.splits.filter((s) => s.date <= cut),
      dividends: m.dividends.filter((d) => d.exDate <= cut),
      fxRates: m.fxRates.filter((r) => r.date <= cut),
      fundamentals: { ...f, sales, netIncome: income, bookEquity: book },
      benchmarkLevels: bench,
    });
    const mo = 50;
    for (const name of Object.keys(m.characteristics.values)) {
      const a = m.characteristics.values[name]!.subarray(mo * N, (mo + 1) * N);
      const b = altered.values[name]!.subarray(mo * N, (mo + 1) * N);
      expect([...b], name).toEqual([...a]);
    }
    // And the alteration did change later months.
    const later = (mo + 5) * N;
    expect([...altered.values.market_cap!.subarray(later, later + N)]).not.toEqual([
      ...m.characteristics.values.market_cap!.subarray(later, later + N),
    ]);
  });

  it("computes momentum as the 12-1 month total return from raw closes, splits and dividends", () => {
    const c = market.characteristics;
    const { dates, ids, close } = market.prices;
    const N = ids.length;
    const mo = c.dates.length - 1;
    const from = dates.indexOf(c.dates[mo - 12]!);
    const to = dates.indexOf(c.dates[mo - 1]!);
    let checked = 0;
    for (let i = 0; i < N; i += 7) {
      if (Number.isNaN(close[from * N + i]!)) continue;
      const r = logReturns(market, i);
      // logReturns skips unlisted days; align its tail with the calendar.
      const offset = dates.length - 1 - r.length;
      let sum = 0;
      for (let t = from + 1; t <= to; t++) sum += r[t - 1 - offset]!;
      expect(c.values.momentum![mo * N + i]!).toBeCloseTo(Math.exp(sum) - 1, 10);
      checked++;
    }
    expect(checked).toBeGreaterThan(40);
  });

  it("computes market cap in USD from shares, closes and FX", () => {
    const c = market.characteristics;
    const N = c.ids.length;
    const mo = c.dates.length - 1;
    const t = market.prices.dates.indexOf(c.dates[mo]!);
    const cad = market.fxRates.find((r) => r.date === c.dates[mo] && r.currency === "CAD")!.perUsd;
    market.securities.forEach((s, i) => {
      // The last month end is the last date: shares = the latest sharesOutstanding.
      const capLocal = s.sharesOutstanding! * market.prices.close[t * N + i]!;
      expect(c.values.market_cap![mo * N + i]! / (capLocal / (s.currency === "CAD" ? cad : 1))).toBeCloseTo(
        1,
        12,
      );
    });
  });

  it("can be skipped", () => {
    const m = generateMarket({ seed: 1, securities: 50, years: 1, characteristics: false });
    expect(m.characteristics.dates).toEqual([]);
    expect(m.characteristics.values).toEqual({});
  });
});

describe("generateMarket fundamentals", () => {
  it("carries 8 quarters of history before the first date and publishes 25-45 days after quarter end", () => {
    const f = market.fundamentals;
    const first = market.prices.dates[0]!;
    expect(f.quarterEnds.filter((q) => q < first)).toHaveLength(8);
    for (const lag of f.reportLagDays) {
      expect(lag).toBeGreaterThanOrEqual(25);
      expect(lag).toBeLessThanOrEqual(45);
    }
    for (const x of f.sales) expect(x).toBeGreaterThan(0);
    expect(f.netIncome.every((x) => Number.isFinite(x))).toBe(true);
  });
});

describe("generateMarket options", () => {
  it("uses documented defaults", () => {
    const m = generateMarket({ seed: 5, securities: 50, years: 1, characteristics: false });
    expect(m.options).toMatchObject({ endDate: "2025-12-31", canadianShare: 0.12, tailDegreesOfFreedom: 5 });
    expect(m.prices.dates.at(-1)).toBe("2025-12-31");
    expect(m.prices.dates[0]).toBe("2025-01-02");
  });

  it("rejects out-of-range sizes with clear messages", () => {
    expect(() => generateMarket({ seed: 1, securities: 10 })).toThrow(
      "generateMarket: securities must be an integer from 50 to 5000, got 10",
    );
    expect(() => generateMarket({ seed: 1, securities: 5001 })).toThrow(
      /securities must be an integer from 50 to 5000/,
    );
    expect(() => generateMarket({ seed: 1, securities: 100.5 })).toThrow(/securities must be an integer/);
    expect(() => generateMarket({ seed: 1, years: 0 })).toThrow(
      "generateMarket: years must be an integer from 1 to 30, got 0",
    );
    expect(() => generateMarket({ seed: 1, years: 31 })).toThrow(
      /years must be an integer from 1 to 30, got 31/,
    );
  });

  it("rejects a missing options object", () => {
    expect(() => generateMarket(undefined as unknown as { seed: number })).toThrow(
      /options must be an object/,
    );
  });

  it("lists every offending option in a ValidationError", () => {
    try {
      generateMarket({ seed: 1.5, securities: 1, years: 99, endDate: "2025-02-30", canadianShare: 0.9 });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError);
      const err = e as ValidationError;
      expect(err.code).toBe("validation_error");
      expect(err.issues.map((i) => i.path)).toEqual([
        "seed",
        "securities",
        "years",
        "endDate",
        "canadianShare",
      ]);
    }
  });
});
