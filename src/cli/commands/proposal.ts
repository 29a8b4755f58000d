/** @module cli/commands/proposal `lotwise proposal create|show` (endpoint 1 and its read extension). */
import { readFile } from "node:fs/promises";
import { extname } from "node:path";
import type { Command } from "commander";
import type { OptimizedWeight, ProposalResponse } from "../../contract/index.js";
import { parseWeights } from "../../service/weights-file.js";
import { warningLine } from "../colour.js";
import { usageError } from "../errors.js";
import { estimatedValueUsd, ORDER_FILE_LAYOUTS, type OrderFileLayout, orderFile } from "../export-csv.js";
import { writeCsvExport } from "../list-out.js";
import { renderKeyValues, renderTable } from "../output.js";
import { action, examples, type ProgramHooks } from "../program.js";
import { money, quantity } from "../render.js";

/** Read target weights from a file: {@link parseWeights} of its text, named by its path in errors. */
export async function readWeightsFile(path: string): Promise<OptimizedWeight[]> {
  return parseWeights(await readFile(path, "utf8"), path, { json: extname(path).toLowerCase() === ".json" });
}

export function renderProposal(p: ProposalResponse): string {
  const parts: string[] = [];
  parts.push(
    renderKeyValues(
      [
        ["Proposal", p.proposal_uuid],
        ["As of", p.as_of_date ?? ""],
        ["NAV (USD)", money(p.nav_usd)],
        ["Investable (USD)", money(p.investable_usd)],
        ["Cash buffer (USD)", money(p.cash_buffer_usd_amount)],
        ["Cash buffer (CAD)", money(p.cash_buffer_cad_amount)],
        ["Orders", p.orders.length],
        ["Realized short-term (USD)", money(p.realized?.short_term_usd)],
        ["Realized long-term (USD)", money(p.realized?.long_term_usd)],
        ["Disallowed wash-sale losses (USD)", money(p.realized?.disallowed_loss_usd)],
        ["FX fees (USD)", money(p.fx_fees_usd)],
      ],
      "Rebalance proposal",
    ),
  );
  parts.push(
    renderTable(
      p.orders,
      [
        { header: "Ticker", value: (o) => o.ticker_symbol ?? o.ticker },
        { header: "Side", value: (o) => (o.amount.startsWith("-") ? "SELL" : "BUY") },
        // order_category says which book the order trades, not a holding period: "long" read as long-term.
        { header: "Book", value: (o) => BOOK[o.order_category ?? ""] ?? "" },
        { header: "Type", value: (o) => o.type },
        {
          header: "Amount",
          value: (o) => (o.type === "qty" ? quantity(o.amount) : money(o.amount)),
          align: "right",
        },
        {
          header: "USD",
          value: (o) => money(estimatedValueUsd(o)),
          align: "right",
        },
        { header: "Reason", value: (o) => o.reason ?? "" },
        { header: "Held qty", value: (o) => quantity(o.existing_quantity), align: "right" },
        {
          header: "Weight now",
          value: (o) => (o.existing_weight ? `${(Number(o.existing_weight) * 100).toFixed(2)}%` : ""),
          align: "right",
        },
        {
          header: "Target",
          value: (o) => (o.target_weight ? `${(Number(o.target_weight) * 100).toFixed(2)}%` : ""),
          align: "right",
        },
      ],
      "Orders (weights of NAV)",
    ),
  );
  const lots = p.orders.flatMap((o) => (o.tax_lots ?? []).map((l) => ({ o, l })));
  if (lots.length > 0)
    parts.push(
      renderTable(
        lots,
        [
          { header: "Ticker", value: ({ o }) => o.ticker_symbol ?? o.ticker },
          { header: "Lot trade date", value: ({ l }) => l.trade_date },
          { header: "Quantity", value: ({ l }) => quantity(l.quantity), align: "right" },
          { header: "Cost basis (USD)", value: ({ l }) => money(l.cost_basis), align: "right" },
          { header: "Gain (USD)", value: ({ l }) => money(l.gain), align: "right" },
        ],
        "Tax lots sold",
      ),
    );
  const fx = p.orders.filter((o) => o.fx_cost_breakdown);
  if (fx.length > 0)
    parts.push(
      renderTable(
        fx,
        [
          { header: "Ticker", value: (o) => o.ticker_symbol ?? o.ticker },
          { header: "Ccy", value: (o) => o.fx_cost_breakdown!.currency },
          { header: "Rate (per USD)", value: (o) => o.fx_cost_breakdown!.fx_rate, align: "right" },
          { header: "Base USD", value: (o) => money(o.fx_cost_breakdown!.base_amount_usd), align: "right" },
          { header: "Fee %", value: (o) => o.fx_cost_breakdown!.fx_fee_percentage, align: "right" },
          { header: "Fee USD", value: (o) => money(o.fx_cost_breakdown!.fx_fee_amount_usd), align: "right" },
          { header: "Net USD", value: (o) => money(o.fx_cost_breakdown!.net_amount_usd), align: "right" },
        ],
        "FX costs",
      ),
    );
  if ((p.dropped_orders?.length ?? 0) > 0)
    parts.push(
      renderTable(
        p.dropped_orders!,
        [
          { header: "Ticker", value: (d) => d.ticker },
          { header: "Side", value: (d) => d.side },
          { header: "Reason", value: (d) => d.reason },
          { header: "Wanted USD", value: (d) => money(d.wanted_amount_usd), align: "right" },
          { header: "Why", value: (d) => d.message },
        ],
        "Orders not placed",
      ),
    );
  for (const w of p.warnings ?? []) parts.push(warningLine(w.message));
  return parts.join("\n\n");
}

/** Words for order_category in tables. */
const BOOK: Readonly<Record<string, string>> = {
  long: "long position",
  short_order: "open short",
  short_cover: "cover short",
};

export function registerProposal(program: Command, hooks: ProgramHooks): void {
  const proposal = program
    .command("proposal")
    .description(
      "Rebalance proposals: orders, lots sold and realized gains for target weights (endpoint 1).",
    );
  examples(
    proposal
      .command("create")
      .description(
        "Create a proposal for an account from target weights (CSV with ticker,weight or JSON). Sells list the lots they consume (tax-optimal, wash-sale aware); the proposal is stored.",
      )
      .requiredOption("--account <uuid>", "the account")
      .requiredOption("--weights <file>", "target weights: CSV (ticker,weight) or JSON")
      .action(
        action(hooks, async (ctx, opts: { account: string; weights: string }) => {
          const weights = await readWeightsFile(opts.weights);
          const backend = await ctx.backend();
          const found = await backend.findAccount(opts.account);
          const p = await backend.createProposal(found.client_uuid, opts.account, {
            optimized_weights: weights,
          });
          if (ctx.out.json) ctx.out.printJson(p);
          else ctx.out.line(renderProposal(p));
        }),
      ),
    "lotwise proposal create --account 91aad834-... --weights fixtures/target-weights.csv",
  );
  examples(
    proposal
      .command("show <proposal>")
      .description("Show a stored proposal.")
      .requiredOption("--account <uuid>", "the account it was made for")
      .action(
        action(hooks, async (ctx, uuid: string, opts: { account: string }) => {
          const backend = await ctx.backend();
          const found = await backend.findAccount(opts.account);
          const p = await backend.getProposal(found.client_uuid, opts.account, uuid);
          if (ctx.out.json) ctx.out.printJson(p);
          else ctx.out.line(renderProposal(p));
        }),
      ),
    "lotwise proposal show 5d2c... --account 91aad834-...",
  );
  examples(
    proposal
      .command("export <proposal>")
      .description(
        "Write a stored proposal's orders as a broker bulk-order file (CSV; see docs/proposals.md, \"Order file\"). Layout generic: one row per order with Account (the account's external id, else its uuid), Symbol, Exchange, Side (BUY, SELL, SELL_SHORT, BUY_TO_COVER), Quantity or Notional (USD), Currency, Order Type MKT, Time In Force DAY, and for sells the lots chosen (Lot Method SPECIFIC_ID, Lots). Layout lots: one row per lot a sell consumes (trade date, quantity, cost basis, gain), the specific-identification instructions. Prints the CSV, or writes it to --out FILE (CSV whatever the name).",
      )
      .requiredOption("--account <uuid>", "the account it was made for")
      .option("--layout <layout>", `file layout: ${ORDER_FILE_LAYOUTS.join(" or ")}`, "generic")
      .option("--out <file>", "write the CSV to FILE and print one line saying what was written")
      .action(
        action(hooks, async (ctx, uuid: string, opts: { account: string; layout: string; out?: string }) => {
          if (!(ORDER_FILE_LAYOUTS as readonly string[]).includes(opts.layout))
            throw usageError(
              `--layout must be ${ORDER_FILE_LAYOUTS.join(" or ")}, not "${opts.layout}"`,
              "layout",
            );
          const backend = await ctx.backend();
          const found = await backend.findAccount(opts.account);
          const p = await backend.getProposal(found.client_uuid, opts.account, uuid);
          const file = orderFile(p, found.account, opts.layout as OrderFileLayout);
          if (file.layout === "generic")
            await writeCsvExport(ctx.out, opts.out, "orders", file.rows, file.columns);
          else await writeCsvExport(ctx.out, opts.out, "lot lines", file.rows, file.columns);
        }),
      ),
    "lotwise proposal export 5d2c... --account 91aad834-... --out orders.csv",
    "lotwise proposal export 5d2c... --account 91aad834-... --layout lots --out lots-to-sell.csv",
  );
}
