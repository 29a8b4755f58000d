/**
 * @module cli/export-csv
 * The CSV layouts of `lotwise lots export` and `lotwise proposal export`, built from what a Backend returns (the
 * account with its lots, the stored proposal with its orders), so they are the same locally and with --url.
 *
 * - Lots: the columns `lotwise lots import` recognizes by name (docs/lots-import.md), each lot's cost basis in the
 *   unit it was written in (per share or total), so that importing the file gives back the same lots.
 * - Orders: a broker bulk-order file (docs/proposals.md, "Order file"): one row per order (layout `generic`), or one
 *   row per lot a sell consumes (layout `lots`, the specific-identification instructions for the desk).
 */
import { Decimal } from "decimal.js";
import type { Account, ProposalOrder, ProposalResponse, TaxLotRead } from "../contract/index.js";
import type { CsvColumn } from "./csv-out.js";

/** Columns of a lots export; every header is one `lots import` finds without --map. */
export const LOT_EXPORT_COLUMNS: readonly CsvColumn<TaxLotRead>[] = [
  { header: "Symbol", value: (l) => l.theme_asset_id.split(":")[0] },
  { header: "MIC", value: (l) => l.theme_asset_id.split(":")[1] },
  { header: "Quantity", value: (l) => l.quantity },
  // Only one of the two cost columns is filled: the unit the lot was written in, so the import keeps it.
  { header: "Cost Per Share", value: (l) => (l.cost_basis_unit === "per_share" ? l.cost_basis : null) },
  { header: "Total Cost", value: (l) => (l.cost_basis_unit === "total" ? l.cost_basis : null) },
  { header: "Currency", value: (l) => l.cost_basis_currency },
  { header: "FX Rate", value: (l) => l.fx_rate },
  { header: "Trade Date", value: (l) => l.trade_date },
  { header: "Wash Sale Date", value: (l) => l.wash_sale_date },
  { header: "Last Sold For Loss Date", value: (l) => l.last_sold_for_loss_date },
];

/** Layouts of the proposal order file. */
export const ORDER_FILE_LAYOUTS = ["generic", "lots"] as const;
export type OrderFileLayout = (typeof ORDER_FILE_LAYOUTS)[number];

/** Broker side of an order: a long buy or sell, opening a short, covering one. */
export function orderSide(o: ProposalOrder): "BUY" | "SELL" | "SELL_SHORT" | "BUY_TO_COVER" {
  if (o.order_category === "short_order") return "SELL_SHORT";
  if (o.order_category === "short_cover") return "BUY_TO_COVER";
  return o.amount.startsWith("-") ? "SELL" : "BUY";
}

/** One order with what every row of the file repeats. */
export interface OrderFileOrder {
  account: string;
  proposal: string;
  order: ProposalOrder;
}

/** One lot line of a sell, with its order. */
export interface OrderFileLot extends OrderFileOrder {
  lot: NonNullable<ProposalOrder["tax_lots"]>[number];
}

const abs = (v: string) => new Decimal(v).abs().toFixed();
const symbolOf = (o: ProposalOrder) => o.ticker_symbol ?? o.ticker.split(":")[0];
const micOf = (o: ProposalOrder) => o.ticker.split(":")[1];
/** USD value of an order: amount_usd (non-USD assets), else the notional, else none (a USD share order). */
/**
 * The order's value in USD: `amount_usd` (non-USD assets), a notional amount, or, for a share order of a USD asset
 * already held, its shares at the price of the holding (`existing_market_value / existing_quantity`), to the cent;
 * null when none is known (a share buy of a new USD position).
 */
export function estimatedValueUsd(o: ProposalOrder): string | null {
  if (o.amount_usd != null) return abs(o.amount_usd);
  if (o.type === "notional") return abs(o.amount);
  const held = o.existing_quantity == null ? null : new Decimal(o.existing_quantity);
  if (o.currency !== "USD" || held === null || held.lte(0) || o.existing_market_value == null) return null;
  return new Decimal(o.amount).abs().times(o.existing_market_value).dividedBy(held).toFixed(2);
}
const valueUsd = estimatedValueUsd;
const hasLots = (o: ProposalOrder) => (o.tax_lots?.length ?? 0) > 0;

/** The columns of the `generic` layout: one row per order. */
export const GENERIC_ORDER_COLUMNS: readonly CsvColumn<OrderFileOrder>[] = [
  { header: "Account", value: (r) => r.account },
  { header: "Symbol", value: (r) => symbolOf(r.order) },
  { header: "Exchange", value: (r) => micOf(r.order) },
  { header: "Side", value: (r) => orderSide(r.order) },
  { header: "Quantity", value: (r) => (r.order.type === "qty" ? abs(r.order.amount) : null) },
  { header: "Notional", value: (r) => (r.order.type === "notional" ? abs(r.order.amount) : null) },
  { header: "Notional Currency", value: (r) => (r.order.type === "notional" ? "USD" : null) },
  { header: "Currency", value: (r) => r.order.currency },
  { header: "Order Type", value: () => "MKT" },
  { header: "Time In Force", value: () => "DAY" },
  { header: "Lot Method", value: (r) => (hasLots(r.order) ? "SPECIFIC_ID" : null) },
  {
    header: "Lots",
    value: (r) => (r.order.tax_lots ?? []).map((l) => `${l.trade_date} x ${l.quantity}`).join("; ") || null,
  },
  { header: "Est. Value USD", value: (r) => valueUsd(r.order) },
  { header: "Reason", value: (r) => r.order.reason || null },
  { header: "Reference", value: (r) => r.proposal },
];

/** The columns of the `lots` layout: one row per lot a sell consumes. */
export const LOT_ORDER_COLUMNS: readonly CsvColumn<OrderFileLot>[] = [
  { header: "Account", value: (r) => r.account },
  { header: "Symbol", value: (r) => symbolOf(r.order) },
  { header: "Exchange", value: (r) => micOf(r.order) },
  { header: "Side", value: (r) => orderSide(r.order) },
  { header: "Order Quantity", value: (r) => abs(r.order.amount) },
  { header: "Lot Method", value: () => "SPECIFIC_ID" },
  { header: "Lot Trade Date", value: (r) => r.lot.trade_date },
  { header: "Lot Quantity", value: (r) => r.lot.quantity },
  { header: "Lot Cost Basis USD", value: (r) => r.lot.cost_basis },
  { header: "Lot Gain USD", value: (r) => r.lot.gain },
  { header: "Reference", value: (r) => r.proposal },
];

/** The account as the broker knows it: its external id (custodian account number), else its uuid. */
export function brokerAccount(account: Pick<Account, "uuid" | "external_id">): string {
  return account.external_id ?? account.uuid;
}

/** Rows of the order file of a proposal in `layout`, with their columns. */
export function orderFile(
  proposal: ProposalResponse,
  account: Pick<Account, "uuid" | "external_id">,
  layout: OrderFileLayout,
):
  | { layout: "generic"; rows: OrderFileOrder[]; columns: readonly CsvColumn<OrderFileOrder>[] }
  | { layout: "lots"; rows: OrderFileLot[]; columns: readonly CsvColumn<OrderFileLot>[] } {
  const base = proposal.orders.map((order) => ({
    account: brokerAccount(account),
    proposal: proposal.proposal_uuid,
    order,
  }));
  if (layout === "generic") return { layout, rows: base, columns: GENERIC_ORDER_COLUMNS };
  return {
    layout,
    rows: base.flatMap((r) => (r.order.tax_lots ?? []).map((lot) => ({ ...r, lot }))),
    columns: LOT_ORDER_COLUMNS,
  };
}
