/** @module cli/commands/configs `lotwise configs` and `lotwise asset-classes` (endpoints 3-5 and extensions). */
import type { Command } from "commander";
import {
  type AssetClassCreate,
  type PortfolioConfigCreate,
  type PortfolioConfigWrite,
  portfolioConfigWriteSchema,
  toFieldIssues,
} from "../../contract/index.js";
import { usageError } from "../errors.js";
import { OUT_OPTION_HELP, writeListOut } from "../list-out.js";
import { action, examples, type ProgramHooks, readJsonInput } from "../program.js";
import { renderAssetClass, renderAssetClasses, renderConfig, renderConfigs } from "../render.js";

/** Configuration fields whose values are JSON integers (every other number is a decimal string). */
const INTEGER_FIELDS = new Set(["risk_bound_max_iterations", "max_trade_count"]);

export function registerConfigs(program: Command, hooks: ProgramHooks): void {
  const configs = program
    .command("configs")
    .description(
      "Portfolio configurations: optimizer settings, tax preferences, restrictions, cash buffers.",
    );
  examples(
    configs
      .command("list")
      .description("List the organization's configurations (endpoint 3).")
      .option("--out <file>", OUT_OPTION_HELP)
      .action(
        action(hooks, async (ctx, opts: { out?: string }) => {
          const list = await (await ctx.backend()).listPortfolioConfigs();
          if (opts.out)
            await writeListOut(ctx.out, opts.out, "configurations", list, [
              { header: "portfolio_config_uuid", value: (c) => c.uuid },
              { header: "name", value: (c) => c.name },
              { header: "status", value: (c) => c.status },
              { header: "optimization_mode", value: (c) => c.optimization_mode },
              { header: "risk_model_name", value: (c) => c.risk_model_name },
              { header: "max_weight", value: (c) => c.max_weight },
              { header: "tax_gamma", value: (c) => c.tax_preferences.tax_gamma },
            ]);
          else if (ctx.out.json) ctx.out.printJson(list);
          else
            ctx.out.line(
              list.length
                ? renderConfigs(list)
                : "No configurations yet: lotwise configs create --file config.json",
            );
        }),
      ),
    "lotwise configs list --json",
    "lotwise configs list --out configs.csv",
  );
  examples(
    configs
      .command("show <config>")
      .description("Show one configuration in the read shape (every field, defaults filled).")
      .action(
        action(hooks, async (ctx, uuid: string) => {
          const c = await (await ctx.backend()).getPortfolioConfig(uuid);
          if (ctx.out.json) ctx.out.printJson(c);
          else ctx.out.line(renderConfig(c));
        }),
      ),
    "lotwise configs show 6e0a8fbf-... --json",
  );
  examples(
    configs
      .command("create")
      .description(
        "Create a configuration from a JSON file in the write shape (name required). See fixtures/portfolio-config.json.",
      )
      .requiredOption("--file <path>", "configuration JSON, '-' for stdin")
      .option("--name <name>", "override the name in the file")
      .action(
        action(hooks, async (ctx, opts: { file: string; name?: string }) => {
          const body = (await readJsonInput(opts.file)) as Record<string, unknown>;
          if (typeof body !== "object" || body === null || Array.isArray(body))
            throw usageError("--file must hold a JSON object", "file");
          if (opts.name) body.name = opts.name;
          const c = await (await ctx.backend()).createPortfolioConfig(body as PortfolioConfigCreate);
          if (ctx.out.json) ctx.out.printJson(c);
          else ctx.out.line(`Created configuration ${c.uuid} (${c.name}).\n${renderConfig(c)}`);
        }),
      ),
    "lotwise configs create --file fixtures/portfolio-config.json",
  );
  examples(
    configs
      .command("update <config>")
      .description(
        "Update a configuration (endpoint 4) with a JSON patch in the write shape: provided lists replace the stored lists, absent fields are kept, null resets a field.",
      )
      .option("--file <path>", "patch JSON, '-' for stdin")
      .option(
        "--set <field=json>",
        "set one top-level field (repeatable): a number, true/false, null, JSON (a list, an object) or plain text, e.g. --set max_weight=0.05",
        (v: string, p: string[] = []) => [...p, v],
      )
      .action(
        action(hooks, async (ctx, uuid: string, opts: { file?: string; set?: string[] }) => {
          const body = (opts.file ? await readJsonInput(opts.file) : {}) as Record<string, unknown>;
          const given = new Map<string, string>();
          for (const s of opts.set ?? []) {
            const eq = s.indexOf("=");
            if (eq < 1) throw usageError(`--set expects FIELD=JSON, got "${s}"`, "set");
            const field = s.slice(0, eq);
            const raw = s.slice(eq + 1);
            given.set(field, s);
            // Decimals travel as strings in the contract; only integer fields take JSON numbers.
            if (/^-?\d+(\.\d+)?$/.test(raw)) body[field] = INTEGER_FIELDS.has(field) ? Number(raw) : raw;
            else {
              try {
                body[field] = JSON.parse(raw);
              } catch {
                body[field] = raw;
              }
            }
          }
          if (Object.keys(body).length === 0)
            throw usageError("Nothing to update: give --file or --set.", "file");
          // A --set value the contract refuses is a usage error (exit 2) naming the flag, locally and with --url.
          if (given.size > 0) {
            const setOnly = Object.fromEntries([...given.keys()].map((f) => [f, body[f]]));
            const checked = portfolioConfigWriteSchema.safeParse(setOnly);
            if (!checked.success) {
              const issue = toFieldIssues(checked.error)[0]!;
              const field = issue.path.split(/[.[]/)[0] ?? "";
              const flag = given.get(field);
              throw usageError(
                flag === undefined
                  ? `--set: ${issue.path ? `${issue.path}: ` : ""}${issue.message}`
                  : `--set ${flag}: ${issue.message}`,
                "set",
              );
            }
          }
          const c = await (await ctx.backend()).updatePortfolioConfig(uuid, body as PortfolioConfigWrite);
          if (ctx.out.json) ctx.out.printJson(c);
          else ctx.out.line(renderConfig(c));
        }),
      ),
    "lotwise configs update 6e0a8fbf-... --set max_weight=0.05 --set status=deployed",
    "lotwise configs update 6e0a8fbf-... --file patch.json",
  );

  const ac = program
    .command("asset-classes")
    .description("Asset classes (sleeves): an index, a security, a theme, or a composite of sleeves.");
  examples(
    ac
      .command("list")
      .description("List asset classes.")
      .option("--all", "include archived ones")
      .option("--out <file>", OUT_OPTION_HELP)
      .action(
        action(hooks, async (ctx, opts: { all?: boolean; out?: string }) => {
          const list = (await (await ctx.backend()).listAssetClasses()).filter(
            (a) => opts.all || a.archived_at === null,
          );
          if (opts.out)
            await writeListOut(ctx.out, opts.out, "asset classes", list, [
              { header: "asset_class_uuid", value: (a) => a.uuid },
              { header: "name", value: (a) => a.name },
              { header: "benchmark_index_identifier", value: (a) => a.benchmark_index_identifier },
              { header: "single_security_theme_asset_id", value: (a) => a.single_security_theme_asset_id },
              { header: "theme_name", value: (a) => a.theme_name },
              { header: "is_composite", value: (a) => a.is_composite },
              { header: "archived_at", value: (a) => a.archived_at },
            ]);
          else if (ctx.out.json) ctx.out.printJson(list);
          else
            ctx.out.line(
              list.length
                ? renderAssetClasses(list)
                : "No asset classes yet: lotwise asset-classes create --name ... --benchmark SYNTH500",
            );
        }),
      ),
    "lotwise asset-classes list",
    "lotwise asset-classes list --all --out asset-classes.json",
  );
  examples(
    ac
      .command("show <assetClass>")
      .description(
        "Show an asset class with its child allocations (endpoint 5); archived ones stay readable.",
      )
      .action(
        action(hooks, async (ctx, uuid: string) => {
          const a = await (await ctx.backend()).getAssetClass(uuid);
          if (ctx.out.json) ctx.out.printJson(a);
          else ctx.out.line(renderAssetClass(a));
        }),
      ),
    "lotwise asset-classes show d4e4cde3-...",
  );
  examples(
    ac
      .command("create")
      .description("Create an asset class from flags or a JSON file.")
      .option("--file <path>", "asset class JSON (create shape), '-' for stdin")
      .option("--name <name>", "name")
      .option("--description <text>", "description")
      .option("--benchmark <index>", "benchmark index identifier, e.g. SP500 or SYNTH500")
      .option("--security <id>", "single security theme_asset_id")
      .option("--theme <uuid>", "theme whose constituents the sleeve holds")
      .action(
        action(
          hooks,
          async (
            ctx,
            opts: {
              file?: string;
              name?: string;
              description?: string;
              benchmark?: string;
              security?: string;
              theme?: string;
            },
          ) => {
            const body = (opts.file ? await readJsonInput(opts.file) : {}) as Record<string, unknown>;
            if (opts.name) body.name = opts.name;
            if (opts.description) body.description = opts.description;
            if (opts.benchmark) body.benchmark_index_identifier = opts.benchmark;
            if (opts.security) body.single_security_theme_asset_id = opts.security;
            if (opts.theme) body.theme_uuid = opts.theme;
            if (!body.name) throw usageError("An asset class needs --name (or name in --file).", "name");
            const a = await (await ctx.backend()).createAssetClass(body as AssetClassCreate);
            if (ctx.out.json) ctx.out.printJson(a);
            else ctx.out.line(renderAssetClass(a));
          },
        ),
      ),
    "lotwise asset-classes create --name 'US large cap' --benchmark SYNTH500",
  );
}
