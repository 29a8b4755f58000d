/**
 * @module core/ledger/working-book
 * The private, mutable working copy of a {@link LedgerBook} that executions and corporate actions are applied to.
 * It holds lots grouped by asset, so each trade touches only its asset's lots (a batch of 500 trades on a book of
 * 10,000 lots never walks the whole book per trade), and it is turned back into a new immutable book at the end.
 * The input book is never modified: the working copy owns its arrays, and lots and records are immutable values.
 * Every tax computation goes through core/tax (applySale, applyPurchase, applySplit).
 */

import type { Decimal } from "decimal.js";
import type { Currency } from "../data/types.js";
import {
  applyPurchase,
  applySale,
  DEFAULT_LOT_SELECTION_POLICY,
  type LotSelectionPolicy,
  type RealizedGain,
  resolveTaxRules,
  type SpecificLotRequest,
  TaxDecimal,
  type TaxLot,
  type TaxRules,
  type WashSaleAdjustment,
} from "../tax/index.js";
import type {
  CashMovement,
  CashMovementKind,
  LedgerBook,
  LedgerEntry,
  LedgerOptions,
  ShortLot,
} from "./types.js";

export const ZERO: Decimal = new TaxDecimal(0);

/** Appends `item` to the list of `key` in `map`, creating the list (and recording the key's order) on first use. */
function push<T>(map: Map<string, T[]>, order: string[], key: string, item: T): void {
  const list = map.get(key);
  if (list === undefined) {
    map.set(key, [item]);
    order.push(key);
  } else list.push(item);
}

function groupBy<T>(items: readonly T[], key: (t: T) => string): { map: Map<string, T[]>; order: string[] } {
  const map = new Map<string, T[]>();
  const order: string[] = [];
  for (const item of items) push(map, order, key(item), item);
  return { map, order };
}

/** A sell or cover of one asset, already validated. */
export interface SellRequest {
  sourceId: string;
  themeAssetId: string;
  date: string;
  quantity: Decimal;
  price: Decimal;
  fees: Decimal;
  fxRate: Decimal;
  /** Specific identification; null = the lot method. */
  lots: SpecificLotRequest[] | null;
  /** Lot method override (corporate actions close every lot FIFO). */
  policy?: LotSelectionPolicy;
  cashKind: CashMovementKind;
}

/** A buy of one asset, already validated. */
export interface BuyRequest {
  sourceId: string;
  lotId: string;
  themeAssetId: string;
  date: string;
  quantity: Decimal;
  price: Decimal;
  fees: Decimal;
  currency: Currency;
  fxRate: Decimal;
  /** Cash kind, or null when the purchase moves no cash (it was paid by a credit booked elsewhere). */
  cashKind: CashMovementKind | null;
}

export class WorkingBook {
  readonly accountId: string;
  readonly rules: TaxRules;
  readonly lotMethod: LotSelectionPolicy;
  cash: Decimal;
  readonly lots: Map<string, TaxLot[]>;
  readonly lotOrder: string[];
  readonly shorts: Map<string, ShortLot[]>;
  readonly shortOrder: string[];
  readonly hhLots: Map<string, TaxLot[]>;
  readonly hhLotOrder: string[];
  /** Realized entries of the account and of the household, in order; `byAsset` indexes the long ones. */
  readonly entries: LedgerEntry[];
  readonly hhEntries: LedgerEntry[];
  readonly #entryIdx = new Map<string, number[]>();
  readonly #hhEntryIdx = new Map<string, number[]>();
  readonly appliedActionIds: string[];
  /** Ids of every own long and short lot (new lots must not reuse one). */
  readonly lotIds: Set<string>;
  /** Entries created or updated by the operations (own and household), by id. */
  readonly touched = new Set<string>();
  readonly cashMovements: CashMovement[] = [];
  readonly washSales: WashSaleAdjustment[] = [];

  constructor(book: LedgerBook, options: LedgerOptions, where: string) {
    if (typeof book.accountId !== "string" || book.accountId.length === 0)
      throw new TypeError(`${where}: book.accountId must be a non-empty string`);
    this.accountId = book.accountId;
    this.rules = resolveTaxRules(options, where);
    this.lotMethod = options.lotMethod ?? DEFAULT_LOT_SELECTION_POLICY;
    this.cash = new TaxDecimal(book.cashUsd);
    for (const l of book.lots)
      if (l.accountId !== undefined && l.accountId !== this.accountId)
        throw new RangeError(
          `${where}: lot ${l.id} belongs to account ${l.accountId}, not ${this.accountId}; other accounts' lots go in book.household`,
        );
    const lots = groupBy(book.lots, (l) => l.themeAssetId);
    this.lots = lots.map;
    this.lotOrder = lots.order;
    const shorts = groupBy(book.shortLots ?? [], (l) => l.themeAssetId);
    this.shorts = shorts.map;
    this.shortOrder = shorts.order;
    const hh = groupBy(book.household?.lots ?? [], (l) => l.themeAssetId);
    this.hhLots = hh.map;
    this.hhLotOrder = hh.order;
    for (const l of book.household?.lots ?? [])
      if (l.accountId === undefined || l.accountId === this.accountId)
        throw new RangeError(
          `${where}: household lot ${l.id} must carry the account id of another account of the client`,
        );
    this.entries = [...(book.realized ?? [])];
    this.hhEntries = [...(book.household?.realized ?? [])];
    for (let i = 0; i < this.entries.length; i++) this.#index(this.#entryIdx, this.entries[i]!, i);
    for (let i = 0; i < this.hhEntries.length; i++) this.#index(this.#hhEntryIdx, this.hhEntries[i]!, i);
    this.appliedActionIds = [...(book.appliedActionIds ?? [])];
    this.lotIds = new Set(book.lots.map((l) => l.id));
    for (const s of book.shortLots ?? []) this.lotIds.add(s.id);
  }

  #index(idx: Map<string, number[]>, e: LedgerEntry, i: number): void {
    if (e.side !== "long") return;
    const list = idx.get(e.record.themeAssetId);
    if (list === undefined) idx.set(e.record.themeAssetId, [i]);
    else list.push(i);
  }

  /** Own long lots of an asset (the working list; do not keep it across operations). */
  lotsOf(asset: string): readonly TaxLot[] {
    return this.lots.get(asset) ?? [];
  }

  shortsOf(asset: string): readonly ShortLot[] {
    return this.shorts.get(asset) ?? [];
  }

  setLots(asset: string, lots: TaxLot[]): void {
    if (!this.lots.has(asset)) this.lotOrder.push(asset);
    this.lots.set(asset, lots);
  }

  setShorts(asset: string, lots: ShortLot[]): void {
    if (!this.shorts.has(asset)) this.shortOrder.push(asset);
    this.shorts.set(asset, lots);
  }

  addEntry(entry: LedgerEntry): void {
    this.entries.push(entry);
    this.#index(this.#entryIdx, entry, this.entries.length - 1);
    this.touched.add(entry.id);
  }

  moveCash(sourceId: string, kind: CashMovementKind, date: string, asset: string, amountUsd: Decimal): void {
    this.cash = this.cash.plus(amountUsd);
    this.cashMovements.push({ sourceId, kind, date, themeAssetId: asset, amountUsd });
  }

  /** The book's own lot tagged with the account id (needed when household lots of the asset take part). */
  #own(lot: TaxLot): TaxLot {
    return lot.accountId === this.accountId ? lot : { ...lot, accountId: this.accountId };
  }

  #isOwn(lot: TaxLot): boolean {
    return lot.accountId === undefined || lot.accountId === this.accountId;
  }

  /**
   * Sells long lots of one asset through core/tax applySale (selection, gains, wash sales looking back over the
   * account's and the household's lots of the asset). Returns the new entries.
   */
  sell(r: SellRequest): LedgerEntry[] {
    const asset = r.themeAssetId;
    const own = this.lotsOf(asset);
    const hh = this.hhLots.get(asset) ?? [];
    const input = hh.length === 0 ? own : [...own.map((l) => this.#own(l)), ...hh];
    const result = applySale(
      input,
      {
        themeAssetId: asset,
        quantity: r.quantity,
        price: r.price,
        date: r.date,
        fxRate: r.fxRate,
        fees: r.fees,
        ...(hh.length === 0 ? {} : { accountId: this.accountId }),
        ...(r.lots === null
          ? { policy: r.policy ?? this.lotMethod }
          : { policy: "SPECIFIC" as const, specificLots: r.lots }),
      },
      this.rules,
    );
    if (hh.length === 0) this.setLots(asset, result.lots);
    else {
      this.setLots(
        asset,
        result.lots.filter((l) => this.#isOwn(l)),
      );
      this.hhLots.set(
        asset,
        result.lots.filter((l) => !this.#isOwn(l)),
      );
    }
    // Lots carved by wash-sale matching are the only new ids.
    for (const a of result.washSales) this.lotIds.add(a.replacementLotId);
    this.washSales.push(...result.washSales);
    const entries = result.realized.map(
      (record, k): LedgerEntry => ({
        id: `${r.sourceId}:${k + 1}`,
        sourceId: r.sourceId,
        side: "long",
        record,
      }),
    );
    for (const e of entries) this.addEntry(e);
    const net = r.quantity.times(r.price).minus(r.fees);
    this.moveCash(r.sourceId, r.cashKind, r.date, asset, net.dividedBy(r.fxRate));
    return entries;
  }

  /**
   * Buys through core/tax applyPurchase: a new lot, washing earlier loss sales of the asset in the account and
   * the household (earliest sale first).
   */
  buy(r: BuyRequest): TaxLot[] {
    const asset = r.themeAssetId;
    const ownIdx = this.#entryIdx.get(asset) ?? [];
    const hhIdx = this.#hhEntryIdx.get(asset) ?? [];
    const refs: { list: LedgerEntry[]; i: number }[] = [
      ...ownIdx.map((i) => ({ list: this.entries, i })),
      ...hhIdx.map((i) => ({ list: this.hhEntries, i })),
    ];
    const records: RealizedGain[] = refs.map(({ list, i }) => list[i]!.record);
    const own = this.lotsOf(asset);
    const result = applyPurchase(
      own,
      {
        id: r.lotId,
        accountId: this.accountId,
        themeAssetId: asset,
        quantity: r.quantity,
        price: r.price,
        fees: r.fees,
        date: r.date,
        currency: r.currency,
        fxRate: r.fxRate,
      },
      records,
      this.rules,
    );
    refs.forEach(({ list, i }, k) => {
      const before = list[i]!;
      const after = result.realized[k]!;
      if (after === before.record || after.washedQuantity.eq(before.record.washedQuantity)) return;
      list[i] = { ...before, record: after };
      this.touched.add(list === this.entries ? before.id : `household|${before.id}`);
    });
    this.setLots(asset, result.lots);
    const created = result.lots.slice(own.length);
    for (const l of created) this.lotIds.add(l.id);
    this.washSales.push(...result.washSales);
    if (r.cashKind !== null) {
      const cost = r.quantity.times(r.price).plus(r.fees);
      this.moveCash(r.sourceId, r.cashKind, r.date, asset, cost.dividedBy(r.fxRate).negated());
    }
    return created;
  }

  /** Opens a short lot: shares owed, net proceeds as basis, proceeds credited to cash. */
  shortSale(r: BuyRequest): ShortLot {
    const proceeds = r.quantity.times(r.price).minus(r.fees);
    const lot: ShortLot = {
      side: "short",
      id: r.lotId,
      accountId: this.accountId,
      themeAssetId: r.themeAssetId,
      quantity: r.quantity,
      proceeds,
      currency: r.currency,
      fxRate: r.fxRate,
      openDate: r.date,
    };
    this.setShorts(r.themeAssetId, [...this.shortsOf(r.themeAssetId), lot]);
    this.lotIds.add(lot.id);
    this.moveCash(r.sourceId, "short_sale", r.date, r.themeAssetId, proceeds.dividedBy(r.fxRate));
    return lot;
  }

  /**
   * Covers short lots: the named ones, else first opened first (FIFO, then lot id). Each slice realizes
   * short-sale proceeds (pro rata, at the short-sale FX) minus the covering cost with its share of the fees
   * (at the cover FX); always short-term (IRC §1233, docs/ledger.md).
   */
  cover(r: SellRequest): LedgerEntry[] {
    const asset = r.themeAssetId;
    const lots = this.shortsOf(asset);
    let order: { lot: ShortLot; quantity: Decimal }[];
    if (r.lots !== null) {
      const byId = new Map(lots.map((l) => [l.id, l]));
      order = r.lots.map((x) => ({ lot: byId.get(x.lotId)!, quantity: new TaxDecimal(x.quantity) }));
    } else {
      const sorted = [...lots].sort((a, b) =>
        a.openDate < b.openDate ? -1 : a.openDate > b.openDate ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
      );
      order = [];
      let left = r.quantity;
      for (const lot of sorted) {
        if (left.lte(0)) break;
        const q = lot.quantity.lte(left) ? lot.quantity : left;
        order.push({ lot, quantity: q });
        left = left.minus(q);
      }
    }
    const remaining = new Map(lots.map((l) => [l.id, l]));
    const entries: LedgerEntry[] = [];
    let feesLeft = r.fees;
    order.forEach(({ lot, quantity: q }, k) => {
      const fee = k === order.length - 1 ? feesLeft : r.fees.times(q).dividedBy(r.quantity);
      feesLeft = feesLeft.minus(fee);
      const proceeds = q.eq(lot.quantity) ? lot.proceeds : lot.proceeds.times(q).dividedBy(lot.quantity);
      const cost = q.times(r.price).plus(fee);
      const proceedsUsd = proceeds.dividedBy(lot.fxRate);
      const costUsd = cost.dividedBy(r.fxRate);
      const gain = proceedsUsd.minus(costUsd);
      const record: RealizedGain = {
        lotId: lot.id,
        accountId: this.accountId,
        themeAssetId: asset,
        quantity: q,
        saleDate: r.date,
        tradeDate: r.date,
        holdingPeriodStart: r.date,
        holdingDays: 0,
        term: "short_term",
        currency: lot.currency,
        price: r.price,
        lotFxRate: lot.fxRate,
        saleFxRate: r.fxRate,
        proceeds,
        costBasis: cost,
        proceedsUsd,
        costBasisUsd: costUsd,
        gainUsd: gain,
        disallowedLossUsd: ZERO,
        washedQuantity: ZERO,
        washSaleMatches: [],
        recognizedGainUsd: gain,
      };
      const entry: LedgerEntry = {
        id: `${r.sourceId}:${k + 1}`,
        sourceId: r.sourceId,
        side: "short",
        openDate: lot.openDate,
        record,
      };
      entries.push(entry);
      this.addEntry(entry);
      const cur = remaining.get(lot.id)!;
      if (q.eq(cur.quantity)) remaining.delete(lot.id);
      else
        remaining.set(lot.id, {
          ...cur,
          quantity: cur.quantity.minus(q),
          proceeds: cur.proceeds.minus(proceeds),
        });
    });
    this.setShorts(
      asset,
      lots.filter((l) => remaining.has(l.id)).map((l) => remaining.get(l.id)!),
    );
    const cost = r.quantity.times(r.price).plus(r.fees);
    this.moveCash(r.sourceId, r.cashKind, r.date, asset, cost.dividedBy(r.fxRate).negated());
    return entries;
  }

  /** The new immutable book. */
  toBook(): LedgerBook {
    const flat = <T>(map: Map<string, T[]>, order: readonly string[]): T[] => {
      const out: T[] = [];
      for (const k of order) for (const x of map.get(k)!) out.push(x);
      return out;
    };
    return {
      accountId: this.accountId,
      cashUsd: this.cash,
      lots: flat(this.lots, this.lotOrder),
      shortLots: flat(this.shorts, this.shortOrder),
      realized: this.entries,
      appliedActionIds: this.appliedActionIds,
      household: { lots: flat(this.hhLots, this.hhLotOrder), realized: this.hhEntries },
    };
  }

  /** Entries created or updated (own first, then household), in ledger order. */
  changedEntries(): { own: LedgerEntry[]; household: LedgerEntry[] } {
    return {
      own: this.entries.filter((e) => this.touched.has(e.id)),
      household: this.hhEntries.filter((e) => this.touched.has(`household|${e.id}`)),
    };
  }
}
