/**
 * @module store/ledger-mapper
 * Conversions between the account ledger's core values (src/core/ledger: long lots, short lots, realized entries,
 * executions, corporate actions; decimal.js) and the store's records (exact decimal strings, JSON), plus the lot
 * change plan that `ledger.applyBatch` of both engines uses to write only the lots a batch changed.
 *
 * Round trips are exact: decimals are written as plain decimal text (`toFixed()`, never an exponent) and read back
 * with the tax engine's 64-digit constructor.
 */
import type { Decimal } from "decimal.js";
import type { Currency } from "../core/data/types.js";
import { ConflictError } from "../core/errors.js";
import type {
  CorporateAction,
  Execution,
  ExecutionLot,
  LedgerEntry,
  RealizedRow,
  ShortLot,
} from "../core/ledger/index.js";
import { realizedRows } from "../core/ledger/realized.js";
import { TaxDecimal } from "../core/tax/decimal.js";
import { REALIZED_GAIN_DECIMALS, type RealizedGain, type TaxLot } from "../core/tax/index.js";
import type {
  CorporateActionKind,
  CorporateActionRecord,
  ExecutionInput,
  ExecutionSource,
  LedgerLotChanges,
  LedgerLotInput,
  RealizedLotInput,
  RealizedLotRecord,
  ShortLotInput,
  ShortLotRecord,
  TaxLotRecord,
} from "./records.js";

const text = (d: Decimal): string => d.toFixed();
const dec = (s: string): Decimal => new TaxDecimal(s);

/** A core long lot as the ledger stores it (total basis; a holding-period start equal to the trade date is null). */
export function ledgerLotInput(lot: TaxLot): LedgerLotInput {
  return {
    uuid: lot.id,
    themeAssetId: lot.themeAssetId,
    quantity: text(lot.quantity),
    costBasis: text(lot.totalCostBasis),
    costBasisUnit: "total",
    costBasisCurrency: lot.currency,
    fxRate: text(lot.fxRate),
    tradeDate: lot.tradeDate,
    holdingPeriodStart: lot.holdingPeriodStart === lot.tradeDate ? null : lot.holdingPeriodStart,
    washSaleDate: lot.washSaleDate,
    lastSoldForLossDate: lot.lastSoldForLossDate,
  };
}

/** A stored long lot as a core lot (per-share bases multiplied out), tagged with its account. */
export function taxLotFromRecord(r: TaxLotRecord): TaxLot {
  const quantity = dec(r.quantity);
  const basis = dec(r.costBasis);
  return {
    id: r.uuid,
    accountId: r.accountUuid,
    themeAssetId: r.themeAssetId,
    quantity,
    totalCostBasis: r.costBasisUnit === "per_share" ? basis.times(quantity) : basis,
    currency: r.costBasisCurrency as Currency,
    fxRate: dec(r.fxRate),
    tradeDate: r.tradeDate,
    holdingPeriodStart: r.holdingPeriodStart ?? r.tradeDate,
    washSaleDate: r.washSaleDate,
    lastSoldForLossDate: r.lastSoldForLossDate,
  };
}

export function shortLotInput(lot: ShortLot): ShortLotInput {
  return {
    uuid: lot.id,
    themeAssetId: lot.themeAssetId,
    quantity: text(lot.quantity),
    proceeds: text(lot.proceeds),
    currency: lot.currency,
    fxRate: text(lot.fxRate),
    openDate: lot.openDate,
  };
}

export function shortLotFromRecord(r: ShortLotRecord): ShortLot {
  return {
    side: "short",
    id: r.uuid,
    accountId: r.accountUuid,
    themeAssetId: r.themeAssetId,
    quantity: dec(r.quantity),
    proceeds: dec(r.proceeds),
    currency: r.currency as Currency,
    fxRate: dec(r.fxRate),
    openDate: r.openDate,
  };
}

/** The keys of a RealizedGain in the order core/tax builds it (`realizeLot`); `accountId` is optional. */
const GAIN_KEYS = [
  "lotId",
  "accountId",
  "themeAssetId",
  "quantity",
  "saleDate",
  "tradeDate",
  "holdingPeriodStart",
  "holdingDays",
  "term",
  "currency",
  "price",
  "lotFxRate",
  "saleFxRate",
  "proceeds",
  "costBasis",
  "proceedsUsd",
  "costBasisUsd",
  "gainUsd",
  "disallowedLossUsd",
  "washedQuantity",
  "washSaleMatches",
  "recognizedGainUsd",
] as const;
const GAIN_KEYS_NO_ACCOUNT = GAIN_KEYS.filter((k) => k !== "accountId");

const sameKeys = (o: object, keys: readonly string[]): boolean => {
  const ks = Object.keys(o);
  if (ks.length !== keys.length) return false;
  for (let i = 0; i < ks.length; i++) if (ks[i] !== keys[i]) return false;
  return true;
};

/**
 * Whether an entry can be stored in the lean form: its keys (and its record's) are exactly those, in exactly the
 * order, that {@link entryFromRecord} rebuilds, so the entry read back is the entry written, key order included.
 */
function isCanonicalEntry(entry: LedgerEntry): boolean {
  if (!sameKeys(entry, entry.openDate === undefined ? ENTRY_KEYS : ENTRY_KEYS_OPEN)) return false;
  const g = entry.record;
  return (
    Array.isArray(g.washSaleMatches) &&
    sameKeys(g, g.accountId === undefined ? GAIN_KEYS_NO_ACCOUNT : GAIN_KEYS)
  );
}
const ENTRY_KEYS = ["id", "sourceId", "side", "record"];
const ENTRY_KEYS_OPEN = ["id", "sourceId", "side", "openDate", "record"];

/**
 * The texts of decimals that the rows of one batch share, by Decimal object: a sale's price and FX rate in each of
 * its rows, the shared zero and FX rate 1; each is converted once. Decimals are immutable, so an object's text cannot
 * change. Keep one per batch (it holds its texts until dropped). Not for a row's own decimals: a Map keyed by an
 * object gives it an identity hash, which costs more than converting it once (measured: the rows' conversion took
 * 0.73 of the per-decimal time with every decimal in the memo, 0.42 with only the shared ones).
 */
export class DecimalTexts {
  readonly #fixed = new Map<Decimal, string>();
  readonly #json = new Map<Decimal, string>();

  /** `d.toFixed()`: the columns' plain text. */
  fixed(d: Decimal): string {
    let s = this.#fixed.get(d);
    if (s === undefined) {
      s = d.toFixed();
      this.#fixed.set(d, s);
    }
    return s;
  }

  /** `d.toJSON()`: what JSON.stringify writes for `d` (as a string, so the JSON text is the same). */
  json(d: Decimal): string {
    let s = this.#json.get(d);
    if (s === undefined) {
      s = jsonText(d, this.fixed(d));
      this.#json.set(d, s);
    }
    return s;
  }
}

/**
 * `d.toJSON()` given `fixed` = `d.toFixed()`: the same text (decimal.js: the same digits, without an exponent) unless
 * the exponent is outside the constructor's (toExpNeg, toExpPos) range or `d` is a negative zero (toJSON keeps its
 * sign) or not finite.
 */
function jsonText(d: Decimal, fixed: string): string {
  const Ctor = d.constructor as unknown as { toExpNeg: number; toExpPos: number };
  return d.isFinite() && d.e > Ctor.toExpNeg && d.e < Ctor.toExpPos && !(d.isZero() && d.isNegative())
    ? fixed
    : d.toJSON();
}

/**
 * A realized entry (with its row, computed when not given) as the store's realized row. The JSON `record` holds
 * only what the row's columns do not (the lean form, `{record: {...}}` without an `id`): the entry id, source,
 * side, open date, lot, asset, quantity, dates, term, USD proceeds, USD basis, disallowed loss and recognized gain
 * are the columns' values exactly (the columns are the decimals' full text, not rounded). An entry whose keys are
 * not in the core's order is stored whole, as before (`{id, sourceId, side, openDate?, record}`); both forms read
 * back to the entry written ({@link entryFromRecord}). The lean form halves the JSON text and its decimals'
 * serialization. `texts`: the batch's decimal texts ({@link DecimalTexts}; the lean record holds the decimals as
 * the strings JSON.stringify would write for them, so the stored JSON is the same text).
 */
export function realizedInput(
  entry: LedgerEntry,
  row?: RealizedRow,
  texts: DecimalTexts = new DecimalTexts(),
): RealizedLotInput {
  const r = row ?? realizedRows([entry])[0]!;
  const g = entry.record;
  // The row's own decimals (new objects per row) are converted directly, the USD ones reused for the lot-currency
  // fields when they are the same objects (FX 1); the zero and the sale's price and FX rates go through `texts`.
  const quantity = r.quantity.toFixed();
  const proceedsCol = r.proceeds.toFixed();
  const costBasisCol = r.costBasis.toFixed();
  const gainCol = r.gain.toFixed();
  let record: unknown = entry;
  if (isCanonicalEntry(entry)) {
    // The fields no column holds, in the core's order; decimals as the text JSON.stringify writes for them.
    const proceeds = g.proceeds === r.proceeds ? jsonText(g.proceeds, proceedsCol) : g.proceeds.toJSON();
    const costBasis =
      g.costBasis === r.costBasis ? jsonText(g.costBasis, costBasisCol) : g.costBasis.toJSON();
    const gainUsd = g.gainUsd === r.gain ? jsonText(g.gainUsd, gainCol) : g.gainUsd.toJSON();
    const fields = {
      holdingPeriodStart: g.holdingPeriodStart,
      holdingDays: g.holdingDays,
      currency: g.currency,
      price: texts.json(g.price),
      lotFxRate: texts.json(g.lotFxRate),
      saleFxRate: texts.json(g.saleFxRate),
      proceeds,
      costBasis,
      gainUsd,
      washedQuantity: texts.json(g.washedQuantity),
      washSaleMatches: g.washSaleMatches,
    };
    // accountId first when there is one (the core's key order).
    const lean = g.accountId === undefined ? fields : { accountId: g.accountId, ...fields };
    record = { record: lean };
  }
  return {
    entryId: entry.id,
    sourceId: entry.sourceId,
    lotId: g.lotId,
    themeAssetId: g.themeAssetId,
    side: entry.side,
    quantity,
    dateAcquired: r.dateAcquired,
    dateSold: r.dateSold,
    openDate: entry.openDate ?? null,
    proceeds: proceedsCol,
    costBasis: costBasisCol,
    adjustmentCode: r.adjustmentCode,
    adjustment: texts.fixed(r.adjustment),
    gain: gainCol,
    term: r.term,
    loss: g.gainUsd.isNegative() && !g.gainUsd.isZero(),
    // The store writes JSON.stringify(record): decimals by their toJSON, without copying the entries through JSON
    // twice.
    record,
  };
}

const matchesFrom = (ms: Record<string, unknown>[] | undefined) =>
  (ms ?? []).map((m) => ({
    ...m,
    quantity: dec(m.quantity as string),
    disallowedLossUsd: dec(m.disallowedLossUsd as string),
  }));

/**
 * The core's entry from a stored row (exactly the entry written; `accountId` as written), from either form of
 * `record` ({@link realizedInput}): the lean one takes the columns' values for the fields it leaves out.
 */
export function entryFromRecord(r: RealizedLotRecord): LedgerEntry {
  const raw = r.record as {
    id?: string;
    sourceId: string;
    side: "long" | "short";
    openDate?: string;
    record: Record<string, unknown>;
  };
  if (raw.id === undefined) {
    const l = raw.record;
    const head = { lotId: r.lotId } as Record<string, unknown>;
    if (l.accountId !== undefined) head.accountId = l.accountId;
    const g = {
      ...head,
      themeAssetId: r.themeAssetId,
      quantity: dec(r.quantity),
      saleDate: r.dateSold,
      tradeDate: r.dateAcquired,
      holdingPeriodStart: l.holdingPeriodStart,
      holdingDays: l.holdingDays,
      term: r.term,
      currency: l.currency,
      price: dec(l.price as string),
      lotFxRate: dec(l.lotFxRate as string),
      saleFxRate: dec(l.saleFxRate as string),
      proceeds: dec(l.proceeds as string),
      costBasis: dec(l.costBasis as string),
      proceedsUsd: dec(r.proceeds),
      costBasisUsd: dec(r.costBasis),
      gainUsd: dec(l.gainUsd as string),
      disallowedLossUsd: dec(r.adjustment),
      washedQuantity: dec(l.washedQuantity as string),
      washSaleMatches: matchesFrom(l.washSaleMatches as Record<string, unknown>[] | undefined),
      recognizedGainUsd: dec(r.gain),
    };
    return r.openDate === null
      ? { id: r.entryId, sourceId: r.sourceId, side: r.side, record: g as unknown as RealizedGain }
      : {
          id: r.entryId,
          sourceId: r.sourceId,
          side: r.side,
          openDate: r.openDate,
          record: g as unknown as RealizedGain,
        };
  }
  const g: Record<string, unknown> = { ...raw.record };
  for (const k of REALIZED_GAIN_DECIMALS) if (typeof g[k] === "string") g[k] = dec(g[k] as string);
  g.washSaleMatches = matchesFrom(g.washSaleMatches as Record<string, unknown>[] | undefined);
  return {
    id: raw.id,
    sourceId: raw.sourceId,
    side: raw.side,
    ...(raw.openDate === undefined ? {} : { openDate: raw.openDate }),
    record: g as unknown as RealizedGain,
  };
}

const valueText = (v: Decimal.Value | undefined, fallback: string): string =>
  v === undefined ? fallback : new TaxDecimal(v).toFixed();

/** An execution as the store records it, with where it came from. */
export function executionInput(
  e: Execution,
  origin: { source: ExecutionSource; proposalUuid?: string | null; orderIndex?: number | null },
): ExecutionInput {
  return {
    executionId: e.id,
    source: origin.source,
    proposalUuid: origin.proposalUuid ?? null,
    orderIndex: origin.orderIndex ?? null,
    kind: e.kind,
    themeAssetId: e.themeAssetId,
    tradeDate: e.tradeDate,
    quantity: valueText(e.quantity, "0"),
    price: valueText(e.price, "0"),
    fees: valueText(e.fees, "0"),
    currency: e.currency ?? "USD",
    fxRate: valueText(e.fxRate, "1"),
    lots:
      e.lots === undefined
        ? null
        : e.lots.map((l: ExecutionLot) =>
            l.quantity === undefined
              ? { lotId: l.lotId }
              : { lotId: l.lotId, quantity: valueText(l.quantity, "0") },
          ),
    lotId: e.lotId ?? null,
  };
}

/** Fields of an action stored in columns; the rest goes to `params`. */
const ACTION_COLUMNS = new Set(["id", "type", "themeAssetId", "date", "payDate"]);

/** Plain JSON of a parameter value (decimals as decimal text). */
function plain(v: unknown): unknown {
  if (v !== null && typeof v === "object" && !Array.isArray(v) && "toFixed" in v && "isFinite" in v)
    return (v as Decimal).toFixed();
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

export function corporateActionRecord(a: CorporateAction): CorporateActionRecord {
  const params: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(a)) if (!ACTION_COLUMNS.has(k) && v !== undefined) params[k] = plain(v);
  const payDate = (a as { payDate?: string }).payDate;
  return {
    id: a.id,
    kind: a.type as CorporateActionKind,
    themeAssetId: a.themeAssetId,
    exDate: a.date,
    payDate: payDate ?? null,
    params,
  };
}

/** The core's action (decimal parameters stay decimal strings, which the core accepts). */
export function corporateActionFromRecord(r: CorporateActionRecord): CorporateAction {
  return {
    ...r.params,
    id: r.id,
    type: r.kind,
    themeAssetId: r.themeAssetId,
    date: r.exDate,
    ...(r.payDate === null ? {} : { payDate: r.payDate }),
  } as unknown as CorporateAction;
}

/**
 * One stored lot as compared by the change plan: side, then the tax_lots columns in this order (uuid apart).
 * Nulls stay null.
 */
export type LotColumns = readonly [
  side: "long" | "short",
  themeAssetId: string,
  quantity: string,
  costBasis: string,
  costBasisUnit: string,
  costBasisCurrency: string,
  fxRate: string,
  tradeDate: string,
  holdingPeriodStart: string | null,
  washSaleDate: string | null,
  lastSoldForLossDate: string | null,
];

/** The lots a batch wants, as columns keyed by lot id (long then short, in the order given). */
export function desiredLots(
  longLots: readonly LedgerLotInput[],
  shortLots: readonly ShortLotInput[],
): Map<string, LotColumns> {
  const out = new Map<string, LotColumns>();
  for (const l of longLots)
    out.set(l.uuid, [
      "long",
      l.themeAssetId,
      l.quantity,
      l.costBasis,
      l.costBasisUnit,
      l.costBasisCurrency,
      l.fxRate,
      l.tradeDate,
      l.holdingPeriodStart,
      l.washSaleDate,
      l.lastSoldForLossDate,
    ]);
  for (const s of shortLots)
    out.set(s.uuid, [
      "short",
      s.themeAssetId,
      s.quantity,
      s.proceeds,
      "total",
      s.currency,
      s.fxRate,
      s.openDate,
      null,
      null,
      null,
    ]);
  return out;
}

/** What to do to an account's lots: delete these ids, update these, insert these (after the last position). */
export interface LotChangePlan {
  deletes: string[];
  updates: [string, LotColumns][];
  inserts: [string, LotColumns][];
}

/**
 * The plan that turns `current` into `desired`: a lot kept unchanged is not touched (it keeps its position and
 * the lots token moves only when something changed); a changed lot is updated in place; a new lot is appended.
 * @throws {TypeError} when the batch lists one lot id twice.
 */
export function planLotChanges(
  current: ReadonlyMap<string, LotColumns>,
  desired: ReadonlyMap<string, LotColumns>,
  desiredCount: number,
): LotChangePlan {
  if (desired.size !== desiredCount)
    throw new TypeError("applyBatch: a lot id appears twice in lotsAfter/shortLotsAfter");
  const plan: LotChangePlan = { deletes: [], updates: [], inserts: [] };
  for (const id of current.keys()) if (!desired.has(id)) plan.deletes.push(id);
  for (const [id, cols] of desired) {
    const now = current.get(id);
    if (now === undefined) plan.inserts.push([id, cols]);
    else if (now.some((v, i) => v !== cols[i])) plan.updates.push([id, cols]);
  }
  return plan;
}

/** True when two core long lots would be stored with the same values (same object, or every stored field equal). */
function sameStoredLot(a: TaxLot, b: TaxLot): boolean {
  return (
    a === b ||
    (a.themeAssetId === b.themeAssetId &&
      a.tradeDate === b.tradeDate &&
      a.holdingPeriodStart === b.holdingPeriodStart &&
      a.washSaleDate === b.washSaleDate &&
      a.lastSoldForLossDate === b.lastSoldForLossDate &&
      a.currency === b.currency &&
      a.quantity.eq(b.quantity) &&
      a.totalCostBasis.eq(b.totalCostBasis) &&
      a.fxRate.eq(b.fxRate))
  );
}

function sameStoredShort(a: ShortLot, b: ShortLot): boolean {
  return (
    a === b ||
    (a.themeAssetId === b.themeAssetId &&
      a.openDate === b.openDate &&
      a.currency === b.currency &&
      a.quantity.eq(b.quantity) &&
      a.proceeds.eq(b.proceeds) &&
      a.fxRate.eq(b.fxRate))
  );
}

/**
 * The lot changes between an account's lots before a core application and after it, for
 * {@link LedgerLotChanges}: lots only after it are inserted (in the order of `after`), lots whose stored values
 * differ are updated, lots only before it are deleted. Only those lots are converted to store values; an unchanged
 * lot (usually the very same object) costs one identity check.
 */
export function ledgerLotChanges(
  before: { lots: readonly TaxLot[]; shortLots?: readonly ShortLot[] | undefined },
  after: { lots: readonly TaxLot[]; shortLots?: readonly ShortLot[] | undefined },
): LedgerLotChanges {
  const inserted: LedgerLotInput[] = [];
  const updated: LedgerLotInput[] = [];
  const insertedShort: ShortLotInput[] = [];
  const updatedShort: ShortLotInput[] = [];
  const prev = new Map<string, TaxLot>();
  for (const l of before.lots) prev.set(l.id, l);
  for (const l of after.lots) {
    const p = prev.get(l.id);
    if (p === undefined) inserted.push(ledgerLotInput(l));
    else {
      prev.delete(l.id);
      if (!sameStoredLot(p, l)) updated.push(ledgerLotInput(l));
    }
  }
  const prevShort = new Map<string, ShortLot>();
  for (const l of before.shortLots ?? []) prevShort.set(l.id, l);
  for (const l of after.shortLots ?? []) {
    const p = prevShort.get(l.id);
    if (p === undefined) insertedShort.push(shortLotInput(l));
    else {
      prevShort.delete(l.id);
      if (!sameStoredShort(p, l)) updatedShort.push(shortLotInput(l));
    }
  }
  return { inserted, insertedShort, updated, updatedShort, deleted: [...prev.keys(), ...prevShort.keys()] };
}

/** The ids of lots held before that a {@link LedgerLotChanges} batch updates or deletes. */
export function touchedLotIds(changes: LedgerLotChanges): string[] {
  return [
    ...changes.updated.map((l) => l.uuid),
    ...changes.updatedShort.map((l) => l.uuid),
    ...changes.deleted,
  ];
}

/**
 * The plan of a batch that names only the lots it changed. `held` maps each id of {@link touchedLotIds} that the
 * account holds to its side. Refuses (before anything is written) an update or delete of a lot the account does not
 * hold on that side, and an id listed twice.
 * @throws {ConflictError} `lots_changed`
 * @throws {TypeError} when the batch lists one lot id twice.
 */
export function planFromChanges(
  accountUuid: string,
  changes: LedgerLotChanges,
  held: ReadonlyMap<string, string>,
): LotChangePlan {
  const desired = desiredLots(changes.inserted, changes.insertedShort);
  const updates = desiredLots(changes.updated, changes.updatedShort);
  const ids = new Set<string>([...desired.keys(), ...updates.keys(), ...changes.deleted]);
  const listed =
    changes.inserted.length +
    changes.insertedShort.length +
    changes.updated.length +
    changes.updatedShort.length +
    changes.deleted.length;
  if (ids.size !== listed) throw new TypeError("applyBatch: a lot id appears twice in lotChanges");
  const missing: string[] = [];
  for (const [id, cols] of updates) if (held.get(id) !== cols[0]) missing.push(id);
  for (const id of changes.deleted) if (!held.has(id)) missing.push(id);
  if (missing.length > 0)
    throw new ConflictError(
      `Lot${missing.length > 1 ? "s" : ""} ${missing.slice(0, 10).join(", ")}${missing.length > 10 ? ` and ${missing.length - 10} more` : ""} of account ${accountUuid} changed since the batch read them; nothing was applied (retry).`,
      "lots_changed",
    );
  return { deletes: [...changes.deleted], updates: [...updates], inserts: [...desired] };
}

/** Digits after the point of a plain decimal string ("10.50" -> 2). */
function scaleOf(s: string): number {
  const point = s.indexOf(".");
  return point < 0 || /e/i.test(s) ? 0 : s.length - point - 1;
}

/**
 * `a + b` of two decimal strings, exactly, as plain decimal text with the larger of their scales (as PostgreSQL's
 * numeric addition gives): "1000.50" + "1800.2" = "2800.70".
 */
export function addDecimalText(a: string, b: string): string {
  return dec(a)
    .plus(dec(b))
    .toFixed(Math.max(scaleOf(a), scaleOf(b)));
}

/** First day and last day of a period for the realized reads. */
export function periodBounds(period: { year: number } | { from: string; to: string }): [string, string] {
  if ("year" in period) {
    const y = String(period.year).padStart(4, "0");
    return [`${y}-01-01`, `${y}-12-31`];
  }
  return [period.from, period.to];
}
