/**
 * @module core/proposal/prepare-input
 * Entry checks of {@link buildProposal}: every problem of the request is collected into one
 * `ValidationError` whose issues name the offending items (`targets[3].weight`, `config.noHoldTickers`...);
 * assets without security info or price raise `MissingPriceError`. The result is the account grouped by
 * asset once (lots, short lots, quantities, USD values), in theme_asset_id order.
 */

import type { Decimal } from "decimal.js";
import { CURRENCIES, type Currency } from "../data/types.js";
import { addDays, isIsoDate } from "../dates.js";
import { DataError, type FieldIssue, MissingPriceError, NonFiniteError, ValidationError } from "../errors.js";
import { sumDecimals } from "../tax/decimal.js";
import {
  type CapitalGainsReductionUnits,
  DEFAULT_LOT_SELECTION_POLICY,
  LOT_SELECTION_POLICIES,
  type LotSelectionPolicy,
  resolveTaxRules,
  type SpecificLotRequest,
  TaxDecimal,
  type TaxLot,
  type TaxRules,
  type WashSalePurchase,
} from "../tax/index.js";
import type { CashBufferSettings } from "./cash-buffers.js";
import {
  DEFAULT_FX_FEE_PERCENTAGE,
  DEFAULT_MIN_ORDER_NOTIONAL_USD,
  DEFAULT_MIN_ORDER_QUANTITY,
  DEFAULT_QUANTITY_DECIMALS,
  DEFAULT_WEIGHT_SUM_TOLERANCE,
} from "./proposal-defaults.js";
import { OPTIMIZATION_MODES, type OptimizationMode, type ProposalInput } from "./proposal-input.js";
import { ceilCents, isNegative, isPositive } from "./rounding.js";
import type { PreparedShortLot } from "./short-lots.js";

/** One asset of the proposal (held, short or targeted), with everything the order builder reads. */
export interface PreparedAsset {
  id: string;
  symbol: string | null;
  currency: Currency;
  /** Price per share, security currency. */
  price: Decimal;
  /** Units of the security currency per USD (1 for USD). */
  fxRate: Decimal;
  /** price / fxRate. */
  priceUsd: Decimal;
  wholeShares: boolean;
  lots: TaxLot[];
  shortLots: PreparedShortLot[];
  longQuantity: Decimal;
  shortQuantity: Decimal;
  /** longQuantity - shortQuantity. */
  netQuantity: Decimal;
  /** netQuantity x priceUsd. */
  valueUsd: Decimal;
  /** Target weight (0 when the asset is not in the targets). */
  targetWeight: Decimal;
  targeted: boolean;
  noTrade: boolean;
  noHold: boolean;
}

/** The request after its entry checks. */
export interface PreparedProposal {
  asOf: string;
  cashUsd: Decimal;
  navUsd: Decimal;
  assets: PreparedAsset[];
  mode: OptimizationMode;
  /** Sum of the positive target weights. */
  longWeightSum: Decimal;
  /** Tolerance of the weight-sum checks (options.weightSumTolerance). */
  weightSumTolerance: Decimal;
  buffers: CashBufferSettings;
  /** CAD per USD when known, else null. */
  cadPerUsd: Decimal | null;
  rules: TaxRules;
  policy: LotSelectionPolicy;
  preventPurchase: boolean;
  preventSale: boolean;
  reductions: Readonly<Record<string, Decimal.Value>>;
  reductionUnits: CapitalGainsReductionUnits;
  fxFeePercentage: Decimal;
  minNotionalUsd: Decimal;
  minQuantity: Decimal;
  quantityDecimals: number;
  /** Asset -> purchases outside the account's lots that count as wash-sale replacements. */
  washPurchases: Map<string, WashSalePurchase[]>;
  /** Assets with a loss sale (account or household) within the wash-sale window ending on asOf. */
  recentLossAssets: Map<string, string>;
  /** Asset -> the lots its long sell consumes and their total (input `lotChoices`). */
  lotChoices: Map<string, { lots: readonly SpecificLotRequest[]; total: Decimal }>;
}

const ZERO = new TaxDecimal(0);
const ONE = new TaxDecimal(1);

/** Parses a decimal field, recording an issue (and returning null) when it is not a finite number. */
function parse(value: unknown, path: string, issues: FieldIssue[]): Decimal | null {
  if (value === null || value === undefined) return null;
  let d: Decimal;
  try {
    d = new TaxDecimal(value as Decimal.Value);
  } catch {
    issues.push({ path, message: `${String(value)} is not a decimal number` });
    return null;
  }
  if (!d.isFinite()) {
    issues.push({ path, message: `${String(value)} is not a finite number` });
    return null;
  }
  return d;
}

function has<T>(record: Readonly<Record<string, T>> | undefined, key: string): boolean {
  return record !== undefined && record !== null && Object.hasOwn(record, key);
}

function isDecimalLike(v: unknown): v is Decimal {
  return v !== null && typeof v === "object" && typeof (v as Decimal).isFinite === "function";
}

/**
 * Checks `input` and groups the account by asset.
 * @throws {ValidationError} listing every offending item (see docs/proposals.md, "Bad input").
 * @throws {MissingPriceError} naming the first asset (by id) without security info or price; the message
 *   lists the others.
 * @throws {DataError} (code `missing_fx_rate`) when a currency in use has no FX rate.
 * @throws {NonFiniteError} for a NaN or infinite price or FX rate.
 */
export function prepareProposal(input: ProposalInput): PreparedProposal {
  const where = "buildProposal";
  if (input === null || typeof input !== "object") throw new TypeError(`${where}: input is required`);
  if (typeof input.asOf !== "string" || !isIsoDate(input.asOf))
    throw new RangeError(`${where}: asOf "${String(input.asOf)}" is not a YYYY-MM-DD date`);
  for (const key of ["lots", "targets"] as const)
    if (!Array.isArray(input[key])) throw new TypeError(`${where}: ${key} must be an array`);
  const asOf = input.asOf;
  const issues: FieldIssue[] = [];
  const config = input.config ?? {};
  const options = input.options ?? {};

  // ---- configuration ----
  const mode = config.optimizationMode ?? "LONG_ONLY";
  if (!OPTIMIZATION_MODES.includes(mode))
    issues.push({
      path: "config.optimizationMode",
      message: `unknown mode ${String(mode)} (known: ${OPTIMIZATION_MODES.join(", ")})`,
    });
  const longSum = parse(config.longWeightSum, "config.longWeightSum", issues);
  const shortSum = parse(config.shortWeightSum, "config.shortWeightSum", issues);
  if (longSum?.lt(0))
    issues.push({ path: "config.longWeightSum", message: `must be >= 0, got ${longSum.toString()}` });
  if (shortSum?.gt(0))
    issues.push({
      path: "config.shortWeightSum",
      message: `must be <= 0 (negative means short), got ${shortSum.toString()}`,
    });
  const buffers: CashBufferSettings = {
    usdFraction: parse(config.cashBufferUsd, "config.cashBufferUsd", issues),
    usdAmount: parse(config.cashBufferUsdAmount, "config.cashBufferUsdAmount", issues),
    cadFraction: parse(config.cashBufferCad, "config.cashBufferCad", issues),
    cadAmount: parse(config.cashBufferCadAmount, "config.cashBufferCadAmount", issues),
  };
  for (const [k, v] of Object.entries(buffers) as [keyof CashBufferSettings, Decimal | null][]) {
    const path = `config.cashBuffer${k.startsWith("usd") ? "Usd" : "Cad"}${k.endsWith("Amount") ? "Amount" : ""}`;
    if (v === null) continue;
    if (v.lt(0)) issues.push({ path, message: `must be >= 0, got ${v.toString()}` });
    if (k.endsWith("Fraction") && v.gt(1))
      issues.push({ path, message: `is a fraction of NAV (0.05 = 5%), at most 1; got ${v.toString()}` });
  }
  const policy = config.lotSelectionPolicy ?? DEFAULT_LOT_SELECTION_POLICY;
  if (!LOT_SELECTION_POLICIES.includes(policy) || policy === "SPECIFIC")
    issues.push({
      path: "config.lotSelectionPolicy",
      message: `must be TAX_OPTIMAL, FIFO, LIFO or HIFO (a proposal names no specific lots), got ${String(policy)}`,
    });
  const tax = config.taxPreferences ?? {};
  let rules: TaxRules = resolveTaxRules({});
  try {
    rules = resolveTaxRules(
      {
        ...(tax.longTermThreshold == null ? {} : { longTermThresholdDays: tax.longTermThreshold }),
        ...(tax.washSaleThreshold == null ? {} : { washSaleThresholdDays: tax.washSaleThreshold }),
        ...(tax.holdingPeriodConvention === undefined
          ? {}
          : { holdingPeriodConvention: tax.holdingPeriodConvention }),
      },
      where,
    );
  } catch (e) {
    issues.push({ path: "config.taxPreferences", message: (e as Error).message });
  }
  const reductionUnits = config.capitalGainsReductionsUnits ?? "DOLLARS";
  if (reductionUnits !== "DOLLARS" && reductionUnits !== "PERCENT")
    issues.push({
      path: "config.capitalGainsReductionsUnits",
      message: `must be DOLLARS or PERCENT, got ${String(reductionUnits)}`,
    });
  const reductions = config.capitalGainsReductions ?? {};
  for (const [id, amount] of Object.entries(reductions)) {
    const a = parse(amount, `config.capitalGainsReductions.${id}`, issues);
    if (a !== null && (a.lt(0) || (reductionUnits === "PERCENT" && a.gt(100))))
      issues.push({
        path: `config.capitalGainsReductions.${id}`,
        message: `must be ${reductionUnits === "PERCENT" ? "between 0 and 100 percent" : ">= 0 USD"}, got ${a.toString()}`,
      });
  }

  // ---- options ----
  const fxFeePercentage =
    parse(options.fxFeePercentage ?? DEFAULT_FX_FEE_PERCENTAGE, "options.fxFeePercentage", issues) ?? ZERO;
  if (fxFeePercentage.lt(0) || fxFeePercentage.gte(100))
    issues.push({ path: "options.fxFeePercentage", message: `must be in [0, 100), got ${fxFeePercentage}` });
  const minTradeUsd = parse(config.minTradeUsd, "config.minTradeUsd", issues);
  const minTradePct = parse(config.minTradePct, "config.minTradePct", issues);
  for (const [path, v] of [
    ["config.minTradeUsd", minTradeUsd],
    ["config.minTradePct", minTradePct],
  ] as const)
    if (v?.lt(0)) issues.push({ path, message: `must be >= 0, got ${v.toString()}` });
  const minOrderNotionalUsd =
    parse(
      options.minOrderNotionalUsd ?? DEFAULT_MIN_ORDER_NOTIONAL_USD,
      "options.minOrderNotionalUsd",
      issues,
    ) ?? ZERO;
  const minQuantity =
    parse(options.minOrderQuantity ?? DEFAULT_MIN_ORDER_QUANTITY, "options.minOrderQuantity", issues) ?? ZERO;
  for (const [path, v] of [
    ["options.minOrderNotionalUsd", minOrderNotionalUsd],
    ["options.minOrderQuantity", minQuantity],
  ] as const)
    if (v.lt(0)) issues.push({ path, message: `must be >= 0, got ${v.toString()}` });
  const quantityDecimals = options.quantityDecimals ?? DEFAULT_QUANTITY_DECIMALS;
  if (!Number.isInteger(quantityDecimals) || quantityDecimals < 0 || quantityDecimals > 10)
    issues.push({
      path: "options.quantityDecimals",
      message: `must be an integer from 0 to 10, got ${String(quantityDecimals)}`,
    });
  const tolerance = options.weightSumTolerance ?? DEFAULT_WEIGHT_SUM_TOLERANCE;
  if (!Number.isFinite(tolerance) || tolerance < 0)
    issues.push({ path: "options.weightSumTolerance", message: `must be a finite number >= 0` });

  // ---- ticker lists ----
  const noTrade = new Set(config.noTradeTickers ?? []);
  const noHold = new Set(config.noHoldTickers ?? []);
  const both = [...noTrade].filter((id) => noHold.has(id)).sort();
  if (both.length > 0)
    issues.push({
      path: "config.noHoldTickers",
      message: `${both.join(", ")} ${both.length > 1 ? "are" : "is"} also in noTradeTickers: an asset that must not be held cannot be left untraded; remove one of the two restrictions`,
    });
  const wholeAll = config.requireWholeShares === true && (config.wholeShareAssets ?? []).length === 0;
  const wholeSet = new Set(config.requireWholeShares === true ? (config.wholeShareAssets ?? []) : []);

  // ---- targets ----
  const targetOf = new Map<string, { weight: Decimal; index: number }>();
  let positive = ZERO;
  let negative = ZERO;
  input.targets.forEach((t, i) => {
    if (t === null || typeof t !== "object" || typeof t.themeAssetId !== "string" || t.themeAssetId === "") {
      issues.push({ path: `targets[${i}].themeAssetId`, message: "must be a non-empty theme_asset_id" });
      return;
    }
    const id = t.themeAssetId;
    const w = parse(t.weight, `targets[${i}].weight`, issues);
    if (t.weight === null || t.weight === undefined)
      issues.push({ path: `targets[${i}].weight`, message: `the weight of ${id} is missing` });
    const first = targetOf.get(id);
    if (first !== undefined) {
      issues.push({
        path: `targets[${i}].themeAssetId`,
        message: `${id} is already given at targets[${first.index}]; give each asset once`,
      });
      return;
    }
    if (w === null) return;
    targetOf.set(id, { weight: w, index: i });
    if (isPositive(w)) positive = positive.plus(w);
    else negative = negative.plus(w);
    if (mode === "LONG_ONLY" && isNegative(w))
      issues.push({
        path: `targets[${i}].weight`,
        message: `${id} has the negative weight ${w.toString()}; LONG_ONLY accounts cannot go short (use LONG_SHORT or LONG_BIASED)`,
      });
    if (noHold.has(id) && !w.isZero())
      issues.push({
        path: `targets[${i}].weight`,
        message: `${id} is a no-hold ticker; its target weight must be 0, got ${w.toString()}`,
      });
  });
  const tol = new TaxDecimal(Number.isFinite(tolerance) && tolerance >= 0 ? tolerance : 0);
  const net = positive.plus(negative);
  if (mode === "LONG_ONLY") {
    if (positive.gt(ONE.plus(tol)))
      issues.push({
        path: "targets",
        message: `weights sum to ${positive.toString()}, above 1 (tolerance ${tol.toString()}); a long-only proposal cannot invest more than the investable value`,
      });
  } else {
    const longLimit = longSum ?? ONE.plus(negative.abs());
    if (positive.gt(longLimit.plus(tol)))
      issues.push({
        path: "targets",
        message: `positive weights sum to ${positive.toString()}, above the long weight sum ${longLimit.toString()} (tolerance ${tol.toString()})`,
      });
    if (shortSum !== null && negative.lt(shortSum.minus(tol)))
      issues.push({
        path: "targets",
        message: `negative weights sum to ${negative.toString()}, below the short weight sum ${shortSum.toString()} (tolerance ${tol.toString()})`,
      });
    if (net.gt(ONE.plus(tol)))
      issues.push({
        path: "targets",
        message: `net weight (long + short) is ${net.toString()}, above 1 (tolerance ${tol.toString()}); the proposal does not borrow on margin`,
      });
    if (mode === "LONG_BIASED" && net.lt(tol.negated()))
      issues.push({
        path: "targets",
        message: `net weight (long + short) is ${net.toString()}; a LONG_BIASED account must stay net long`,
      });
  }

  // ---- cash ----
  const cashUsd = parse(input.cashUsd, "cashUsd", issues);
  if (input.cashUsd === null || input.cashUsd === undefined)
    issues.push({ path: "cashUsd", message: "the account's USD cash is required (0 when none)" });

  // ---- lots (light checks: the tax engine validates lots fully when their asset is sold) ----
  const lotsOf = new Map<string, TaxLot[]>();
  input.lots.forEach((lot, i) => {
    if (lot === null || typeof lot !== "object" || typeof lot.themeAssetId !== "string") {
      issues.push({ path: `lots[${i}]`, message: "is not a tax lot" });
      return;
    }
    if (!isDecimalLike(lot.quantity) || !lot.quantity.isFinite() || !isPositive(lot.quantity)) {
      issues.push({
        path: `lots[${i}].quantity`,
        message: `lot ${lot.id} of ${lot.themeAssetId}: quantity must be a finite Decimal > 0`,
      });
      return;
    }
    if (typeof lot.tradeDate !== "string" || lot.tradeDate > asOf)
      issues.push({
        path: `lots[${i}].tradeDate`,
        message: `lot ${lot.id} of ${lot.themeAssetId} was bought on ${String(lot.tradeDate)}, after the as-of date ${asOf}`,
      });
    let list = lotsOf.get(lot.themeAssetId);
    if (list === undefined) {
      list = [];
      lotsOf.set(lot.themeAssetId, list);
    }
    list.push(lot);
  });
  const shortsOf = new Map<string, PreparedShortLot[]>();
  (input.shortLots ?? []).forEach((s, i) => {
    const at = `shortLots[${i}]`;
    if (
      s === null ||
      typeof s !== "object" ||
      typeof s.themeAssetId !== "string" ||
      typeof s.id !== "string"
    ) {
      issues.push({ path: at, message: "is not a short lot" });
      return;
    }
    const quantity = parse(s.quantity, `${at}.quantity`, issues);
    const proceeds = parse(s.proceeds, `${at}.proceeds`, issues);
    const fxRate = parse(s.fxRate ?? 1, `${at}.fxRate`, issues);
    if (typeof s.openDate !== "string" || !isIsoDate(s.openDate) || s.openDate > asOf)
      issues.push({
        path: `${at}.openDate`,
        message: `short lot ${s.id}: open date ${String(s.openDate)} is not a YYYY-MM-DD date on or before ${asOf}`,
      });
    if (quantity === null || proceeds === null || fxRate === null) return;
    if (quantity.lte(0) || proceeds.lt(0) || fxRate.lte(0)) {
      issues.push({
        path: at,
        message: `short lot ${s.id}: quantity and fxRate must be > 0 and proceeds >= 0`,
      });
      return;
    }
    let list = shortsOf.get(s.themeAssetId);
    if (list === undefined) {
      list = [];
      shortsOf.set(s.themeAssetId, list);
    }
    list.push({
      id: s.id,
      themeAssetId: s.themeAssetId,
      quantity,
      proceeds,
      fxRate,
      openDate: s.openDate,
      proceedsPerShareUsd: proceeds.dividedBy(fxRate).dividedBy(quantity),
    });
  });
  for (const id of shortsOf.keys())
    if (lotsOf.has(id))
      issues.push({
        path: "shortLots",
        message: `${id} is held both long and short; net the positions before asking for a proposal`,
      });

  if (issues.length > 0) throw invalid(issues);

  // ---- market data ----
  const ids = [...new Set([...lotsOf.keys(), ...shortsOf.keys(), ...targetOf.keys()])].sort();
  const missing = ids.filter((id) => !has(input.securities, id) || !has(input.prices, id));
  if (missing.length > 0) {
    const others = missing.slice(1);
    throw new MissingPriceError(
      missing[0]!,
      asOf,
      `${has(input.securities, missing[0]!) ? "" : "It has no security info. "}${
        others.length > 0
          ? `Also missing: ${others.slice(0, 20).join(", ")}${others.length > 20 ? ", ..." : ""}. `
          : ""
      }Every asset held or targeted needs security info and a price; import them or drop the asset from the targets.`,
    );
  }
  const fxOf = new Map<Currency, Decimal>([["USD", ONE]]);
  const fxFor = (currency: Currency, who: string): Decimal => {
    const known = fxOf.get(currency);
    if (known !== undefined) return known;
    const raw = input.fxRates?.[currency];
    if (raw === undefined || raw === null)
      throw new DataError(
        `No ${currency} per USD rate for ${who} on ${asOf}. Import FX rates (lotwise market import) or pass fxRates.${currency}.`,
        { code: "missing_fx_rate" },
      );
    const fx = new TaxDecimal(raw);
    if (!fx.isFinite())
      throw new NonFiniteError(`The ${currency} per USD rate is ${String(raw)} on ${asOf}.`);
    if (fx.lte(0))
      throw invalid([{ path: `fxRates.${currency}`, message: `must be > 0, got ${fx.toString()}` }]);
    fxOf.set(currency, fx);
    return fx;
  };
  if (input.fxRates?.USD !== undefined && !new TaxDecimal(input.fxRates.USD).eq(1))
    issues.push({ path: "fxRates.USD", message: "USD per USD is 1" });

  const assets: PreparedAsset[] = [];
  let positionsUsd = ZERO;
  for (const id of ids) {
    const sec = input.securities[id]!;
    if (!(CURRENCIES as readonly string[]).includes(sec.currency)) {
      issues.push({ path: `securities.${id}.currency`, message: `unknown currency ${String(sec.currency)}` });
      continue;
    }
    const rawPrice = input.prices[id]!;
    let price: Decimal;
    try {
      price = new TaxDecimal(rawPrice);
    } catch {
      issues.push({ path: `prices.${id}`, message: `${String(rawPrice)} is not a decimal number` });
      continue;
    }
    if (!price.isFinite()) throw new NonFiniteError(`The price of ${id} on ${asOf} is ${String(rawPrice)}.`);
    if (!isPositive(price)) {
      issues.push({
        path: `prices.${id}`,
        message: `the price of ${id} must be > 0, got ${price.toString()}`,
      });
      continue;
    }
    const fxRate = fxFor(sec.currency, id);
    const lots = lotsOf.get(id) ?? [];
    for (const lot of lots)
      if (lot.currency !== sec.currency)
        issues.push({
          path: `lots[${input.lots.indexOf(lot)}].currency`,
          message: `lot ${lot.id} of ${id} has cost_basis_currency ${lot.currency}, but ${id} trades in ${sec.currency}: correct the lot (cost_basis_currency ${sec.currency} with its fx_rate in ${sec.currency} per USD), by importing the account's lots again or updating its holdings.tax_lots`,
        });
    const shortLots = shortsOf.get(id) ?? [];
    const longQuantity = sumDecimals(lots.map((lot) => lot.quantity));
    const shortQuantity = sumDecimals(shortLots.map((s) => s.quantity));
    const netQuantity = longQuantity.minus(shortQuantity);
    const usd = sec.currency === "USD";
    const priceUsd = usd ? price : price.dividedBy(fxRate);
    const valueUsd = usd ? netQuantity.times(price) : netQuantity.times(price).dividedBy(fxRate);
    positionsUsd = positionsUsd.plus(valueUsd);
    const target = targetOf.get(id);
    assets.push({
      id,
      symbol: sec.symbol ?? null,
      currency: sec.currency,
      price,
      fxRate,
      priceUsd,
      wholeShares: sec.wholeSharesOnly === true || wholeAll || wholeSet.has(id),
      lots,
      shortLots,
      longQuantity,
      shortQuantity,
      netQuantity,
      valueUsd,
      targetWeight: target?.weight ?? ZERO,
      targeted: target !== undefined,
      noTrade: noTrade.has(id),
      noHold: noHold.has(id),
    });
  }
  if (issues.length > 0) throw invalid(issues);

  const navUsd = cashUsd!.plus(positionsUsd);
  if (navUsd.lte(0))
    throw invalid([
      {
        path: "cashUsd",
        message: `the account's NAV (positions ${positionsUsd.toString()} + cash ${cashUsd!.toString()} USD) is not positive; weights need a positive NAV`,
      },
    ]);
  // The minimum order: the option, the configuration's minimum trade in USD and in percent of NAV.
  let minNotionalUsd = minOrderNotionalUsd;
  if (minTradeUsd?.gt(minNotionalUsd)) minNotionalUsd = minTradeUsd;
  // In whole cents, rounded up (the message names it; an order of exactly the minimum goes).
  const navShare = minTradePct === null ? null : ceilCents(navUsd.times(minTradePct).dividedBy(100));
  if (navShare?.gt(minNotionalUsd)) minNotionalUsd = navShare;
  const cadNeeded =
    (buffers.cadAmount !== null && !buffers.cadAmount.isZero()) ||
    (buffers.cadAmount === null && buffers.cadFraction !== null && !buffers.cadFraction.isZero());
  const cadPerUsd = cadNeeded ? fxFor("CAD", "the CAD cash buffer") : (fxOf.get("CAD") ?? null);

  return {
    asOf,
    cashUsd: cashUsd!,
    navUsd,
    assets,
    mode,
    longWeightSum: positive,
    weightSumTolerance: tol,
    buffers,
    cadPerUsd,
    rules,
    policy,
    preventPurchase: tax.preventTlhInvalidatingPurchase === true,
    preventSale: tax.preventTlhInvalidatingSale === true,
    reductions,
    reductionUnits,
    fxFeePercentage,
    minNotionalUsd,
    minQuantity,
    quantityDecimals,
    washPurchases: washPurchases(input),
    recentLossAssets: recentLosses(input, rules, asOf),
    lotChoices: lotChoicesOf(input),
  };
}

/** The `lotChoices` of the input with each asset's total; an empty or non-positive list is no choice. */
function lotChoicesOf(input: ProposalInput): PreparedProposal["lotChoices"] {
  const out: PreparedProposal["lotChoices"] = new Map();
  for (const [id, lots] of Object.entries(input.lotChoices ?? {})) {
    let total: Decimal = ZERO;
    for (const [i, l] of lots.entries()) {
      const q = new TaxDecimal(l.quantity);
      if (!(q.isFinite() && q.gt(0)))
        throw new ValidationError(`lotChoices.${id}[${i}].quantity must be a positive number.`, [
          {
            path: `lotChoices.${id}[${i}].quantity`,
            message: `${String(l.quantity)} is not a positive number`,
          },
        ]);
      total = total.plus(q);
    }
    if (total.gt(0)) out.set(id, { lots, total });
  }
  return out;
}

function invalid(issues: FieldIssue[]): ValidationError {
  const shown = issues
    .slice(0, 5)
    .map((i) => `${i.path}: ${i.message}`)
    .join("; ");
  return new ValidationError(
    `Invalid proposal request (${issues.length} issue${issues.length > 1 ? "s" : ""}): ${shown}${issues.length > 5 ? "; ..." : ""}`,
    issues,
  );
}

/** Household lots (never used as replacements) and recent purchases, by asset. */
function washPurchases(input: ProposalInput): Map<string, WashSalePurchase[]> {
  const out = new Map<string, WashSalePurchase[]>();
  const add = (p: WashSalePurchase) => {
    let list = out.get(p.themeAssetId);
    if (list === undefined) {
      list = [];
      out.set(p.themeAssetId, list);
    }
    list.push(p);
  };
  for (const lot of input.householdLots ?? []) {
    // A lot that already replaced washed shares is not matched again (Reg. §1.1091-1(e)).
    if (lot.washSaleDate !== null) continue;
    add({ themeAssetId: lot.themeAssetId, date: lot.tradeDate, quantity: lot.quantity });
  }
  // selectLots keeps only the purchases within the window of the sale.
  for (const p of input.recentPurchases ?? []) add(p);
  return out;
}

/**
 * Assets a buy today would wash a loss of: a loss sale within [asOf - T, asOf] of the account or household
 * (a lot's lastSoldForLossDate, or a loss record with unmatched shares). Maps asset -> latest loss date.
 */
function recentLosses(input: ProposalInput, rules: TaxRules, asOf: string): Map<string, string> {
  const out = new Map<string, string>();
  const t = rules.washSaleThresholdDays;
  const start = addDays(asOf, -t);
  const note = (id: string, date: string) => {
    if (date < start || date > asOf) return;
    const prev = out.get(id);
    if (prev === undefined || date > prev) out.set(id, date);
  };
  for (const lots of [input.lots, input.householdLots ?? []])
    for (const lot of lots)
      if (lot.lastSoldForLossDate !== null && lot.lastSoldForLossDate !== undefined)
        note(lot.themeAssetId, lot.lastSoldForLossDate);
  for (const s of input.recentSales ?? []) {
    const gain = new TaxDecimal(s.gainUsd);
    const washed = new TaxDecimal(s.washedQuantity ?? 0);
    if (gain.lt(0) && washed.lt(new TaxDecimal(s.quantity))) note(s.themeAssetId, s.saleDate);
  }
  return out;
}
