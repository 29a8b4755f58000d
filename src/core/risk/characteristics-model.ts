/**
 * @module core/risk/characteristics-model
 * `risk_model_name: characteristics`: a fundamental factor model. Exposures are a market factor (1 for every
 * asset), industry (sector) membership dummies and standardized characteristics (styles); factor returns come
 * from a cross-sectional regression each period; the factor covariance and the specific variances are
 * exponentially weighted estimates over the history, annualized.
 */

import { DataError, ValidationError } from "../errors.js";
import { periodsPerYear, type ReturnFrequency } from "./annualization.js";
import { assertFinite, assertLength, assertNoInfinity, assertUnique, listForMessage } from "./checks.js";
import { crossSectionalRegression } from "./cross-sectional-regression.js";
import { ewCovariance, exponentialWeights } from "./ew-covariance.js";
import { checkFloors, DEFAULT_PSD_RELATIVE_FLOOR, repairFactorCovariance } from "./psd-repair.js";
import { standardizeCharacteristic } from "./standardize.js";
import type { FactorModel } from "./types.js";

/** Inputs of {@link buildCharacteristicsRiskModel}. Arrays are row-major; NaN marks a missing value. */
export interface CharacteristicsModelInputs {
  /** The n assets (theme_asset_ids). */
  assets: string[];
  /** T x n period returns, oldest first (`returns[t * n + i]`); NaN = no return that period. */
  returns: Float64Array;
  /** The c characteristic names (snake_case, e.g. `book_to_price`, `momentum`); they name the style factors. */
  characteristicNames: string[];
  /** n x c current characteristics (the exposures of the model); NaN = missing (exposure 0). */
  characteristics: Float64Array;
  /**
   * Optional T x n x c characteristics known at the start of each period (`[(t * n + i) * c + j]`), used for
   * the regression of period t. Without it the current characteristics are used for every period (static
   * exposures: simpler, but it looks ahead).
   */
  characteristicHistory?: Float64Array;
  /** n industry labels (sector codes such as 45), or null for an asset outside the taxonomy. */
  sectors: ReadonlyArray<string | number | null>;
  /** n current market caps (USD), finite and > 0. */
  marketCap: Float64Array;
  /** Optional T x n market caps per period (NaN = unknown: the asset sits out that period's regression). */
  marketCapHistory?: Float64Array;
}

/** Options of {@link buildCharacteristicsRiskModel}. */
export interface CharacteristicsRiskModelOptions {
  /**
   * Frequency of the returns; covariances are multiplied by its periods per year.
   * @default "daily"
   */
  frequency?: ReturnFrequency | number;
  /**
   * Half-life, in periods, of the exponential weights of the factor covariance (USE4 uses 84 trading days for
   * factor volatilities; for monthly data something like 36 is more usual).
   * @default 84
   */
  factorHalfLife?: number;
  /**
   * Half-life, in periods, of the exponential weights of the specific variances.
   * @default 84
   */
  specificHalfLife?: number;
  /**
   * z-score bound of the characteristic standardization.
   * @default 3
   */
  winsorize?: number;
  /**
   * Fewest regression residuals an asset needs for its own specific variance; below it the cross-sectional
   * median is used (and the asset listed in `diagnostics.imputedSpecificVariance`).
   * @default 20
   */
  minObservations?: number;
  /**
   * Relative eigenvalue floor of the PSD repair of F.
   * @default 1e-10
   */
  relativeFloor?: number;
  /**
   * Absolute eigenvalue floor of the PSD repair of F.
   * @default 0
   */
  absoluteFloor?: number;
}

/** Default half-life (periods) of the factor covariance and of the specific variances. */
export const DEFAULT_CHARACTERISTICS_HALF_LIFE = 84;

/**
 * Builds the `characteristics` (fundamental) risk model.
 *
 * Exposures X = [1 | industry dummies | z], where z are the characteristics standardized each period with
 * {@link standardizeCharacteristic} (cap-weighted mean 0, equal-weighted std 1, winsorized at +-3). Factors are
 * named `market`, `sector:<label>` (labels sorted) and the characteristic names. Industries are dropped when
 * fewer than 2 distinct labels exist (the dummy would duplicate the market).
 *
 * Each period t: weighted least squares of the observed returns on X_t with weights sqrt(market cap), under the
 * constraint sum_s W_s f_s = 0 (W_s = cap share of industry s), see {@link crossSectionalRegression}. A period
 * with fewer assets than parameters + 1 is skipped (noted).
 *
 * F = exponentially weighted covariance of the factor returns (half-life `factorHalfLife`, demeaned, divided by
 * 1 - sum w^2; see `ewCovariance`), repaired to PSD if needed. D_i = exponentially weighted mean of the squared
 * residuals of asset i (half-life `specificHalfLife`, weights renormalized over the periods it has), imputed by
 * the cross-sectional median when it has fewer than `minObservations` residuals. F and D are multiplied by the
 * periods per year of `frequency`.
 *
 * @throws {RangeError} on inconsistent array lengths or bad options.
 * @throws {NonFiniteError} on infinite returns/characteristics or a non-finite current market cap.
 * @throws {ValidationError} on duplicate assets or factor names, or a market cap <= 0.
 * @throws {DataError} (code `insufficient_history`) when fewer than 2 periods can be regressed or no asset has
 *   `minObservations` residuals.
 * @example
 * const model = buildCharacteristicsRiskModel({ assets, returns, characteristicNames: ["book_to_price"], characteristics, sectors, marketCap });
 */
export function buildCharacteristicsRiskModel(
  inputs: CharacteristicsModelInputs,
  options: CharacteristicsRiskModelOptions = {},
): FactorModel {
  const fn = "buildCharacteristicsRiskModel";
  const { assets, returns, characteristicNames: names } = inputs;
  const n = assets.length;
  const c = names.length;
  assertUnique(fn, "asset", assets);
  if (n === 0) throw new RangeError(`${fn}: no assets.`);
  if (returns.length % n !== 0) {
    throw new RangeError(`${fn}: returns has length ${returns.length}, not a multiple of ${n} assets.`);
  }
  const T = returns.length / n;
  if (T < 2) throw new RangeError(`${fn}: need at least 2 periods of returns, got ${T}.`);
  assertLength(fn, "characteristics", inputs.characteristics, n * c);
  assertLength(fn, "sectors", inputs.sectors, n);
  assertLength(fn, "marketCap", inputs.marketCap, n);
  if (inputs.characteristicHistory !== undefined) {
    assertLength(fn, "characteristicHistory", inputs.characteristicHistory, T * n * c);
    assertNoInfinity(fn, "characteristicHistory", inputs.characteristicHistory, (x) => {
      const t = Math.floor(x / (n * c));
      return `period ${t}, ${assets[Math.floor(x / c) % n]} / ${names[x % c]}`;
    });
  }
  if (inputs.marketCapHistory !== undefined) {
    assertLength(fn, "marketCapHistory", inputs.marketCapHistory, T * n);
    assertNoInfinity(
      fn,
      "marketCapHistory",
      inputs.marketCapHistory,
      (x) => `period ${Math.floor(x / n)}, ${assets[x % n]}`,
    );
  }
  assertNoInfinity(fn, "returns", returns, (x) => `period ${Math.floor(x / n)}, ${assets[x % n]}`);
  assertNoInfinity(
    fn,
    "characteristics",
    inputs.characteristics,
    (x) => `${assets[Math.floor(x / c)]} / ${names[x % c]}`,
  );
  assertFinite(fn, "marketCap", inputs.marketCap, (i) => `${assets[i]}`);
  const badCap = assets.filter((_, i) => !(inputs.marketCap[i]! > 0));
  if (badCap.length > 0) {
    throw new ValidationError(
      `${fn}: market cap must be > 0; it is not for ${listForMessage(badCap)}.`,
      badCap.map((a) => ({ path: `marketCap.${a}`, message: "must be > 0" })),
    );
  }
  const annualization = periodsPerYear(options.frequency ?? "daily");
  const factorHalfLife = options.factorHalfLife ?? DEFAULT_CHARACTERISTICS_HALF_LIFE;
  const specificHalfLife = options.specificHalfLife ?? DEFAULT_CHARACTERISTICS_HALF_LIFE;
  if (!(factorHalfLife > 0) || !(specificHalfLife > 0)) {
    throw new RangeError(`${fn}: half-lives must be > 0, got ${factorHalfLife} and ${specificHalfLife}.`);
  }
  const winsorize = options.winsorize ?? 3;
  const minObservations = options.minObservations ?? 20;
  if (!(minObservations >= 1))
    throw new RangeError(`${fn}: minObservations must be >= 1, got ${minObservations}.`);
  const relativeFloor = options.relativeFloor ?? DEFAULT_PSD_RELATIVE_FLOOR;
  const absoluteFloor = options.absoluteFloor ?? 0;
  checkFloors(fn, relativeFloor, absoluteFloor);
  const notes: string[] = [];

  // Industries: distinct labels, sorted (numbers numerically, then strings).
  const labels = [...new Set(inputs.sectors.filter((s): s is string | number => s !== null).map(String))];
  labels.sort((a, b) => {
    const na = Number(a);
    const nb = Number(b);
    return Number.isFinite(na) && Number.isFinite(nb) ? na - nb : a < b ? -1 : a > b ? 1 : 0;
  });
  let S = labels.length;
  if (S === 1) {
    notes.push(
      `Only one sector (${labels[0]}): no sector factors (the dummy would equal the market factor).`,
    );
    S = 0;
  }
  const industry = new Int32Array(n).fill(-1);
  if (S > 0) {
    const pos = new Map(labels.map((l, s) => [l, s]));
    for (let i = 0; i < n; i++) {
      const s = inputs.sectors[i];
      if (s !== null && s !== undefined) industry[i] = pos.get(String(s))!;
    }
  }
  const factors = ["market", ...(S > 0 ? labels.map((l) => `sector:${l}`) : []), ...names];
  assertUnique(fn, "factor", factors);
  const K = factors.length;

  // Current standardized styles (n x c): the model's exposures, and the regressors when there is no history.
  const current = standardizeStyles(inputs.characteristics, inputs.marketCap, n, c, winsorize);
  for (const j of current.degenerate) {
    notes.push(`Characteristic ${names[j]} has no cross-sectional dispersion today: its exposures are 0.`);
  }
  let missingChars = 0;
  for (let x = 0; x < n * c; x++) if (Number.isNaN(inputs.characteristics[x]!)) missingChars++;
  if (missingChars > 0)
    notes.push(
      `${missingChars} missing characteristic value(s) were given exposure 0 (the cap-weighted mean).`,
    );

  // Period regressions.
  const factorReturns = new Float64Array(T * K);
  const keptPeriod = new Uint8Array(T);
  const residuals = new Float64Array(T * n).fill(Number.NaN);
  let skipped = 0;
  let missingReturns = 0;
  let rSquaredSum = 0;
  let singularPeriods = 0;
  const capT = new Float64Array(n);
  for (let t = 0; t < T; t++) {
    for (let i = 0; i < n; i++) {
      capT[i] = inputs.marketCapHistory ? inputs.marketCapHistory[t * n + i]! : inputs.marketCap[i]!;
    }
    const styles =
      inputs.characteristicHistory !== undefined
        ? standardizeStyles(
            inputs.characteristicHistory.subarray(t * n * c, (t + 1) * n * c),
            capT,
            n,
            c,
            winsorize,
          ).values
        : current.values;
    const members: number[] = [];
    for (let i = 0; i < n; i++) {
      const r = returns[t * n + i]!;
      if (Number.isNaN(r)) missingReturns++;
      else if (capT[i]! > 0) members.push(i);
    }
    const m = members.length;
    const W = new Float64Array(S);
    let capTotal = 0;
    for (const i of members) {
      capTotal += capT[i]!;
      if (industry[i]! >= 0) W[industry[i]!]! += capT[i]!;
    }
    let present = 0;
    for (let s = 0; s < S; s++) {
      if (W[s]! > 0) present++;
      if (capTotal > 0) W[s]! /= capTotal;
    }
    const parameters = 1 + Math.max(present - 1, 0) + c;
    if (m < parameters + 1) {
      skipped++;
      continue;
    }
    const cs = {
      returns: new Float64Array(m),
      weights: new Float64Array(m),
      industry: new Int32Array(m),
      industryCount: S,
      styles: new Float64Array(m * c),
      styleCount: c,
      constraintWeights: W,
    };
    members.forEach((i, r) => {
      cs.returns[r] = returns[t * n + i]!;
      cs.weights[r] = Math.sqrt(capT[i]!);
      cs.industry[r] = industry[i]!;
      cs.styles.set(styles.subarray(i * c, i * c + c), r * c);
    });
    const fit = crossSectionalRegression(cs);
    factorReturns.set(fit.factorReturns, t * K);
    members.forEach((i, r) => {
      residuals[t * n + i] = fit.residuals[r]!;
    });
    keptPeriod[t] = 1;
    rSquaredSum += fit.rSquared;
    if (fit.singular) singularPeriods++;
  }
  const kept = T - skipped;
  if (skipped > 0) notes.push(`Skipped ${skipped} period(s) with fewer assets than factors + 1.`);
  if (singularPeriods > 0) {
    notes.push(
      `${singularPeriods} period(s) had a rank-deficient design; minimum-norm factor returns were used.`,
    );
  }
  if (kept < 2) {
    throw new DataError(
      `${fn}: only ${kept} usable period(s) (each needs more assets with returns than the ${K - (S > 0 ? 1 : 0)} free factors); a factor covariance needs at least 2. Add assets or history, or use fewer characteristics.`,
      { code: "insufficient_history" },
    );
  }

  // Factor covariance over kept periods, weights by time position.
  const wFactor = exponentialWeights(T, factorHalfLife);
  const keptIdx: number[] = [];
  for (let t = 0; t < T; t++) if (keptPeriod[t] === 1) keptIdx.push(t);
  const series = new Float64Array(kept * K);
  const wKept = new Float64Array(kept);
  let wSum = 0;
  keptIdx.forEach((t, r) => {
    series.set(factorReturns.subarray(t * K, t * K + K), r * K);
    wKept[r] = wFactor[t]!;
    wSum += wFactor[t]!;
  });
  for (let r = 0; r < kept; r++) wKept[r]! /= wSum;
  const rawF = ewCovariance(series, kept, K, wKept);
  const {
    matrix: factorCovariance,
    report,
    notes: repairNotes,
  } = repairFactorCovariance(rawF, K, relativeFloor, absoluteFloor);
  notes.push(...repairNotes);
  if (S >= 2 && report.clippedCount > 0 && report.minEigenvalueBefore > -1e-9 * report.maxEigenvalue) {
    notes.push(
      "The industry constraint sum_s W_s f_s = 0 makes F singular when the cap weights barely change; " +
        "clipping its null direction to the floor is expected.",
    );
  }
  for (let x = 0; x < K * K; x++) factorCovariance[x]! *= annualization;

  // Specific variances: EW mean of squared residuals.
  const wSpecific = exponentialWeights(T, specificHalfLife);
  const specificVariance = new Float64Array(n);
  const estimated: number[] = [];
  const imputed: string[] = [];
  for (let i = 0; i < n; i++) {
    let sw = 0;
    let swe = 0;
    let obs = 0;
    for (let t = 0; t < T; t++) {
      const e = residuals[t * n + i]!;
      if (Number.isNaN(e)) continue;
      sw += wSpecific[t]!;
      swe += wSpecific[t]! * e * e;
      obs++;
    }
    if (obs >= minObservations && sw > 0) {
      specificVariance[i] = swe / sw;
      estimated.push(specificVariance[i]!);
    } else {
      specificVariance[i] = Number.NaN;
      imputed.push(assets[i]!);
    }
  }
  if (imputed.length > 0) {
    if (estimated.length === 0) {
      throw new DataError(
        `${fn}: no asset has ${minObservations} regression residuals; lower minObservations or provide more history.`,
        { code: "insufficient_history" },
      );
    }
    const median = medianOf(estimated);
    for (let i = 0; i < n; i++) if (Number.isNaN(specificVariance[i]!)) specificVariance[i] = median;
    notes.push(
      `Specific variance imputed (cross-sectional median) for ${imputed.length} asset(s) with fewer than ${minObservations} residuals: ${listForMessage(imputed)}.`,
    );
  }
  for (let i = 0; i < n; i++) specificVariance[i]! *= annualization;

  // Exposures today.
  const exposures = new Float64Array(n * K);
  const st = 1 + S;
  for (let i = 0; i < n; i++) {
    exposures[i * K] = 1;
    if (industry[i]! >= 0) exposures[i * K + 1 + industry[i]!] = 1;
    for (let j = 0; j < c; j++) exposures[i * K + st + j] = current.values[i * c + j]!;
  }
  return {
    assets: [...assets],
    factors,
    exposures,
    factorCovariance,
    specificVariance,
    annualization,
    diagnostics: {
      model: "characteristics",
      periods: kept,
      psdRepair: report,
      spectralShift: 0,
      notes,
      missingFraction: missingReturns / (T * n),
      averageRSquared: rSquaredSum / kept,
      imputedSpecificVariance: imputed,
      halfLives: { factor: factorHalfLife, specific: specificHalfLife },
    },
  };
}

/** Standardizes each of the c columns of an n x c characteristic matrix; returns n x c and degenerate columns. */
function standardizeStyles(
  raw: Float64Array,
  cap: Float64Array,
  n: number,
  c: number,
  winsorize: number,
): { values: Float64Array; degenerate: number[] } {
  const values = new Float64Array(n * c);
  const degenerate: number[] = [];
  const column = new Float64Array(n);
  for (let j = 0; j < c; j++) {
    for (let i = 0; i < n; i++) column[i] = raw[i * c + j]!;
    const z = standardizeCharacteristic(column, cap, { winsorize });
    if (z.degenerate) degenerate.push(j);
    for (let i = 0; i < n; i++) values[i * c + j] = z.values[i]!;
  }
  return { values, degenerate };
}

function medianOf(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : 0.5 * (s[mid - 1]! + s[mid]!);
}
