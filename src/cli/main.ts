/**
 * @module cli/main
 * Entry point of the `lotwise` command. `main(argv)` builds the command tree, runs it and returns the exit code
 * (0 ok, 1 failure, 2 usage); only bin/lotwise.js sets the process exit code.
 */
import { Command, CommanderError, Option } from "commander";
import { VERSION } from "../version.js";
import { decideColours } from "./colour.js";
import { COMMAND_MODULES, type CommandModule, commandModuleFor } from "./command-table.js";
import { EXIT_USAGE } from "./errors.js";
import { uuidFlag } from "./flags.js";
import type { ProgramHooks } from "./program.js";

/** The program with its global options and help texts, and no commands yet. */
function baseProgram(): Command {
  const program = new Command("lotwise")
    .description(
      "Tax-managed portfolios: tax lots, rebalance proposals, a tax-aware optimizer, backtests, themes.\nWorks on a local store (SQLite file) or, with --url and --api-key, against a running `lotwise serve`.",
    )
    .version(VERSION, "-V, --version")
    .addOption(
      new Option(
        "--store <file>",
        "the store: a SQLite file, or a postgres:// URL (env LOTWISE_STORE)",
      ).default(undefined, "./lotwise.db"),
    )
    .option("--url <url>", "use a lotwise server instead of a local store (env LOTWISE_URL)")
    .option("--api-key <key>", "API key for --url (env LOTWISE_API_KEY)")
    .option("--org <uuid>", "organization to act for in a store with several (env LOTWISE_ORG)")
    .option("--json", "print machine-readable JSON")
    .option("--no-color", "no colours, even on a terminal (also NO_COLOR=1; FORCE_COLOR=1 forces them)")
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
  return program;
}

/**
 * Arguments that name a stored object by its uuid (`clients show <client>`, `backtest status <job>`...): a malformed
 * one is a usage error, as the server's `invalid_path_parameter` is, not "not found".
 */
const UUID_ARGUMENTS = new Set([
  "client",
  "account",
  "config",
  "assetClass",
  "proposal",
  "riskModel",
  "theme",
  "job",
  "run_uuid",
]);

/**
 * Sub-commands inherit exitOverride so usage errors come back as CommanderError; every `<uuid>` option and uuid
 * argument without a parser of its own gets {@link uuidFlag}; with captured output (tests), commander's own
 * messages go to it too.
 */
function finish(program: Command, hooks: ProgramHooks): Command {
  const captured = hooks.output?.(false);
  const override = (c: Command) => {
    c.exitOverride();
    c.showHelpAfterError("(run with --help for usage)");
    if (captured)
      c.configureOutput({
        writeOut: (s) => captured.line(s.replace(/\n$/, "")),
        writeErr: (s) => captured.note(s.replace(/\n$/, "")),
      });
    for (const o of c.options as readonly Option[])
      if (/<uuid>$/.test(o.flags) && !o.parseArg) o.argParser(uuidFlag);
    for (const a of c.registeredArguments)
      if (UUID_ARGUMENTS.has(a.name()) && !a.parseArg && !a.variadic) a.argParser(uuidFlag);
    for (const s of c.commands) override(s);
  };
  override(program);
  return program;
}

/**
 * The program with `modules` registered (all of them by default: the whole tree, for tests and documentation) and,
 * for the other top-level commands, stand-ins that only list them in the help. Only the modules asked for are
 * imported.
 */
export async function buildProgram(
  hooks: ProgramHooks = {},
  modules: readonly CommandModule[] = COMMAND_MODULES,
): Promise<Command> {
  const program = baseProgram();
  const registers = await Promise.all(modules.map((m) => m.load()));
  const loaded = new Map(modules.map((m, i) => [m, registers[i]!]));
  for (const m of COMMAND_MODULES) {
    const register = loaded.get(m);
    if (register) {
      register(program, hooks, () => buildProgram({}, COMMAND_MODULES));
      continue;
    }
    for (const c of m.commands) {
      const stub = program.command(c.name).description(c.description);
      if (c.arguments) stub.arguments(c.arguments);
      // A hidden option makes the help list it as "name [options]", as the real command is listed.
      if (c.options) stub.addOption(new Option("--lotwise-stub").hideHelp());
    }
  }
  return finish(program, hooks);
}

/** Run the CLI with `argv` (as process.argv) and return the exit code. */
export async function main(argv: readonly string[], hooks: ProgramHooks = {}): Promise<number> {
  decideColours(argv);
  // Only the module of the command being run is loaded: `--version` and `--help` load none.
  const module = commandModuleFor(argv.slice(2));
  const program = await buildProgram(hooks, module ? [module] : []);
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
