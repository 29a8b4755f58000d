/**
 * @module service/drift
 * An account's drift from its target (issue 14, item 1; docs/drift.md): the target is the one the optimizer uses
 * (the effective configuration's asset allocations in force on the date, else the asset-class benchmarks, else
 * SYNTH500/SP500: service/targets.ts), the weights are the account's lots held on the date valued at the closes
 * (cash included in the NAV), and the status comes from the configuration's three thresholds.
 *
 * Total drift is half the sum of absolute weight differences over assets and cash, the measure of most rebalancing
 * literature and platforms ("the fraction of the portfolio that must be traded, one way, to be back on target"):
 * it is 0 on target, 1 for a portfolio with nothing in common with its target, and equals the one-way turnover of
 * the trade that closes the gap. The per-asset drift is the signed difference current - target.
 */
import { Decimal } from "decimal.js";
import {
  type AccountDrift,
  type DriftStatus,
  formatDecimal,
  NUMERIC_STRING_WIDTH,
} from "../contract/index.js";
import { DataError, type ValidationError } from "../core/errors.js";
import type { AccountRecord } from "../store/index.js";
import { holdingsAt } from "./backtest-run.js";
import { findAccount } from "./clients.js";
import { checkedAsOf, type ServiceContext } from "./context.js";
import { type EffectiveConfig, effectiveConfig } from "./effective-config.js";
import { type BenchmarkSource, benchmarkSource, benchmarkWeightsAsOf } from "./targets.js";

/** Options of {@link accountDrift}. */
export interface AccountDriftOptions {
  /** The client the account must belong to (HTTP paths name it). */
  clientUuid?: string;
  /** Date of the weights and the target (default: the market's latest date on or before today). */
  asOf?: string | undefined;
}

const fmt = (v: Decimal, field: string) =>
  formatDecimal(
    v.toDecimalPlaces(10),
    NUMERIC_STRING_WIDTH.integerDigits,
    NUMERIC_STRING_WIDTH.fractionDigits,
    field,
  );

/** What the account holds on the date, as {@link holdingsAt} returns it. */
export type Holdings = Awaited<ReturnType<typeof holdingsAt>>;

/** USD value of each asset the account holds on `asOf` (split-adjusted lots at the last closes). */
function valuesOn(held: Holdings) {
  const quantities = new Map<string, Decimal>();
  for (const lot of held.lots)
    quantities.set(lot.themeAssetId, (quantities.get(lot.themeAssetId) ?? new Decimal(0)).plus(lot.quantity));
  const values = new Map<string, Decimal>();
  for (const [id, qty] of quantities) {
    const quote = held.quotes.get(id)!;
    const local = qty.times(quote.close);
    // Dividing by 1 (a USD listing) would return the same value: skipped.
    values.set(id, quote.perUsd === 1 ? local : local.dividedBy(quote.perUsd));
  }
  return { values, cash: new Decimal(held.cashUsd.toString()), nav: new Decimal(held.valueUsd.toString()) };
}

/**
 * The effective configuration the drift and the harvest scan of an account use on a date: resolved with the account
 * facts of its holdings (NAV, cash, number of assets held) for the conditions of dynamic rules.
 */
export function holdingsConfig(
  ctx: ServiceContext,
  account: AccountRecord,
  asOf: string,
  held: Holdings,
): Promise<EffectiveConfig> {
  return effectiveConfig(ctx, account, asOf, {
    account: {
      nav: held.valueUsd.toNumber(),
      cash_usd: held.cashUsd.toNumber(),
      positions: new Set(held.lots.map((l) => l.themeAssetId)).size,
    },
  });
}

/** The drift of an account in numbers (before formatting): {@link accountDrift} formats it, scans summarize it. */
export interface DriftMeasure {
  source: BenchmarkSource;
  target: { weights: Map<string, number>; date: string };
  nav: Decimal;
  total: Decimal;
  maxAbs: Decimal;
  status: DriftStatus;
  reasons: string[];
  warnings: string[];
  thresholds: { warning: string | null; breach: string | null; asset: string | null };
  assetBreach: Decimal | null;
  cashWeight: Decimal;
  cashTarget: Decimal;
  cashDrift: Decimal;
  /** Every asset held or targeted; `abs` = |drift|. */
  rows: { id: string; current: Decimal; target: Decimal; drift: Decimal; abs: Decimal }[];
}

const ZERO = new Decimal(0);

/** Target weights in force on a date, with the per-asset figures every account measured against them shares. */
export interface PreparedTarget {
  target: { weights: Map<string, number>; date: string };
  targetSum: Decimal;
  /** Weights that add to slightly more than 1 (rounding in a vendor file) are divided by their sum. */
  scale: Decimal;
  /** Target weight of each asset (weight / scale). */
  of: Map<string, Decimal>;
  /** 0 - target weight of each asset (the drift of an asset not held). */
  negated: Map<string, Decimal>;
  /** |0 - target weight| of each asset. */
  absNegated: Map<string, Decimal>;
  /** 0 / scale: the target of an asset outside the target. */
  zero: Decimal;
}

function prepareTarget(target: PreparedTarget["target"]): PreparedTarget {
  let targetSum = new Decimal(0);
  for (const w of target.weights.values()) targetSum = targetSum.plus(w);
  const scale = targetSum.gt(1) ? targetSum : new Decimal(1);
  const of = new Map<string, Decimal>();
  const negated = new Map<string, Decimal>();
  const absNegated = new Map<string, Decimal>();
  for (const [id, w] of target.weights) {
    const t = new Decimal(w).dividedBy(scale);
    of.set(id, t);
    negated.set(id, ZERO.minus(t));
    absNegated.set(id, ZERO.minus(t).abs());
  }
  return { target, targetSum, scale, of, negated, absNegated, zero: ZERO.dividedBy(scale) };
}

/**
 * The drift of an account whose holdings on `asOf` are `held`; `config` gives its effective configuration (called
 * once, after the empty-account check). `targets`: a cache of prepared targets shared by the accounts of a scan
 * (keyed by the target's sources and the date).
 * @throws {DataError} (`no_target`) when no target applies, (`empty_account`) when the account is worth nothing.
 */
export async function measureDrift(
  ctx: ServiceContext,
  account: AccountRecord,
  asOf: string,
  held: Holdings,
  config: () => Promise<EffectiveConfig>,
  targets?: Map<string, PreparedTarget>,
): Promise<DriftMeasure> {
  const { values, cash, nav } = valuesOn(held);
  if (!nav.gt(0))
    throw new DataError(`Account ${account.uuid} is worth nothing on ${asOf}: drift is not defined.`, {
      code: "empty_account",
    });
  const eff = await config();
  const warnings = [...eff.warnings];
  const source = await benchmarkSource(ctx, account, eff.read);
  const key = source === null ? "" : JSON.stringify([source.indexes, source.singles, asOf]);
  let prepared = source === null ? undefined : targets?.get(key);
  if (source !== null && prepared === undefined) {
    const weights = await benchmarkWeightsAsOf(ctx, source, asOf);
    if (weights.weights.size > 0) {
      prepared = prepareTarget(weights);
      targets?.set(key, prepared);
    }
  }
  if (source === null || prepared === undefined)
    throw new DataError(
      `Account ${account.uuid} has no target on ${asOf}: its configuration has no asset allocations with stored index weights by then, its asset classes name no such benchmark, and neither SYNTH500 nor SP500 is stored.`,
      { code: "no_target" },
    );
  const { target, targetSum, scale } = prepared;

  const thresholds = {
    warning: eff.read.drift_warning_threshold,
    breach: eff.read.drift_breach_threshold,
    asset: eff.read.asset_drift_breach_threshold,
  };
  const assetBreach = thresholds.asset === null ? null : new Decimal(thresholds.asset);
  // Assets held, then the target's other assets (in the order of a Set of both).
  const ids = [...values.keys()];
  for (const id of target.weights.keys()) if (!values.has(id)) ids.push(id);
  let sumAbs = ZERO;
  let maxAbs = ZERO;
  const rows = ids.map((id) => {
    const value = values.get(id);
    const t = prepared.of.get(id) ?? prepared.zero;
    let drift: Decimal;
    let abs: Decimal;
    let current: Decimal;
    if (value === undefined) {
      // 0 / NAV - target: the same values, computed once per target.
      current = ZERO;
      drift = prepared.negated.get(id) ?? prepared.zero;
      abs = prepared.absNegated.get(id) ?? prepared.zero.abs();
    } else {
      current = value.dividedBy(nav);
      drift = current.minus(t);
      abs = drift.abs();
    }
    sumAbs = sumAbs.plus(abs);
    if (abs.gt(maxAbs)) maxAbs = abs;
    return { id, current, target: t, drift, abs };
  });
  const cashWeight = cash.dividedBy(nav);
  const cashTarget = Decimal.max(0, new Decimal(1).minus(targetSum.dividedBy(scale)));

  const cashDrift = cashWeight.minus(cashTarget);
  sumAbs = sumAbs.plus(cashDrift.abs());
  const total = sumAbs.dividedBy(2);

  const reasons: string[] = [];
  const pct = (d: Decimal) => `${d.times(100).toDecimalPlaces(2).toFixed(2)}%`;
  let status: DriftStatus = "ok";
  if (thresholds.breach !== null && total.gte(thresholds.breach)) {
    status = "breach";
    reasons.push(
      `total drift ${pct(total)} >= drift_breach_threshold ${pct(new Decimal(thresholds.breach))}`,
    );
  }
  const breached = assetBreach === null ? [] : rows.filter((r) => r.abs.gte(assetBreach));
  if (breached.length > 0) {
    status = "breach";
    const worst = breached.reduce((a, b) => (b.abs.gt(a.abs) ? b : a));
    reasons.push(
      `${breached.length} asset${breached.length === 1 ? "" : "s"} with |drift| >= asset_drift_breach_threshold ${pct(assetBreach!)} (largest: ${worst.id} ${pct(worst.drift)})`,
    );
  }
  if (thresholds.warning !== null && total.gte(thresholds.warning)) {
    if (status === "ok") status = "warning";
    reasons.push(
      `total drift ${pct(total)} >= drift_warning_threshold ${pct(new Decimal(thresholds.warning))}`,
    );
  }
  if (thresholds.warning === null && thresholds.breach === null && thresholds.asset === null)
    warnings.push(
      "The configuration sets no drift threshold (drift_warning_threshold, drift_breach_threshold, asset_drift_breach_threshold): the status is ok whatever the drift.",
    );
  return {
    source,
    target,
    nav,
    total,
    maxAbs,
    status,
    reasons,
    warnings,
    thresholds,
    assetBreach,
    cashWeight,
    cashTarget,
    cashDrift,
    rows,
  };
}

/**
 * The account (of the client when `clientUuid` is given), the checked as-of date and the account's holdings then:
 * what the single-account drift and harvest operations start from.
 * @throws {NotFoundError} unknown account; {@link ValidationError} a date outside the market data.
 */
export async function accountHoldings(
  ctx: ServiceContext,
  org: string,
  accountUuid: string,
  options: { clientUuid?: string | undefined; asOf?: string | undefined },
): Promise<{ account: AccountRecord; asOf: string; held: Holdings }> {
  const account =
    options.clientUuid !== undefined
      ? await ctx.store.accounts.require(org, options.clientUuid, accountUuid)
      : (await findAccount(ctx, org, accountUuid)).account;
  const asOf = await checkedAsOf(ctx, options.asOf);
  return { account, asOf, held: await holdingsAt(ctx, account, asOf) };
}

/**
 * The drift of an account on a date: current and target weights of every asset held or targeted, total drift,
 * and the status from the configuration's drift thresholds.
 * @throws {NotFoundError} unknown account; {@link ValidationError} a date outside the market data;
 *   {@link DataError} (`no_target`) when no target applies, (`empty_account`) when the account is worth nothing.
 * @example (await accountDrift(ctx, org, accountUuid)).status // "warning"
 */
export async function accountDrift(
  ctx: ServiceContext,
  org: string,
  accountUuid: string,
  options: AccountDriftOptions = {},
): Promise<AccountDrift> {
  const { account, asOf, held } = await accountHoldings(ctx, org, accountUuid, options);
  const m = await measureDrift(ctx, account, asOf, held, () => holdingsConfig(ctx, account, asOf, held));
  const { rows, source, target, nav, total, maxAbs, status, reasons, thresholds, assetBreach, warnings } = m;
  const { cashWeight, cashTarget, cashDrift } = m;

  rows.sort((a, b) => b.drift.abs().comparedTo(a.drift.abs()) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const listings = await ctx.store.market.securitiesByIds(rows.map((r) => r.id));
  return {
    account_uuid: account.uuid,
    as_of_date: asOf,
    target: source.name,
    target_weights_date: target.date === "" ? null : target.date,
    nav_usd: formatDecimal(
      nav.toDecimalPlaces(2),
      NUMERIC_STRING_WIDTH.integerDigits,
      NUMERIC_STRING_WIDTH.fractionDigits,
      "nav_usd",
    ),
    total_drift: fmt(total, "total_drift"),
    max_asset_drift: fmt(maxAbs, "max_asset_drift"),
    status,
    reasons,
    thresholds: {
      drift_warning_threshold: thresholds.warning,
      drift_breach_threshold: thresholds.breach,
      asset_drift_breach_threshold: thresholds.asset,
    },
    cash: {
      current_weight: fmt(cashWeight, "cash.current_weight"),
      target_weight: fmt(cashTarget, "cash.target_weight"),
      drift: fmt(cashDrift, "cash.drift"),
    },
    assets: rows.map((r) => ({
      theme_asset_id: r.id,
      ticker_symbol: listings.get(r.id)?.symbol ?? null,
      current_weight: fmt(r.current, `${r.id} current_weight`),
      target_weight: fmt(r.target, `${r.id} target_weight`),
      drift: fmt(r.drift, `${r.id} drift`),
      breach: assetBreach !== null && r.drift.abs().gte(assetBreach),
    })),
    warnings,
  };
}
