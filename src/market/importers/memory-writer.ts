/**
 * @module market/importers/memory-writer
 * An in-memory {@link MarketDataWriter}: the reference implementation of the writer contract (atomic
 * transactions, replace-by-key writes), used by the importer tests and for dry runs (`parse and validate
 * without a store`). Not a store: nothing is persisted.
 */
import type {
  CharacteristicValue,
  Dividend,
  FxRate,
  IndexInfo,
  IndexLevel,
  IndexWeight,
  PriceBar,
  Security,
  Split,
} from "../../core/data/types.js";
import type { MarketDataWriter } from "../writer.js";

/** The tables of an {@link InMemoryMarketDataWriter}, keyed by each record's natural key. */
export interface MemoryTables {
  securities: Map<string, Security>;
  prices: Map<string, PriceBar>;
  splits: Map<string, Split>;
  dividends: Map<string, Dividend>;
  fx: Map<string, FxRate>;
  characteristics: Map<string, CharacteristicValue>;
  indexes: Map<string, IndexInfo>;
  indexLevels: Map<string, IndexLevel>;
  indexWeights: Map<string, IndexWeight>;
}

function emptyTables(): MemoryTables {
  return {
    securities: new Map(),
    prices: new Map(),
    splits: new Map(),
    dividends: new Map(),
    fx: new Map(),
    characteristics: new Map(),
    indexes: new Map(),
    indexLevels: new Map(),
    indexWeights: new Map(),
  };
}

function copyTables(t: MemoryTables): MemoryTables {
  return {
    securities: new Map(t.securities),
    prices: new Map(t.prices),
    splits: new Map(t.splits),
    dividends: new Map(t.dividends),
    fx: new Map(t.fx),
    characteristics: new Map(t.characteristics),
    indexes: new Map(t.indexes),
    indexLevels: new Map(t.indexLevels),
    indexWeights: new Map(t.indexWeights),
  };
}

/**
 * Map-backed writer. `transaction` snapshots the tables and restores them when `fn` throws (nested calls
 * snapshot too, so an inner failure caught by the outer `fn` undoes only the inner part). Every write
 * method also counts its calls in `calls`, so tests can assert that a failed import wrote nothing.
 * @example
 * const w = new InMemoryMarketDataWriter();
 * await importPrices("fixtures/market/prices-long.csv", w, { defaultMic: "XNYS" });
 * w.tables.prices.size; // number of bars
 */
export class InMemoryMarketDataWriter implements MarketDataWriter {
  tables: MemoryTables = emptyTables();
  /** Number of write calls that were committed (rolled-back calls are not counted). */
  calls = 0;
  /** Number of transactions committed at the outermost level. */
  commits = 0;
  private depth = 0;

  transaction<T>(fn: () => T): T {
    const snapshot = copyTables(this.tables);
    const calls = this.calls;
    this.depth++;
    try {
      const result = fn();
      if (this.depth === 1) this.commits++;
      return result;
    } catch (e) {
      this.tables = snapshot;
      this.calls = calls;
      throw e;
    } finally {
      this.depth--;
    }
  }

  /** Total number of records across all tables. */
  size(): number {
    let n = 0;
    for (const t of Object.values(this.tables) as Map<string, unknown>[]) n += t.size;
    return n;
  }

  upsertSecurities(securities: readonly Security[]): void {
    this.calls++;
    for (const s of securities) this.tables.securities.set(s.themeAssetId, { ...s });
  }

  insertPrices(bars: readonly PriceBar[]): void {
    this.calls++;
    for (const b of bars) this.tables.prices.set(`${b.themeAssetId}|${b.date}`, { ...b });
  }

  insertSplits(splits: readonly Split[]): void {
    this.calls++;
    for (const s of splits) this.tables.splits.set(`${s.themeAssetId}|${s.date}`, { ...s });
  }

  insertDividends(dividends: readonly Dividend[]): void {
    this.calls++;
    for (const d of dividends) this.tables.dividends.set(`${d.themeAssetId}|${d.exDate}`, { ...d });
  }

  insertFx(rates: readonly FxRate[]): void {
    this.calls++;
    for (const r of rates) this.tables.fx.set(`${r.currency}|${r.date}`, { ...r });
  }

  insertCharacteristics(values: readonly CharacteristicValue[]): void {
    this.calls++;
    for (const v of values)
      this.tables.characteristics.set(`${v.themeAssetId}|${v.name}|${v.date}`, { ...v });
  }

  upsertIndex(index: IndexInfo): void {
    this.calls++;
    this.tables.indexes.set(index.identifier, { ...index });
  }

  insertIndexLevels(levels: readonly IndexLevel[]): void {
    this.calls++;
    for (const l of levels) this.tables.indexLevels.set(`${l.identifier}|${l.date}`, { ...l });
  }

  insertIndexWeights(weights: readonly IndexWeight[]): void {
    this.calls++;
    for (const w of weights)
      this.tables.indexWeights.set(`${w.identifier}|${w.date}|${w.themeAssetId}`, { ...w });
  }

  findSecuritiesBySymbol(symbol: string): Security[] {
    const s = symbol.toUpperCase();
    const out: Security[] = [];
    for (const sec of this.tables.securities.values()) if (sec.symbol === s) out.push({ ...sec });
    return out;
  }
}
