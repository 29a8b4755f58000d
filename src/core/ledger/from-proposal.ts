/**
 * @module core/ledger/from-proposal
 * The executions of a traded proposal: every order in full at given prices, or the broker's fills (partial fills
 * allowed), with the lots each sell or cover names, ready for {@link applyExecutions}.
 */

import type { Decimal } from "decimal.js";
import type { Currency } from "../data/types.js";
import { isIsoDate } from "../dates.js";
import { type FieldIssue, ValidationError } from "../errors.js";
import { TaxDecimal } from "../tax/index.js";
import type { Execution, ExecutionKind } from "./types.js";

/** The fields of a proposal order the ledger needs (core/proposal's `ProposalOrder` has them). */
export interface ProposalOrderLike {
  themeAssetId: string;
  /** @default "USD" */
  currency?: Currency;
  side: "buy" | "sell";
  category: "long" | "short_order" | "short_cover";
  /** Shares, > 0 (for a notional buy, the proposal's estimate). */
  quantity: Decimal.Value;
  /** Lots a sell or a cover consumes, in the proposal's order. */
  taxLots?: readonly { lotId: string; quantity: Decimal.Value }[] | null;
}

/** One fill of one order. */
export interface OrderFill {
  /** Index of the order in the proposal's `orders`. */
  order: number;
  quantity: Decimal.Value;
  /** Execution price, listing currency. */
  price: Decimal.Value;
  fees?: Decimal.Value;
  /** Units of the listing currency per USD. @default the input's fxRates[currency], or 1 for USD */
  fxRate?: Decimal.Value;
  /** @default the input's tradeDate */
  tradeDate?: string;
  /**
   * The broker's id of the fill, unique within its order: the execution id ends with it instead of the fill's number,
   * so that a fill recorded again is refused as already applied. @default the fill's number within its order
   */
  fillId?: string;
}

/** Input of {@link executionsFromProposal}. */
export interface ProposalExecutionInput {
  /** Stored proposal id: execution ids are `${proposalId}:${order index}:${fill number}`. */
  proposalId: string;
  orders: readonly ProposalOrderLike[];
  /** Trade date of the executions (fills may give their own). */
  tradeDate: string;
  /** Without fills: every order executes in full at its asset's price here (listing currency). */
  prices?: Readonly<Record<string, Decimal.Value>>;
  /** Units of each non-USD currency per USD on the trade date. */
  fxRates?: Readonly<Partial<Record<Currency, Decimal.Value>>>;
  /** The fills; absent = every order filled in full at `prices` (what is left of it after `previous`). */
  fills?: readonly OrderFill[];
  /**
   * Fills of the proposal applied before (by earlier calls): they count against their orders' quantities, and the
   * next fills relieve the lots after theirs. Fills without a `fillId` are numbered from 1 in each call, so a call
   * that repeats an earlier one makes the same execution ids (refused as already applied); without `fills`, the
   * rest of each order gets the number after its earlier fills.
   */
  previous?: readonly { order: number; quantity: Decimal.Value }[];
}

function kindOf(o: ProposalOrderLike): ExecutionKind | null {
  if (o.category === "short_order" && o.side === "sell") return "short_order";
  if (o.category === "short_cover" && o.side === "buy") return "short_cover";
  if (o.category === "long") return o.side === "buy" ? "buy" : "sell";
  return null;
}

function positive(value: unknown, path: string, issues: FieldIssue[]): Decimal | null {
  if (value === undefined || value === null || value === "") {
    issues.push({ path, message: "is required" });
    return null;
  }
  try {
    const d = new TaxDecimal(value as Decimal.Value);
    if (d.isFinite() && d.gt(0)) return d;
  } catch {
    // reported below
  }
  issues.push({ path, message: `must be a number > 0, got ${String(value)}` });
  return null;
}

/**
 * The executions of a traded proposal, in order index then fill order. Sells and covers name the proposal's lots:
 * a partly filled order relieves them in the proposal's order (the first fill takes the first lots), so the fills
 * of an order together never name more than the proposal did. Buys and short sales open lots whose id is the
 * execution id.
 * @throws {ValidationError} listing every bad fill or missing price (`fills[i].order`: not an order of the
 *   proposal; `fills[i].quantity`: above what is left of the order; `fills[i].price`: <= 0; `prices.<asset>`:
 *   missing; `fxRates.<currency>`: missing for a non-USD order). Nothing is returned then.
 * @example applyExecutions(book, executionsFromProposal({ proposalId, orders, tradeDate: "2025-06-02", fills }))
 */
export function executionsFromProposal(input: ProposalExecutionInput): Execution[] {
  const issues: FieldIssue[] = [];
  if (typeof input.proposalId !== "string" || input.proposalId.length === 0)
    issues.push({ path: "proposalId", message: "must be a non-empty string" });
  if (typeof input.tradeDate !== "string" || !isIsoDate(input.tradeDate))
    issues.push({ path: "tradeDate", message: `"${String(input.tradeDate)}" is not a YYYY-MM-DD date` });
  const orders = input.orders;
  const kinds = orders.map(kindOf);
  kinds.forEach((k, i) => {
    if (k === null) issues.push({ path: `orders[${i}]`, message: "side and category do not make an order" });
  });
  const orderQty = orders.map((o, i) => positive(o.quantity, `orders[${i}].quantity`, issues));
  if (issues.length > 0) throw invalid(issues);

  // Shares left per order, and the position in its lot list (lots are relieved in the proposal's order).
  const left = orderQty.map((q) => q!);
  const lotCursor = orders.map(() => ({ index: 0, usedOfCurrent: new TaxDecimal(0) }));
  const fillNumber = orders.map(() => 0);
  for (const p of input.previous ?? []) {
    const o = orders[p.order];
    if (o === undefined) continue;
    const q = new TaxDecimal(p.quantity);
    left[p.order] = TaxDecimal.max(left[p.order]!.minus(q), 0);
    // Without fills (the rest of every order) the numbers go on after the earlier fills; given fills are numbered
    // from 1 within this batch, so that the same fills sent twice collide (a later batch gives fill ids).
    if (input.fills === undefined) fillNumber[p.order]! += 1;
    if (o.taxLots) relieve(o.taxLots, lotCursor[p.order]!, q);
  }
  const fills: OrderFill[] =
    input.fills !== undefined
      ? [...input.fills]
      : orders.flatMap((o, i) =>
          left[i]!.gt(0)
            ? [{ order: i, quantity: left[i]!, price: input.prices?.[o.themeAssetId] as Decimal.Value }]
            : [],
        );
  const pricePath = (i: number, order: number) =>
    input.fills !== undefined ? `fills[${i}].price` : `prices.${orders[order]?.themeAssetId}`;
  const out: Execution[] = [];
  const fillIds = orders.map(() => new Set<string>());
  fills.forEach((f, i) => {
    const at = `fills[${i}]`;
    const before = issues.length;
    const o = Number.isInteger(f.order) ? orders[f.order] : undefined;
    if (o === undefined) {
      issues.push({
        path: `${at}.order`,
        message: `${String(f.order)} is not an order of the proposal (0..${orders.length - 1})`,
      });
      return;
    }
    const quantity = positive(f.quantity, `${at}.quantity`, issues);
    const price = positive(f.price, pricePath(i, f.order), issues);
    const currency = o.currency ?? "USD";
    let fxRate: Decimal | null = new TaxDecimal(1);
    if (f.fxRate !== undefined) fxRate = positive(f.fxRate, `${at}.fxRate`, issues);
    else if (currency !== "USD") fxRate = positive(input.fxRates?.[currency], `fxRates.${currency}`, issues);
    const tradeDate = f.tradeDate ?? input.tradeDate;
    if (!isIsoDate(tradeDate))
      issues.push({ path: `${at}.tradeDate`, message: `"${tradeDate}" is not a YYYY-MM-DD date` });
    if (quantity?.gt(left[f.order]!))
      issues.push({
        path: `${at}.quantity`,
        message: `${quantity.toString()} shares is above the ${left[f.order]!.toString()} left of order ${f.order} (${o.themeAssetId})`,
      });
    if (f.fillId !== undefined) {
      if (fillIds[f.order]!.has(f.fillId))
        issues.push({ path: `${at}.fillId`, message: `${f.fillId} is given twice for order ${f.order}` });
      fillIds[f.order]!.add(f.fillId);
    }
    if (issues.length > before) return;
    left[f.order] = left[f.order]!.minus(quantity!);
    fillNumber[f.order]! += 1;
    const id = `${input.proposalId}:${f.order}:${f.fillId ?? fillNumber[f.order]}`;
    const kind = kinds[f.order]!;
    const execution: Execution = {
      id,
      kind,
      themeAssetId: o.themeAssetId,
      tradeDate,
      quantity: quantity!.toString(),
      price: price!.toString(),
      currency,
      fxRate: fxRate!.toString(),
      ...(f.fees === undefined ? {} : { fees: f.fees }),
    };
    if ((kind === "sell" || kind === "short_cover") && o.taxLots) {
      // This fill's share of the order's lots, continuing where the previous fill stopped.
      const { lots, need } = relieve(o.taxLots, lotCursor[f.order]!, quantity!);
      if (need.gt(0))
        issues.push({
          path: `${at}.quantity`,
          message: `the lots of order ${f.order} hold ${need.toString()} shares fewer than its fills`,
        });
      else execution.lots = lots;
    }
    out.push(execution);
  });
  if (issues.length > 0) throw invalid(issues);
  return out;
}

/**
 * Takes `quantity` shares from an order's lots, from where `cursor` stands (advanced): the lots taken, and the
 * shares the lots could not cover.
 */
function relieve(
  taxLots: readonly { lotId: string; quantity: Decimal.Value }[],
  cursor: { index: number; usedOfCurrent: Decimal },
  quantity: Decimal,
): { lots: { lotId: string; quantity: string }[]; need: Decimal } {
  const lots: { lotId: string; quantity: string }[] = [];
  let need = quantity;
  while (need.gt(0) && cursor.index < taxLots.length) {
    const line = taxLots[cursor.index]!;
    const avail = new TaxDecimal(line.quantity).minus(cursor.usedOfCurrent);
    const q = avail.lte(need) ? avail : need;
    if (q.gt(0)) lots.push({ lotId: line.lotId, quantity: q.toString() });
    need = need.minus(q);
    if (q.eq(avail)) {
      cursor.index += 1;
      cursor.usedOfCurrent = new TaxDecimal(0);
    } else cursor.usedOfCurrent = cursor.usedOfCurrent.plus(q);
  }
  return { lots, need };
}

function invalid(issues: FieldIssue[]): ValidationError {
  return new ValidationError(
    `The proposal's executions are invalid; nothing was applied: ${issues.map((x) => `${x.path}: ${x.message}`).join("; ")}`,
    issues,
  );
}
