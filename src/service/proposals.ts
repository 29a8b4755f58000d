/**
 * @module service/proposals
 * Endpoint 1 (create a rebalance proposal) and its read extension. The request's tickers are resolved against the
 * security master, the account's effective configuration is applied on the market's as-of date, the pure proposal
 * builder (src/core/proposal) computes the orders, and the proposal is stored — all in one transaction, so a proposal
 * is never half-stored.
 */

import { randomUUID } from "node:crypto";
import type { Decimal } from "decimal.js";
import {
  type FxCostBreakdown,
  formatDecimal,
  type ProposalOrder,
  type ProposalRequest,
  type ProposalResponse,
} from "../contract/index.js";
import type { Currency, Security } from "../core/data/types.js";
import { type FieldIssue, MissingPriceError, ValidationError } from "../core/errors.js";
import { buildProposal, type ProposalResult, type ProposalSecurity } from "../core/proposal/index.js";
import { TaxDecimal, type TaxLot } from "../core/tax/index.js";
import type { LotwiseStore } from "../store/index.js";
import { shortLotFromRecord } from "../store/ledger-mapper.js";
import { marketAsOf, nowIso, type ServiceContext, serviceLimit } from "./context.js";
import { effectiveConfig } from "./effective-config.js";
import { ledgerHoldingsAsOf } from "./holdings-history.js";
import { realizedYearToDate } from "./ledger-ytd.js";
import { lotRowToTaxLot } from "./lots.js";
import { resolveTickersAtOnce } from "./tickers.js";

const d = (v: Decimal | null | undefined, i: number, f: number, field: string): string | null =>
  v === null || v === undefined ? null : formatDecimal(v, i, f, field);
const req = (v: Decimal, i: number, f: number, field: string): string => formatDecimal(v, i, f, field);

/**
 * {@link formatDecimal} of a field of `orders[order]` (of its `tax_lots[lot]` when `lot` >= 0), naming the field
 * only when formatting fails: the path is built for the error alone (formatting again with it throws the same
 * error, named), not for each of the response's thousands of decimals.
 */
function orderDecimal(v: Decimal, i: number, f: number, order: number, name: string, lot = -1): string {
  try {
    return formatDecimal(v, i, f);
  } catch {
    return formatDecimal(v, i, f, `orders[${order}].${lot >= 0 ? `tax_lots[${lot}].` : ""}${name}`);
  }
}
const orderDecimalOrNull = (
  v: Decimal | null | undefined,
  i: number,
  f: number,
  order: number,
  name: string,
): string | null => (v === null || v === undefined ? null : orderDecimal(v, i, f, order, name));

/**
 * Converted lots of the accounts proposed for most recently, per store: account uuid -> the account's lots token
 * (`accounts.lotsToken`, replaced by the store whenever one of its lots changes), the lots converted at that
 * token, and the memo of the read (stored row content -> frozen tax-engine lot). An unchanged token gives the same
 * lots without reading the rows; otherwise the rows are read and only changed or added rows are converted again (a
 * lot is a pure function of its row and account). At most {@link LOT_MEMO_ACCOUNTS} accounts are kept, least
 * recently used out first.
 */
interface LotMemo {
  token: string | null;
  lots: readonly TaxLot[];
  rows: ReadonlyMap<string, TaxLot>;
}
const lotMemos = new WeakMap<LotwiseStore, Map<string, LotMemo>>();
const LOT_MEMO_ACCOUNTS = 8;

/**
 * An account's stored lots as tax-engine lots (the trusted bulk read: they were validated when written), reusing
 * the lots of an unchanged account, or of rows unchanged since the last read. The lots are frozen: shared across
 * requests, they must never be modified (the tax engine never does; it returns new lots). The array is the
 * caller's own.
 */
export async function accountLots(ctx: ServiceContext, accountUuid: string): Promise<TaxLot[]> {
  let memos = lotMemos.get(ctx.store);
  if (memos === undefined) {
    memos = new Map();
    lotMemos.set(ctx.store, memos);
  }
  const token = await ctx.store.accounts.lotsToken(accountUuid);
  const previous = memos.get(accountUuid);
  memos.delete(accountUuid);
  if (previous !== undefined && token !== null && previous.token === token) {
    memos.set(accountUuid, previous);
    return previous.lots.slice();
  }
  const shared = new Map<string, Decimal>();
  const { values, memo } = await ctx.store.accounts.lotValues(
    accountUuid,
    (row) => Object.freeze(lotRowToTaxLot(row, accountUuid, shared)),
    previous?.rows,
  );
  memos.set(accountUuid, { token, lots: values.slice(), rows: memo });
  if (memos.size > LOT_MEMO_ACCOUNTS) memos.delete(memos.keys().next().value!);
  return values;
}

/** Options of {@link createProposal}. */
export interface CreateProposalOptions {
  asOf?: string;
  /** theme_asset_id -> the lots its sell consumes (the optimizer's choice; see ProposalInput.lotChoices). */
  lotChoices?: Readonly<Record<string, readonly { lotId: string; quantity: string }[]>>;
  /** A cash request's deposit (USD decimal): the proposal assumes it was added to the account's cash (not stored). */
  depositUsd?: string;
  /** A cash request's withdrawal (USD decimal): reserved like a cash buffer (see ProposalInput.withdrawalUsd). */
  withdrawalUsd?: string;
  /**
   * Security rows and last closes on `asOf` the caller already read (the optimizer's, for the same date): used when
   * they cover every asset of the proposal, instead of reading them again.
   */
  quotes?: ProposalQuotes | undefined;
  /**
   * Build on the lots and cash the account held at the close of `asOf` (service/holdings-history.ts) instead of
   * today's: a rebalance dated in the past trades the positions the optimizer saw.
   */
  holdingsAsOf?: boolean;
}

/** See {@link CreateProposalOptions.quotes}. */
export interface ProposalQuotes {
  readonly securities: ReadonlyMap<string, Security>;
  readonly closes: ReadonlyMap<string, { close: number }>;
}

/**
 * Resolve the request's tickers; every unknown, ambiguous or duplicated one is reported by path. Also returns the
 * resolved listings by theme_asset_id (the proposal needs them again).
 */
async function resolveTargets(ctx: ServiceContext, body: ProposalRequest) {
  const issues: FieldIssue[] = [];
  const out: { themeAssetId: string; weight: string }[] = [];
  const listings = new Map<string, Security>();
  const seen = new Map<string, number>();
  const resolved = await resolveTickersAtOnce(
    ctx.store,
    body.optimized_weights.map((w) => w.ticker),
  );
  body.optimized_weights.forEach((w, i) => {
    const r = resolved[i]!;
    if (!r.ok) {
      issues.push({ path: `optimized_weights[${i}].ticker`, message: r.message });
      return;
    }
    const id = r.security.themeAssetId;
    const first = seen.get(id);
    if (first !== undefined) {
      issues.push({
        path: `optimized_weights[${i}].ticker`,
        message: `${w.ticker} is ${id}, already given at optimized_weights[${first}]`,
      });
      return;
    }
    seen.set(id, i);
    listings.set(id, r.security);
    out.push({ themeAssetId: id, weight: w.weight });
  });
  if (issues.length > 0)
    throw new ValidationError(
      `The proposal request names ${issues.length} ticker(s) that cannot be used: ${issues.map((x) => x.message).join("; ")}`,
      issues,
      "invalid_tickers",
    );
  return { targets: out, listings };
}

/**
 * Endpoint 1 (arguments: ctx, org, clientUuid, accountUuid, body, options). Priced at the market's as-of date, or at `options.asOf` (the optimizer service's rebalance prices
 * the proposal at its optimization's date, and sells the lots the optimizer chose: `options.lotChoices`).
 * @throws {NotFoundError} for an account not of this client/organization. @throws {ValidationError}
 */
export async function createProposal(
  ...args: Parameters<typeof createProposalJson>
): Promise<ProposalResponse> {
  return (await createProposalJson(...args)).response;
}

/**
 * {@link createProposal} that also returns the response as the JSON text it stored (`JSON.stringify` of
 * `response`): the HTTP route replies with that text instead of serializing a response of hundreds of KiB again.
 */
export async function createProposalJson(
  ctx: ServiceContext,
  org: string,
  clientUuid: string,
  accountUuid: string,
  body: ProposalRequest,
  options: CreateProposalOptions = {},
): Promise<{ response: ProposalResponse; json: string; cashAfterUsd: Decimal }> {
  return ctx.store.transaction(async (tx) => {
    const account = await tx.accounts.require(org, clientUuid, accountUuid);
    const { targets, listings } = await resolveTargets(ctx, body);
    const asOf = options.asOf ?? (await marketAsOf(ctx));
    const created = nowIso(ctx);
    const household = await tx.accounts.listByClient(org, clientUuid);
    const history = options.holdingsAsOf ? await ledgerHoldingsAsOf(ctx, account, asOf) : undefined;
    const lots: TaxLot[] = history?.lots ?? (await accountLots(ctx, account.uuid));
    const cashToday = history?.cashUsd.toFixed() ?? account.cashValueUsd;
    // Open short lots (LONG_SHORT / LONG_BIASED accounts): a target toward zero covers them (short_cover).
    const shortLots = (
      history?.shortLots ?? (await tx.ledger.shortLots(account.uuid)).map(shortLotFromRecord)
    )
      .filter((l) => l.openDate <= asOf)
      .map((l) => ({
        id: l.id,
        themeAssetId: l.themeAssetId,
        quantity: l.quantity,
        proceeds: l.proceeds,
        fxRate: l.fxRate,
        openDate: l.openDate,
      }));
    const householdLots: TaxLot[] = [];
    for (const a of household)
      if (a.uuid !== account.uuid) householdLots.push(...(await accountLots(ctx, a.uuid)));
    const eff = await effectiveConfig(ctx, account, asOf, { at: created });
    const c = eff.read;
    const ids = [
      ...new Set([
        ...lots.map((l) => l.themeAssetId),
        ...shortLots.map((l) => l.themeAssetId),
        ...targets.map((t) => t.themeAssetId),
      ]),
    ];
    const q = options.quotes;
    const known = q !== undefined && ids.every((id) => q.closes.has(id) && q.securities.has(id));
    const prices: ReadonlyMap<string, { close: number }> = known
      ? q.closes
      : await tx.market.latestPrices(ids, asOf);
    const wholeAll =
      c.require_whole_shares && (c.whole_share_assets === null || c.whole_share_assets.length === 0);
    const wholeSet = new Set(c.require_whole_shares ? (c.whole_share_assets ?? []) : []);
    const securities: Record<string, ProposalSecurity> = {};
    const priceMap: Record<string, string> = {};
    const fx: Partial<Record<Currency, string>> = {};
    // The targeted listings were resolved above (same transaction); only held-but-untargeted ones are read.
    const master = known
      ? new Map(ids.map((id) => [id, q.securities.get(id)!]))
      : await tx.market.securitiesByIds(ids.filter((id) => !listings.has(id)));
    for (const [id, s] of listings) master.set(id, s);
    for (const id of ids) {
      const s = master.get(id);
      if (!s)
        throw new ValidationError(`The account holds ${id}, which is not in the security master.`, [
          { path: "holdings", message: `unknown ${id}` },
        ]);
      securities[id] = {
        symbol: s.symbol,
        currency: s.currency,
        wholeSharesOnly: wholeAll || wholeSet.has(id),
      };
      const p = prices.get(id);
      if (!p) throw new MissingPriceError(id, asOf);
      priceMap[id] = String(p.close);
      if (s.currency !== "USD" && fx[s.currency] === undefined) {
        const r = await tx.market.fxRateAsOf(s.currency, asOf);
        if (r) fx[s.currency] = String(r.perUsd);
      }
    }
    if (c.cash_buffer_cad_amount !== null || (c.cash_buffer_cad !== null && Number(c.cash_buffer_cad) > 0)) {
      const r = await tx.market.fxRateAsOf("CAD", asOf);
      if (r) fx.CAD = String(r.perUsd);
    }
    const tp = c.tax_preferences;
    const result = onWirePaths(() =>
      buildProposal({
        asOf,
        lots,
        ...(shortLots.length > 0 ? { shortLots } : {}),
        cashUsd:
          options.depositUsd === undefined
            ? cashToday
            : new TaxDecimal(cashToday).plus(options.depositUsd).toFixed(),
        ...(options.withdrawalUsd === undefined ? {} : { withdrawalUsd: options.withdrawalUsd }),
        securities,
        prices: priceMap,
        fxRates: fx,
        targets,
        householdLots,
        ...(options.lotChoices === undefined ? {} : { lotChoices: options.lotChoices }),
        config: {
          optimizationMode: c.optimization_mode,
          longWeightSum: c.long_weight_sum,
          shortWeightSum: c.short_weight_sum,
          cashBufferUsd: c.cash_buffer_usd,
          cashBufferCad: c.cash_buffer_cad,
          cashBufferUsdAmount: c.cash_buffer_usd_amount,
          cashBufferCadAmount: c.cash_buffer_cad_amount,
          requireWholeShares: c.require_whole_shares,
          wholeShareAssets: c.whole_share_assets,
          noTradeTickers: eff.noTrade,
          noHoldTickers: eff.noHold,
          taxPreferences: {
            longTermThreshold: tp.long_term_threshold,
            washSaleThreshold: tp.wash_sale_threshold,
            preventTlhInvalidatingPurchase: tp.prevent_tlh_invalidating_purchase,
            preventTlhInvalidatingSale: tp.prevent_tlh_invalidating_sale,
          },
          capitalGainsReductions: c.capital_gains_reductions,
          capitalGainsReductionsUnits: c.capital_gains_reductions_units as "DOLLARS" | "PERCENT",
          minTradeUsd: c.min_trade_amount_usd,
          minTradePct: c.min_trade_pct,
        },
      }),
    );
    const response = toWire(randomUUID(), result, asOf, created, eff.warnings);
    const ytd = await realizedYearToDate(tx, account.uuid, asOf);
    if (!ytd.net.isZero() || response.realized !== undefined) {
      const trade = response.realized
        ? new TaxDecimal(response.realized.short_term_usd).plus(response.realized.long_term_usd)
        : new TaxDecimal(0);
      response.year_to_date_realized = {
        year: ytd.year,
        realized_before_usd: formatDecimal(ytd.net, 30, 10, "year_to_date_realized.realized_before_usd"),
        realized_after_usd: formatDecimal(
          ytd.net.plus(trade),
          30,
          10,
          "year_to_date_realized.realized_after_usd",
        ),
      };
    }
    const json = JSON.stringify(response);
    await tx.proposals.insertSerialized(org, account.uuid, response.proposal_uuid, body, json);
    // Retention, in the same transaction as the write: the account keeps at most N proposals (and, when set, none
    // older than D days), so a client creating proposals in a loop cannot grow the store without bound.
    const keep = serviceLimit(ctx, "proposalsKeptPerAccount");
    const maxAgeDays = serviceLimit(ctx, "proposalMaxAgeDays");
    if (keep > 0 || maxAgeDays > 0)
      await tx.proposals.prune(org, account.uuid, {
        ...(keep > 0 ? { keep } : {}),
        ...(maxAgeDays > 0 ? { maxAgeDays } : {}),
        spare: response.proposal_uuid,
      });
    return { response, json, cashAfterUsd: result.postTrade.cashUsd };
  });
}

/**
 * Run the builder and express its validation issues in request terms: the builder's `targets[i]` is the request's
 * `optimized_weights[i]` (resolution keeps the order and fails before the builder on any bad ticker).
 */
function onWirePaths<T>(build: () => T): T {
  try {
    return build();
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    const issues = err.issues.map((i) => ({
      ...i,
      path: requestPath(i.path),
      message: i.message.replace(/\btargets\[(\d+)\]/g, "optimized_weights[$1]"),
    }));
    throw new ValidationError(
      `The proposal request cannot be built: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
      issues,
      err.code,
    );
  }
}

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * A builder issue path in request terms: `targets[i].themeAssetId` -> `optimized_weights[i].ticker`, `targets` (a
 * weight-sum issue) -> `optimized_weights`, `lots[i].tradeDate` -> `holdings.tax_lots[i].trade_date` (`.currency` ->
 * `.cost_basis_currency`, the lot's wire field), `cashUsd` ->
 * `holdings.cash_value_usd`, `config.noHoldTickers` -> `portfolio_config.no_hold_tickers` (the account's effective
 * configuration); other paths (prices, fx rates, securities: market data) keep their keys in snake case.
 */
export function requestPath(path: string): string {
  let m = /^targets(?:\[(\d+)\](?:\.(\w+))?)?(.*)$/.exec(path);
  if (m) {
    const field = m[2] === undefined ? "" : m[2] === "themeAssetId" ? ".ticker" : `.${snake(m[2])}`;
    return `optimized_weights${m[1] === undefined ? "" : `[${m[1]}]`}${field}${m[3]}`;
  }
  m = /^lots\[(\d+)\](.*)$/.exec(path);
  if (m) return `holdings.tax_lots[${m[1]}]${m[2] === ".currency" ? ".cost_basis_currency" : snake(m[2]!)}`;
  if (path === "cashUsd") return "holdings.cash_value_usd";
  m = /^config\.(\w+)(.*)$/.exec(path);
  if (m) return `portfolio_config.${snake(m[1]!)}${m[2]}`;
  return path.replace(/^(options|fxRates|prices|securities|shortLots|lotChoices)\b/, (k) => snake(k));
}

/** Read extension: a stored proposal. @throws {NotFoundError} */
export async function getProposal(
  ctx: ServiceContext,
  org: string,
  clientUuid: string,
  accountUuid: string,
  proposalUuid: string,
): Promise<ProposalResponse> {
  await ctx.store.accounts.require(org, clientUuid, accountUuid);
  return (await ctx.store.proposals.require(org, accountUuid, proposalUuid)).response as ProposalResponse;
}

/** The builder's result in the wire shape (decimals rounded to the spec's limits, refusing overflow). */
export function toWire(
  uuid: string,
  r: ProposalResult,
  asOf: string,
  created: string,
  configWarnings: readonly string[] = [],
): ProposalResponse {
  const orders: ProposalOrder[] = r.orders.map((o, i) => {
    const fb = o.fxCostBreakdown;
    const fx: FxCostBreakdown | null = fb
      ? {
          base_amount_usd: orderDecimal(fb.baseAmountUsd, 10, 10, i, "fx_cost_breakdown.base_amount_usd"),
          fx_rate: orderDecimal(fb.fxRate, 10, 10, i, "fx_cost_breakdown.fx_rate"),
          fx_fee_percentage: orderDecimal(fb.feePercentage, 10, 10, i, "fx_cost_breakdown.fx_fee_percentage"),
          fx_fee_amount_usd: orderDecimal(fb.feeAmountUsd, 10, 10, i, "fx_cost_breakdown.fx_fee_amount_usd"),
          net_amount_usd: orderDecimal(fb.netAmountUsd, 10, 10, i, "fx_cost_breakdown.net_amount_usd"),
          currency: fb.currency,
        }
      : null;
    return {
      ticker: o.themeAssetId,
      ticker_symbol: o.symbol,
      currency: o.currency,
      amount: orderDecimal(o.amount, 10, 10, i, "amount"),
      amount_usd: o.currency === "USD" ? null : orderDecimalOrNull(o.amountUsd, 10, 10, i, "amount_usd"),
      type: o.type,
      order_category: o.category,
      reason: o.reason,
      existing_quantity: orderDecimalOrNull(o.existingQuantity, 10, 10, i, "existing_quantity"),
      existing_weight: orderDecimalOrNull(o.existingWeight, 10, 10, i, "existing_weight"),
      existing_market_value: orderDecimalOrNull(o.existingMarketValueUsd, 10, 10, i, "existing_market_value"),
      target_weight: orderDecimalOrNull(o.targetWeight, 10, 10, i, "target_weight"),
      tax_lots:
        o.taxLots?.map((l, j) => ({
          cost_basis: orderDecimal(l.costBasisUsd, 30, 10, i, "cost_basis", j),
          quantity: orderDecimal(l.quantity, 10, 10, i, "quantity", j),
          trade_date: l.tradeDate,
          gain: orderDecimal(l.gainUsd, 30, 10, i, "gain", j),
          lot_id: l.lotId,
        })) ?? null,
      fx_cost_breakdown: fx,
    };
  });
  const money = (v: Decimal, f: string) => req(v, 30, 10, f);
  return {
    proposal_uuid: uuid,
    cash_buffer_cad_amount: d(r.cashBufferCadAmount, 12, 8, "cash_buffer_cad_amount"),
    cash_buffer_usd_amount: d(r.cashBufferUsdAmount, 12, 8, "cash_buffer_usd_amount"),
    orders,
    as_of_date: asOf,
    nav_usd: req(r.navUsd, 12, 8, "nav_usd"),
    investable_usd: req(r.investableUsd, 12, 8, "investable_usd"),
    realized: {
      short_term_usd: money(r.realized.shortTermUsd, "realized.short_term_usd"),
      long_term_usd: money(r.realized.longTermUsd, "realized.long_term_usd"),
      disallowed_loss_usd: money(r.realized.disallowedLossUsd, "realized.disallowed_loss_usd"),
      capital_gains_reduction_usd: money(
        r.realized.capitalGainsReductionUsd,
        "realized.capital_gains_reduction_usd",
      ),
      taxable_short_term_usd: money(r.realized.taxableShortTermUsd, "realized.taxable_short_term_usd"),
      taxable_long_term_usd: money(r.realized.taxableLongTermUsd, "realized.taxable_long_term_usd"),
    },
    fx_fees_usd: req(r.fxFeesUsd, 10, 10, "fx_fees_usd"),
    dropped_orders: r.dropped.map((x, i) => ({
      ticker: x.themeAssetId,
      side: x.side,
      order_category: x.category,
      reason: x.reason,
      wanted_amount_usd: req(x.wantedAmountUsd, 10, 10, `dropped_orders[${i}].wanted_amount_usd`),
      message: x.message,
    })),
    warnings: [
      ...r.warnings.map((w) => ({ code: w.code, ticker: w.themeAssetId, message: w.message })),
      ...configWarnings.map((m) => ({ code: "configuration", ticker: null, message: m })),
    ],
    created,
  };
}
