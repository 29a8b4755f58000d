/**
 * @module service/holdings-history
 * An account's holdings as of a past date, rebuilt from the ledger (docs/ledger.md, section 10): today's lots and
 * cash, with every execution and corporate action after the date undone, newest first, then the lots whose trade
 * date is after the date left out and the market's splits after the date (those no applied action accounts for)
 * divided back. `holdingsAt` (and so the optimizer, drift, evaluation and backtests) and the proposals of a dated
 * rebalance use it.
 */
import type { Decimal } from "decimal.js";
import type { HoldingsAsOf } from "../contract/corporate-action.js";
import type { Currency } from "../core/data/types.js";
import { addDays } from "../core/dates.js";
import type { LedgerEntry, ShortLot } from "../core/ledger/index.js";
import { TaxDecimal, type TaxLot } from "../core/tax/index.js";
import type { AccountRecord, CorporateActionRecord, ExecutionRecord } from "../store/index.js";
import { entryFromRecord, shortLotFromRecord } from "../store/ledger-mapper.js";
import { findAccount } from "./clients.js";
import { marketAsOf, type ServiceContext } from "./context.js";
import { lotRecordToTaxLot } from "./lots.js";
import { shortLotRead } from "./short-lot-read.js";

/** What {@link ledgerHoldingsAsOf} returns. */
export interface LedgerHoldings {
  date: string;
  /** Long lots held at the close of `date`, in stored order (restored lots after them). */
  lots: TaxLot[];
  shortLots: ShortLot[];
  cashUsd: Decimal;
  undone: { executions: string[]; corporateActions: string[]; marketSplits: string[]; lotsDropped: string[] };
  warnings: string[];
}

const dec = (v: string | number) => new TaxDecimal(v);

function ratioOf(params: Record<string, unknown>, key: string): Decimal {
  const r = params[key] as string | number | { numerator: string | number; denominator: string | number };
  return typeof r === "object" && r !== null ? dec(r.numerator).dividedBy(r.denominator) : dec(r);
}

type Event =
  | { kind: "execution"; date: string; order: number; e: ExecutionRecord }
  | { kind: "action"; date: string; order: number; a: CorporateActionRecord };

/**
 * The account's lots, short lots and cash at the close of `date`, from the ledger. Quantities are exact for
 * everything the ledger recorded; see docs/ledger.md, section 10, for what cannot be undone (a stock merger into a
 * listing the account already held, and the basis a later wash sale added to a lot held on the date).
 */
export async function ledgerHoldingsAsOf(
  ctx: ServiceContext,
  account: AccountRecord,
  date: string,
): Promise<LedgerHoldings> {
  let lots: TaxLot[] = (await ctx.store.accounts.lots(account.uuid)).map(lotRecordToTaxLot);
  let shorts: ShortLot[] = (await ctx.store.ledger.shortLots(account.uuid)).map(shortLotFromRecord);
  let cash = dec(account.cashValueUsd);
  const undone: LedgerHoldings["undone"] = {
    executions: [],
    corporateActions: [],
    marketSplits: [],
    lotsDropped: [],
  };
  const warnings: string[] = [];
  const after = addDays(date, 1);

  const executions = await ctx.store.ledger.executions(account.uuid, { from: after });
  const applied = new Set((await ctx.store.ledger.appliedActions(account.uuid)).map((a) => a.actionId));
  const actions =
    applied.size === 0
      ? []
      : (await ctx.store.ledger.corporateActions({ from: after })).filter((a) => applied.has(a.id));
  const realized =
    executions.length + actions.length === 0
      ? []
      : (
          await ctx.store.ledger.realized({ accountUuid: account.uuid }, { from: after, to: "9999-12-31" })
        ).map(entryFromRecord);
  const bySource = new Map<string, LedgerEntry[]>();
  for (const e of realized) {
    const list = bySource.get(e.sourceId) ?? [];
    list.push(e);
    bySource.set(e.sourceId, list);
  }

  // Newest first; on one date the actions (effective at the open) are undone after the day's executions.
  const events: Event[] = [
    ...executions.map((e, i): Event => ({ kind: "execution", date: e.tradeDate, order: 1_000_000 + i, e })),
    ...actions.map((a, i): Event => ({ kind: "action", date: a.exDate, order: i, a })),
  ].sort((x, y) => (x.date !== y.date ? (x.date < y.date ? 1 : -1) : y.order - x.order));

  /** Gives back the lot parts (or short parts) an execution or action realized. */
  const restore = (sourceId: string) => {
    for (const entry of bySource.get(sourceId) ?? []) {
      const g = entry.record;
      if (entry.side === "short") {
        const i = shorts.findIndex((s) => s.id === g.lotId);
        if (i >= 0) {
          const s = shorts[i]!;
          shorts[i] = { ...s, quantity: s.quantity.plus(g.quantity), proceeds: s.proceeds.plus(g.proceeds) };
        } else
          shorts.push({
            side: "short",
            id: g.lotId,
            accountId: account.uuid,
            themeAssetId: g.themeAssetId,
            quantity: g.quantity,
            proceeds: g.proceeds,
            currency: g.currency,
            fxRate: g.lotFxRate,
            openDate: entry.openDate ?? g.tradeDate,
          });
        continue;
      }
      const i = lots.findIndex((l) => l.id === g.lotId);
      if (i >= 0) {
        const l = lots[i]!;
        lots[i] = {
          ...l,
          quantity: l.quantity.plus(g.quantity),
          totalCostBasis: l.totalCostBasis.plus(g.costBasis),
        };
      } else
        lots.push({
          id: g.lotId,
          accountId: account.uuid,
          themeAssetId: g.themeAssetId,
          quantity: g.quantity,
          totalCostBasis: g.costBasis,
          currency: g.currency,
          fxRate: g.lotFxRate,
          tradeDate: g.tradeDate,
          holdingPeriodStart: g.holdingPeriodStart,
          washSaleDate: null,
          lastSoldForLossDate: null,
        });
    }
  };

  for (const ev of events) {
    if (ev.kind === "execution") {
      const e = ev.e;
      const q = dec(e.quantity);
      const gross = q.times(e.price);
      const fees = dec(e.fees);
      const fx = dec(e.fxRate);
      const opened = e.lotId ?? e.executionId;
      switch (e.kind) {
        case "buy":
          lots = lots.filter((l) => l.id !== opened);
          cash = cash.plus(gross.plus(fees).dividedBy(fx));
          break;
        case "sell":
          restore(e.executionId);
          cash = cash.minus(gross.minus(fees).dividedBy(fx));
          break;
        case "short_order":
          shorts = shorts.filter((s) => s.id !== opened);
          cash = cash.minus(gross.minus(fees).dividedBy(fx));
          break;
        case "short_cover":
          restore(e.executionId);
          cash = cash.plus(gross.plus(fees).dividedBy(fx));
          break;
      }
      undone.executions.push(e.executionId);
      continue;
    }
    const a = ev.a;
    const p = a.params;
    const asset = a.themeAssetId;
    const before = (l: TaxLot) => l.tradeDate < a.exDate;
    switch (a.kind) {
      case "split": {
        const r = ratioOf(p, "ratio");
        lots = lots.map((l) =>
          l.themeAssetId === asset && before(l) ? { ...l, quantity: l.quantity.dividedBy(r) } : l,
        );
        shorts = shorts.map((s) =>
          s.themeAssetId === asset && s.openDate < a.exDate ? { ...s, quantity: s.quantity.dividedBy(r) } : s,
        );
        break;
      }
      case "spin_off": {
        restore(a.id); // child shares paid as cash in lieu come back to the child lots first
        const suffix = `:${a.id}`;
        const children = lots.filter((l) => l.id.endsWith(suffix) && l.themeAssetId === p.childAssetId);
        lots = lots.filter((l) => !children.includes(l));
        for (const c of children) {
          const parentId = c.id.slice(0, -suffix.length);
          const i = lots.findIndex((l) => l.id === parentId);
          if (i >= 0)
            lots[i] = { ...lots[i]!, totalCostBasis: lots[i]!.totalCostBasis.plus(c.totalCostBasis) };
          else warnings.push(`${a.id}: the parent lot ${parentId} of child lot ${c.id} is no longer held`);
        }
        for (const e of bySource.get(a.id) ?? []) cash = cash.minus(e.record.proceedsUsd);
        break;
      }
      case "symbol_change":
        lots = lots.map((l) =>
          l.themeAssetId === p.newAssetId && before(l) ? { ...l, themeAssetId: asset } : l,
        );
        shorts = shorts.map((s) =>
          s.themeAssetId === p.newAssetId && s.openDate < a.exDate ? { ...s, themeAssetId: asset } : s,
        );
        break;
      case "cash_merger":
        restore(a.id);
        // Long lots were sold for cash (credited), shorts covered at the cash price (debited).
        for (const e of bySource.get(a.id) ?? [])
          cash = e.side === "short" ? cash.plus(e.record.costBasisUsd) : cash.minus(e.record.proceedsUsd);
        break;
      case "cash_dividend": {
        const reinvestId = `${account.uuid}:${a.id}:reinvest`;
        const reinvested = lots.find((l) => l.id === reinvestId);
        if (reinvested) {
          lots = lots.filter((l) => l !== reinvested);
          cash = cash.plus(reinvested.totalCostBasis.dividedBy(reinvested.fxRate));
        }
        let net = dec(0);
        for (const l of lots) if (l.themeAssetId === asset && before(l)) net = net.plus(l.quantity);
        for (const s of shorts)
          if (s.themeAssetId === asset && s.openDate < a.exDate) net = net.minus(s.quantity);
        cash = cash.minus(
          net.times(p.amountPerShare as string).dividedBy((p.fxRate as string | undefined) ?? 1),
        );
        break;
      }
      case "stock_merger":
        warnings.push(
          `${a.id}: a stock merger after ${date} is not undone (the acquirer's lots cannot be told from lots held before it)`,
        );
        break;
    }
    undone.corporateActions.push(a.id);
  }

  // Lots the ledger did not open (imports) but dated after the date were bought after it.
  for (const l of lots) if (l.tradeDate > date) undone.lotsDropped.push(l.id);
  lots = lots.filter((l) => l.tradeDate <= date);
  shorts = shorts.filter((s) => s.openDate <= date);

  // The market's splits after the date bring today's quantities back, except those an undone action covered.
  const ledgerSplits = new Set(
    actions.filter((a) => a.kind === "split").map((a) => `${a.themeAssetId}|${a.exDate}`),
  );
  const held = new Set(lots.map((l) => l.themeAssetId));
  const factors = new Map<string, Decimal>();
  for (const s of await ctx.store.market.splits(after, "9999-12-31")) {
    if (!held.has(s.themeAssetId) || ledgerSplits.has(`${s.themeAssetId}|${s.date}`)) continue;
    factors.set(s.themeAssetId, (factors.get(s.themeAssetId) ?? dec(1)).times(s.ratio));
    undone.marketSplits.push(`${s.themeAssetId}:${s.date}`);
  }
  if (factors.size > 0)
    lots = lots.map((l) => {
      const f = factors.get(l.themeAssetId);
      return f === undefined ? l : { ...l, quantity: l.quantity.dividedBy(f) };
    });
  return { date, lots, shortLots: shorts, cashUsd: cash, undone, warnings };
}

/**
 * Extension `GET .../accounts/{account}/holdings/?as_of=D` and `lotwise accounts holdings --as-of D`: the account's
 * lots, short lots and cash as held at the close of the date (default: the market's latest date).
 * @throws {NotFoundError} `account_not_found`.
 */
export async function accountHoldingsAsOf(
  ctx: ServiceContext,
  org: string,
  accountUuid: string,
  asOf?: string,
): Promise<HoldingsAsOf> {
  const { account } = await findAccount(ctx, org, accountUuid);
  const date = asOf ?? (await marketAsOf(ctx));
  const h = await ledgerHoldingsAsOf(ctx, account, date);
  const t = (d: Decimal) => d.toDecimalPlaces(10).toFixed();
  return {
    account_uuid: account.uuid,
    as_of: date,
    cash_value_usd: t(h.cashUsd),
    tax_lots: h.lots.map((l) => ({
      lot_uuid: l.id,
      theme_asset_id: l.themeAssetId,
      quantity: t(l.quantity),
      total_cost_basis: t(l.totalCostBasis),
      cost_basis_currency: l.currency as Currency,
      fx_rate: t(l.fxRate),
      trade_date: l.tradeDate,
      holding_period_start: l.holdingPeriodStart,
    })),
    short_lots: h.shortLots.map(shortLotRead),
    undone: {
      executions: h.undone.executions,
      corporate_actions: h.undone.corporateActions,
      market_splits: h.undone.marketSplits,
      lots_dropped: h.undone.lotsDropped,
    },
    warnings: h.warnings,
  };
}
