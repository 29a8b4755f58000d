/**
 * @module cli/commands/optimize
 * `lotwise optimize --account UUID` (the tax-aware optimizer's result for an account) and `lotwise rebalance
 * --account UUID` (optimize, then store the proposal of the optimized weights through endpoint 1). Both exit 1 when
 * the configuration is infeasible (after printing the diagnosis), so scripts can tell.
 */
import type { Command } from "commander";
import type {
  AccountOptimization,
  CashRequestReport,
  OptimizeRequest,
  RebalanceRequest,
} from "../../contract/index.js";
import { paintStatus, warningLine } from "../colour.js";
import { EXIT_FAILURE, EXIT_OK, usageError } from "../errors.js";
import { renderKeyValues, renderTable } from "../output.js";
import { actionWithCode, dateFlag, examples, type ProgramHooks, usdFlag } from "../program.js";
import { money, percent, quantity } from "../render.js";
import { renderProposal } from "./proposal.js";
import { type RunOptions, rebalanceAll, registerRebalanceRuns } from "./rebalance-runs.js";

/** The request body of the options (`--as-of`, already checked by its parser, {@link dateFlag}). */
function requestOf(opts: { asOf?: string }): OptimizeRequest {
  return opts.asOf === undefined ? {} : { as_of_date: opts.asOf };
}

/** The rebalance body of the options: `--as-of`, and at most one of `--withdraw` / `--deposit` (USD). */
function rebalanceRequestOf(opts: { asOf?: string; withdraw?: string; deposit?: string }): RebalanceRequest {
  const body: RebalanceRequest = requestOf(opts);
  if (opts.withdraw !== undefined && opts.deposit !== undefined)
    throw usageError("Give either --withdraw or --deposit, not both.", "--withdraw");
  // The amounts go as given: the contract refuses zero, negative or malformed ones naming the field, locally and remotely alike.
  if (opts.withdraw !== undefined) body.cash_request = { withdraw_usd: opts.withdraw };
  if (opts.deposit !== undefined) body.cash_request = { deposit_usd: opts.deposit };
  return body;
}

/** What a withdrawal or deposit did, for people. */
export function renderCashRequest(c: CashRequestReport): string {
  return renderKeyValues(
    [
      ["Request", `${c.kind} of ${money(c.amount_usd)} USD`],
      ["Method", c.method === "optimizer" ? "tax-aware optimizer" : "lot engine (least-tax sales)"],
      ["Why", c.method_reason],
      ["Cash stored / minimum (USD)", `${money(c.cash_before_usd)} / ${money(c.minimum_cash_usd)}`],
      ["Cash needed (USD)", money(c.cash_needed_usd)],
      ["Cash raised by the orders (USD)", money(c.cash_raised_usd)],
      ["Cash after, before costs (USD)", money(c.cash_after_usd)],
      ["Covered", c.covered ? "yes" : "NO"],
      ["Realized short-term (USD)", money(c.realized_short_term_usd)],
      ["Realized long-term (USD)", money(c.realized_long_term_usd)],
      ["Estimated tax (USD)", money(c.estimated_tax_usd)],
    ],
    "Cash request",
  );
}

const weight = (v: number) => percent(v, 2);

/** The risk model used: its name and universe, and for an uploaded model which one and its coverage. */
function riskModelLine(o: AccountOptimization): string {
  const u = o.uploaded_risk_model;
  if (u === null) return `${o.risk_model} (${o.universe_size} assets)`;
  return `${o.risk_model} "${u.name}" as of ${u.as_of_date} (${u.assets_covered} of ${o.universe_size} assets covered${u.assets_imputed > 0 ? `, ${u.assets_imputed} imputed` : ""})`;
}

/** Summary, trades and lots to sell of an optimization, for people. */
export function renderOptimization(o: AccountOptimization): string {
  const parts: string[] = [];
  const cap = o.risk_cap;
  parts.push(
    renderKeyValues(
      [
        ["Account", o.account_uuid],
        ["As of", o.as_of_date],
        ["Status", paintStatus(o.status.toUpperCase())],
        ["Benchmark", o.benchmark],
        ["Risk model", riskModelLine(o)],
        ["NAV (USD)", money(o.nav_usd)],
        ["Investable (USD)", money(o.investable_usd)],
        [
          "Cash before / buffer / after trading costs (USD)",
          `${money(o.cash_usd)} / ${money(o.cash_buffer_usd)} / ${money(o.cash_after_usd)}`,
        ],
        ["Tracking error (annualized)", o.tracking_error === null ? "n/a" : weight(o.tracking_error)],
        ["Total risk (annualized)", o.total_risk === null ? "n/a" : weight(o.total_risk)],
        [
          "Active-risk cap",
          cap === null
            ? "none"
            : `${weight(cap.requested)} requested, ${weight(cap.used)} used${cap.relaxations > 0 ? ` (${cap.relaxations} relaxation(s))` : ""}${cap.binding ? ", binding" : ""}`,
        ],
        ["Turnover (one-way)", weight(o.turnover)],
        ["Tax cost (USD)", money(o.tax_cost_usd)],
        ["Realized short-term (USD)", money(o.realized_short_term_usd)],
        ["Realized long-term (USD)", money(o.realized_long_term_usd)],
        ["Harvested losses (USD)", money(o.harvested_losses_usd)],
        ["Transaction costs (USD)", money(o.transaction_cost_usd + o.market_impact_usd)],
        ["Tax weight (tax_gamma)", o.tax_gamma],
        [
          "Solver",
          `${o.solver.status}: ${o.solver.rounds} rounds, ${o.solver.solves} solves, ${o.solver.qp_iterations} QP iterations`,
        ],
      ],
      "Optimization",
    ),
  );
  if (o.status === "infeasible") {
    parts.push(
      ["Diagnosis (no portfolio meets the constraints):", ...o.diagnosis.map((d) => `  - ${d}`)].join("\n"),
    );
  } else {
    parts.push(
      renderTable(
        o.trades,
        [
          { header: "Ticker", value: (t) => t.symbol },
          { header: "Listing", value: (t) => t.ticker },
          { header: "Side", value: (t) => t.side.toUpperCase() },
          { header: "Shares", value: (t) => quantity(t.shares), align: "right" },
          { header: "Price (USD)", value: (t) => money(t.price_usd), align: "right" },
          { header: "Amount (USD)", value: (t) => money(t.amount_usd), align: "right" },
          { header: "Weight now", value: (t) => weight(t.from_weight), align: "right" },
          { header: "Target", value: (t) => weight(t.to_weight), align: "right" },
        ],
        `Trades (${o.trades.length}; weights of the investable value, NAV less the cash buffers)`,
      ),
    );
    if (o.lots_to_sell.length > 0)
      parts.push(
        renderTable(
          o.lots_to_sell,
          [
            { header: "Ticker", value: (l) => l.symbol },
            { header: "Lot", value: (l) => l.lot_uuid.slice(0, 8) },
            { header: "Term", value: (l) => (l.term === "long_term" ? "long" : "short") },
            { header: "Quantity", value: (l) => quantity(l.quantity), align: "right" },
            { header: "Proceeds (USD)", value: (l) => money(l.proceeds_usd), align: "right" },
            { header: "Basis (USD)", value: (l) => money(l.cost_basis_usd), align: "right" },
            { header: "Gain (USD)", value: (l) => money(l.gain_usd), align: "right" },
            {
              header: "Tax alpha",
              value: (l) => (l.gain_usd < 0 ? (l.tax_alpha_ignored ? "no" : "yes") : ""),
            },
            {
              header: "Washed (USD)",
              value: (l) => (l.disallowed_loss_usd > 0 ? money(l.disallowed_loss_usd) : ""),
              align: "right",
            },
          ],
          `Lots to sell (${o.lots_to_sell.length})`,
        ),
      );
    if (o.short_lots_to_cover.length > 0)
      parts.push(
        renderTable(
          o.short_lots_to_cover,
          [
            { header: "Ticker", value: (l) => l.symbol },
            { header: "Short lot", value: (l) => l.lot_uuid.slice(0, 8) },
            { header: "Quantity", value: (l) => quantity(l.quantity), align: "right" },
            { header: "Proceeds (USD)", value: (l) => money(l.proceeds_usd), align: "right" },
            { header: "Cost (USD)", value: (l) => money(l.cost_usd), align: "right" },
            { header: "Gain (USD)", value: (l) => money(l.gain_usd), align: "right" },
          ],
          `Short lots to cover (${o.short_lots_to_cover.length})`,
        ),
      );
  }
  for (const w of o.warnings) parts.push(warningLine(w));
  return parts.join("\n\n");
}

export function registerOptimize(program: Command, hooks: ProgramHooks): void {
  examples(
    program
      .command("optimize")
      .description(
        "Run the tax-aware optimizer on an account: target weights, trades, lots to sell, tracking error, tax cost and turnover (nothing is stored). Exits 1 when the configuration is infeasible, after printing the diagnosis.",
      )
      .requiredOption("--account <uuid>", "the account")
      .option("--as-of <date>", "trade date YYYY-MM-DD (default: the market's latest date)", dateFlag)
      .action(
        actionWithCode(hooks, async (ctx, opts: { account: string; asOf?: string }) => {
          const body = requestOf(opts);
          const backend = await ctx.backend();
          const found = await backend.findAccount(opts.account);
          const o = await ctx.out.spin("Optimizing", () =>
            backend.optimizeAccount(found.client_uuid, opts.account, body),
          );
          if (ctx.out.json) ctx.out.printJson(o);
          else ctx.out.line(renderOptimization(o));
          return o.status === "infeasible" ? EXIT_FAILURE : EXIT_OK;
        }),
      ),
    "lotwise optimize --account 91aad834-...",
    "lotwise optimize --account 91aad834-... --as-of 2025-11-28 --json",
  );
  const rebalance = program.command("rebalance");
  examples(
    rebalance
      .description(
        "Optimize an account, then build and store the rebalance proposal of the optimized weights (as `lotwise proposal create` does); an infeasible configuration stores nothing and exits 1 with the diagnosis. With --all, a rebalance run over many accounts (--when breached|harvest|always, --client / --config / --accounts) with one outcome per account, stored (`lotwise rebalance runs list|show`); exits 1 when an account failed.",
      )
      .option("--account <uuid>", "the account (one account)")
      .option(
        "--all",
        "a rebalance run over many accounts (every account of the organization unless selected); against a service with a job queue (--url) its workers process the run and this command follows it",
      )
      .option(
        "--when <when>",
        "with --all: breached (drift status breach), harvest (a harvestable loss), always",
        "breached",
      )
      .option("--client <uuid>", "with --all: the accounts of this client")
      .option("--config <uuid>", "with --all: the accounts of this portfolio configuration")
      .option("--accounts <uuids>", "with --all: these accounts (comma-separated)")
      .option(
        "--force",
        "with --all: a new run even when this run exists; rebalance accounts already done on the date",
      )
      .option(
        "--concurrency <n>",
        "with --all on a local store: worker threads that process the run (default 1)",
      )
      .option("--as-of <date>", "trade date YYYY-MM-DD (default: the market's latest date)", dateFlag)
      .option(
        "--withdraw <usd>",
        "raise this much cash (USD, to the cent) with the least tax: the account ends with cash >= it + its cash buffers",
        usdFlag,
      )
      .option(
        "--deposit <usd>",
        "invest this much new cash (USD): the proposal assumes it was added (the stored cash is not changed)",
        usdFlag,
      )
      .action(
        actionWithCode(
          hooks,
          async (ctx, opts: RunOptions & { account?: string; withdraw?: string; deposit?: string }) => {
            if (opts.all) {
              if (opts.account !== undefined) throw usageError("Give --account or --all, not both.", "--all");
              for (const flag of ["withdraw", "deposit"] as const)
                if (opts[flag] !== undefined)
                  throw usageError(`--${flag} applies to one account: use --account.`, `--${flag}`);
              return rebalanceAll(ctx, opts);
            }
            for (const flag of ["client", "config", "accounts", "force", "concurrency"] as const)
              if (opts[flag] !== undefined)
                throw usageError(`--${flag} applies to a run over many accounts: add --all.`, `--${flag}`);
            const account = opts.account;
            if (account === undefined)
              throw usageError("Give --account UUID (one account) or --all (a rebalance run).", "--account");
            const body = rebalanceRequestOf(opts);
            const backend = await ctx.backend();
            const found = await backend.findAccount(account);
            const r = await ctx.out.spin("Optimizing and building the proposal", () =>
              backend.rebalanceAccount(found.client_uuid, account, body),
            );
            if (ctx.out.json) ctx.out.printJson(r);
            else {
              if (r.optimization !== null) {
                ctx.out.line(renderOptimization(r.optimization));
                ctx.out.line();
              }
              if (r.cash_request !== null) {
                ctx.out.line(renderCashRequest(r.cash_request));
                ctx.out.line();
              }
              ctx.out.line(r.proposal === null ? `No proposal: ${r.message}` : renderProposal(r.proposal));
            }
            return r.proposal === null && r.cash_request?.covered !== true ? EXIT_FAILURE : EXIT_OK;
          },
        ),
      ),
    "lotwise rebalance --account 91aad834-...",
    "lotwise rebalance --account 91aad834-... --withdraw 50000",
    "lotwise rebalance --account 91aad834-... --deposit 25000 --json",
    "lotwise rebalance --account 91aad834-... --url http://127.0.0.1:8000 --api-key lw_... --json",
    "lotwise rebalance --all --when breached",
    "lotwise rebalance --all --when harvest --client 3b2f...  --as-of 2025-12-31 --json",
    "lotwise rebalance runs list",
  );
  registerRebalanceRuns(rebalance, hooks);
}
