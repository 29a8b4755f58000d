/**
 * @module market/synthetic/options
 * Options of the synthetic market generator, their defaults and their validation.
 */

import { isIsoDate } from "../../core/dates.js";
import { type FieldIssue, ValidationError } from "../../core/errors.js";

/** Options of {@link generateMarket}. Every field but `seed` is optional. */
export interface SyntheticMarketOptions {
  /** Seed of every random draw: the same seed and options give byte-identical output. Any safe integer. */
  seed: number;
  /**
   * Number of listings, 50 to 5,000.
   * @default 500
   */
  securities?: number;
  /**
   * Years of daily history ending at `endDate`, 1 to 30.
   * @default 10
   */
  years?: number;
  /**
   * Last calendar date of the history (`YYYY-MM-DD`); the last trading date is on or before it.
   * @default "2025-12-31"
   */
  endDate?: string;
  /**
   * Fraction of listings on the Toronto Stock Exchange (MIC XTSE, priced in CAD), 0 to 0.5.
   * @default 0.12
   */
  canadianShare?: number;
  /**
   * Fraction of listings that start trading after the first date (IPOs spread over the history), 0 to 0.5.
   * @default 0.1
   */
  lateListingShare?: number;
  /**
   * Fraction of companies that pay quarterly cash dividends, before the sector tilt (utilities and REITs pay more,
   * technology less), 0 to 1.
   * @default 0.65
   */
  dividendPayerShare?: number;
  /**
   * Annual risk-free rate (arithmetic), added to every expected return.
   * @default 0.02
   */
  riskFreeRate?: number;
  /**
   * Annual expected excess return of the market factor (arithmetic): the equity premium earned per unit of beta.
   * @default 0.055
   */
  equityPremium?: number;
  /**
   * Annualized long-run volatility of the market factor.
   * @default 0.16
   */
  marketVolatility?: number;
  /**
   * Degrees of freedom of the Student t shocks (rescaled to unit variance), more than 4 so kurtosis exists.
   * @default 5
   */
  tailDegreesOfFreedom?: number;
  /**
   * GARCH(1,1) volatility clustering on the market factor and on each name's idiosyncratic shocks.
   * @default true
   */
  volatilityClustering?: boolean;
  /**
   * Number of constituents of the SYNTH500 index (the largest US listings by market cap, reselected monthly).
   * @default 500
   */
  indexSize?: number;
  /**
   * Compute the month-end characteristics panel (the most expensive output after the prices).
   * @default true
   */
  characteristics?: boolean;
}

/** The options with every default filled in. */
export type ResolvedSyntheticMarketOptions = Required<SyntheticMarketOptions>;

/** The defaults of {@link SyntheticMarketOptions} (all but `seed`). */
export const SYNTHETIC_MARKET_DEFAULTS: Readonly<Omit<ResolvedSyntheticMarketOptions, "seed">> =
  Object.freeze({
    securities: 500,
    years: 10,
    endDate: "2025-12-31",
    canadianShare: 0.12,
    lateListingShare: 0.1,
    dividendPayerShare: 0.65,
    riskFreeRate: 0.02,
    equityPremium: 0.055,
    marketVolatility: 0.16,
    tailDegreesOfFreedom: 5,
    volatilityClustering: true,
    indexSize: 500,
    characteristics: true,
  });

/** Limits of the size options. */
export const SYNTHETIC_MARKET_LIMITS = Object.freeze({
  minSecurities: 50,
  maxSecurities: 5000,
  minYears: 1,
  maxYears: 30,
});

function checkNumber(
  issues: FieldIssue[],
  path: string,
  value: unknown,
  rule: { min: number; max: number; integer?: boolean },
): void {
  const kind = rule.integer ? "an integer" : "a number";
  if (typeof value !== "number" || !Number.isFinite(value) || (rule.integer && !Number.isInteger(value))) {
    issues.push({
      path,
      message: `${path} must be ${kind} from ${rule.min} to ${rule.max}, got ${String(value)}`,
    });
    return;
  }
  if (value < rule.min || value > rule.max)
    issues.push({ path, message: `${path} must be ${kind} from ${rule.min} to ${rule.max}, got ${value}` });
}

/**
 * Fill defaults and validate every option at once.
 * @throws {ValidationError} listing every offending option (`issues[k].path` is the option name), e.g.
 * "generateMarket: securities must be an integer from 50 to 5000, got 10".
 */
export function resolveSyntheticMarketOptions(
  options: SyntheticMarketOptions,
): ResolvedSyntheticMarketOptions {
  if (typeof options !== "object" || options === null)
    throw new ValidationError(
      "generateMarket: options must be an object with at least a seed, e.g. { seed: 42 }",
      [{ path: "", message: "options must be an object" }],
    );
  const o = {
    ...SYNTHETIC_MARKET_DEFAULTS,
    ...stripUndefined(options),
    seed: options?.seed,
  } as ResolvedSyntheticMarketOptions;
  const issues: FieldIssue[] = [];
  if (typeof o.seed !== "number" || !Number.isSafeInteger(o.seed))
    issues.push({ path: "seed", message: `seed must be a safe integer, got ${String(o.seed)}` });
  const L = SYNTHETIC_MARKET_LIMITS;
  checkNumber(issues, "securities", o.securities, {
    min: L.minSecurities,
    max: L.maxSecurities,
    integer: true,
  });
  checkNumber(issues, "years", o.years, { min: L.minYears, max: L.maxYears, integer: true });
  if (typeof o.endDate !== "string" || !isIsoDate(o.endDate))
    issues.push({ path: "endDate", message: `endDate must be a YYYY-MM-DD date, got ${String(o.endDate)}` });
  else if (o.endDate < "1950-01-01" || o.endDate > "2199-12-31")
    issues.push({
      path: "endDate",
      message: `endDate must lie between 1950-01-01 and 2199-12-31, got ${o.endDate}`,
    });
  checkNumber(issues, "canadianShare", o.canadianShare, { min: 0, max: 0.5 });
  checkNumber(issues, "lateListingShare", o.lateListingShare, { min: 0, max: 0.5 });
  checkNumber(issues, "dividendPayerShare", o.dividendPayerShare, { min: 0, max: 1 });
  checkNumber(issues, "riskFreeRate", o.riskFreeRate, { min: -0.05, max: 0.2 });
  checkNumber(issues, "equityPremium", o.equityPremium, { min: -0.1, max: 0.2 });
  checkNumber(issues, "marketVolatility", o.marketVolatility, { min: 0.02, max: 0.6 });
  checkNumber(issues, "tailDegreesOfFreedom", o.tailDegreesOfFreedom, { min: 4.5, max: 1000 });
  checkNumber(issues, "indexSize", o.indexSize, { min: 10, max: 5000, integer: true });
  if (typeof o.volatilityClustering !== "boolean")
    issues.push({ path: "volatilityClustering", message: "volatilityClustering must be true or false" });
  if (typeof o.characteristics !== "boolean")
    issues.push({ path: "characteristics", message: "characteristics must be true or false" });
  if (issues.length > 0)
    throw new ValidationError(`generateMarket: ${issues.map((i) => i.message).join("; ")}`, issues);
  return o;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
