/**
 * @module cli/commands/actions
 * `lotwise actions import|list|apply`: corporate actions on held lots (docs/ledger.md, sections 8-9), through the
 * Backend, so they work the same on a local store and against a server.
 */
import { open } from "node:fs/promises";
import { basename } from "node:path";
import type { Command } from "commander";
import type {
  CorporateActionApplyResult,
  CorporateActionImportResult,
  CorporateActionRead,
} from "../../contract/index.js";
import { importCorporateActions } from "../../service/corporate-actions.js";
import { usageError } from "../errors.js";
import { OUT_OPTION_HELP, writeListOut } from "../list-out.js";
import { renderTable } from "../output.js";
import { action, dateFlag, examples, type ProgramHooks } from "../program.js";

const paramsText = (a: CorporateActionRead): string =>
  Object.entries(a.params)
    .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : String(v)}`)
    .join(" ");

function renderActions(list: readonly CorporateActionRead[]): string {
  if (list.length === 0) return "No corporate actions.";
  return renderTable(list, [
    { header: "id", value: (a) => a.id },
    { header: "kind", value: (a) => a.kind },
    { header: "listing", value: (a) => a.theme_asset_id },
    { header: "ex_date", value: (a) => a.ex_date },
    { header: "pay_date", value: (a) => a.pay_date ?? "" },
    { header: "parameters", value: paramsText },
  ]);
}

function renderImport(r: CorporateActionImportResult, file: string): string {
  const kinds = Object.entries(r.by_kind)
    .map(([k, n]) => `${n} ${k}`)
    .join(", ");
  return `${r.dry_run ? "Checked (dry run, nothing stored)" : "Imported"} ${r.actions_in_file} action(s) from ${file}: ${kinds}.\n${renderActions(r.actions)}`;
}

function renderApply(r: CorporateActionApplyResult): string {
  const lines = [
    `${r.dry_run ? "Dry run: nothing written. " : ""}Actions dated on or before ${r.through}; ${r.accounts_checked} account(s) checked, ${r.accounts.length} changed.`,
  ];
  for (const a of r.accounts) {
    lines.push(
      "",
      `Account ${a.account_uuid}: ${a.actions.map((x) => `${x.id} (${x.kind} ${x.theme_asset_id} ${x.ex_date})`).join(", ")}`,
    );
    for (const l of a.lots)
      lines.push(
        `  ${l.change.padEnd(7)} ${l.theme_asset_id.padEnd(12)} lot ${l.lot_uuid}: ${l.quantity_before ?? "-"} -> ${l.quantity_after ?? "-"} shares, basis ${l.cost_basis_before ?? "-"} -> ${l.cost_basis_after ?? "-"}`,
      );
    lines.push(
      `  cash ${a.cash_delta_usd} USD, realized ${a.realized_gain_usd} USD in ${a.realized_rows} row(s)`,
    );
    for (const n of a.notes) lines.push(`  note: ${n}`);
  }
  return lines.join("\n");
}

export function registerActions(program: Command, hooks: ProgramHooks): void {
  const actions = program
    .command("actions")
    .description(
      "Corporate actions on held lots: import them from a CSV, list them, apply them to accounts once (splits, dividends, spin-offs, symbol changes, mergers).",
    );
  examples(
    actions
      .command("import <file>")
      .description(
        "Import corporate actions from a CSV (columns: id, kind, listing, ex_date, pay_date, ratio, new_listing, basis_fraction, parent_price, new_listing_price, cash_per_share, cash_in_lieu_price, fx_rate; see docs/ledger.md). Every row is checked and errors name the line and column; a file with any bad row stores nothing. Actions are upserted by id. Corporate actions are market data shared by every organization of the store, so this runs on a local store only (like `lotwise market import`), never through --url.",
      )
      .option("--dry-run", "check and list without storing")
      .action(
        action(hooks, async (ctx, file: string, opts: { dryRun?: boolean }) => {
          // Store administration (market-level data shared by every organization): local store only.
          const service = await ctx.service();
          const handle = await open(file, "r");
          let r: CorporateActionImportResult;
          try {
            r = await importCorporateActions(service, handle.createReadStream(), {
              file_name: basename(file),
              ...(opts.dryRun ? { dry_run: true } : {}),
            });
          } finally {
            await handle.close().catch(() => undefined);
          }
          if (ctx.out.json) ctx.out.printJson(r);
          else ctx.out.line(renderImport(r, file));
        }),
      ),
    "lotwise actions import actions.csv",
    "lotwise actions import actions.csv --dry-run --store lotwise.db",
  );
  examples(
    actions
      .command("list")
      .description("List the stored corporate actions by ex-date.")
      .option("--from <date>", "first ex-date", dateFlag)
      .option("--to <date>", "last ex-date", dateFlag)
      .option("--listing <id>", "only actions about this theme_asset_id")
      .option("--out <file>", OUT_OPTION_HELP)
      .action(
        action(hooks, async (ctx, opts: { from?: string; to?: string; listing?: string; out?: string }) => {
          const list = await (await ctx.backend()).listCorporateActions({
            ...(opts.from ? { from: opts.from } : {}),
            ...(opts.to ? { to: opts.to } : {}),
            ...(opts.listing ? { listing: opts.listing } : {}),
          });
          if (opts.out)
            await writeListOut(ctx.out, opts.out, "corporate actions", list, [
              { header: "id", value: (a) => a.id },
              { header: "kind", value: (a) => a.kind },
              { header: "theme_asset_id", value: (a) => a.theme_asset_id },
              { header: "ex_date", value: (a) => a.ex_date },
              { header: "pay_date", value: (a) => a.pay_date },
              { header: "params", value: (a) => JSON.stringify(a.params) },
            ]);
          else if (ctx.out.json) ctx.out.printJson(list);
          else ctx.out.line(renderActions(list));
        }),
      ),
    "lotwise actions list --from 2025-01-01 --listing OSM:XNYS",
    "lotwise actions list --out actions.csv",
  );
  examples(
    actions
      .command("apply")
      .description(
        "Apply every stored action dated on or before --through (default: the latest market date) to one account (--account) or every account (--all), once per account, each account in one transaction. Prints per account the actions applied and the lots and cash they changed; applying again applies nothing new.",
      )
      .option("--account <uuid>", "the account")
      .option("--all", "every account of the organization")
      .option("--through <date>", "last action date applied", dateFlag)
      .option("--dry-run", "compute and print without writing")
      .action(
        action(
          hooks,
          async (ctx, opts: { account?: string; all?: boolean; through?: string; dryRun?: boolean }) => {
            if ((opts.account === undefined) === !opts.all)
              throw usageError("give exactly one of --account <uuid> or --all", "account");
            const r = await (await ctx.backend()).applyCorporateActions({
              ...(opts.account ? { account_uuid: opts.account } : {}),
              ...(opts.through ? { through: opts.through } : {}),
              ...(opts.dryRun ? { dry_run: true } : {}),
            });
            if (ctx.out.json) ctx.out.printJson(r);
            else ctx.out.line(renderApply(r));
          },
        ),
      ),
    "lotwise actions apply --all --through 2025-12-31",
    "lotwise actions apply --account 91aad834-... --dry-run",
  );
}
