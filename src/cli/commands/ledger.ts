/**
 * @module cli/commands/ledger
 * `lotwise trades apply-proposal|import|list` (executions into the account ledger) and `lotwise ledger show|export`
 * (the realized-gains ledger, Form 8949-style) — through the Backend, so they work the same on a local store and
 * with --url (docs/ledger.md, "Operations").
 */
import { open, readFile, writeFile } from "node:fs/promises";
import { basename, resolve } from "node:path";
import type { Command } from "commander";
import { parse } from "csv-parse/sync";
import type {
  ExecutionList,
  ExecutionResult,
  ProposalExecutionRequest,
  RealizedLedger,
  RealizedQuery,
  TradeImportQuery,
} from "../../contract/index.js";
import { BASIS_REPORTING, TRADE_CSV_FIELDS } from "../../contract/index.js";
import { CURRENCIES } from "../../core/data/types.js";
import { type FieldIssue, ValidationError } from "../../core/errors.js";
import { TaxDecimal } from "../../core/tax/index.js";
import type { CommandContext } from "../context.js";
import { usageError } from "../errors.js";
import { OUT_OPTION_HELP, writeListOut } from "../list-out.js";
import { renderKeyValues, renderTable } from "../output.js";
import { action, dateFlag, examples, type ProgramHooks } from "../program.js";
import { money, quantity } from "../render.js";

const collect = (v: string, acc: string[] = []) => [...acc, v];

/** Fills from a CSV: order, quantity, price, and optional fees, fx_rate, trade_date, fill_id columns. */
export async function readFillsFile(path: string): Promise<NonNullable<ProposalExecutionRequest["fills"]>> {
  return (await readFillsFileLines(path)).fills;
}

/** {@link readFillsFile}, with the file line of each fill (`lines[i]` is the line of `fills[i]`). */
export async function readFillsFileLines(
  path: string,
): Promise<{ fills: NonNullable<ProposalExecutionRequest["fills"]>; lines: number[] }> {
  const text = await readFile(path, "utf8");
  const records = parse(text, {
    columns: (h: string[]) => h.map((x) => x.trim().toLowerCase().replace(/\s+/g, "_")),
    skip_empty_lines: true,
    bom: true,
    trim: true,
    info: true,
  }) as unknown as { record: Record<string, string>; info: { lines: number } }[];
  const issues: FieldIssue[] = [];
  const lines = records.map((x) => x.info.lines);
  const fills = records.map(({ record: r }, i) => {
    const line = lines[i]!;
    const order = Number(r.order ?? r.order_index ?? "");
    if (!Number.isInteger(order) || order < 0)
      issues.push({
        path: `${path}: line ${line}, column order`,
        message: `"${r.order ?? ""}" is not an order index`,
      });
    for (const f of ["quantity", "price"])
      if (!r[f]) issues.push({ path: `${path}: line ${line}, column ${f}`, message: "is empty" });
    return {
      order,
      quantity: r.quantity ?? "",
      price: r.price ?? "",
      ...(r.fees ? { fees: r.fees } : {}),
      ...(r.fx_rate ? { fx_rate: r.fx_rate } : {}),
      ...(r.trade_date ? { trade_date: r.trade_date } : {}),
      ...(r.fill_id ? { fill_id: r.fill_id } : {}),
    };
  });
  if (issues.length > 0) throw new ValidationError(`${path}: ${issues.length} problem(s).`, issues);
  return { fills, lines };
}

/**
 * The service's refusal of a fills file in the file's terms: `fills[2].price` becomes `fills.csv: line 4, column
 * price` in the issues and the message (the service, local or remote, only knows the request's fill indexes).
 */
export function fillIssuesInFile(err: unknown, file: string, lines: readonly number[]): unknown {
  if (!(err instanceof ValidationError)) return err;
  const rename = (text: string) =>
    text.replace(/fills\[(\d+)\](?:\.(\w+))?/g, (m, i: string, field: string | undefined) => {
      const line = lines[Number(i)];
      if (line === undefined) return m;
      return `${file}: line ${line}${field ? `, column ${field}` : ""}`;
    });
  return new ValidationError(
    rename(err.message),
    err.issues.map((x) => ({ ...x, path: rename(x.path) })),
    err.code,
  );
}

/** A price or fee as executed: grouped, at least cents, every further digit kept (`44.449`, `1,250.00`). */
function executedAmount(v: string): string {
  const n = Number(v);
  if (!Number.isFinite(n)) return v;
  return n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 10 });
}

/**
 * An account's executions for the terminal. Price and fees are in the trade's currency, which the price names (a
 * CAD fill of 135.36 is not a USD one); they keep every digit the broker gave.
 */
export function renderExecutionList(list: ExecutionList): string {
  return renderTable(
    list.executions,
    [
      { header: "Date", value: (e) => e.trade_date },
      { header: "Id", value: (e) => e.execution_id },
      { header: "Side", value: (e) => e.side },
      { header: "Ticker", value: (e) => e.ticker },
      { header: "Quantity", value: (e) => quantity(e.quantity), align: "right" },
      { header: "Price", value: (e) => `${executedAmount(e.price)} ${e.currency}`, align: "right" },
      { header: "Fees", value: (e) => executedAmount(e.fees), align: "right" },
      { header: "Source", value: (e) => e.source },
    ],
    `${list.executions.length} execution(s)`,
  );
}

/** What an application wrote, for the terminal. */
export function renderExecutionResult(r: ExecutionResult): string {
  const head = renderKeyValues(
    [
      ["Account", r.account_uuid],
      ["Executions applied", r.execution_ids.length],
      ["Realized rows", r.realized.length],
      ["Realized total (USD)", money(r.realized_total_usd)],
      ["Wash-sale adjustments", r.wash_sales],
      ["Other accounts updated", r.household_accounts_updated.join(", ") || "none"],
      ["Cash change (USD)", money(r.cash_delta_usd)],
      ["Cash (USD)", money(r.cash_value_usd)],
      ["Lots", r.lots],
      ["Short lots", r.short_lots],
    ],
    "Trades applied",
  );
  // Tables are separated by a blank line, as in every other command's output.
  const warnings = (r.warnings ?? []).map((w) => `\nWarning: ${w}`).join("");
  return `${r.realized.length === 0 ? head : `${head}\n\n${realizedTable(r.realized, "Realized")}`}${warnings}`;
}

/**
 * The realized rows. With `accounts` (a household: the rows of several accounts), an Account column first, naming
 * each row's account by `accounts.get(uuid)`, else by its uuid.
 */
function realizedTable(
  rows: RealizedLedger["rows"],
  title: string,
  accounts?: ReadonlyMap<string, string>,
): string {
  return renderTable(
    rows,
    [
      ...(accounts === undefined
        ? []
        : [
            {
              header: "Account",
              value: (x: RealizedLedger["rows"][number]) =>
                x.account_uuid === null ? "" : (accounts.get(x.account_uuid) ?? x.account_uuid),
            },
          ]),
      { header: "Description", value: (x) => x.description },
      { header: "Acquired", value: (x) => x.date_acquired },
      { header: "Sold", value: (x) => x.date_sold },
      { header: "Proceeds", value: (x) => money(x.proceeds), align: "right" },
      { header: "Basis", value: (x) => money(x.cost_basis), align: "right" },
      { header: "Code", value: (x) => x.adjustment_code },
      { header: "Adj.", value: (x) => (x.adjustment_code ? money(x.adjustment) : ""), align: "right" },
      { header: "Gain", value: (x) => money(x.form_8949_gain), align: "right" },
      { header: "Term", value: (x) => (x.term === "long_term" ? "long" : "short") },
    ],
    title,
  );
}

/**
 * The realized-gains ledger for the terminal: rows, totals per term, Schedule D. A client's (household) rows say
 * which account sold: by the name in `accountNames` when it names one account only, else by the account's uuid.
 */
export function renderRealizedLedger(
  l: RealizedLedger,
  accountNames: ReadonlyMap<string, string | null> = new Map(),
): string {
  const t = l.totals;
  const totals = renderTable(
    [
      ["Short-term", t.short_term],
      ["Long-term", t.long_term],
    ] as const,
    [
      { header: "", value: (x) => x[0] },
      { header: "Rows", value: (x) => x[1].rows, align: "right" },
      { header: "Proceeds", value: (x) => money(x[1].proceeds), align: "right" },
      { header: "Basis", value: (x) => money(x[1].cost_basis), align: "right" },
      { header: "Adjustments", value: (x) => money(x[1].adjustments), align: "right" },
      { header: "Gains", value: (x) => money(x[1].gains), align: "right" },
      { header: "Losses", value: (x) => money(x[1].losses), align: "right" },
      { header: "Net", value: (x) => money(x[1].net), align: "right" },
    ],
    `Year ${l.year} totals, exact (net ${money(t.net)}, wash-sale disallowed ${money(t.disallowed_loss)}); rows and Schedule D are in cents as on Form 8949`,
  );
  const sd = renderTable(
    l.schedule_d.filter(
      (x) => Number(x.proceeds) !== 0 || Number(x.cost_basis) !== 0 || ["7", "15", "16"].includes(x.line),
    ),
    [
      { header: "Line", value: (x) => x.line },
      { header: "", value: (x) => x.label },
      { header: "Proceeds", value: (x) => money(x.proceeds), align: "right" },
      { header: "Basis", value: (x) => money(x.cost_basis), align: "right" },
      { header: "Adj.", value: (x) => money(x.adjustments), align: "right" },
      { header: "Gain", value: (x) => money(x.gain), align: "right" },
    ],
    "Schedule D",
  );
  const who = l.scope === "client" ? `client ${l.client_uuid}` : `account ${l.account_uuid}`;
  let accounts: Map<string, string> | undefined;
  if (l.scope === "client") {
    const uses = new Map<string, number>();
    for (const name of accountNames.values()) if (name) uses.set(name, (uses.get(name) ?? 0) + 1);
    accounts = new Map();
    for (const [uuid, name] of accountNames) if (name && uses.get(name) === 1) accounts.set(uuid, name);
  }
  const rows =
    l.rows.length === 0
      ? `No realized gains in ${l.year} for ${who}.`
      : realizedTable(l.rows, `Realized ${l.year}, ${who}`, accounts);
  return `${rows}\n\n${totals}\n\n${sd}`;
}

function realizedQuery(opts: { year: string; reporting?: string }): RealizedQuery {
  const year = Number(opts.year);
  if (!Number.isInteger(year) || year < 1900 || year > 2999)
    throw usageError(`--year must be a year such as 2025`, "year");
  if (opts.reporting !== undefined && !(BASIS_REPORTING as readonly string[]).includes(opts.reporting))
    throw usageError(`--reporting must be one of ${BASIS_REPORTING.join(", ")}`, "reporting");
  return { year, ...(opts.reporting ? { reporting: opts.reporting as RealizedQuery["reporting"] } : {}) };
}

export function registerLedger(program: Command, hooks: ProgramHooks): void {
  const trades = program
    .command("trades")
    .description(
      "Executions of an account: a stored proposal applied as executed, a broker trade-confirmation CSV, the list.",
    );
  examples(
    trades
      .command("apply-proposal <proposal>")
      .description(
        "Apply a stored proposal as executed: every order at the proposal's prices (the closes of its as_of_date), or the fills of --fills FILE.csv (columns order, quantity, price, and optional fees, fx_rate, trade_date, fill_id; partial fills allowed). Sells relieve exactly the lots the proposal named; wash sales apply across the client's accounts. Applying a proposal twice is refused; to record more fills of a partly filled proposal, give them a fill_id (the broker's id), or run it without --fills to record the rest at the proposal's prices. All or nothing.",
      )
      .requiredOption("--account <uuid>", "the account the proposal was made for")
      .option("--fills <file>", "the broker's fills (CSV)")
      .option("--trade-date <date>", "trade date (default: the proposal's as_of_date)")
      .action(
        action(
          hooks,
          async (ctx, uuid: string, opts: { account: string; fills?: string; tradeDate?: string }) => {
            const file = opts.fills ? await readFillsFileLines(opts.fills) : undefined;
            const body: ProposalExecutionRequest = {
              ...(opts.tradeDate ? { trade_date: opts.tradeDate } : {}),
              ...(file ? { fills: file.fills } : {}),
            };
            const backend = await ctx.backend();
            const found = await backend.findAccount(opts.account);
            let r: ExecutionResult;
            try {
              r = await backend.executeProposal(found.client_uuid, opts.account, uuid, body);
            } catch (err) {
              throw opts.fills && file ? fillIssuesInFile(err, opts.fills, file.lines) : err;
            }
            if (ctx.out.json) ctx.out.printJson(r);
            else ctx.out.line(renderExecutionResult(r));
          },
        ),
      ),
    "lotwise trades apply-proposal 5d2c... --account 91aad834-...",
    "lotwise trades apply-proposal 5d2c... --account 91aad834-... --fills fills.csv",
  );
  examples(
    trades
      .command("import <file>")
      .description(
        `Record the trades of a broker trade-confirmation CSV. Columns are recognized by name (Trade ID, Action/Side, Symbol, Trade Date, Quantity, Price, Commission/Fees, Currency, FX Rate, MIC, Lot ID) or mapped with --map FIELD=HEADER (fields: ${TRADE_CSV_FIELDS.join(", ")}). The file is one batch in one transaction: errors name the line and column, and nothing is applied when any row is bad. Sells relieve the lot of a lot_id column, else the account's lot method picks. A non-USD row without an FX rate takes the market's rate of its currency per USD on the trade date (or the latest before it); without one in the market data the file is refused.`,
      )
      .requiredOption("--account <uuid>", "the account")
      .option("--map <field=header>", "use this header for a field (repeatable)", collect)
      .option("--date-order <order>", "how to read 03/04/2024: auto, mdy, dmy, ymd", "auto")
      .option(
        "--currency <ccy>",
        `currency of rows without one (${CURRENCIES.join(", ")}; default: the listing's currency)`,
      )
      .option("--mic <mic>", "exchange of symbols without one")
      .action(
        action(
          hooks,
          async (
            ctx,
            file: string,
            opts: { account: string; map?: string[]; dateOrder: string; currency?: string; mic?: string },
          ) => {
            if (!["auto", "mdy", "dmy", "ymd"].includes(opts.dateOrder))
              throw usageError("--date-order must be auto, mdy, dmy or ymd", "date-order");
            if (opts.currency && !(CURRENCIES as readonly string[]).includes(opts.currency.toUpperCase()))
              throw usageError(`--currency must be one of ${CURRENCIES.join(", ")}`, "currency");
            const query: Record<string, string> = {
              file_name: basename(file),
              date_order: opts.dateOrder,
              ...(opts.currency ? { currency: opts.currency.toUpperCase() } : {}),
              ...(opts.mic ? { mic: opts.mic.toUpperCase() } : {}),
            };
            for (const m of opts.map ?? []) {
              const eq = m.indexOf("=");
              const field = m.slice(0, eq);
              if (eq < 1 || !(TRADE_CSV_FIELDS as readonly string[]).includes(field))
                throw usageError(
                  `--map expects FIELD=HEADER with FIELD one of ${TRADE_CSV_FIELDS.join(", ")}; got "${m}"`,
                  "map",
                );
              query[`map_${field}`] = m.slice(eq + 1);
            }
            const backend = await ctx.backend();
            const handle = await open(file, "r");
            let r: ExecutionResult;
            try {
              r = await backend.importTrades(
                opts.account,
                handle.createReadStream(),
                query as TradeImportQuery,
              );
            } finally {
              await handle.close().catch(() => undefined);
            }
            if (ctx.out.json) ctx.out.printJson(r);
            else ctx.out.line(renderExecutionResult(r));
          },
        ),
      ),
    "lotwise trades import confirms-june.csv --account 91aad834-...",
    "lotwise trades import fills.csv --account 91aad834-... --map execution_id='Conf #' --date-order dmy",
  );
  examples(
    trades
      .command("list")
      .description("List the executions applied to an account, by trade date.")
      .requiredOption("--account <uuid>", "the account")
      .option("--from <date>", "first trade date", dateFlag)
      .option("--to <date>", "last trade date", dateFlag)
      .option("--out <file>", OUT_OPTION_HELP)
      .action(
        action(hooks, async (ctx, opts: { account: string; from?: string; to?: string; out?: string }) => {
          const backend = await ctx.backend();
          const found = await backend.findAccount(opts.account);
          const list = await backend.listExecutions(found.client_uuid, opts.account, {
            ...(opts.from ? { from: opts.from } : {}),
            ...(opts.to ? { to: opts.to } : {}),
          });
          if (opts.out)
            await writeListOut(
              ctx.out,
              opts.out,
              "executions",
              list.executions,
              [
                { header: "trade_date", value: (e) => e.trade_date },
                { header: "execution_id", value: (e) => e.execution_id },
                { header: "source", value: (e) => e.source },
                { header: "proposal_uuid", value: (e) => e.proposal_uuid },
                { header: "order_index", value: (e) => e.order_index },
                { header: "side", value: (e) => e.side },
                { header: "ticker", value: (e) => e.ticker },
                { header: "quantity", value: (e) => e.quantity },
                { header: "price", value: (e) => e.price },
                { header: "fees", value: (e) => e.fees },
                { header: "currency", value: (e) => e.currency },
                { header: "fx_rate", value: (e) => e.fx_rate },
              ],
              list,
            );
          else if (ctx.out.json) ctx.out.printJson(list);
          else ctx.out.line(renderExecutionList(list));
        }),
      ),
    "lotwise trades list --account 91aad834-... --from 2025-01-01",
    "lotwise trades list --account 91aad834-... --out executions.csv",
  );

  const ledger = program
    .command("ledger")
    .description("Realized gains of an account or a client: rows, year totals, Form 8949 and Schedule D.");
  const read = async (
    ctx: CommandContext,
    opts: { account?: string; client?: string; year: string; reporting?: string },
  ): Promise<RealizedLedger> => {
    if ((opts.account === undefined) === (opts.client === undefined))
      throw usageError("give --account UUID or --client UUID (one of them)", "account");
    const query = realizedQuery(opts);
    const backend = await ctx.backend();
    if (opts.client !== undefined) return backend.clientRealized(opts.client, query);
    const found = await backend.findAccount(opts.account!);
    return backend.accountRealized(found.client_uuid, opts.account!, query);
  };
  examples(
    ledger
      .command("show")
      .description(
        "Show the realized gains of a tax year: one row per closed lot or lot part (description, acquired, sold, proceeds, basis, wash-sale code W and amount, gain, term), the totals per term and the Schedule D lines. --client gives the household (every account of the client).",
      )
      .option("--account <uuid>", "the account")
      .option("--client <uuid>", "every account of the client")
      .requiredOption("--year <year>", "tax year")
      .option("--reporting <boxes>", `Form 8949 boxes: ${BASIS_REPORTING.join(", ")}`)
      .action(
        action(
          hooks,
          async (ctx, opts: { account?: string; client?: string; year: string; reporting?: string }) => {
            const l = await read(ctx, opts);
            if (ctx.out.json) ctx.out.printJson(l);
            else {
              // A household's rows come from several accounts: name them as the advisor named them.
              const names = new Map<string, string | null>();
              if (l.scope === "client" && l.rows.length > 0)
                for (const a of (await (await ctx.backend()).getClient(l.client_uuid)).accounts)
                  names.set(a.uuid, a.name ?? null);
              ctx.out.line(renderRealizedLedger(l, names));
            }
          },
        ),
      ),
    "lotwise ledger show --account 91aad834-... --year 2025",
    "lotwise ledger show --client 0b6f... --year 2025 --json",
  );
  examples(
    ledger
      .command("export")
      .description(
        "Write the Form 8949-style CSV of a tax year (8949 lines Part I and II, part totals, Schedule D lines; layout in docs/ledger.md) to --out FILE, or print it.",
      )
      .option("--account <uuid>", "the account")
      .option("--client <uuid>", "every account of the client")
      .requiredOption("--year <year>", "tax year")
      .option("--reporting <boxes>", `Form 8949 boxes: ${BASIS_REPORTING.join(", ")}`)
      .option("--out <file>", "write the CSV to FILE")
      .action(
        action(
          hooks,
          async (
            ctx,
            opts: { account?: string; client?: string; year: string; reporting?: string; out?: string },
          ) => {
            const l = await read(ctx, opts);
            if (opts.out === undefined) {
              ctx.out.line(l.form_8949_csv.replace(/\n$/, ""));
              return;
            }
            const path = resolve(opts.out);
            await writeFile(path, l.form_8949_csv);
            const records = l.form_8949_csv.split("\n");
            const lines = records.filter((x) => x.startsWith("line,")).length;
            const summarized = records.filter((x) => x.startsWith("summary,")).length;
            // The net the file says: Schedule D line 16, the sum of its lines in cents (the exact total, with up to
            // 64 digits after an FX division, can differ from it by a cent per line).
            const net =
              l.schedule_d.find((x) => x.line === "16")?.gain ?? new TaxDecimal(l.totals.net).toFixed(2);
            if (ctx.out.json) ctx.out.printJson({ written: path, format: "csv", lines, summarized, net });
            else {
              const n = (k: number, one: string, many: string) => `${k} ${k === 1 ? one : many}`;
              ctx.out.line(
                `Wrote ${n(lines + summarized, "sale", "sales")} of ${l.year} to ${path} (CSV: ${n(lines, "Form 8949 line", "Form 8949 lines")}, ${summarized} in summary on Schedule D lines 1a/8a; net ${money(net)}).`,
              );
            }
          },
        ),
      ),
    "lotwise ledger export --account 91aad834-... --year 2025 --out 8949.csv",
    "lotwise ledger export --client 0b6f... --year 2025 --out household-8949.csv",
  );
}
