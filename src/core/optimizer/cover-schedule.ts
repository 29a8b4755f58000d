/**
 * @module core/optimizer/cover-schedule
 * The cover side of every asset held short: its short lots in the order a cover consumes them, each with its tax
 * per unit of weight bought back. It mirrors the sell side of long lots (tax-schedule.ts): covering x of a short
 * consumes this order, so the tax is a convex piecewise-linear function of x and the engine takes the pieces as
 * segments of the asset's buy side.
 *
 * Per short lot, with proceeds per share P (USD, at the short-sale FX), price p (USD), short-term rate r (a cover
 * is always short-term: IRC section 1233, docs/ledger.md section 2), gain per share g = P - p:
 *   objective cost c = r g / p                     (gains; PERCENT reductions scale it by 1 - pct/100)
 *                    = r g / p x positive_tax_alpha_scaling_factor   (losses, tax alpha on)
 *                    = 0                           (losses, tax alpha off)
 *   real tax          = r g / p
 * Cheapest objective cost first means the lowest proceeds per share first: the mirror of highest-cost-first for
 * long lots, and the order the proposal builder covers in (core/proposal/short-lots.ts), so a cover realizes its
 * losses first and the smallest gains next. Not modeled, as in the proposal builder and the ledger: wash sales of
 * shorts, the section 1233(d) term rule, n_high_loss_lots (every cover loss earns tax alpha when it is on) and
 * DOLLARS capital-gains reductions in the objective (the report applies them).
 */
import { toDayNumber } from "../dates.js";
import { ValidationError } from "../errors.js";
import type { OptimizerShortLot } from "./optimization-types.js";
import type { OptimizerConfig } from "./optimizer-config.js";

/** The short lots in columns; lot k is of asset `asset[k]`. */
export interface ShortLotTable {
  readonly lots: readonly OptimizerShortLot[];
  readonly asset: Int32Array;
  readonly quantity: Float64Array;
  readonly proceedsUsd: Float64Array;
  readonly openDay: Int32Array;
}

/** The cover order of every short asset (see the module comment); costs are per unit of weight covered. */
export interface CoverSchedule {
  /** Asset i owns pieces start[i] .. start[i+1]-1, in consumption order. */
  readonly start: Int32Array;
  /** Index into the short lot table. */
  readonly lot: Int32Array;
  readonly weight: Float64Array;
  /** Tax term of the objective per unit of weight, before tax_gamma. */
  readonly objectiveCost: Float64Array;
  /** Tax at the short-term rate per unit of weight (PERCENT reductions as modeled). */
  readonly realTax: Float64Array;
  /** Realized gain per unit of weight. */
  readonly gain: Float64Array;
  readonly alphaIgnored: Uint8Array;
}

/**
 * The short lots of the input in columns.
 * @throws {ValidationError} for a lot of an asset outside the universe, a quantity <= 0, negative or non-finite
 *   proceeds, or an open date after the as-of date (each naming the lot).
 */
export function prepareShortLotTable(
  lots: readonly OptimizerShortLot[],
  index: ReadonlyMap<string, number>,
  asOf: string,
): ShortLotTable {
  const m = lots.length;
  const asset = new Int32Array(m);
  const quantity = new Float64Array(m);
  const proceedsUsd = new Float64Array(m);
  const openDay = new Int32Array(m);
  const issues: { path: string; message: string }[] = [];
  lots.forEach((l, k) => {
    const i = index.get(l.themeAssetId);
    const at = `shortLots[${k}]`;
    if (i === undefined) {
      issues.push({
        path: `${at}.themeAssetId`,
        message: `short lot ${l.id}: ${l.themeAssetId} is not in assets`,
      });
      return;
    }
    asset[k] = i;
    quantity[k] = l.quantity.toNumber();
    proceedsUsd[k] = l.proceedsUsd;
    if (!(quantity[k]! > 0) || !Number.isFinite(quantity[k]!))
      issues.push({
        path: `${at}.quantity`,
        message: `short lot ${l.id}: quantity ${l.quantity.toString()} <= 0`,
      });
    if (!(l.proceedsUsd >= 0) || !Number.isFinite(l.proceedsUsd))
      issues.push({ path: `${at}.proceedsUsd`, message: `short lot ${l.id}: proceeds ${l.proceedsUsd} USD` });
    if (l.openDate > asOf)
      issues.push({
        path: `${at}.openDate`,
        message: `short lot ${l.id} was opened on ${l.openDate}, after the as-of date ${asOf}`,
      });
    else openDay[k] = toDayNumber(l.openDate);
  });
  if (issues.length > 0)
    throw new ValidationError(`optimizePortfolio: ${issues.map((x) => x.message).join("; ")}`, issues);
  return { lots: [...lots], asset, quantity, proceedsUsd, openDay };
}

/** The cover schedule (see the module comment) of the short lots over the universe. */
export function buildCoverSchedule(x: {
  readonly table: ShortLotTable;
  readonly n: number;
  readonly assets: readonly string[];
  readonly prices: Float64Array;
  readonly investableUsd: number;
  readonly config: OptimizerConfig;
}): CoverSchedule {
  const { table, n, prices, investableUsd, config } = x;
  const tax = config.tax;
  const L = table.asset.length;
  const keep = new Float64Array(n).fill(1);
  const reductions = config.capitalGainsReductions;
  if (config.capitalGainsReductionsUnits === "PERCENT")
    for (let i = 0; i < n; i++) {
      const id = x.assets[i]!;
      if (Object.hasOwn(reductions, id)) keep[i] = 1 - reductions[id]! / 100;
    }
  const rate = tax.shortTermRate;
  const rows: { k: number; i: number; obj: number; real: number; gain: number; ignored: number }[] = [];
  for (let k = 0; k < L; k++) {
    const i = table.asset[k]!;
    const p = prices[i]!;
    const g = table.proceedsUsd[k]! / table.quantity[k]! - p;
    const gw = g / p;
    let obj: number;
    let real: number;
    let ignored = 0;
    if (g >= 0) {
      obj = rate * gw * keep[i]!;
      real = obj;
    } else {
      real = rate * gw;
      obj = tax.useTaxAlpha ? real * tax.positiveTaxAlphaScalingFactor : 0;
      ignored = tax.useTaxAlpha ? 0 : 1;
    }
    rows.push({ k, i, obj, real, gain: gw, ignored });
  }
  rows.sort(
    (a, b) =>
      a.i - b.i ||
      a.obj - b.obj ||
      a.real - b.real ||
      table.openDay[a.k]! - table.openDay[b.k]! ||
      (table.lots[a.k]!.id < table.lots[b.k]!.id
        ? -1
        : table.lots[a.k]!.id > table.lots[b.k]!.id
          ? 1
          : a.k - b.k),
  );
  const start = new Int32Array(n + 1);
  for (const r of rows) start[r.i + 1]!++;
  for (let i = 0; i < n; i++) start[i + 1]! += start[i]!;
  const lot = new Int32Array(L);
  const weight = new Float64Array(L);
  const objectiveCost = new Float64Array(L);
  const realTax = new Float64Array(L);
  const gain = new Float64Array(L);
  const alphaIgnored = new Uint8Array(L);
  rows.forEach((r, q) => {
    lot[q] = r.k;
    weight[q] = (table.quantity[r.k]! * prices[r.i]!) / investableUsd;
    objectiveCost[q] = r.obj;
    realTax[q] = r.real;
    gain[q] = r.gain;
    alphaIgnored[q] = r.ignored;
  });
  return { start, lot, weight, objectiveCost, realTax, gain, alphaIgnored };
}
