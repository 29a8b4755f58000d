/**
 * @module service/accounts
 * The account read shape: lots valued at the as-of date, positions, aum / net worth, the annualized risk of the
 * holdings, wash-sale lots of the account and of the household, asset-class settings and the customization.
 */

import { Decimal } from "decimal.js";
import {
  type Account,
  type CustomizationConfigWrite,
  formatDecimal,
  NUMERIC_STRING_WIDTH,
  type PortfolioConfigRead,
  type Position,
  portfolioConfigReadFromWrite,
  type WashSaleLot,
} from "../contract/index.js";
import type { Security } from "../core/data/types.js";
import { holdingTerm, washSaleViews } from "../core/tax/index.js";
import type { AccountRecord, TaxLotRecord } from "../store/index.js";
import { shortLotFromRecord } from "../store/ledger-mapper.js";
import { readAssetClass } from "./asset-classes.js";
import { marketAsOf, type ServiceContext } from "./context.js";
import { lotRecordToRead, lotRecordToTaxLot, taxLotToRead } from "./lots.js";
import { configResolvers } from "./portfolio-configs.js";
import { mapSerial } from "./serial.js";
import { shortLotRead } from "./short-lot-read.js";

const fmt = (v: string | number | Decimal, field: string) =>
  formatDecimal(v, NUMERIC_STRING_WIDTH.integerDigits, NUMERIC_STRING_WIDTH.fractionDigits, field);

/** Trading days in the trailing window used for the holdings risk figure. */
export const HOLDINGS_RISK_WINDOW_DAYS = 252;

/** Prices and listings needed to value a set of lots at one date. */
export interface Valuation {
  asOf: string;
  securities: Map<string, Security>;
  /** Latest close (listing currency) and its date. */
  prices: Map<string, { date: string; close: number }>;
  /** Units of currency per USD at the as-of date. */
  fx: Map<string, number>;
}

/** Load what valuing these lots needs (at `asOf`, default {@link marketAsOf}). */
export async function loadValuation(
  ctx: ServiceContext,
  lots: readonly TaxLotRecord[],
  asOfDate?: string,
): Promise<Valuation> {
  const asOf = asOfDate ?? (await marketAsOf(ctx));
  const ids = [...new Set(lots.map((l) => l.themeAssetId))];
  const found = await ctx.store.market.securitiesByIds(ids);
  const securities = new Map<string, Security>();
  for (const id of ids) {
    const s = found.get(id);
    if (s) securities.set(id, s);
  }
  const prices = await ctx.store.market.latestPrices(ids, asOf);
  const fx = new Map<string, number>([["USD", 1]]);
  for (const s of securities.values()) {
    if (fx.has(s.currency)) continue;
    const r = await ctx.store.market.fxRateAsOf(s.currency, asOf);
    if (r) fx.set(s.currency, r.perUsd);
  }
  return { asOf, securities, prices, fx };
}

/** Latest USD price of an asset, or null when its price or FX rate is unknown. */
export function priceUsd(v: Valuation, themeAssetId: string): number | null {
  const s = v.securities.get(themeAssetId);
  const p = v.prices.get(themeAssetId);
  if (!s || !p) return null;
  const fx = v.fx.get(s.currency);
  return fx === undefined ? null : p.close / fx;
}

/** Positions (lots grouped by asset, in first-held order) with values and unrealized gains split by term. */
export function valuePositions(
  lots: readonly TaxLotRecord[],
  v: Valuation,
  cashUsd: Decimal,
): { positions: Position[]; aum: Decimal; shortTerm: Decimal; longTerm: Decimal } {
  const groups = new Map<string, TaxLotRecord[]>();
  for (const l of lots) {
    const g = groups.get(l.themeAssetId);
    if (g) g.push(l);
    else groups.set(l.themeAssetId, [l]);
  }
  type Acc = { p: Omit<Position, "weight">; mv: Decimal | null };
  const rows: Acc[] = [];
  let invested = new Decimal(0);
  let st = new Decimal(0);
  let lt = new Decimal(0);
  for (const [id, group] of groups) {
    const s = v.securities.get(id);
    const px = v.prices.get(id);
    const usd = priceUsd(v, id);
    let qty = new Decimal(0);
    let basis = new Decimal(0);
    let gST = new Decimal(0);
    let gLT = new Decimal(0);
    for (const r of group) {
      const lot = lotRecordToTaxLot(r);
      qty = qty.plus(lot.quantity);
      const basisUsd = lot.totalCostBasis.div(lot.fxRate);
      basis = basis.plus(basisUsd);
      if (usd !== null) {
        const gain = lot.quantity.times(usd).minus(basisUsd);
        // A lot dated after the prices (see futureLotWarnings) has been held for no time yet: short term.
        const longTerm =
          lot.holdingPeriodStart <= v.asOf && holdingTerm(lot.holdingPeriodStart, v.asOf) === "long_term";
        if (longTerm) gLT = gLT.plus(gain);
        else gST = gST.plus(gain);
      }
    }
    const mv = usd === null ? null : qty.times(usd);
    if (mv) invested = invested.plus(mv);
    if (usd !== null) {
      st = st.plus(gST);
      lt = lt.plus(gLT);
    }
    rows.push({
      mv,
      p: {
        theme_asset_id: id,
        symbol: s?.symbol ?? null,
        name: s?.name ?? null,
        currency: s?.currency ?? group[0]!.costBasisCurrency,
        quantity: fmt(qty, `${id} quantity`),
        lots: group.length,
        price: px ? fmt(px.close, `${id} price`) : null,
        price_date: px?.date ?? null,
        market_value_usd: mv ? fmt(mv.toDecimalPlaces(2), `${id} market value`) : null,
        cost_basis_usd: fmt(basis.toDecimalPlaces(2), `${id} cost basis`),
        unrealized_short_term_gain_usd: usd === null ? null : fmt(gST.toDecimalPlaces(2), `${id} gain`),
        unrealized_long_term_gain_usd: usd === null ? null : fmt(gLT.toDecimalPlaces(2), `${id} gain`),
      },
    });
  }
  const aum = invested.plus(cashUsd);
  const positions = rows.map(({ p, mv }) => ({
    ...p,
    weight: mv && aum.gt(0) ? fmt(mv.div(aum).toDecimalPlaces(10), `${p.theme_asset_id} weight`) : null,
  }));
  return { positions, aum, shortTerm: st, longTerm: lt };
}

/**
 * One warning per lot dated after the valuation date (the last market date on or before today): the lot is stored
 * as given and valued at the latest close, and counts as short term (held for no time yet).
 */
export function futureLotWarnings(lots: readonly TaxLotRecord[], v: Valuation): string[] {
  return lots
    .filter((l) => l.tradeDate > v.asOf)
    .map(
      (l) =>
        `The lot of ${l.quantity} ${l.themeAssetId} dated ${l.tradeDate} is after the last market date ${v.asOf}: it is valued at the latest close (${v.prices.get(l.themeAssetId)?.date ?? "none"}) and counts as short term.`,
    );
}

/**
 * Annualized volatility (percent) of the current holdings over the trailing window, from daily closes (in USD at
 * the as-of FX) with today's weights; cash has no risk. Null when fewer than 20 common trading days are known.
 */
export async function holdingsRiskPercent(
  ctx: ServiceContext,
  lots: readonly TaxLotRecord[],
  v: Valuation,
  aum: Decimal,
): Promise<number | null> {
  if (aum.lte(0) || lots.length === 0) return null;
  const weights = new Map<string, number>();
  for (const l of lots) {
    const usd = priceUsd(v, l.themeAssetId);
    if (usd === null) continue;
    weights.set(
      l.themeAssetId,
      (weights.get(l.themeAssetId) ?? 0) + (Number(l.quantity) * usd) / aum.toNumber(),
    );
  }
  const ids = [...weights.keys()];
  if (ids.length === 0) return null;
  const dates = (await ctx.store.market.tradingDates(undefined, v.asOf)).slice(
    -(HOLDINGS_RISK_WINDOW_DAYS + 1),
  );
  if (dates.length < 21) return null;
  const m = await ctx.store.market.priceMatrix(dates[0]!, dates[dates.length - 1]!, ids);
  const n = ids.length;
  const rets: number[] = [];
  for (let t = 1; t < m.dates.length; t++) {
    let r = 0;
    for (let i = 0; i < n; i++) {
      const a = m.close[(t - 1) * n + i]!;
      const b = m.close[t * n + i]!;
      if (Number.isFinite(a) && Number.isFinite(b) && a > 0) r += weights.get(ids[i]!)! * (b / a - 1);
    }
    rets.push(r);
  }
  if (rets.length < 20) return null;
  const mean = rets.reduce((a, b) => a + b, 0) / rets.length;
  const variance = rets.reduce((a, b) => a + (b - mean) ** 2, 0) / (rets.length - 1);
  return Math.sqrt(variance * 252) * 100;
}

/** The account's customization_config in the read shape (with the account's uuid), or null. */
export async function customizationRead(
  ctx: ServiceContext,
  account: AccountRecord,
): Promise<PortfolioConfigRead | null> {
  if (account.customizationConfig === null || account.customizationConfig === undefined) return null;
  const references = await configResolvers(ctx, account.organizationUuid);
  return references.read((resolvers) =>
    portfolioConfigReadFromWrite(
      { uuid: account.uuid, config: account.customizationConfig as CustomizationConfigWrite },
      resolvers,
    ),
  );
}

/**
 * The read shape of an account. `household` holds every account of the client (including this one) so that the
 * household wash-sale view can look across them.
 */
export async function accountRead(
  ctx: ServiceContext,
  account: AccountRecord,
  household: readonly AccountRecord[],
): Promise<Account> {
  const org = account.organizationUuid;
  const lotsByAccount = new Map<string, TaxLotRecord[]>(
    await mapSerial(household, async (a) => [a.uuid, await ctx.store.accounts.lots(a.uuid)] as const),
  );
  const lots = lotsByAccount.get(account.uuid) ?? (await ctx.store.accounts.lots(account.uuid));
  const allLots = [...lotsByAccount.values()].flat();
  const v = await loadValuation(ctx, allLots);
  const cash = new Decimal(account.cashValueUsd);
  const { positions, aum, shortTerm, longTerm } = valuePositions(lots, v, cash);
  const netWorth = aum.plus(account.nonTradableAssetsValue).minus(account.liabilitiesValue);
  const risk = await holdingsRiskPercent(ctx, lots, v, aum);
  const names = new Map(household.map((a) => [a.uuid, a.name]));
  const views = washSaleViews(
    household.map((a) => ({
      accountId: a.uuid,
      ...(a.name ? { accountName: a.name } : {}),
      lots: (lotsByAccount.get(a.uuid) ?? []).map(lotRecordToTaxLot),
    })),
    account.uuid,
    v.asOf,
  );
  const entry = (e: (typeof views.washSaleLots)[number]): WashSaleLot => {
    const s = v.securities.get(e.lot.themeAssetId);
    return {
      tax_lot: taxLotToRead(e.lot, {
        symbol: s?.symbol ?? null,
        name: s?.name ?? null,
        priceUsd: priceUsd(v, e.lot.themeAssetId),
      }),
      account_uuid: e.accountId,
      account_name: names.get(e.accountId) ?? null,
    };
  };
  const assetClassSettings = await mapSerial(
    await ctx.store.accounts.assetClassSettings(account.uuid),
    async (s) => ({
      asset_class: await readAssetClass(ctx, org, s.assetClassUuid),
      direct_indexing_enabled: s.directIndexingEnabled,
      implementation_sleeve: s.implementationSleeveUuid
        ? await readAssetClass(ctx, org, s.implementationSleeveUuid)
        : null,
    }),
  );
  const customization = await customizationRead(ctx, account);
  return {
    uuid: account.uuid,
    external_id: account.externalId,
    name: account.name,
    holdings: {
      tax_lots: lots.map((l) => {
        const s = v.securities.get(l.themeAssetId);
        return lotRecordToRead(l, {
          symbol: s?.symbol ?? null,
          name: s?.name ?? null,
          priceUsd: priceUsd(v, l.themeAssetId),
        });
      }),
      cash_value_usd: fmt(cash, "cash_value_usd"),
      non_tradable_assets_value: fmt(account.nonTradableAssetsValue, "non_tradable_assets_value"),
      liabilities_value: fmt(account.liabilitiesValue, "liabilities_value"),
    },
    created: account.created,
    modified: account.modified,
    asset_class_settings: assetClassSettings,
    wash_sale_lots: views.washSaleLots.map(entry),
    household_wash_sale_lots: views.householdWashSaleLots.map(entry),
    short_lots: (await ctx.store.ledger.shortLots(account.uuid)).map((r) =>
      shortLotRead(shortLotFromRecord(r)),
    ),
    aum: fmt(aum.toDecimalPlaces(2), "aum"),
    net_worth: fmt(netWorth.toDecimalPlaces(2), "net_worth"),
    holdings_risk_annualized_percentage:
      risk === null ? null : fmt(new Decimal(risk).toDecimalPlaces(4), "holdings_risk"),
    is_read_only: account.isReadOnly,
    is_brokerage_backed: false,
    is_externally_owned: false,
    source_brokerage_connection_account_uuid: null,
    source_brokerage_is_paper: null,
    source_brokerage_account_type: null,
    metadata: (account.metadata ?? null) as Account["metadata"],
    customization_config: customization,
    portfolio_config_uuid: account.portfolioConfigUuid,
    as_of_date: v.prices.size > 0 || lots.length === 0 ? v.asOf : null,
    positions,
    unrealized_short_term_gain_usd: fmt(shortTerm.toDecimalPlaces(2), "unrealized_short_term_gain_usd"),
    unrealized_long_term_gain_usd: fmt(longTerm.toDecimalPlaces(2), "unrealized_long_term_gain_usd"),
    warnings: futureLotWarnings(lots, v),
  };
}
