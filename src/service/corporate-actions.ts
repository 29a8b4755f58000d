/**
 * @module service/corporate-actions
 * Corporate actions on held lots (docs/ledger.md, sections 8-9): importing the CSV layout into the store's
 * market-level action table, listing them, and applying the stored actions to accounts, each action once per
 * account, through the core ledger (`applyCorporateAction`) and `store.ledger.applyBatch` (one transaction per
 * account).
 */
import type { Decimal } from "decimal.js";
import type {
  AccountActionReport,
  CorporateActionApplyRequest,
  CorporateActionApplyResult,
  CorporateActionImportQuery,
  CorporateActionImportResult,
  CorporateActionListQuery,
  CorporateActionRead,
} from "../contract/corporate-action.js";
import { addDays } from "../core/dates.js";
import { ValidationError } from "../core/errors.js";
import {
  applyCorporateAction,
  type CorporateAction,
  type LedgerBook,
  type LedgerEntry,
} from "../core/ledger/index.js";
import { TaxDecimal, type TaxLot } from "../core/tax/index.js";
import type { AccountRecord, CorporateActionRecord, LedgerLotInput, TaxLotRecord } from "../store/index.js";
import {
  corporateActionFromRecord,
  entryFromRecord,
  ledgerLotInput,
  realizedInput,
  shortLotFromRecord,
  shortLotInput,
  taxLotFromRecord,
} from "../store/ledger-mapper.js";
import { findAccount } from "./clients.js";
import { marketAsOf, type ServiceContext } from "./context.js";
import { parseCorporateActionsCsv } from "./corporate-actions-csv.js";
import type { LotCsvSource } from "./lots-import.js";
import { mapSerial } from "./serial.js";
import { resolveTickersAtOnce } from "./tickers.js";

/** Largest corporate-actions CSV accepted (the file is read whole). */
export const ACTIONS_CSV_MAX_BYTES = 16 * 1024 * 1024;

/** The account metadata key that turns dividend reinvestment on (`{"reinvest_dividends": true}`). */
export const REINVEST_DIVIDENDS_KEY = "reinvest_dividends";

/** A stored action in the read shape. */
export function actionRead(r: CorporateActionRecord): CorporateActionRead {
  return {
    id: r.id,
    kind: r.kind,
    theme_asset_id: r.themeAssetId,
    ex_date: r.exDate,
    pay_date: r.payDate,
    params: r.params as CorporateActionRead["params"],
  };
}

async function readAll(source: LotCsvSource): Promise<string> {
  if (typeof source === "string") return source;
  if (source instanceof Uint8Array) return Buffer.from(source).toString("utf8");
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of source) {
    const b = typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk);
    size += b.length;
    if (size > ACTIONS_CSV_MAX_BYTES)
      throw new ValidationError(
        `The corporate-actions file is larger than ${ACTIONS_CSV_MAX_BYTES} bytes.`,
        [{ path: "file", message: "too large" }],
        "invalid_actions_file",
      );
    parts.push(b);
  }
  return Buffer.concat(parts).toString("utf8");
}

/**
 * Import a corporate-actions CSV (layout: docs/ledger.md, section 8) into the store: every row checked, listings
 * resolved (symbol or SYMBOL:MIC), then every action upserted by id in one transaction; with `dry_run` nothing is
 * stored. Actions are market-level: shared by the organizations of the store, like prices. Like a market-data
 * import, this is store administration: it is not an operation of the HTTP API (an organization's API key must
 * not write data that every other organization's accounts are adjusted by); `lotwise actions import` runs it on a
 * local store.
 * @throws {ValidationError} `invalid_actions_file` naming the line and column of every bad row or unknown listing.
 */
export async function importCorporateActions(
  ctx: ServiceContext,
  source: LotCsvSource,
  query: CorporateActionImportQuery = {},
): Promise<CorporateActionImportResult> {
  const file = query.file_name ?? "actions.csv";
  const rows = parseCorporateActionsCsv(await readAll(source), file);
  const refs = [
    ...new Set(rows.flatMap((r) => (r.newListing === null ? [r.listing] : [r.listing, r.newListing]))),
  ];
  const resolved = new Map<string, { id: string | null; message: string }>();
  (await resolveTickersAtOnce(ctx.store, refs)).forEach((r, i) => {
    resolved.set(
      refs[i]!,
      r.ok ? { id: r.security.themeAssetId, message: "" } : { id: null, message: r.message },
    );
  });
  const issues: { path: string; message: string }[] = [];
  const records: CorporateActionRecord[] = [];
  for (const r of rows) {
    const parent = resolved.get(r.listing)!;
    if (parent.id === null)
      issues.push({ path: `${file}: line ${r.line}, column "listing"`, message: parent.message });
    let child: string | null = null;
    if (r.newListing !== null) {
      const c = resolved.get(r.newListing)!;
      if (c.id === null)
        issues.push({ path: `${file}: line ${r.line}, column "new_listing"`, message: c.message });
      else if (c.id === parent.id)
        issues.push({
          path: `${file}: line ${r.line}, column "new_listing"`,
          message: "must name another listing",
        });
      child = c.id;
    }
    if (parent.id === null || (r.newListing !== null && child === null)) continue;
    const params: Record<string, unknown> = { ...r.params };
    if (r.kind === "spin_off") params.childAssetId = child;
    if (r.kind === "symbol_change") params.newAssetId = child;
    if (r.kind === "stock_merger") params.acquirerAssetId = child;
    records.push({
      id: r.id,
      kind: r.kind,
      themeAssetId: parent.id,
      exDate: r.exDate,
      payDate: r.payDate,
      params,
    });
  }
  if (issues.length > 0)
    throw new ValidationError(
      `${file}: ${issues.length} problem(s); nothing was imported.`,
      issues,
      "invalid_actions_file",
    );
  if (!query.dry_run) await ctx.store.ledger.addCorporateActions(records);
  const byKind: Record<string, number> = {};
  for (const r of records) byKind[r.kind] = (byKind[r.kind] ?? 0) + 1;
  return {
    file,
    dry_run: Boolean(query.dry_run),
    actions_in_file: records.length,
    by_kind: byKind,
    actions: records.map(actionRead),
  };
}

/** The stored corporate actions by ex-date then id. */
export async function listCorporateActions(
  ctx: ServiceContext,
  _org: string,
  query: CorporateActionListQuery = {},
): Promise<CorporateActionRead[]> {
  return (
    await ctx.store.ledger.corporateActions({
      ...(query.from ? { from: query.from } : {}),
      ...(query.to ? { to: query.to } : {}),
      ...(query.listing ? { listing: query.listing.toUpperCase() } : {}),
    })
  ).map(actionRead);
}

const sameLot = (a: TaxLot, r: TaxLotRecord, b: TaxLot): boolean =>
  a.themeAssetId === r.themeAssetId &&
  a.quantity.eq(b.quantity) &&
  a.totalCostBasis.eq(b.totalCostBasis) &&
  a.tradeDate === b.tradeDate &&
  a.holdingPeriodStart === b.holdingPeriodStart &&
  a.washSaleDate === b.washSaleDate &&
  a.lastSoldForLossDate === b.lastSoldForLossDate &&
  a.fxRate.eq(b.fxRate);

function recordInput(r: TaxLotRecord): LedgerLotInput {
  return {
    uuid: r.uuid,
    themeAssetId: r.themeAssetId,
    quantity: r.quantity,
    costBasis: r.costBasis,
    costBasisUnit: r.costBasisUnit,
    costBasisCurrency: r.costBasisCurrency,
    fxRate: r.fxRate,
    tradeDate: r.tradeDate,
    holdingPeriodStart: r.holdingPeriodStart,
    washSaleDate: r.washSaleDate,
    lastSoldForLossDate: r.lastSoldForLossDate,
  };
}

const wantsReinvest = (a: AccountRecord): boolean => {
  const m = a.metadata as Record<string, unknown> | null;
  return m !== null && typeof m === "object" && !Array.isArray(m) && m[REINVEST_DIVIDENDS_KEY] === true;
};

/**
 * Apply the stored corporate actions dated on or before `through` (default: the market's latest date) to one account
 * or every account of the organization, each action once per account (docs/ledger.md, section 9). An action applies to
 * the account's lots of its listing bought before its date (short lots opened before it); an account holding none
 * is left alone (the action is not recorded for it). Each account is one transaction: its lots, cash, realized rows
 * and applied action ids written together. Cash dividends are credited, or reinvested at the pay-date close when the
 * account's metadata has `reinvest_dividends: true`.
 * @throws {NotFoundError} `account_not_found`; {@link ValidationError} for an action the ledger refuses.
 */
export async function applyStoredCorporateActions(
  ctx: ServiceContext,
  org: string,
  request: CorporateActionApplyRequest = {},
): Promise<CorporateActionApplyResult> {
  const through = request.through ?? (await marketAsOf(ctx));
  const accounts = request.account_uuid
    ? [(await findAccount(ctx, org, request.account_uuid)).account]
    : await ctx.store.accounts.listByOrganization(org);
  const actions = await ctx.store.ledger.corporateActions({ to: through });
  const reports: AccountActionReport[] = [];
  await mapSerial(accounts, async (account) => {
    const report = await applyToAccount(ctx, account, actions, Boolean(request.dry_run));
    if (report) reports.push(report);
  });
  return { through, dry_run: Boolean(request.dry_run), accounts_checked: accounts.length, accounts: reports };
}

async function applyToAccount(
  ctx: ServiceContext,
  account: AccountRecord,
  actions: readonly CorporateActionRecord[],
  dryRun: boolean,
): Promise<AccountActionReport | null> {
  const applied = new Set((await ctx.store.ledger.appliedActions(account.uuid)).map((a) => a.actionId));
  const pending = actions.filter((a) => !applied.has(a.id));
  if (pending.length === 0) return null;
  const records = await ctx.store.accounts.lots(account.uuid);
  const original = new Map(records.map((r) => [r.uuid, { record: r, lot: taxLotFromRecord(r) }]));
  const shorts = (await ctx.store.ledger.shortLots(account.uuid)).map(shortLotFromRecord);
  const realizedFrom = addDays(pending[0]!.exDate, -31);
  const recent = (
    await ctx.store.ledger.realized({ accountUuid: account.uuid }, { from: realizedFrom, to: "9999-12-31" })
  ).map(entryFromRecord);
  let book: LedgerBook = {
    accountId: account.uuid,
    cashUsd: new TaxDecimal(account.cashValueUsd),
    lots: [...original.values()].map((o) => o.lot),
    shortLots: shorts,
    realized: recent,
    appliedActionIds: [...applied],
  };
  const reinvest = wantsReinvest(account);
  const done: CorporateActionRecord[] = [];
  const entries = new Map<string, LedgerEntry>();
  const notes: string[] = [];
  for (const record of pending) {
    const asset = record.themeAssetId;
    // Lots bought on or after the action's date are shares after it: the action does not touch them.
    const eligible = (l: TaxLot) => l.themeAssetId !== asset || l.tradeDate < record.exDate;
    const inLots = book.lots.filter(eligible);
    const later = book.lots.filter((l) => !eligible(l));
    const inShorts = (book.shortLots ?? []).filter(
      (s) => s.themeAssetId !== asset || s.openDate < record.exDate,
    );
    const laterShorts = (book.shortLots ?? []).filter((s) => !inShorts.includes(s));
    const held =
      inLots.some((l) => l.themeAssetId === asset) || inShorts.some((s) => s.themeAssetId === asset);
    if (!held) continue;
    let action = corporateActionFromRecord(record);
    if (action.type === "cash_dividend" && reinvest) {
      const payDate = record.payDate ?? record.exDate;
      const p = (await ctx.store.market.latestPrices([asset], payDate)).get(asset);
      if (p) action = { ...action, reinvest: { price: String(p.close) } };
      else
        notes.push(
          `${record.id}: no close of ${asset} on or before ${payDate}; the dividend was credited to cash`,
        );
    }
    const r = applyCorporateAction({ ...book, lots: inLots, shortLots: inShorts }, action as CorporateAction);
    // Lot ids are unique store-wide: a reinvestment lot is named after the account too.
    const reinvestId = `${record.id}:reinvest`;
    const lots = r.book.lots.map((l) =>
      l.id === reinvestId ? { ...l, id: `${account.uuid}:${reinvestId}` } : l,
    );
    book = { ...r.book, lots: [...lots, ...later], shortLots: [...(r.book.shortLots ?? []), ...laterShorts] };
    for (const e of r.entries) entries.set(e.id, e);
    done.push(record);
  }
  if (done.length === 0) return null;

  const lotsAfter = book.lots.map((l) => {
    const o = original.get(l.id);
    return o !== undefined && sameLot(l, o.record, o.lot) ? recordInput(o.record) : ledgerLotInput(l);
  });
  const cashDelta = book.cashUsd.minus(account.cashValueUsd);
  const realized = [...entries.values()];
  if (!dryRun)
    await ctx.store.ledger.applyBatch(account.uuid, {
      executions: [],
      realized: realized.map((e) => realizedInput(e)),
      lotsAfter,
      shortLotsAfter: (book.shortLots ?? []).map(shortLotInput),
      cashDelta: cashDelta.toFixed(),
      appliedActionIds: done.map((d) => d.id),
    });

  const after = new Map(book.lots.map((l) => [l.id, l]));
  const lotChanges: AccountActionReport["lots"] = [];
  const text = (d: Decimal) => d.toDecimalPlaces(10).toFixed();
  for (const { lot } of original.values()) {
    const a = after.get(lot.id);
    if (a === undefined)
      lotChanges.push({
        lot_uuid: lot.id,
        change: "removed",
        theme_asset_id: lot.themeAssetId,
        quantity_before: text(lot.quantity),
        quantity_after: null,
        cost_basis_before: text(lot.totalCostBasis),
        cost_basis_after: null,
      });
    else if (
      !a.quantity.eq(lot.quantity) ||
      !a.totalCostBasis.eq(lot.totalCostBasis) ||
      a.themeAssetId !== lot.themeAssetId
    )
      lotChanges.push({
        lot_uuid: lot.id,
        change: "changed",
        theme_asset_id: a.themeAssetId,
        quantity_before: text(lot.quantity),
        quantity_after: text(a.quantity),
        cost_basis_before: text(lot.totalCostBasis),
        cost_basis_after: text(a.totalCostBasis),
      });
  }
  for (const a of book.lots)
    if (!original.has(a.id))
      lotChanges.push({
        lot_uuid: a.id,
        change: "added",
        theme_asset_id: a.themeAssetId,
        quantity_before: null,
        quantity_after: text(a.quantity),
        cost_basis_before: null,
        cost_basis_after: text(a.totalCostBasis),
      });
  const newEntries = realized.filter((e) => done.some((d) => e.sourceId === d.id));
  return {
    account_uuid: account.uuid,
    actions: done.map((d) => ({ id: d.id, kind: d.kind, theme_asset_id: d.themeAssetId, ex_date: d.exDate })),
    lots: lotChanges,
    cash_delta_usd: text(cashDelta),
    realized_gain_usd: text(
      newEntries.reduce((s, e) => s.plus(e.record.recognizedGainUsd), new TaxDecimal(0)),
    ),
    realized_rows: newEntries.length,
    notes,
  };
}
