/**
 * @module service/cash-request
 * Cash requests of the rebalance extension (docs/cash-requests.md): a withdrawal to raise (`withdraw_usd`) or a
 * deposit to invest (`deposit_usd`). This module holds what does not need the optimizer: the account's value and
 * minimum cash on the date (the proposal's conventions), the checks of the amount, the lot engine's withdrawal
 * (`core/tax/raise-cash`) turned into a stored proposal, and the report of what the request did. The optimizer's
 * path is `rebalanceAccount` in `service/optimize.ts`.
 */
import type { Decimal } from "decimal.js";
import {
  type AccountRebalance,
  accountRebalanceSchema,
  type CashRequest,
  type CashRequestReport,
  formatDecimal,
  type ProposalResponse,
  parseOrThrow,
  proposalRequestSchema,
} from "../contract/index.js";
import { addDays } from "../core/dates.js";
import { DataError, ValidationError } from "../core/errors.js";
import { DEFAULT_TAX_PREFERENCES } from "../core/optimizer/optimizer-config.js";
import { cashBuffers, DEFAULT_FX_FEE_PERCENTAGE } from "../core/proposal/index.js";
import { type RaiseCashAsset, raiseCash, TaxDecimal, type TaxLot } from "../core/tax/index.js";
import { LONG_TERM_THRESHOLD_DAYS, WASH_SALE_THRESHOLD_DAYS } from "../core/tax/tax-rules.js";
import type { AccountRecord } from "../store/index.js";
import { nowIso, type ServiceContext } from "./context.js";
import { effectiveConfig } from "./effective-config.js";
import { accountLots, createProposalJson } from "./proposals.js";

const ZERO = new TaxDecimal(0);

/** A parsed cash request. */
export interface CashAmount {
  readonly kind: "withdrawal" | "deposit";
  readonly amountUsd: Decimal;
  /** The request path of the amount, for messages. */
  readonly path: string;
}

/** The request's amount and kind (the contract has checked exactly one positive amount). */
export function cashAmountOf(request: CashRequest): CashAmount {
  return request.withdraw_usd !== undefined
    ? {
        kind: "withdrawal",
        amountUsd: new TaxDecimal(request.withdraw_usd),
        path: "cash_request.withdraw_usd",
      }
    : { kind: "deposit", amountUsd: new TaxDecimal(request.deposit_usd!), path: "cash_request.deposit_usd" };
}

/** The account as a proposal on the date sees it: stored lots at the closes, in USD. */
export interface AccountValue {
  readonly lots: TaxLot[];
  readonly cashUsd: Decimal;
  readonly navUsd: Decimal;
  /** The cash buffers of the effective configuration (cash_buffer_*), USD. */
  readonly minimumCashUsd: Decimal;
  /** Per held asset: shares, USD price, net USD proceeds per share sold (FX fee off), whole shares. */
  readonly assets: Map<
    string,
    { quantity: Decimal; priceUsd: Decimal; proceedsPerShareUsd: Decimal; whole: boolean }
  >;
  readonly config: Awaited<ReturnType<typeof effectiveConfig>>;
}

/**
 * The account's value and minimum cash on `asOf`, with the proposal builder's conventions (stored lots, last close
 * on or before the date, USD = local / units per USD, buffers rounded up to the cent); the buffers are those of
 * the NAV with the deposit, when one.
 * @throws {DataError} for a held asset without a price or FX rate.
 */
export async function accountValue(
  ctx: ServiceContext,
  account: AccountRecord,
  asOf: string,
  depositUsd: Decimal = ZERO,
): Promise<AccountValue> {
  const market = ctx.store.market;
  const lots = await accountLots(ctx, account.uuid);
  const config = await effectiveConfig(ctx, account, asOf, { at: nowIso(ctx) });
  const c = config.read;
  const ids = [...new Set(lots.map((l) => l.themeAssetId))];
  const prices = await market.latestPrices(ids, asOf);
  const securities = await market.securitiesByIds(ids);
  const wholeAll =
    c.require_whole_shares && (c.whole_share_assets === null || c.whole_share_assets.length === 0);
  const wholeSet = new Set(c.require_whole_shares ? (c.whole_share_assets ?? []) : []);
  const keep = new TaxDecimal(100).minus(DEFAULT_FX_FEE_PERCENTAGE).dividedBy(100);
  const assets: AccountValue["assets"] = new Map();
  const cashUsd = new TaxDecimal(account.cashValueUsd);
  let navUsd = cashUsd;
  for (const id of ids) {
    const p = prices.get(id);
    const s = securities.get(id);
    if (!p || !s)
      throw new DataError(`The account holds ${id} but the store has no price for it on or before ${asOf}.`, {
        code: "missing_price",
      });
    let priceUsd = new TaxDecimal(String(p.close));
    let net = priceUsd;
    if (s.currency !== "USD") {
      const fx = await market.fxRateAsOf(s.currency, asOf);
      if (!fx)
        throw new DataError(`No ${s.currency} per USD rate on or before ${asOf}.`, { code: "missing_fx" });
      priceUsd = priceUsd.dividedBy(String(fx.perUsd));
      net = priceUsd.times(keep);
    }
    const quantity = lots.filter((l) => l.themeAssetId === id).reduce((q, l) => q.plus(l.quantity), ZERO);
    navUsd = navUsd.plus(quantity.times(priceUsd));
    assets.set(id, { quantity, priceUsd, proceedsPerShareUsd: net, whole: wholeAll || wholeSet.has(id) });
  }
  const cadSet = c.cash_buffer_cad_amount !== null || Number(c.cash_buffer_cad ?? 0) > 0;
  const cad = cadSet ? await market.fxRateAsOf("CAD", asOf) : null;
  const dec = (v: string | null) => (v === null ? null : new TaxDecimal(v));
  const buffers = cashBuffers(
    {
      usdFraction: dec(c.cash_buffer_usd),
      usdAmount: dec(c.cash_buffer_usd_amount),
      cadFraction: dec(c.cash_buffer_cad),
      cadAmount: dec(c.cash_buffer_cad_amount),
    },
    navUsd.plus(depositUsd),
    cad === null || cad === undefined ? null : new TaxDecimal(String(cad.perUsd)),
  );
  return { lots, cashUsd, navUsd, minimumCashUsd: buffers.reservedUsd, assets, config };
}

const usd = (d: Decimal) => d.toDecimalPlaces(2).toFixed(2);

/**
 * Refuses a withdrawal the account cannot pay: more than its value, or more than its value less the cash buffers.
 * @throws {ValidationError} naming `cash_request.withdraw_usd`.
 */
export function checkWithdrawal(v: AccountValue, cash: CashAmount, asOf: string): void {
  if (cash.kind !== "withdrawal") return;
  if (cash.amountUsd.gt(v.navUsd))
    throw new ValidationError(
      `withdraw_usd ${usd(cash.amountUsd)} is more than the account's value of ${usd(v.navUsd)} USD on ${asOf}.`,
      [{ path: cash.path, message: `more than the account's value (${usd(v.navUsd)} USD)` }],
    );
  if (cash.amountUsd.plus(v.minimumCashUsd).gt(v.navUsd))
    throw new ValidationError(
      `withdraw_usd ${usd(cash.amountUsd)} plus the cash buffers of ${usd(v.minimumCashUsd)} USD is more than the account's value of ${usd(v.navUsd)} USD on ${asOf}; at most ${usd(v.navUsd.minus(v.minimumCashUsd))} USD can be withdrawn.`,
      [{ path: cash.path, message: `more than the account's value less its cash buffers` }],
    );
}

/** Cash the trades must raise for a withdrawal: max(0, amount + minimum cash - cash). */
function cashNeeded(v: AccountValue, cash: CashAmount): Decimal {
  if (cash.kind !== "withdrawal") return ZERO;
  const need = cash.amountUsd.plus(v.minimumCashUsd).minus(v.cashUsd);
  return need.gt(0) ? need : ZERO;
}

const money = (d: Decimal) => formatDecimal(d.toDecimalPlaces(10), 30, 10);

/** What the request did, from the stored proposal's figures. */
export function cashRequestReport(
  v: AccountValue,
  cash: CashAmount,
  method: CashRequestReport["method"],
  reason: string,
  proposal: ProposalResponse | null,
  cashAfterUsd: Decimal,
): CashRequestReport {
  const tp = v.config.read.tax_preferences;
  const shortRate = new TaxDecimal(tp.short_term_rate ?? DEFAULT_TAX_PREFERENCES.shortTermRate);
  const longRate = new TaxDecimal(tp.long_term_rate ?? DEFAULT_TAX_PREFERENCES.longTermRate);
  const st = new TaxDecimal(proposal?.realized?.taxable_short_term_usd ?? 0);
  const lt = new TaxDecimal(proposal?.realized?.taxable_long_term_usd ?? 0);
  const deposit = cash.kind === "deposit" ? cash.amountUsd : ZERO;
  const raised = cashAfterUsd.minus(v.cashUsd).minus(deposit);
  return {
    kind: cash.kind,
    amount_usd: money(cash.amountUsd),
    method,
    method_reason: reason,
    cash_before_usd: money(v.cashUsd),
    minimum_cash_usd: money(v.minimumCashUsd),
    cash_needed_usd: money(cashNeeded(v, cash)),
    cash_raised_usd: money(raised),
    cash_after_usd: money(cashAfterUsd),
    covered:
      cash.kind === "withdrawal"
        ? cashAfterUsd.gte(cash.amountUsd.plus(v.minimumCashUsd))
        : cashAfterUsd.gte(v.minimumCashUsd),
    realized_short_term_usd: money(st),
    realized_long_term_usd: money(lt),
    estimated_tax_usd: money(st.times(shortRate).plus(lt.times(longRate))),
  };
}

/**
 * A withdrawal raised by the lot engine (no target or no risk model): the least-tax lots that raise
 * max(0, amount + minimum cash - cash), with the configuration's minimum trade, whole shares, no-trade list and
 * wash-sale preferences; then the stored proposal that sells exactly them (every other position kept: its weight
 * is its value over the investable value NAV - buffers - withdrawal).
 * @throws {ValidationError} when the sellable lots cannot raise the cash (no-trade assets).
 */
export async function withdrawWithLotEngine(
  ctx: ServiceContext,
  org: string,
  clientUuid: string,
  account: AccountRecord,
  asOf: string,
  v: AccountValue,
  cash: CashAmount,
  reason: string,
): Promise<AccountRebalance> {
  const c = v.config.read;
  const tp = c.tax_preferences;
  const need = cashNeeded(v, cash);
  const sold = new Map<string, Decimal>();
  const lotChoices: Record<string, { lotId: string; quantity: string }[]> = {};
  if (need.gt(0)) {
    // The proposal's minimum order: 1 USD, min_trade_amount_usd, min_trade_pct % of NAV (to the cent, up).
    let minTrade = new TaxDecimal(1);
    if (c.min_trade_amount_usd !== null) minTrade = TaxDecimal.max(minTrade, c.min_trade_amount_usd);
    if (c.min_trade_pct !== null)
      minTrade = TaxDecimal.max(
        minTrade,
        v.navUsd.times(c.min_trade_pct).dividedBy(100).toDecimalPlaces(2, TaxDecimal.ROUND_CEIL),
      );
    const washDays = tp.wash_sale_threshold ?? WASH_SALE_THRESHOLD_DAYS;
    const washed = await recentlyBought(ctx, org, account, asOf, washDays, v.lots);
    const noTrade = new Set(v.config.noTrade);
    const assets = new Map<string, RaiseCashAsset>();
    for (const [id, a] of v.assets)
      assets.set(id, {
        proceedsPerShareUsd: a.proceedsPerShareUsd,
        wholeShares: a.whole,
        frozen: noTrade.has(id),
        lossWashed: washed.has(id),
      });
    const r = raiseCash({
      asOf,
      amountUsd: need,
      lots: v.lots,
      assets,
      rates: {
        shortTerm: new TaxDecimal(tp.short_term_rate ?? DEFAULT_TAX_PREFERENCES.shortTermRate),
        longTerm: new TaxDecimal(tp.long_term_rate ?? DEFAULT_TAX_PREFERENCES.longTermRate),
      },
      minTradeUsd: minTrade,
      rules: { longTermThresholdDays: tp.long_term_threshold ?? LONG_TERM_THRESHOLD_DAYS },
      keepWashedLosses: tp.prevent_tlh_invalidating_sale === true,
    });
    if (r.shortfallUsd.gt(0))
      throw new ValidationError(
        `The account's sellable lots raise at most ${usd(r.raisedUsd)} of the ${usd(need)} USD the withdrawal needs (no-trade assets and protected losses are not sold).`,
        [{ path: cash.path, message: `the sellable lots raise at most ${usd(r.raisedUsd)} USD` }],
      );
    for (const p of r.picks) {
      sold.set(p.themeAssetId, (sold.get(p.themeAssetId) ?? ZERO).plus(p.quantity));
      const list = lotChoices[p.themeAssetId] ?? [];
      list.push({ lotId: p.lotId, quantity: p.quantity.toFixed() });
      lotChoices[p.themeAssetId] = list;
    }
  }
  const investable = v.navUsd.minus(v.minimumCashUsd).minus(cash.amountUsd);
  const weights = [...v.assets].map(([id, a]) => ({
    ticker: id,
    weight: a.quantity
      .minus(sold.get(id) ?? ZERO)
      .times(a.priceUsd)
      .dividedBy(investable)
      .toDecimalPlaces(10, TaxDecimal.ROUND_DOWN)
      .toFixed(),
  }));
  if (weights.length === 0)
    return accountRebalanceSchema.parse({
      optimization: null,
      proposal: null,
      message: "The account holds no position and its cash covers the withdrawal: no trade is needed.",
      cash_request: cashRequestReport(v, cash, "lot_engine", reason, null, v.cashUsd),
    });
  const body = parseOrThrow(proposalRequestSchema, { optimized_weights: weights });
  const made = await createProposalJson(ctx, org, clientUuid, account.uuid, body, {
    asOf,
    lotChoices,
    withdrawalUsd: cash.amountUsd.toFixed(),
  });
  return accountRebalanceSchema.parse({
    optimization: null,
    proposal: made.response,
    message: null,
    cash_request: cashRequestReport(v, cash, "lot_engine", reason, made.response, made.cashAfterUsd),
  });
}

/**
 * Assets bought within the wash-sale window before `asOf` by the client's other accounts, or by this account in a
 * second lot (a lot's own purchase does not wash its loss): selling their loss lots now would have the loss
 * disallowed.
 */
async function recentlyBought(
  ctx: ServiceContext,
  org: string,
  account: AccountRecord,
  asOf: string,
  days: number,
  lots: readonly TaxLot[],
): Promise<Set<string>> {
  const from = addDays(asOf, -days);
  const recent = (l: TaxLot) => l.tradeDate >= from && l.tradeDate <= asOf;
  const out = new Set<string>();
  const byAsset = new Map<string, TaxLot[]>();
  for (const l of lots) byAsset.set(l.themeAssetId, [...(byAsset.get(l.themeAssetId) ?? []), l]);
  for (const [id, list] of byAsset) if (list.length > 1 && list.some(recent)) out.add(id);
  for (const other of await ctx.store.accounts.listByClient(org, account.clientUuid)) {
    if (other.uuid === account.uuid) continue;
    for (const l of await accountLots(ctx, other.uuid)) if (recent(l)) out.add(l.themeAssetId);
  }
  return out;
}
