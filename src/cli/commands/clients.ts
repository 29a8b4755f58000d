/**
 * @module cli/commands/clients
 * `lotwise clients`, `lotwise accounts` and `lotwise lots import` — through the Backend, so they work the same on a
 * local store and against a server.
 */
import { open } from "node:fs/promises";
import { basename } from "node:path";
import type { Command } from "commander";
import { Decimal } from "decimal.js";
import type { ClientUpdate, LotImportQuery, LotImportResult } from "../../contract/index.js";
import { CURRENCIES, type Currency } from "../../core/data/types.js";
import { type DateOrder, LOT_CSV_FIELDS, type LotCsvField } from "../../service/lots-csv.js";
import { usageError } from "../errors.js";
import { LOT_EXPORT_COLUMNS } from "../export-csv.js";
import { OUT_OPTION_HELP, writeCsvExport, writeListOut } from "../list-out.js";
import { renderTable } from "../output.js";
import {
  action,
  actionWithCode,
  dateFlag,
  examples,
  fractionText,
  type ProgramHooks,
  readJsonInput,
  usdFlag,
} from "../program.js";
import {
  renderAccount,
  renderClient,
  renderClients,
  renderDrift,
  renderEvaluation,
  renderHarvest,
  renderHoldingsAsOf,
  renderLotImport,
} from "../render.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];

function parseJsonOption(text: string | undefined, name: string): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw usageError(`--${name} must be JSON, e.g. --${name} '{"tier":"gold"}'`, name);
  }
}

export function registerClients(program: Command, hooks: ProgramHooks): void {
  const clients = program
    .command("clients")
    .description("Clients of the organization (each holds one or more accounts).");
  examples(
    clients
      .command("create")
      .description("Create a client.")
      .option("--external-id <id>", "your identifier (CRM id)")
      .option("--metadata <json>", "any JSON to keep with the client")
      .action(
        action(hooks, async (ctx, opts: { externalId?: string; metadata?: string }) => {
          const backend = await ctx.backend();
          const metadata = parseJsonOption(opts.metadata, "metadata");
          const c = await backend.createClient({
            ...(opts.externalId ? { external_id: opts.externalId } : {}),
            ...(metadata !== undefined ? { metadata: metadata as never } : {}),
          });
          if (ctx.out.json) ctx.out.printJson(c);
          else ctx.out.line(renderClient(c));
        }),
      ),
    'lotwise clients create --external-id CRM-4411 --metadata \'{"segment":"HNW"}\'',
  );
  examples(
    clients
      .command("list")
      .description("List clients with their accounts and AUM.")
      .option("--out <file>", OUT_OPTION_HELP)
      .action(
        action(hooks, async (ctx, opts: { out?: string }) => {
          const list = await (await ctx.backend()).listClients();
          if (opts.out)
            await writeListOut(ctx.out, opts.out, "clients", list, [
              { header: "client_uuid", value: (c) => c.uuid },
              { header: "external_id", value: (c) => c.external_id },
              { header: "accounts", value: (c) => c.accounts.length },
              {
                header: "aum_usd",
                value: (c) => c.accounts.reduce((s, a) => s.plus(a.aum), new Decimal(0)).toFixed(),
              },
              { header: "created", value: (c) => c.created },
            ]);
          else if (ctx.out.json) ctx.out.printJson(list);
          else ctx.out.line(list.length ? renderClients(list) : "No clients yet: lotwise clients create");
        }),
      ),
    "lotwise clients list",
    "lotwise clients list --out clients.csv",
  );
  examples(
    clients
      .command("show <client>")
      .description("Show a client and its accounts.")
      .action(
        action(hooks, async (ctx, uuid: string) => {
          const c = await (await ctx.backend()).getClient(uuid);
          if (ctx.out.json) ctx.out.printJson(c);
          else ctx.out.line(renderClient(c));
        }),
      ),
    "lotwise clients show 4071d28c-2dc4-4a56-a175-da43c9c9e0c4 --json",
  );
  examples(
    clients
      .command("update <client>")
      .description(
        "Update a client (endpoint 6). Give the body as a JSON file (--file, '-' for stdin) and/or with flags. Holdings, customization_config, portfolio_config_uuid and asset_class_settings apply to --account (default: the client's first account); provided lists replace the stored ones.",
      )
      .option("--file <path>", "client update body (JSON), '-' for stdin")
      .option("--account <uuid>", "account the account-level fields apply to")
      .option("--external-id <id>", "new external id")
      .option("--portfolio-config <uuid>", "portfolio configuration the account follows")
      .action(
        action(
          hooks,
          async (
            ctx,
            uuid: string,
            opts: { file?: string; account?: string; externalId?: string; portfolioConfig?: string },
          ) => {
            const body = (opts.file ? await readJsonInput(opts.file) : {}) as Record<string, unknown>;
            if (typeof body !== "object" || body === null || Array.isArray(body))
              throw usageError("--file must hold a JSON object", "file");
            if (opts.account) body.account_uuid = opts.account;
            if (opts.externalId) body.external_id = opts.externalId;
            if (opts.portfolioConfig) body.portfolio_config_uuid = opts.portfolioConfig;
            const c = await (await ctx.backend()).updateClient(uuid, body as ClientUpdate);
            if (ctx.out.json) ctx.out.printJson(c);
            else ctx.out.line(renderClient(c));
          },
        ),
      ),
    "lotwise clients update 4071d28c-... --portfolio-config 6e0a8fbf-...",
    "lotwise clients update 4071d28c-... --file update.json --account 91aad834-...",
  );
  examples(
    clients
      .command("delete <client>")
      .description("Delete a client with its accounts, lots, proposals and backtests.")
      .action(
        action(hooks, async (ctx, uuid: string) => {
          await (await ctx.backend()).deleteClient(uuid);
          if (ctx.out.json) ctx.out.printJson({ deleted: uuid });
          else ctx.out.line(`Deleted client ${uuid}.`);
        }),
      ),
    "lotwise clients delete 4071d28c-...",
  );

  const accounts = program
    .command("accounts")
    .description("Accounts of clients: holdings (tax lots), cash, configuration.");
  examples(
    accounts
      .command("create")
      .description("Create an account for a client.")
      .requiredOption("--client <uuid>", "owning client")
      .option("--name <name>", "display name, e.g. 'Joint taxable'")
      .option("--external-id <id>", "your identifier (custodian account number)")
      .option("--cash <usd>", "cash held in USD", usdFlag, "0")
      .option("--portfolio-config <uuid>", "portfolio configuration to follow")
      .action(
        action(
          hooks,
          async (
            ctx,
            opts: {
              client: string;
              name?: string;
              externalId?: string;
              cash: string;
              portfolioConfig?: string;
            },
          ) => {
            const a = await (await ctx.backend()).createAccount(opts.client, {
              ...(opts.name ? { name: opts.name } : {}),
              ...(opts.externalId ? { external_id: opts.externalId } : {}),
              cash_value_usd: opts.cash,
              ...(opts.portfolioConfig ? { portfolio_config_uuid: opts.portfolioConfig } : {}),
            });
            if (ctx.out.json) ctx.out.printJson(a);
            else ctx.out.line(renderAccount(a, opts.client));
          },
        ),
      ),
    "lotwise accounts create --client 4071d28c-... --name 'Joint taxable' --cash 25000",
  );
  examples(
    accounts
      .command("show <account>")
      .description(
        "Show an account: positions valued at the latest prices, tax lots, unrealized short/long-term gains, NAV, wash-sale lots.",
      )
      .action(
        action(hooks, async (ctx, uuid: string) => {
          const found = await (await ctx.backend()).findAccount(uuid);
          if (ctx.out.json) ctx.out.printJson(found.account);
          else ctx.out.line(renderAccount(found.account, found.client_uuid));
        }),
      ),
    "lotwise accounts show 91aad834-ef57-48df-95fd-743d2dee2f04",
  );
  examples(
    accounts
      .command("holdings <account>")
      .description(
        "An account's lots, short lots and cash as held at the close of a date, rebuilt from the ledger (executions and corporate actions after the date undone, later lots left out, later splits divided back). See docs/ledger.md.",
      )
      .option("--as-of <date>", "the date (default: the latest market date)", dateFlag)
      .action(
        action(hooks, async (ctx, uuid: string, opts: { asOf?: string }) => {
          const backend = await ctx.backend();
          const found = await backend.findAccount(uuid);
          const h = await backend.getAccountHoldings(found.client_uuid, uuid, {
            ...(opts.asOf ? { as_of: opts.asOf } : {}),
          });
          if (ctx.out.json) {
            ctx.out.printJson(h);
            return;
          }
          ctx.out.line(renderHoldingsAsOf(h));
        }),
      ),
    "lotwise accounts holdings 91aad834-... --as-of 2024-12-31",
  );
  examples(
    accounts
      .command("drift <account>")
      .description(
        "How far an account is from its target (the optimizer's: the configuration's asset allocations, else the asset-class benchmarks): per-asset drift, total drift (half the sum of |current - target|, cash included) and the status (ok, warning, breach) from the configuration's drift thresholds. See docs/drift.md.",
      )
      .option(
        "--as-of <date>",
        "date of the weights and the target (default: the latest market date)",
        dateFlag,
      )
      .option("--top <n>", "assets shown in the table, largest |drift| first (--json gives all)", "20")
      .option(
        "--fail-on <status>",
        "exit 1 when the status is at least this: warning or breach (for scripts)",
      )
      .action(
        actionWithCode(
          hooks,
          async (ctx, uuid: string, opts: { asOf?: string; top: string; failOn?: string }) => {
            if (opts.failOn !== undefined && opts.failOn !== "warning" && opts.failOn !== "breach")
              throw usageError(`--fail-on must be warning or breach, not "${opts.failOn}"`, "fail-on");
            const top = Number(opts.top);
            if (!Number.isInteger(top) || top < 0) throw usageError("--top must be a whole number", "top");
            const backend = await ctx.backend();
            const found = await backend.findAccount(uuid);
            const drift = await backend.accountDrift(found.client_uuid, uuid, {
              ...(opts.asOf !== undefined ? { as_of_date: opts.asOf } : {}),
            });
            if (ctx.out.json) ctx.out.printJson(drift);
            else ctx.out.line(renderDrift(drift, top));
            const rank = { ok: 0, warning: 1, breach: 2 } as const;
            return opts.failOn !== undefined &&
              rank[drift.status] >= rank[opts.failOn as "warning" | "breach"]
              ? 1
              : 0;
          },
        ),
      ),
    "lotwise accounts drift 91aad834-ef57-48df-95fd-743d2dee2f04",
    "lotwise accounts drift 91aad834-... --as-of 2025-06-30 --json",
    "lotwise accounts drift 91aad834-... --fail-on breach   # exit 1 on a breach",
  );
  examples(
    accounts
      .command("evaluate [account]")
      .description(
        "Which evaluation rules (model_drift policies of the account's configuration) fire on a date and why: a rule fires when its policy is enabled, the date is within starts_from..expires_at, its cron fires that day and its condition holds over the account's facts (total_drift, drift_status, harvestable_loss_usd, cash_weight...). Highest priority first. See docs/evaluation-rules.md.",
      )
      .option("--account <uuid>", "the account (or give it as the argument)")
      .option("--as-of <date>", "date of the evaluation (default: the latest market date)", dateFlag)
      .option("--fail-on-fire", "exit 1 when a rule fires (for scripts)")
      .action(
        actionWithCode(
          hooks,
          async (
            ctx,
            positional: string | undefined,
            opts: { account?: string; asOf?: string; failOnFire?: boolean },
          ) => {
            const uuid = opts.account ?? positional;
            if (uuid === undefined) throw usageError("name the account: --account <uuid>", "account");
            if (opts.account !== undefined && positional !== undefined && positional !== opts.account)
              throw usageError("give the account once: as the argument or with --account", "account");
            const backend = await ctx.backend();
            const found = await backend.findAccount(uuid);
            const evaluation = await backend.evaluateAccount(found.client_uuid, uuid, {
              ...(opts.asOf !== undefined ? { as_of_date: opts.asOf } : {}),
            });
            if (ctx.out.json) ctx.out.printJson(evaluation);
            else ctx.out.line(renderEvaluation(evaluation));
            return opts.failOnFire === true && evaluation.fired.length > 0 ? 1 : 0;
          },
        ),
      ),
    "lotwise accounts evaluate --account 91aad834-ef57-48df-95fd-743d2dee2f04",
    "lotwise accounts evaluate --account 91aad834-... --as-of 2026-03-02 --json",
    "lotwise accounts evaluate 91aad834-... --fail-on-fire   # exit 1 when a rule fires",
  );
  examples(
    accounts
      .command("harvest <account>")
      .description(
        "Which lots are worth harvesting now: every lot at an unrealized loss with its term and estimated tax value (loss x the configuration's short- or long-term rate), harvestable unless under the threshold, exposed to a wash sale (a purchase of the asset within the window in this account or another account of the client) or under a no-trade restriction; totals, and up to 3 replacements per harvested asset (same sector, most correlated returns). See docs/harvest.md.",
      )
      .option("--as-of <date>", "date of the scan (default: the latest market date)", dateFlag)
      .option("--min-loss-usd <usd>", "smallest loss worth harvesting, USD (default 0)", usdFlag)
      .option(
        "--min-loss-fraction <f>",
        "smallest loss as a fraction of the lot's basis, 0 to 1 (default 0.05)",
        fractionText,
      )
      .option("--top <n>", "lots shown in the table, harvestable first (--json gives all)", "20")
      .action(
        action(
          hooks,
          async (
            ctx,
            uuid: string,
            opts: { asOf?: string; minLossUsd?: string; minLossFraction?: string; top: string },
          ) => {
            const top = Number(opts.top);
            if (!Number.isInteger(top) || top < 0) throw usageError("--top must be a whole number", "top");
            const backend = await ctx.backend();
            const found = await backend.findAccount(uuid);
            const scan = await backend.harvestScan(found.client_uuid, uuid, {
              ...(opts.asOf !== undefined ? { as_of_date: opts.asOf } : {}),
              ...(opts.minLossUsd !== undefined ? { min_loss_usd: opts.minLossUsd } : {}),
              ...(opts.minLossFraction !== undefined ? { min_loss_fraction: opts.minLossFraction } : {}),
            });
            if (ctx.out.json) ctx.out.printJson(scan);
            else ctx.out.line(renderHarvest(scan, top));
          },
        ),
      ),
    "lotwise accounts harvest 91aad834-ef57-48df-95fd-743d2dee2f04",
    "lotwise accounts harvest 91aad834-... --min-loss-usd 500 --json",
    "lotwise accounts harvest 91aad834-... --as-of 2025-06-30 --min-loss-fraction 0.1",
  );
  examples(
    accounts
      .command("list")
      .description("List the accounts of a client.")
      .requiredOption("--client <uuid>", "the client")
      .option("--out <file>", OUT_OPTION_HELP)
      .action(
        action(hooks, async (ctx, opts: { client: string; out?: string }) => {
          const list = await (await ctx.backend()).listAccounts(opts.client);
          if (opts.out)
            await writeListOut(ctx.out, opts.out, "accounts", list, [
              { header: "account_uuid", value: (a) => a.uuid },
              { header: "client_uuid", value: () => opts.client },
              { header: "name", value: (a) => a.name },
              { header: "external_id", value: (a) => a.external_id },
              { header: "lots", value: (a) => a.holdings.tax_lots.length },
              { header: "cash_usd", value: (a) => a.holdings.cash_value_usd },
              { header: "aum_usd", value: (a) => a.aum },
              { header: "portfolio_config_uuid", value: (a) => a.portfolio_config_uuid },
            ]);
          else if (ctx.out.json) ctx.out.printJson(list);
          else
            ctx.out.line(
              renderTable(list, [
                { header: "Account", value: (a) => a.uuid },
                { header: "Name", value: (a) => a.name },
                { header: "Lots", value: (a) => a.holdings.tax_lots.length, align: "right" },
                { header: "AUM (USD)", value: (a) => a.aum, align: "right" },
              ]),
            );
        }),
      ),
    "lotwise accounts list --client 4071d28c-...",
  );

  const lots = program.command("lots").description("Tax lots of an account.");
  examples(
    lots
      .command("import <file>")
      .description(
        `Import tax lots from a broker export (CSV). Columns are recognized by name (Symbol, Quantity, Cost/Share or Cost Basis, Open Date/Acquired, Currency...) or mapped with --map FIELD=HEADER (fields: ${LOT_CSV_FIELDS.join(", ")}). Every row is checked and errors name the line and column; the file is streamed and imported entirely or not at all, in one transaction (locally or with --url). By default the lots REPLACE the account's lots; --append adds them after the lots the account holds when the import commits. Prints the first 20 lots and totals per asset; --json gives every lot.`,
      )
      .requiredOption("--account <uuid>", "account receiving the lots")
      .option("--append", "add to the existing lots instead of replacing them")
      .option("--map <field=header>", "use this header for a field (repeatable)", collect)
      .option(
        "--date-order <order>",
        "how to read 03/04/2024: auto (US month first unless impossible), mdy, dmy, ymd",
        "auto",
      )
      .option("--currency <ccy>", `currency of rows without one (${CURRENCIES.join(", ")})`, "USD")
      .option("--mic <mic>", "exchange for symbols without one when a symbol is listed on several exchanges")
      .option("--dry-run", "check and show what would be imported without changing anything")
      .action(
        action(
          hooks,
          async (
            ctx,
            file: string,
            opts: {
              account: string;
              append?: boolean;
              map?: string[];
              dateOrder: string;
              currency: string;
              mic?: string;
              dryRun?: boolean;
            },
          ) => {
            if (!["auto", "mdy", "dmy", "ymd"].includes(opts.dateOrder))
              throw usageError("--date-order must be auto, mdy, dmy or ymd", "date-order");
            if (!(CURRENCIES as readonly string[]).includes(opts.currency.toUpperCase()))
              throw usageError(`--currency must be one of ${CURRENCIES.join(", ")}`, "currency");
            const columns: Partial<Record<LotCsvField, string>> = {};
            for (const m of opts.map ?? []) {
              const eq = m.indexOf("=");
              const field = m.slice(0, eq) as LotCsvField;
              if (eq < 1 || !(LOT_CSV_FIELDS as readonly string[]).includes(field))
                throw usageError(
                  `--map expects FIELD=HEADER with FIELD one of ${LOT_CSV_FIELDS.join(", ")}; got "${m}"`,
                  "map",
                );
              columns[field] = m.slice(eq + 1);
            }
            const query: LotImportQuery = {
              mode: opts.append ? "append" : "replace",
              ...(opts.dryRun ? { dry_run: true } : {}),
              // --json gives every lot; the terminal gets a summary whatever the size of the file.
              ...(ctx.out.json ? { include_lots: true } : {}),
              file_name: basename(file),
              date_order: opts.dateOrder as DateOrder,
              currency: opts.currency.toUpperCase() as Currency,
              ...(opts.mic ? { mic: opts.mic.toUpperCase() } : {}),
              ...Object.fromEntries(Object.entries(columns).map(([f, h]) => [`map_${f}`, h])),
            };
            const backend = await ctx.backend();
            // Opening first reports a missing file before anything is sent; the rows are then streamed.
            const handle = await open(file, "r");
            let result: LotImportResult;
            try {
              result = await backend.importLots(opts.account, handle.createReadStream(), query);
            } finally {
              await handle.close().catch(() => undefined);
            }
            if (ctx.out.json) ctx.out.printJson(result);
            else ctx.out.line(renderLotImport(result, file));
          },
        ),
      ),
    "lotwise lots import fixtures/lots-broker-export.csv --account 91aad834-... --dry-run",
    "lotwise lots import positions.csv --account 91aad834-... --map trade_date='Date Opened' --date-order dmy",
    "lotwise lots import more.csv --account 91aad834-... --append --url http://127.0.0.1:8000 --api-key $KEY",
  );
  examples(
    lots
      .command("export")
      .description(
        "Export an account's tax lots as CSV in the layout `lotwise lots import` reads (Symbol, MIC, Quantity, Cost Per Share or Total Cost as each lot was written, Currency, FX Rate, Trade Date, Wash Sale Date, Last Sold For Loss Date): importing the file gives back the same lots. Prints the CSV, or writes it to --out FILE (CSV whatever the name).",
      )
      .requiredOption("--account <uuid>", "the account")
      .option("--out <file>", "write the CSV to FILE and print one line saying what was written")
      .action(
        action(hooks, async (ctx, opts: { account: string; out?: string }) => {
          const found = await (await ctx.backend()).findAccount(opts.account);
          await writeCsvExport(
            ctx.out,
            opts.out,
            "lots",
            found.account.holdings.tax_lots,
            LOT_EXPORT_COLUMNS,
          );
        }),
      ),
    "lotwise lots export --account 91aad834-... --out lots.csv",
    "lotwise lots export --account 91aad834-... --url http://127.0.0.1:8000 --api-key $KEY > lots.csv",
  );
}
