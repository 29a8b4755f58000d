/** @module cli/commands/init `lotwise init`: create a store, an organization and an API key (and the demo). */
import { existsSync, rmSync } from "node:fs";
import type { Command } from "commander";
import { ConflictError } from "../../core/errors.js";
import { buildDemo } from "../../service/demo.js";
import { createOrganization, getAccount } from "../../service/index.js";
import { isPostgresLocation, openStore } from "../../store/index.js";
import { usageError } from "../errors.js";
import { renderKeyValues } from "../output.js";
import { action, examples, integerFlag, type ProgramHooks } from "../program.js";
import { renderAccount } from "../render.js";

interface InitOptions {
  demo?: boolean;
  force?: boolean;
  name?: string;
  seed?: number;
  securities?: number;
  years?: number;
}

/**
 * ` --store FILE` for the commands `init` suggests next, when the store was named on the command line and is not
 * the one LOTWISE_STORE names: without it they would run on another store. Empty otherwise (and for a PostgreSQL
 * URL, which may hold a password).
 */
export function storeFlagForHints(store: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (store === undefined || store === env.LOTWISE_STORE || isPostgresLocation(store)) return "";
  return ` --store ${/^[\w./:@%+=,-]+$/.test(store) ? store : `'${store.replaceAll("'", "'\\''")}'`}`;
}

export function registerInit(program: Command, hooks: ProgramHooks): void {
  const cmd = program
    .command("init")
    .description(
      "Create a store (a SQLite file, or the schema of a postgres:// database), an organization and an API key. With --demo, also a synthetic market, a demo client with an account of realistic tax lots, a portfolio configuration and an asset class.",
    )
    .option("--demo", "add the synthetic market and the demo client")
    .option("--force", "replace an existing store file")
    .option("--name <name>", "organization name", "My Advisory")
    .option("--seed <n>", "seed of the demo market", integerFlag(0, Number.MAX_SAFE_INTEGER), 7)
    .option("--securities <n>", "securities in the demo market (50-5000)", integerFlag(50, 5000), 200)
    .option("--years <n>", "years of demo history (1-30)", integerFlag(1, 30), 8)
    .action(
      action(hooks, async (ctx, opts: InitOptions) => {
        const location = ctx.storePath();
        const postgres = isPostgresLocation(location);
        if (postgres && opts.force)
          throw usageError(
            "--force replaces a store file only; it never drops a PostgreSQL database. Use an empty database (or schema) instead.",
            "force",
          );
        if (postgres) {
          // Creates the schema when the database has none (the same migrations `lotwise store migrate` runs).
          const probe = await openStore(location);
          const orgs = (await probe.organizations.list()).length;
          await probe.close();
          if (orgs > 0)
            throw new ConflictError(
              `${probe.location} already holds a lotwise store with ${orgs} organization(s). Use \`lotwise orgs create NAME\` to add an organization, or init an empty database.`,
              "store_exists",
            );
        } else if (existsSync(location)) {
          const path = location;
          if (!opts.force) {
            const probe = await openStore(path, { create: false });
            const orgs = (await probe.organizations.list()).length;
            await probe.close();
            if (orgs > 0)
              throw new ConflictError(
                `${path} already holds a lotwise store with ${orgs} organization(s). Use --force to replace it, or \`lotwise orgs create NAME\` to add an organization.`,
                "store_exists",
              );
          } else for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
        }
        const store = await openStore(location);
        // What messages show: the file path, or the URL without its password.
        const path = store.location;
        try {
          const svc = { store, clock: () => new Date() };
          if (!opts.demo) {
            const { organization, apiKey } = await createOrganization(svc, opts.name ?? "My Advisory");
            if (ctx.out.json)
              ctx.out.printJson({ store: path, organization_uuid: organization.uuid, api_key: apiKey.key });
            else {
              ctx.out.line(
                renderKeyValues(
                  [
                    ["Store", path],
                    ["Organization", `${organization.name}  ${organization.uuid}`],
                    ["API key", apiKey.key],
                  ],
                  "lotwise store created",
                ),
              );
              ctx.out.line(
                "\nThe API key is shown only once; keep it (lotwise serve accepts it in the X-Api-Key header).",
              );
              const on = storeFlagForHints(ctx.options.store);
              ctx.out.line(
                `Next: lotwise market generate${on}  (or lotwise market import ...${on}), then lotwise clients create${on}.`,
              );
            }
            return;
          }
          const demo = await ctx.out.spin("Building the demo (synthetic market, client, lots)", async () =>
            buildDemo(svc, {
              seed: opts.seed ?? 7,
              securities: opts.securities ?? 200,
              years: opts.years ?? 8,
              organizationName:
                opts.name === "My Advisory" ? "Demo Advisors" : (opts.name ?? "Demo Advisors"),
            }),
          );
          if (ctx.out.json) {
            ctx.out.printJson({
              store: path,
              organization_uuid: demo.organization_uuid,
              api_key: demo.api_key,
              client_uuid: demo.client_uuid,
              account_uuid: demo.account_uuid,
              portfolio_config_uuid: demo.portfolio_config_uuid,
              asset_class_uuid: demo.asset_class_uuid,
              theme_uuid: demo.theme_uuid,
            });
            return;
          }
          ctx.out.line(
            renderKeyValues(
              [
                ["Store", path],
                ["Organization", demo.organization_uuid],
                ["API key (shown once)", demo.api_key],
                [
                  "Market",
                  `${demo.market.securities} securities, ${demo.market.first_date} to ${demo.market.last_date}`,
                ],
                ["Client", demo.client_uuid],
                ["Account", demo.account_uuid],
                ["Portfolio configuration", demo.portfolio_config_uuid],
                ["Asset class", demo.asset_class_uuid],
                ...(demo.theme_uuid ? ([["Theme", demo.theme_uuid]] as [string, string][]) : []),
              ],
              "Demo ready",
            ),
          );
          ctx.out.line("");
          ctx.out.line(
            renderAccount(
              await getAccount(svc, demo.organization_uuid, demo.client_uuid, demo.account_uuid),
              demo.client_uuid,
            ),
          );
          const a = demo.account_uuid;
          ctx.out.line(
            [
              "",
              "Try:",
              `  lotwise accounts show ${a} --store ${path}`,
              `  lotwise optimize --account ${a} --store ${path}  # the tax-aware optimizer on this account`,
              `  lotwise rebalance --account ${a} --store ${path}  # ... then a stored proposal with its lots`,
              `  lotwise backtest start --account ${a} --store ${path}  # tax-managed vs pre-tax vs benchmark`,
              `  lotwise themes backtest ${demo.theme_uuid} --benchmark SYNTH500 --store ${path}`,
            ].join("\n"),
          );
        } finally {
          await store.close();
        }
      }),
    );
  examples(
    cmd,
    "lotwise init --store firm.db --name 'Acme Advisors'",
    "lotwise init --demo --store demo.db --force",
    "lotwise init --demo --json",
  );
}
