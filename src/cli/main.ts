/**
 * @module cli/main
 * Entry point of the `lotwise` command. `main(argv)` builds the command tree, runs it and returns the exit code
 * (0 ok, 1 failure, 2 usage); only bin/lotwise.js sets the process exit code.
 */
import { Command, CommanderError, Option } from "commander";
import { VERSION } from "../version.js";
import { registerBacktest } from "./commands/backtest.js";
import { registerClients } from "./commands/clients.js";
import { registerConfigs } from "./commands/configs.js";
import { registerInit } from "./commands/init.js";
import { registerMarket } from "./commands/market.js";
import { registerOptimize } from "./commands/optimize.js";
import { registerOrgs } from "./commands/orgs.js";
import { registerProposal } from "./commands/proposal.js";
import { registerRiskModels } from "./commands/risk-models.js";
import { registerServe } from "./commands/serve.js";
import { registerThemes } from "./commands/themes.js";
import { EXIT_USAGE } from "./errors.js";
import type { ProgramHooks } from "./program.js";

/** Build the command tree (exported for tests and for `--help` documentation). */
export function buildProgram(hooks: ProgramHooks = {}): Command {
  const program = new Command("lotwise")
    .description(
      "Tax-managed portfolios: tax lots, rebalance proposals, a tax-aware optimizer, backtests, themes.\nWorks on a local store (SQLite file) or, with --url and --api-key, against a running `lotwise serve`.",
    )
    .version(VERSION, "-V, --version")
    .addOption(
      new Option("--store <file>", "local store file (env LOTWISE_STORE)").default(undefined, "./lotwise.db"),
    )
    .option("--url <url>", "use a lotwise server instead of a local store (env LOTWISE_URL)")
    .option("--api-key <key>", "API key for --url (env LOTWISE_API_KEY)")
    .option("--org <uuid>", "organization to act for in a store with several (env LOTWISE_ORG)")
    .option("--json", "print machine-readable JSON")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  program.addHelpText(
    "after",
    `
Exit codes: 0 ok, 1 failure, 2 usage error.

Getting started:
  $ lotwise init --demo --store demo.db        # store + synthetic market + demo client
  $ lotwise accounts show <account> --store demo.db
  $ lotwise serve --store demo.db --port 8000  # HTTP API (X-Api-Key) with docs at /api/v1/docs
`,
  );
  registerInit(program, hooks);
  registerServe(program, hooks);
  registerOrgs(program, hooks);
  registerMarket(program, hooks);
  registerClients(program, hooks);
  registerConfigs(program, hooks);
  registerProposal(program, hooks);
  registerOptimize(program, hooks);
  registerRiskModels(program, hooks);
  registerThemes(program, hooks);
  registerBacktest(program, hooks);
  // Sub-commands inherit exitOverride so usage errors come back as CommanderError.
  const override = (c: Command) => {
    c.exitOverride();
    c.showHelpAfterError("(run with --help for usage)");
    for (const s of c.commands) override(s);
  };
  override(program);
  return program;
}

/** Run the CLI with `argv` (as process.argv) and return the exit code. */
export async function main(argv: readonly string[], hooks: ProgramHooks = {}): Promise<number> {
  const program = buildProgram(hooks);
  try {
    await program.parseAsync(argv as string[]);
    return hooks.exitCode ?? 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === "commander.helpDisplayed" || err.code === "commander.version" || err.exitCode === 0)
        return 0;
      return EXIT_USAGE;
    }
    process.stderr.write(`lotwise: ${(err as Error).message}\n`);
    return 1;
  }
}
