/**
 * @module core/optimizer/period-model
 * Everything one rebalance derives from its input before any solve: NAV, buffers and the investable value,
 * current and benchmark weights, per-asset weight bounds with the constraint that set each side (for
 * diagnoses), the tax schedule of every held asset (its lots in the order a sale consumes them, with their
 * objective and real tax per unit of weight), linear cost rates, market-impact coefficients and the risk model in
 * the solver's factor form. docs/optimizer.md gives the formula of every term.
 */
import { toDayNumber } from "../dates.js";
import { NonFiniteError, ValidationError } from "../errors.js";
import {
  applySpectralShift,
  type FactorModel,
  selectRiskModelAssets,
  toQuadraticForm,
} from "../risk/index.js";
import type { ConstraintPeriod, OptimizerComponent } from "./component.js";
import {
  buildCoverSchedule,
  type CoverSchedule,
  prepareShortLotTable,
  type ShortLotTable,
} from "./cover-schedule.js";
import { householdWashSales } from "./household-wash-sales.js";
import { type LotTable, prepareLotTable, prepareLotTableFrom } from "./lot-table.js";
import type { OptimizationInput } from "./optimization-types.js";
import type { OptimizerConfig } from "./optimizer-config.js";
import { buildTaxSchedule } from "./tax-schedule.js";
import { turnoverLimit } from "./turnover-limit.js";
import { washedFractionPricing } from "./wash-sale-pricing.js";

/** Trading days per year, to turn the annualized variance of the risk model into a daily volatility. */
export const TRADING_DAYS_PER_YEAR = 252;

/** Weights closer than this are equal (1e-12 of the investable value). */
export const WEIGHT_EPSILON = 1e-12;

/** What fixes an asset's trade, if anything. */
export type AssetRestriction = "no_hold" | "no_trade" | null;

export type { SchedulePieces } from "./tax-schedule.js";

import type { SchedulePieces } from "./tax-schedule.js";

/** The period model (see the module comment). Arrays are aligned with `assets`. */
/** The period model's data, before its constraint components are initialized on it (their context). */
export interface PeriodModelData {
  readonly n: number;
  readonly assets: readonly string[];
  readonly index: ReadonlyMap<string, number>;
  readonly config: OptimizerConfig;
  readonly asOf: string;
  readonly asOfDay: number;
  readonly prices: Float64Array;
  readonly navUsd: number;
  readonly investableUsd: number;
  readonly bufferUsd: number;
  readonly cashUsd: number;
  /** Net shares (short < 0). */
  readonly shares: Float64Array;
  readonly w0: Float64Array;
  readonly benchmark: Float64Array;
  /** Weight bounds (domain) and the constraint behind each side. */
  readonly lower: Float64Array;
  readonly upper: Float64Array;
  readonly lowerSource: string[];
  readonly upperSource: string[];
  readonly restriction: AssetRestriction[];
  /** May the asset be short / long after this rebalance (sign rules of the mode and the holding)? */
  readonly canShort: Uint8Array;
  readonly canLong: Uint8Array;
  readonly buyBlocked: Uint8Array;
  /** Weight of lots that may not be sold (prevent_tlh_invalidating_sale). */
  readonly blockedWeight: Float64Array;
  readonly schedule: SchedulePieces;
  readonly lotTable: LotTable;
  /** Open short lots and the cover order of every short asset (cover-schedule.ts). */
  readonly shortLots: ShortLotTable;
  readonly covers: CoverSchedule;
  /** Linear cost per unit of weight traded (tcost, spread, linear_tcaf, commission, broker FX spread). */
  readonly costRate: Float64Array;
  /** 3/2-power impact: cost = impact_i |t_i|^{3/2} (fraction of I), before scaling_factor. */
  readonly impact: Float64Array;
  /** Risk model restricted to the universe, spectral shift applied. */
  readonly riskModel: FactorModel;
  /** Sigma = diag(D) + V V' (V = X L). */
  readonly specificVariance: Float64Array;
  readonly loadings: { readonly rows: number; readonly cols: number; readonly data: Float64Array };
  readonly expectedReturns: Float64Array;
  /** Problems found while preparing (conflicting bounds...), each naming the constraints and numbers. */
  readonly conflicts: string[];
  readonly warnings: string[];
}

/** Everything one rebalance derives from its input before any solve (see the module comment). */
export interface PeriodModel extends PeriodModelData {
  /** The active constraint components of the period (component.ts), in a fixed order. */
  readonly constraints: readonly ConstraintPeriod[];
}

/** The constraint components, in the order of their rows, checks and diagnoses. */
const CONSTRAINT_COMPONENTS: readonly OptimizerComponent<PeriodModelData, ConstraintPeriod>[] = [
  turnoverLimit,
];

const fmt = (v: number) =>
  Math.abs(v) >= 1e-4 || v === 0 ? Number(v.toPrecision(6)).toString() : v.toExponential(3);

/** Caches of expensive derived data, keyed by object identity (owned by an optimizer workspace). */
export interface ModelCache {
  lotTables: WeakMap<object, LotTable>;
  /** The last lot table prepared here: next month's lots array mostly holds the same lot objects. */
  lastLotTable: LotTable | undefined;
}

/** A fresh cache. */
export function createModelCache(): ModelCache {
  return { lotTables: new WeakMap(), lastLotTable: undefined };
}

interface RiskForm {
  readonly key: string;
  readonly model: FactorModel;
  readonly D: Float64Array;
  readonly V: PeriodModel["loadings"];
}

/**
 * The solver form of a risk model over a universe (a pure function of the immutable model object, the universe
 * and the spectral shift), remembered per model object so that every rebalance with the same model skips the
 * O(k^3 + n k^2) conversion. Weakly held: it goes when the model does.
 */
const riskForms = new WeakMap<FactorModel, RiskForm>();

function riskFormOf(model: FactorModel, assets: readonly string[], shift: number): RiskForm {
  const key = `${shift}|${assets.length}|${assets.join(",")}`;
  const hit = riskForms.get(model);
  if (hit !== undefined && hit.key === key) return hit;
  const identical = model.assets.length === assets.length && model.assets.every((a, i) => a === assets[i]);
  let restricted = identical ? model : selectRiskModelAssets(model, [...assets]);
  if (shift > 0) restricted = applySpectralShift(restricted, shift);
  const qf = toQuadraticForm(restricted, { scale: 1 });
  const form: RiskForm = {
    key,
    model: restricted,
    D: qf.diagonal,
    V: qf.factors ?? { rows: assets.length, cols: 0, data: new Float64Array(0) },
  };
  riskForms.set(model, form);
  return form;
}

function checkVector(
  v: Float64Array | undefined,
  n: number,
  name: string,
  where = "optimizePortfolio",
): void {
  if (v === undefined) return;
  if (!(v instanceof Float64Array)) throw new TypeError(`${where}: ${name} must be a Float64Array.`);
  if (v.length !== n)
    throw new RangeError(`${where}: ${name} has length ${v.length}, expected ${n} (one per asset).`);
}

/**
 * Build the period model of `input`.
 * @throws {ValidationError} for bad prices, NAV or investable value <= 0, duplicate assets, benchmark sums above 1.
 * @throws {RangeError} / {@link TypeError} for misshapen arrays.
 */
export function buildPeriodModel(
  input: OptimizationInput,
  cache: ModelCache = createModelCache(),
): PeriodModel {
  const config = input.config;
  const assets = input.assets;
  const n = assets.length;
  const index = new Map<string, number>();
  assets.forEach((a, i) => {
    if (index.has(a))
      throw new ValidationError(`optimizePortfolio: ${a} appears twice in assets.`, [
        { path: `assets[${i}]`, message: `${a} is already at assets[${index.get(a)}]` },
      ]);
    index.set(a, i);
  });
  checkVector(input.pricesUsd, n, "pricesUsd");
  checkVector(input.benchmark, n, "benchmark");
  checkVector(input.expectedReturns, n, "expectedReturns");
  checkVector(input.averageDailyVolumeUsd, n, "averageDailyVolumeUsd");
  const issues: { path: string; message: string }[] = [];
  for (let i = 0; i < n; i++) {
    const p = input.pricesUsd[i]!;
    if (Number.isNaN(p) || !Number.isFinite(p))
      throw new NonFiniteError(`optimizePortfolio: price of ${assets[i]} is ${p}.`);
    if (!(p > 0))
      issues.push({ path: `pricesUsd[${i}]`, message: `price of ${assets[i]} is ${p}; it must be > 0` });
    const b = input.benchmark[i]!;
    if (!Number.isFinite(b))
      throw new NonFiniteError(`optimizePortfolio: benchmark weight of ${assets[i]} is ${b}.`);
    if (input.expectedReturns !== undefined && !Number.isFinite(input.expectedReturns[i]!))
      throw new NonFiniteError(
        `optimizePortfolio: expected return of ${assets[i]} is ${input.expectedReturns[i]}.`,
      );
  }
  if (!Number.isFinite(input.cashUsd))
    throw new NonFiniteError(`optimizePortfolio: cashUsd is ${input.cashUsd}.`);
  if (issues.length > 0)
    throw new ValidationError(`optimizePortfolio: ${issues.map((x) => x.message).join("; ")}`, issues);
  const asOfDay = toDayNumber(input.asOf);
  const prices = input.pricesUsd;
  const tax = config.tax;

  // Lots.
  let lotTable = input.lotTable;
  if (lotTable === undefined) {
    const lots = input.lots ?? [];
    const fits = (t: LotTable | undefined): t is LotTable =>
      t !== undefined &&
      t.longTermThresholdDays === tax.longTermThresholdDays &&
      t.assets.length === n &&
      t.assets.every((a, i) => a === assets[i]);
    const cached = cache.lotTables.get(lots);
    const last = cache.lastLotTable;
    lotTable = fits(cached)
      ? cached
      : fits(last)
        ? prepareLotTableFrom(last, lots, assets, tax.longTermThresholdDays)
        : prepareLotTable(lots, assets, tax.longTermThresholdDays);
    cache.lotTables.set(lots, lotTable);
    cache.lastLotTable = lotTable;
  } else if (lotTable.assets.length !== n || lotTable.assets.some((a, i) => a !== assets[i]))
    throw new RangeError(
      "optimizePortfolio: lotTable was prepared for another universe; prepare it with these assets.",
    );
  else if (lotTable.longTermThresholdDays !== tax.longTermThresholdDays)
    throw new RangeError(
      `optimizePortfolio: lotTable was prepared with long_term_threshold ${lotTable.longTermThresholdDays}, the configuration says ${tax.longTermThresholdDays}.`,
    );
  const shares = new Float64Array(n);
  const { asset: lotAsset, quantity: lotQuantity, tradeDay: lotTradeDay } = lotTable;
  for (let k = 0; k < lotAsset.length; k++) {
    if (lotTradeDay[k]! > asOfDay)
      throw new ValidationError(
        `optimizePortfolio: lot ${lotTable.lots[k]!.id} was bought after ${input.asOf}.`,
        [
          {
            path: `lots[${k}].tradeDate`,
            message: `trade date ${lotTable.lots[k]!.tradeDate} is after the as-of date ${input.asOf}`,
          },
        ],
      );
    shares[lotAsset[k]!]! += lotQuantity[k]!;
  }
  const longShares = Float64Array.from(shares);
  const shortTable = prepareShortLotTable(input.shortLots ?? [], index, input.asOf);
  for (let k = 0; k < shortTable.asset.length; k++) {
    const i = shortTable.asset[k]!;
    if (longShares[i]! > 0)
      throw new ValidationError(
        `optimizePortfolio: ${assets[i]} is held long and short (short lot ${shortTable.lots[k]!.id}); net the positions first.`,
        [{ path: `shortLots[${k}]`, message: `${assets[i]} is held long and short` }],
      );
    shares[i]! -= shortTable.quantity[k]!;
  }
  // NAV, buffers, investable value.
  let positions = 0;
  for (let i = 0; i < n; i++) positions += shares[i]! * prices[i]!;
  const navUsd = input.cashUsd + positions;
  if (!(navUsd > 0))
    throw new ValidationError(
      `optimizePortfolio: the account's NAV is ${fmt(navUsd)} USD; it must be positive.`,
      [{ path: "cashUsd", message: `NAV ${fmt(navUsd)} <= 0` }],
    );
  const usdBuffer = config.cashBufferUsdAmount ?? (config.cashBufferUsd ?? 0) * navUsd;
  let cadBuffer = 0;
  if (config.cashBufferCadAmount !== null || (config.cashBufferCad ?? 0) > 0) {
    const fx = input.cadPerUsd;
    if (fx === undefined || !(fx > 0))
      throw new ValidationError(
        "optimizePortfolio: a CAD cash buffer needs cadPerUsd (units of CAD per USD).",
        [{ path: "cadPerUsd", message: "missing or not positive" }],
      );
    cadBuffer =
      config.cashBufferCadAmount !== null
        ? config.cashBufferCadAmount / fx
        : (config.cashBufferCad ?? 0) * navUsd;
  }
  const bufferUsd = usdBuffer + cadBuffer;
  const investableUsd = navUsd - bufferUsd;
  if (!(investableUsd > 0))
    throw new ValidationError(
      `optimizePortfolio: the cash buffers (${fmt(bufferUsd)} USD) leave nothing to invest of the NAV ${fmt(navUsd)} USD.`,
      [{ path: "config.cashBufferUsdAmount", message: "buffers >= NAV" }],
    );
  const w0 = new Float64Array(n);
  for (let i = 0; i < n; i++) w0[i] = (shares[i]! * prices[i]!) / investableUsd;

  // Benchmark: per-ticker targets, then scaled to 100% (or kept with its cash when use_cash_benchmark).
  const conflicts: string[] = [];
  const warnings: string[] = [];
  const benchmark = Float64Array.from(input.benchmark);
  let total = 0;
  for (let i = 0; i < n; i++) total += benchmark[i]!;
  if (total > 1 + 1e-6)
    throw new ValidationError(
      `optimizePortfolio: the benchmark weights add up to ${fmt(total)}; at most 1.`,
      [{ path: "benchmark", message: `sum ${fmt(total)} > 1` }],
    );
  const benchTotal = config.useCashBenchmark ? total : total > 0 ? 1 : 0;
  let targeted = 0;
  let targetedBefore = 0;
  const targetIds = new Set<string>();
  for (const t of config.targetTickerWeights) {
    const i = index.get(t.themeAssetId);
    if (i === undefined || t.targetWeight === null || t.targetWeight === undefined) continue;
    targetIds.add(t.themeAssetId);
    targeted += t.targetWeight;
    targetedBefore += benchmark[i]!;
  }
  const rest = total - targetedBefore;
  const restScale = rest > 0 ? Math.max(0, benchTotal - targeted) / rest : 0;
  if (targeted > benchTotal + 1e-9 && benchTotal > 0)
    conflicts.push(
      `target_ticker_weights: target weights add up to ${fmt(targeted)}, more than the benchmark's invested total ${fmt(benchTotal)}.`,
    );
  for (let i = 0; i < n; i++) if (!targetIds.has(assets[i]!)) benchmark[i]! *= restScale;
  for (const t of config.targetTickerWeights) {
    const i = index.get(t.themeAssetId);
    if (i !== undefined && t.targetWeight !== null && t.targetWeight !== undefined)
      benchmark[i] = t.targetWeight;
  }

  // Wash-sale environment per asset.
  const T = tax.washSaleThresholdDays;
  const env = householdWashSales.initialize({ input, lotTable, index, n, asOfDay, thresholdDays: T })!;
  const pricing = washedFractionPricing.initialize({ n, lotTable, window: env });
  const lossSaleDate = env.lossSaleDate;
  const recentLossSale = env.recentLossSale;

  // Restrictions.
  const restriction: AssetRestriction[] = new Array(n).fill(null);
  const noHold = new Set(config.noHold);
  const noTrade = new Set(config.noTrade);
  for (const id of noHold) {
    const i = index.get(id);
    if (i === undefined) continue;
    if (noTrade.has(id)) {
      conflicts.push(
        `${id} is both in no_hold_tickers (weight 0) and no_trade_tickers (weight stays ${fmt(w0[i]!)}).`,
      );
      if (Math.abs(w0[i]!) > WEIGHT_EPSILON) continue;
    }
    restriction[i] = "no_hold";
  }
  for (const id of noTrade) {
    const i = index.get(id);
    if (i !== undefined && restriction[i] === null) restriction[i] = "no_trade";
  }

  // Tax schedule: lots per asset in objective-cost order.
  const liquidating = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (restriction[i] === "no_hold") liquidating[i] = 1;
  const taxes = buildTaxSchedule({
    lotTable,
    n,
    assets,
    prices,
    shares,
    investableUsd,
    asOfDay,
    config,
    liquidating,
    env,
    pricing,
  });
  const { schedule, blockedWeight, exposedLossAssets } = taxes;
  const covers = buildCoverSchedule({ table: shortTable, n, assets, prices, investableUsd, config });

  // Risk model restricted to the universe (remembered per model object), spectral shift applied.
  const form = riskFormOf(input.riskModel, assets, config.spectralShift);

  // Linear cost rates and impact coefficients.
  const costRate = new Float64Array(n);
  const impact = new Float64Array(n);
  const adv = input.averageDailyVolumeUsd;
  const floorVolume = Math.max(config.minTradingVolumeDollars, 1);
  const k = form.V.cols;
  for (let i = 0; i < n; i++) {
    const a = adv?.[i];
    const volume = a !== undefined && Number.isFinite(a) && a > 0 ? Math.max(a, floorVolume) : floorVolume;
    let spread = (config.bidAskSpreadParameter ?? 0) / 1e4;
    if (spread > 0 && config.bidAskSpreadRefVolume !== null && config.bidAskSpreadRefVolume > 0)
      spread *= Math.sqrt(config.bidAskSpreadRefVolume / volume);
    const fxSpread = (input.currencies?.[i] ?? "USD") !== "USD" ? config.brokerSpreadBps / 1e4 : 0;
    costRate[i] =
      (config.tcostBps ?? 0) / 1e4 + spread + config.linearTcaf + config.commissionRate / 1e4 + fxSpread;
    if (config.marketImpactParameter !== null && config.marketImpactParameter > 0) {
      let variance = form.D[i]!;
      for (let c = 0; c < k; c++) variance += form.V.data[i * k + c]! ** 2;
      const dailyVol = Math.sqrt(variance / TRADING_DAYS_PER_YEAR);
      impact[i] = config.marketImpactParameter * dailyVol * Math.sqrt(investableUsd / volume);
    }
  }

  // Bounds (domain of each weight) with provenance.
  const lower = new Float64Array(n).fill(Number.NEGATIVE_INFINITY);
  const upper = new Float64Array(n).fill(Number.POSITIVE_INFINITY);
  const lowerSource: string[] = new Array(n).fill("");
  const upperSource: string[] = new Array(n).fill("");
  const canShort = new Uint8Array(n);
  const canLong = new Uint8Array(n);
  const buyBlocked = new Uint8Array(n);
  const mode = config.optimizationMode;
  const tighten = (i: number, lo: number | null, hi: number | null, source: string) => {
    if (lo !== null && lo > lower[i]!) {
      lower[i] = lo;
      lowerSource[i] = source;
    }
    if (hi !== null && hi < upper[i]!) {
      upper[i] = hi;
      upperSource[i] = source;
    }
  };
  const minWeightSource = `min_weight ${config.minWeight}`;
  const maxWeightSource = `max_weight ${config.maxWeight}`;
  const targets = new Map(config.targetTickerWeights.map((t) => [t.themeAssetId, t]));
  for (const id of targets.keys())
    if (!index.has(id))
      warnings.push(`target_ticker_weights names ${id}, which is not in the universe; ignored.`);
  for (let i = 0; i < n; i++) {
    const id = assets[i]!;
    const held = shares[i]!;
    canLong[i] = held < 0 ? 0 : 1;
    canShort[i] = mode !== "LONG_ONLY" && held <= 0 ? 1 : 0;
    if (mode === "LONG_ONLY") {
      tighten(i, 0, null, "long-only mode (weight >= 0)");
      if (held < 0) {
        tighten(i, null, 0, "held short in a long-only account: covered in full");
        warnings.push(
          `${id} is held short (${fmt(-held)} shares) but the account is LONG_ONLY: the rebalance covers the short in full (its gain is short-term and counts in the taxes).`,
        );
      }
    } else if (held > 0)
      tighten(i, 0, null, "held long: a long position does not turn short within one rebalance");
    else if (held < 0)
      tighten(i, null, 0, "held short: a short position does not turn long within one rebalance");
    if (held > 0 && blockedWeight[i]! > 0) {
      // Lots kept by prevent_tlh_invalidating_sale.
      tighten(
        i,
        blockedWeight[i]!,
        null,
        `prevent_tlh_invalidating_sale keeps loss lots bought within ${T} days (weight ${fmt(blockedWeight[i]!)})`,
      );
    }
    const r = restriction[i];
    if (r === null) {
      const b = benchmark[i]!;
      tighten(i, config.minWeight, null, minWeightSource);
      tighten(i, null, config.maxWeight, maxWeightSource);
      if (config.minActiveWeight !== null)
        tighten(
          i,
          b + config.minActiveWeight,
          null,
          `min_active_weight ${config.minActiveWeight} below benchmark ${fmt(b)}`,
        );
      if (config.maxActiveWeight !== null)
        tighten(
          i,
          null,
          b + config.maxActiveWeight,
          `max_active_weight ${config.maxActiveWeight} above benchmark ${fmt(b)}`,
        );
    }
    const t = targets.get(id);
    if (t !== undefined) {
      const b = benchmark[i]!;
      const lb = t.lowerBound ?? null;
      const ub = t.upperBound ?? null;
      const check = (v: number | null, name: string, lo: boolean) => {
        if (v === null) return;
        if (r === "no_hold" && (lo ? v > WEIGHT_EPSILON : v < -WEIGHT_EPSILON))
          conflicts.push(
            `${id}: no_hold_tickers forces weight 0 but target_ticker_weights.${name} is ${fmt(v)}.`,
          );
        else if (r === "no_trade" && (lo ? v > w0[i]! + 1e-9 : v < w0[i]! - 1e-9))
          conflicts.push(
            `${id}: no_trade_tickers keeps weight ${fmt(w0[i]!)} but target_ticker_weights.${name} is ${fmt(v)}.`,
          );
      };
      check(lb, "lower_bound", true);
      check(ub, "upper_bound", false);
      check(t.minActive === null || t.minActive === undefined ? null : b + t.minActive, "min_active", true);
      check(t.maxActive === null || t.maxActive === undefined ? null : b + t.maxActive, "max_active", false);
      if (r === null) {
        tighten(i, lb, null, `target_ticker_weights lower_bound ${lb}`);
        tighten(i, null, ub, `target_ticker_weights upper_bound ${ub}`);
        if (t.minActive !== null && t.minActive !== undefined)
          tighten(
            i,
            b + t.minActive,
            null,
            `target_ticker_weights min_active ${t.minActive} below target ${fmt(b)}`,
          );
        if (t.maxActive !== null && t.maxActive !== undefined)
          tighten(
            i,
            null,
            b + t.maxActive,
            `target_ticker_weights max_active ${t.maxActive} above target ${fmt(b)}`,
          );
      }
    }
    if (r === "no_hold") {
      lower[i] = 0;
      upper[i] = 0;
      lowerSource[i] = upperSource[i] = "no_hold_tickers";
      if (held > 0 && tax.preventTlhInvalidatingSale && exposedLossAssets[i] === 1)
        warnings.push(
          `${id}: no_hold_tickers sells loss lots that prevent_tlh_invalidating_sale would keep (bought within ${T} days); no_hold wins.`,
        );
      continue;
    }
    if (r === "no_trade") {
      lower[i] = w0[i]!;
      upper[i] = w0[i]!;
      lowerSource[i] = upperSource[i] = `no_trade_tickers (weight stays ${fmt(w0[i]!)})`;
      continue;
    }
    if (tax.preventTlhInvalidatingPurchase && recentLossSale[i] === 1) {
      buyBlocked[i] = 1;
      tighten(
        i,
        null,
        w0[i]!,
        `prevent_tlh_invalidating_purchase (loss sale on ${lossSaleDate[i] ?? "a recent date"}; no buys)`,
      );
    }
    if (lower[i]! > upper[i]! + 1e-12)
      conflicts.push(
        `${id}: ${lowerSource[i]} requires weight >= ${fmt(lower[i]!)} but ${upperSource[i]} allows at most ${fmt(upper[i]!)}.`,
      );
  }

  const data: PeriodModelData = {
    n,
    assets,
    index,
    config,
    asOf: input.asOf,
    asOfDay,
    prices,
    navUsd,
    investableUsd,
    bufferUsd,
    cashUsd: input.cashUsd,
    shares,
    w0,
    benchmark,
    lower,
    upper,
    lowerSource,
    upperSource,
    restriction,
    canShort,
    canLong,
    buyBlocked,
    blockedWeight,
    schedule,
    lotTable,
    shortLots: shortTable,
    covers,
    costRate,
    impact,
    riskModel: form.model,
    specificVariance: form.D,
    loadings: form.V,
    expectedReturns: input.expectedReturns ?? new Float64Array(n),
    conflicts,
    warnings,
  };
  const constraints: ConstraintPeriod[] = [];
  for (const c of CONSTRAINT_COMPONENTS) {
    const period = c.initialize(data);
    if (period !== null) constraints.push(period);
  }
  return { ...data, constraints };
}
