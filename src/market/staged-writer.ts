/**
 * @module market/staged-writer
 * A `MarketDataWriter` that writes nothing: it records the writes of an importer or of the synthetic
 * generator so that they can be replayed later onto a store inside ONE transaction. The importers and the
 * generator write synchronously and read their files for long, so the service layer stages an import first (all
 * parsing, validation and symbol resolution), then replays it onto the store's asynchronous market repository
 * ({@link StagedMarketWriter.replayInto}) in one store transaction, where it can also compare with the data already
 * there and commit or roll back (dry runs).
 */
import { type PricePanel, panelToBars } from "../core/data/panel.js";
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
} from "../core/data/types.js";
import type { PanelWriter } from "./synthetic/write.js";

/** The writes {@link StagedMarketWriter.replayInto} makes: the store's asynchronous market repository. */
export interface AsyncMarketWriteTarget {
  upsertSecurities(securities: readonly Security[]): Promise<unknown>;
  insertPrices(bars: readonly PriceBar[]): Promise<unknown>;
  insertPriceMatrix?(panel: PricePanel): Promise<unknown>;
  insertSplits(splits: readonly Split[]): Promise<unknown>;
  insertDividends(dividends: readonly Dividend[]): Promise<unknown>;
  insertFx(rates: readonly FxRate[]): Promise<unknown>;
  insertCharacteristics(values: readonly CharacteristicValue[]): Promise<unknown>;
  upsertIndex(index: IndexInfo): Promise<unknown>;
  insertIndexLevels(levels: readonly IndexLevel[]): Promise<unknown>;
  insertIndexWeights(weights: readonly IndexWeight[]): Promise<unknown>;
}

/** One recorded write: the name of the writer method and its argument. */
type StagedWrite =
  | { op: "upsertSecurities"; arg: readonly Security[] }
  | { op: "insertPrices"; arg: readonly PriceBar[] }
  | { op: "insertPriceMatrix"; arg: PricePanel }
  | { op: "insertSplits"; arg: readonly Split[] }
  | { op: "insertDividends"; arg: readonly Dividend[] }
  | { op: "insertFx"; arg: readonly FxRate[] }
  | { op: "insertCharacteristics"; arg: readonly CharacteristicValue[] }
  | { op: "upsertIndex"; arg: IndexInfo }
  | { op: "insertIndexLevels"; arg: readonly IndexLevel[] }
  | { op: "insertIndexWeights"; arg: readonly IndexWeight[] };

/**
 * Records writes in order. Reads (`findSecuritiesBySymbol`) see the staged securities over `base`, the listings of
 * the store the writes will be replayed onto (none when the store is to be replaced first), so symbol resolution
 * and `createMissingSecurities` behave as if the writes had been applied there.
 *
 * `transaction(fn)` keeps the writer contract: when `fn` throws, the writes it staged are dropped. Arrays are
 * copied (shallowly); a price panel is kept by reference until {@link StagedMarketWriter.replay} (the generator
 * does not reuse it).
 */
export class StagedMarketWriter implements PanelWriter {
  private readonly writes: StagedWrite[] = [];
  private readonly staged = new Map<string, Security>();

  constructor(private readonly base: (symbol: string) => readonly Security[] = () => []) {}

  transaction<T>(fn: () => T): T {
    const mark = this.writes.length;
    try {
      return fn();
    } catch (err) {
      this.writes.length = mark;
      this.staged.clear();
      for (const w of this.writes)
        if (w.op === "upsertSecurities") for (const s of w.arg) this.staged.set(s.themeAssetId, s);
      throw err;
    }
  }

  upsertSecurities(securities: readonly Security[]): void {
    this.writes.push({ op: "upsertSecurities", arg: [...securities] });
    for (const s of securities) this.staged.set(s.themeAssetId, s);
  }
  insertPrices(bars: readonly PriceBar[]): void {
    this.writes.push({ op: "insertPrices", arg: [...bars] });
  }
  /** The generator's columnar prices; returns the rows it will write (non-NaN closes). */
  insertPriceMatrix(panel: PricePanel): number {
    this.writes.push({ op: "insertPriceMatrix", arg: panel });
    let rows = 0;
    for (const c of panel.close) if (!Number.isNaN(c)) rows++;
    return rows;
  }
  insertSplits(splits: readonly Split[]): void {
    this.writes.push({ op: "insertSplits", arg: [...splits] });
  }
  insertDividends(dividends: readonly Dividend[]): void {
    this.writes.push({ op: "insertDividends", arg: [...dividends] });
  }
  insertFx(rates: readonly FxRate[]): void {
    this.writes.push({ op: "insertFx", arg: [...rates] });
  }
  insertCharacteristics(values: readonly CharacteristicValue[]): void {
    this.writes.push({ op: "insertCharacteristics", arg: [...values] });
  }
  upsertIndex(index: IndexInfo): void {
    this.writes.push({ op: "upsertIndex", arg: { ...index } });
  }
  insertIndexLevels(levels: readonly IndexLevel[]): void {
    this.writes.push({ op: "insertIndexLevels", arg: [...levels] });
  }
  insertIndexWeights(weights: readonly IndexWeight[]): void {
    this.writes.push({ op: "insertIndexWeights", arg: [...weights] });
  }

  findSecuritiesBySymbol(symbol: string): Security[] {
    const upper = symbol.toUpperCase();
    const out = new Map<string, Security>();
    for (const s of this.base(upper)) out.set(s.themeAssetId, s);
    for (const s of this.staged.values()) if (s.symbol === upper) out.set(s.themeAssetId, s);
    return [...out.values()];
  }

  /** theme_asset_ids of every staged security (the listings the writes define). */
  stagedListingIds(): Set<string> {
    return new Set(this.staged.keys());
  }

  /** Number of staged write calls. */
  get size(): number {
    return this.writes.length;
  }

  /** Apply every staged write to `target`, in order, inside one `target.transaction`. */
  replay(target: PanelWriter): void {
    target.transaction(() => {
      for (const w of this.writes) {
        switch (w.op) {
          case "upsertSecurities":
            target.upsertSecurities(w.arg);
            break;
          case "insertPrices":
            target.insertPrices(w.arg);
            break;
          case "insertPriceMatrix":
            if (target.insertPriceMatrix) target.insertPriceMatrix(w.arg);
            else target.insertPrices(panelToBars(w.arg));
            break;
          case "insertSplits":
            target.insertSplits(w.arg);
            break;
          case "insertDividends":
            target.insertDividends(w.arg);
            break;
          case "insertFx":
            target.insertFx(w.arg);
            break;
          case "insertCharacteristics":
            target.insertCharacteristics(w.arg);
            break;
          case "upsertIndex":
            target.upsertIndex(w.arg);
            break;
          case "insertIndexLevels":
            target.insertIndexLevels(w.arg);
            break;
          case "insertIndexWeights":
            target.insertIndexWeights(w.arg);
            break;
        }
      }
    });
  }

  /**
   * Apply every staged write to the asynchronous `target`, in order, one at a time. The caller holds the
   * transaction (`store.transaction`), so that the writes commit or roll back together.
   */
  async replayInto(target: AsyncMarketWriteTarget): Promise<void> {
    for (const w of this.writes) {
      switch (w.op) {
        case "upsertSecurities":
          await target.upsertSecurities(w.arg);
          break;
        case "insertPrices":
          await target.insertPrices(w.arg);
          break;
        case "insertPriceMatrix":
          if (target.insertPriceMatrix) await target.insertPriceMatrix(w.arg);
          else await target.insertPrices(panelToBars(w.arg));
          break;
        case "insertSplits":
          await target.insertSplits(w.arg);
          break;
        case "insertDividends":
          await target.insertDividends(w.arg);
          break;
        case "insertFx":
          await target.insertFx(w.arg);
          break;
        case "insertCharacteristics":
          await target.insertCharacteristics(w.arg);
          break;
        case "upsertIndex":
          await target.upsertIndex(w.arg);
          break;
        case "insertIndexLevels":
          await target.insertIndexLevels(w.arg);
          break;
        case "insertIndexWeights":
          await target.insertIndexWeights(w.arg);
          break;
      }
    }
  }
}
