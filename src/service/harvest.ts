/**
 * @module service/harvest
 * The harvest scan of an account (issue 14, item 3; docs/harvest.md): on a date, every lot held at an unrealized
 * loss, whether it can be sold at a loss now, what that loss is worth in tax at the configuration's rates, and the
 * securities that could replace the harvested assets.
 *
 * A lot is harvestable when none of these holds:
 * - `below_threshold`: its loss is under `min_loss_usd` or under `min_loss_fraction` of its USD basis;
 * - `wash_sale_account`: ANOTHER lot of the same asset was bought in this account within the wash-sale window
 *   (`tax_preferences.wash_sale_threshold`, default 30 days) before the date — the `recent_purchase` entries of the
 *   account's `wash_sale_lots` (core/tax/wash-sale-views.ts);
 * - `wash_sale_household`: a lot of the same asset was bought in another account of the same client within the
 *   window — the `recent_purchase` entries of `household_wash_sale_lots`;
 * - `no_trade`: a no-trade restriction on the asset is in force on the date.
 *
 * Estimated tax value of a lot = loss x the rate of its term on the date (short_term_rate, long_term_rate; the
 * optimizer's defaults 0.37 / 0.2). It ignores netting against the year's realized gains, the $3,000 limit on
 * losses deducted from ordinary income, state taxes, and the later sale of the replacement.
 *
 * Substitutes of a harvestable asset: securities of the same sector (level 1 of the industry classification),
 * ranked by the correlation of their daily USD total returns with the asset over the trailing year (the returns the
 * optimizer's risk model uses), at least {@link MIN_RETURN_OBSERVATIONS} common days and a positive correlation; excluded: the asset itself
 * and its other listings (same symbol), every asset with a harvestable lot (buying one back washes its loss),
 * assets sold at a loss within the window in the account or the household (`recent_loss_sale`: buying them is a
 * wash sale), and the no-hold and no-trade lists in force. Up to {@link MAX_SUBSTITUTES}, most correlated first.
 */
import { Decimal } from "decimal.js";
import {
  DEFAULT_MIN_LOSS_FRACTION,
  DEFAULT_MIN_LOSS_USD,
  formatDecimal,
  type HarvestBlockReason,
  type HarvestScan,
  NUMERIC_STRING_WIDTH,
} from "../contract/index.js";
import type { Security } from "../core/data/types.js";
import { DEFAULT_TAX_PREFERENCES } from "../core/optimizer/optimizer-config.js";
import { holdingTerm, type TaxLot, totalCostBasisUsd, washSaleViews } from "../core/tax/index.js";
import { LONG_TERM_THRESHOLD_DAYS, WASH_SALE_THRESHOLD_DAYS } from "../core/tax/tax-rules.js";
import type { AccountRecord } from "../store/index.js";
import type { ServiceContext } from "./context.js";
import { accountHoldings, type Holdings, holdingsConfig } from "./drift.js";
import type { EffectiveConfig } from "./effective-config.js";
import { priceHistory } from "./optimize.js";
import { MIN_RETURN_OBSERVATIONS } from "./optimizer-inputs.js";
import { accountLots } from "./proposals.js";
import { mapSerial } from "./serial.js";

/** Candidate replacements listed per harvestable asset. */
export const MAX_SUBSTITUTES = 3;

/** Options of {@link harvestScan}. */
export interface HarvestScanOptions {
  /** The client the account must belong to (HTTP paths name it). */
  clientUuid?: string | undefined;
  /** Date of the scan (default: the market's latest date on or before today). */
  asOf?: string | undefined;
  /** Smallest loss in USD that is worth harvesting (decimal string). @default "0" */
  minLossUsd?: string | undefined;
  /** Smallest loss as a fraction of the lot's USD basis (decimal string). @default "0.05" */
  minLossFraction?: string | undefined;
}

const money = (v: Decimal, field: string) =>
  formatDecimal(
    v.toDecimalPlaces(2),
    NUMERIC_STRING_WIDTH.integerDigits,
    NUMERIC_STRING_WIDTH.fractionDigits,
    field,
  );
const fraction = (v: Decimal, field: string) =>
  formatDecimal(
    v.toDecimalPlaces(10),
    NUMERIC_STRING_WIDTH.integerDigits,
    NUMERIC_STRING_WIDTH.fractionDigits,
    field,
  );

const LEVELS = [
  ["sub_industry", "subIndustry"],
  ["industry", "industry"],
  ["industry_group", "industryGroup"],
  ["sector", "sector"],
] as const;
type SharedLevel = (typeof LEVELS)[number][0];

/** Finest classification level two securities share (null when not even the sector). */
function sharedLevel(a: Security, b: Security): SharedLevel | null {
  for (const [name, key] of LEVELS) if (a[key] !== null && a[key] === b[key]) return name;
  return null;
}

/** Pearson correlation over the periods where both series have a return; null with fewer than `min` of them. */
function correlation(
  returns: Float64Array,
  periods: number,
  n: number,
  i: number,
  j: number,
  min: number,
): number | null {
  let count = 0;
  let sx = 0;
  let sy = 0;
  for (let s = 0; s < periods; s++) {
    const x = returns[s * n + i]!;
    const y = returns[s * n + j]!;
    if (Number.isNaN(x) || Number.isNaN(y)) continue;
    count++;
    sx += x;
    sy += y;
  }
  if (count < min) return null;
  const mx = sx / count;
  const my = sy / count;
  let cov = 0;
  let vx = 0;
  let vy = 0;
  for (let s = 0; s < periods; s++) {
    const x = returns[s * n + i]!;
    const y = returns[s * n + j]!;
    if (Number.isNaN(x) || Number.isNaN(y)) continue;
    cov += (x - mx) * (y - my);
    vx += (x - mx) ** 2;
    vy += (y - my) ** 2;
  }
  if (!(vx > 0) || !(vy > 0)) return null;
  return Math.max(-1, Math.min(1, cov / Math.sqrt(vx * vy)));
}

/** One lot at an unrealized loss in a harvest measure. */
export interface HarvestLotRow {
  lot: TaxLot;
  basis: Decimal;
  value: Decimal;
  loss: Decimal;
  /** loss / basis; computed when the threshold check needed it, else by the caller that reports it. */
  lossFraction: Decimal | null;
  term: "short_term" | "long_term";
  taxValue: Decimal;
  reasons: HarvestBlockReason[];
  windowEnds: string | null;
}

/** The loss lots of an account and the totals of the harvestable ones, before formatting ({@link harvestScan}). */
export type HarvestMeasure = Awaited<ReturnType<typeof measureHarvest>>;

/**
 * The harvest analysis of an account whose holdings on `asOf` are `held` and effective configuration `eff`: every
 * lot at a loss with its blocking reasons, and the harvestable totals (no substitutes: {@link harvestScan} adds them).
 */
export async function measureHarvest(
  ctx: ServiceContext,
  org: string,
  account: AccountRecord,
  asOf: string,
  held: Holdings,
  eff: EffectiveConfig,
  options: Pick<HarvestScanOptions, "minLossUsd" | "minLossFraction"> = {},
) {
  const market = ctx.store.market;
  const tp = eff.read.tax_preferences;
  const shortRate = new Decimal(tp.short_term_rate ?? DEFAULT_TAX_PREFERENCES.shortTermRate);
  const longRate = new Decimal(tp.long_term_rate ?? DEFAULT_TAX_PREFERENCES.longTermRate);
  const washDays = tp.wash_sale_threshold ?? WASH_SALE_THRESHOLD_DAYS;
  const longTermDays = tp.long_term_threshold ?? LONG_TERM_THRESHOLD_DAYS;
  const minUsd = new Decimal(options.minLossUsd ?? DEFAULT_MIN_LOSS_USD);
  const minFraction = new Decimal(options.minLossFraction ?? DEFAULT_MIN_LOSS_FRACTION);

  // Wash-sale windows open on the date, in this account (its lots held then) and the client's other accounts.
  const household = await mapSerial(
    (await ctx.store.accounts.listByClient(org, account.clientUuid)).filter((a) => a.uuid !== account.uuid),
    async (a) => ({
      accountId: a.uuid,
      lots: (await accountLots(ctx, a.uuid)).filter((l) => l.tradeDate <= asOf),
    }),
  );
  const views = washSaleViews(
    [{ accountId: account.uuid, lots: held.lots }, ...household],
    account.uuid,
    asOf,
    {
      washSaleThresholdDays: washDays,
    },
  );
  const noTrade = new Set(eff.noTrade);

  // The listings of the held assets (every asset the analysis names), read at once.
  const securities = await market.securitiesByIds([...new Set(held.lots.map((l) => l.themeAssetId))]);
  const securityOf = (id: string): Security | undefined => securities.get(id);

  const rows: HarvestLotRow[] = [];
  held.lots.forEach((lot, i) => {
    // Value at the listing's close and FX of the date (holdingsAt valued it); basis at the lot's purchase FX
    // rate, as the account view and the tax engine do (docs/tax.md section 2).
    const value = held.lotValues[i]!;
    const basis = totalCostBasisUsd(lot);
    if (!value.lt(basis)) return;
    const loss = basis.minus(value);
    let lossFraction: Decimal | null = null;
    const fractionBelow = () => {
      // The float ratio decides unless it is within 1e-9 (relative) of the threshold; then the exact quotient does.
      const approx = loss.toNumber() / basis.toNumber();
      const min = minFraction.toNumber();
      if (approx < min * (1 - 1e-9)) return true;
      if (approx > min * (1 + 1e-9)) return false;
      lossFraction = loss.dividedBy(basis);
      return lossFraction.lt(minFraction);
    };
    const term = holdingTerm(lot.holdingPeriodStart, asOf, { longTermThresholdDays: longTermDays });
    const reasons: HarvestBlockReason[] = [];
    let windowEnds: string | null = null;
    if (loss.lt(minUsd) || fractionBelow()) reasons.push("below_threshold");
    const exposing = (entries: typeof views.washSaleLots) =>
      entries.filter(
        (e) =>
          e.lot.themeAssetId === lot.themeAssetId &&
          e.lot.id !== lot.id &&
          e.source === "held_lot" &&
          e.reasons.includes("recent_purchase"),
      );
    for (const [reason, entries] of [
      ["wash_sale_account", exposing(views.washSaleLots)],
      ["wash_sale_household", exposing(views.householdWashSaleLots)],
    ] as const) {
      if (entries.length === 0) continue;
      reasons.push(reason);
      for (const e of entries)
        if (windowEnds === null || e.windowEnds > windowEnds) windowEnds = e.windowEnds;
    }
    if (noTrade.has(lot.themeAssetId)) reasons.push("no_trade");
    rows.push({
      lot,
      basis,
      value,
      loss,
      lossFraction,
      term,
      taxValue: loss.times(term === "long_term" ? longRate : shortRate),
      reasons,
      windowEnds,
    });
  });
  rows.sort(
    (a, b) =>
      Number(a.reasons.length > 0) - Number(b.reasons.length > 0) ||
      b.loss.comparedTo(a.loss) ||
      a.lot.themeAssetId.localeCompare(b.lot.themeAssetId) ||
      a.lot.tradeDate.localeCompare(b.lot.tradeDate) ||
      a.lot.id.localeCompare(b.lot.id),
  );

  const zero = new Decimal(0);
  let st = zero;
  let lt = zero;
  let taxValue = zero;
  const harvestLoss = new Map<string, Decimal>();
  for (const r of rows) {
    if (r.reasons.length > 0) continue;
    if (r.term === "long_term") lt = lt.plus(r.loss);
    else st = st.plus(r.loss);
    taxValue = taxValue.plus(r.taxValue);
    harvestLoss.set(r.lot.themeAssetId, (harvestLoss.get(r.lot.themeAssetId) ?? zero).plus(r.loss));
  }
  return {
    rows,
    st,
    lt,
    taxValue,
    harvestLoss,
    views,
    securityOf,
    shortRate,
    longRate,
    washDays,
    longTermDays,
    minUsd,
    minFraction,
  };
}

/**
 * The harvest scan of an account on a date: each lot at an unrealized loss with its term, estimated tax value and
 * whether it can be harvested now (and why not), the totals of the harvestable lots, and up to three replacements
 * per harvestable asset. See the module doc for the rules.
 * @throws {NotFoundError} unknown account; {@link ValidationError} a date outside the market data;
 *   {@link DataError} a held asset without a price or FX rate on the date.
 * @example (await harvestScan(ctx, org, accountUuid, { minLossUsd: "500" })).totals.estimated_tax_value_usd
 */
export async function harvestScan(
  ctx: ServiceContext,
  org: string,
  accountUuid: string,
  options: HarvestScanOptions = {},
): Promise<HarvestScan> {
  const { account, asOf, held } = await accountHoldings(ctx, org, accountUuid, options);
  const eff = await holdingsConfig(ctx, account, asOf, held);
  const m = await measureHarvest(ctx, org, account, asOf, held, eff, options);
  const { rows, st, lt, taxValue, harvestLoss, views, securityOf, shortRate, longRate } = m;
  const { washDays, longTermDays, minUsd, minFraction } = m;
  const warnings = [...eff.warnings];
  const noTrade = new Set(eff.noTrade);
  const noHold = new Set(eff.noHold);
  const harvested = [...harvestLoss.entries()]
    .sort((a, b) => b[1].comparedTo(a[1]) || a[0].localeCompare(b[0]))
    .map(([id]) => id);

  // Assets that cannot be bought now without a wash sale: sold at a loss within the window (account, household).
  const lossSold = new Set(
    [...views.washSaleLots, ...views.householdWashSaleLots]
      .filter((e) => e.reasons.includes("recent_loss_sale"))
      .map((e) => e.lot.themeAssetId),
  );
  const substitutes = await substitutesOf(ctx, harvested, asOf, securityOf, (s) => {
    const id = s.themeAssetId;
    return !harvestLoss.has(id) && !lossSold.has(id) && !noHold.has(id) && !noTrade.has(id);
  });
  for (const id of harvested)
    if (securityOf(id)?.sector == null)
      warnings.push(`${id} has no sector in the security master: no substitutes are proposed for it.`);

  const harvestable = rows.filter((r) => r.reasons.length === 0).length;
  return {
    account_uuid: account.uuid,
    as_of_date: asOf,
    thresholds: {
      min_loss_usd: fraction(minUsd, "min_loss_usd"),
      min_loss_fraction: fraction(minFraction, "min_loss_fraction"),
      wash_sale_threshold: washDays,
      long_term_threshold: longTermDays,
    },
    rates: {
      short_term_rate: fraction(shortRate, "short_term_rate"),
      long_term_rate: fraction(longRate, "long_term_rate"),
    },
    totals: {
      loss_lots: rows.length,
      harvestable_lots: harvestable,
      harvestable_loss_usd: money(st.plus(lt), "harvestable_loss_usd"),
      harvestable_short_term_loss_usd: money(st, "harvestable_short_term_loss_usd"),
      harvestable_long_term_loss_usd: money(lt, "harvestable_long_term_loss_usd"),
      estimated_tax_value_usd: money(taxValue, "estimated_tax_value_usd"),
    },
    lots: rows.map((r) => ({
      lot_uuid: r.lot.id,
      theme_asset_id: r.lot.themeAssetId,
      ticker_symbol: securityOf(r.lot.themeAssetId)?.symbol ?? null,
      trade_date: r.lot.tradeDate,
      quantity: fraction(r.lot.quantity, "quantity"),
      cost_basis_usd: money(r.basis, "cost_basis_usd"),
      value_usd: money(r.value, "value_usd"),
      loss_usd: money(r.loss, "loss_usd"),
      loss_fraction: fraction(r.lossFraction ?? r.loss.dividedBy(r.basis), "loss_fraction"),
      term: r.term,
      estimated_tax_value_usd: money(r.taxValue, "estimated_tax_value_usd"),
      harvestable: r.reasons.length === 0,
      reasons: r.reasons,
      wash_sale_window_ends: r.windowEnds,
    })),
    substitutes,
    warnings,
  };
}

/** Up to {@link MAX_SUBSTITUTES} replacements of each harvested asset (see the module doc). */
async function substitutesOf(
  ctx: ServiceContext,
  harvested: readonly string[],
  asOf: string,
  securityOf: (id: string) => Security | undefined,
  allowed: (s: Security) => boolean,
): Promise<HarvestScan["substitutes"]> {
  if (harvested.length === 0) return [];
  const sectors = new Set(harvested.map((id) => securityOf(id)?.sector).filter((s) => s != null));
  const harvestedSymbols = new Set(harvested.map((id) => securityOf(id)?.symbol));
  const pool = (await ctx.store.market.securities()).filter(
    (s) =>
      s.sector !== null &&
      sectors.has(s.sector) &&
      (s.listedFrom === null || s.listedFrom <= asOf) &&
      (s.delistedOn === null || s.delistedOn > asOf) &&
      !harvestedSymbols.has(s.symbol) &&
      allowed(s),
  );
  const ids = [...harvested, ...pool.map((s) => s.themeAssetId)];
  const currencies = [
    ...harvested.map((id) => securityOf(id)?.currency ?? "USD"),
    ...pool.map((s) => s.currency),
  ];
  const history = await priceHistory(ctx, ids, currencies, asOf);
  const n = ids.length;
  return harvested.map((id, i) => {
    const security = securityOf(id);
    const candidates: HarvestScan["substitutes"][number]["candidates"] = [];
    if (security?.sector != null) {
      const scored: { s: Security; level: SharedLevel; rho: number }[] = [];
      pool.forEach((s, k) => {
        if (s.symbol === security.symbol) return;
        const level = sharedLevel(security, s);
        if (level === null) return;
        const rho = correlation(
          history.returns,
          history.periods,
          n,
          i,
          harvested.length + k,
          MIN_RETURN_OBSERVATIONS,
        );
        // A replacement that does not move with the asset does not keep its exposure.
        if (rho !== null && rho > 0) scored.push({ s, level, rho });
      });
      scored.sort((a, b) => b.rho - a.rho || a.s.themeAssetId.localeCompare(b.s.themeAssetId));
      for (const c of scored.slice(0, MAX_SUBSTITUTES))
        candidates.push({
          theme_asset_id: c.s.themeAssetId,
          ticker_symbol: c.s.symbol,
          correlation: fraction(new Decimal(c.rho), `${c.s.themeAssetId} correlation`),
          shared_classification: c.level,
        });
    }
    return { theme_asset_id: id, ticker_symbol: security?.symbol ?? null, candidates };
  });
}
