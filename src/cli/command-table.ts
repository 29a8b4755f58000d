/**
 * @module cli/command-table
 * The top-level commands of `lotwise` and the module that defines each, loaded on demand: `lotwise clients list`
 * imports only `commands/clients.js` (and what it needs), `lotwise --version` and `lotwise --help` import none. The
 * descriptions here are what the top-level help lists; a test checks that they and the `[options]` marks equal the
 * real commands' (test/cli-startup.test.ts), so the lazy help never drifts from the full one.
 */
import type { Command } from "commander";
import type { CommandTree, ProgramHooks } from "./program.js";

/**
 * Registers one module's commands on the program; `tree` builds the full command tree on demand (`lotwise
 * completion` generates its scripts from it).
 */
export type RegisterCommands = (program: Command, hooks: ProgramHooks, tree: CommandTree) => void;

/** One top-level command as the top-level help lists it. */
export interface TopLevelCommand {
  readonly name: string;
  readonly description: string;
  /** The command has options of its own (the help lists it as `name [options]`). */
  readonly options: boolean;
  /** The command's arguments as its usage shows them (`<shell>`), when it takes some. */
  readonly arguments?: string;
}

/** A module of `src/cli/commands` with the top-level commands it registers, in help order. */
export interface CommandModule {
  readonly commands: readonly TopLevelCommand[];
  load(): Promise<RegisterCommands>;
}

const cmd = (name: string, description: string, options = false, args?: string): TopLevelCommand => ({
  name,
  description,
  options,
  ...(args === undefined ? {} : { arguments: args }),
});

/** Every top-level command, in the order of the help. */
export const COMMAND_MODULES: readonly CommandModule[] = [
  {
    commands: [
      cmd(
        "init",
        "Create a store (a SQLite file, or the schema of a postgres:// database), an organization and an API key. With --demo, also a synthetic market, a demo client with an account of realistic tax lots, a portfolio configuration and an asset class.",
        true,
      ),
    ],
    load: async () => (await import("./commands/init.js")).registerInit,
  },
  {
    commands: [
      cmd(
        "serve",
        "Serve the HTTP API of the interface spec (and lotwise's extensions) over the local store. Every request needs an X-Api-Key issued by `lotwise init` or `lotwise keys create`; the OpenAPI document is at /api/v1/openapi.json and the docs page at /api/v1/docs. Stops cleanly on Ctrl-C (SIGINT) or SIGTERM.",
        true,
      ),
    ],
    load: async () => (await import("./commands/serve.js")).registerServe,
  },
  {
    commands: [
      cmd(
        "orgs",
        "Organizations of the local store (each has its own clients, configurations, themes and keys).",
      ),
      cmd(
        "keys",
        "API keys of an organization (local store only; a key is shown once, only its hash is kept).",
      ),
    ],
    load: async () => (await import("./commands/orgs.js")).registerOrgs,
  },
  {
    commands: [
      cmd("market", "Market data of the local store: synthetic generation, CSV imports, what is loaded."),
    ],
    load: async () => (await import("./commands/market.js")).registerMarket,
  },
  {
    commands: [
      cmd("clients", "Clients of the organization (each holds one or more accounts)."),
      cmd("accounts", "Accounts of clients: holdings (tax lots), cash, configuration."),
      cmd("lots", "Tax lots of an account."),
    ],
    load: async () => (await import("./commands/clients.js")).registerClients,
  },
  {
    commands: [
      cmd(
        "actions",
        "Corporate actions on held lots: import them from a CSV, list them, apply them to accounts once (splits, dividends, spin-offs, symbol changes, mergers).",
      ),
    ],
    load: async () => (await import("./commands/actions.js")).registerActions,
  },
  {
    commands: [
      cmd(
        "configs",
        "Portfolio configurations: optimizer settings, tax preferences, restrictions, cash buffers.",
      ),
      cmd(
        "asset-classes",
        "Asset classes (sleeves): an index, a security, a theme, or a composite of sleeves.",
      ),
    ],
    load: async () => (await import("./commands/configs.js")).registerConfigs,
  },
  {
    commands: [
      cmd(
        "proposal",
        "Rebalance proposals: orders, lots sold and realized gains for target weights (endpoint 1).",
      ),
    ],
    load: async () => (await import("./commands/proposal.js")).registerProposal,
  },
  {
    commands: [
      cmd(
        "optimize",
        "Run the tax-aware optimizer on an account: target weights, trades, lots to sell, tracking error, tax cost and turnover (nothing is stored). Exits 1 when the configuration is infeasible, after printing the diagnosis.",
        true,
      ),
      cmd(
        "rebalance",
        "Optimize an account, then build and store the rebalance proposal of the optimized weights (as `lotwise proposal create` does); an infeasible configuration stores nothing and exits 1 with the diagnosis. With --all, a rebalance run over many accounts (--when breached|harvest|always, --client / --config / --accounts) with one outcome per account, stored (`lotwise rebalance runs list|show`); exits 1 when an account failed.",
        true,
      ),
    ],
    load: async () => (await import("./commands/optimize.js")).registerOptimize,
  },
  {
    commands: [
      cmd(
        "scan",
        "The morning scan: one row per account of the organization (or of a client, a configuration, a list) with its drift status and total drift, harvestable losses and their tax value, cash to invest (cash above the configuration's buffers) and NAV. An account that fails shows why in its row; the scan goes on. See docs/scan.md.",
        true,
      ),
    ],
    load: async () => (await import("./commands/scan.js")).registerScan,
  },
  {
    commands: [
      cmd(
        "risk-models",
        "Uploaded risk models: a vendor model (Barra, Axioma...) or your own, used by configurations whose risk_model_name is vendor or custom.",
      ),
    ],
    load: async () => (await import("./commands/risk-models.js")).registerRiskModels,
  },
  {
    commands: [
      cmd(
        "themes",
        "Themes: saved selection methodologies turned into weighted constituents and backtested.",
      ),
      cmd("catalog", "Catalog lookups: industry classification search and universe presets."),
    ],
    load: async () => (await import("./commands/themes.js")).registerThemes,
  },
  {
    commands: [
      cmd(
        "backtest",
        "Account backtests (endpoint 2): monthly rebalancing over a window, with tax-managed, pre-tax, benchmark and long-short cases. Jobs are durable (see docs/backtest-jobs.md).",
      ),
    ],
    load: async () => (await import("./commands/backtest.js")).registerBacktest,
  },
  {
    commands: [
      cmd(
        "trades",
        "Executions of an account: a stored proposal applied as executed, a broker trade-confirmation CSV, the list.",
      ),
      cmd("ledger", "Realized gains of an account or a client: rows, year totals, Form 8949 and Schedule D."),
    ],
    load: async () => (await import("./commands/ledger.js")).registerLedger,
  },
  {
    commands: [
      cmd(
        "worker",
        "Run backtest and scan jobs of a PostgreSQL store from its job queue (BullMQ on Redis); start any number, on any machines. Each job runs on a worker thread; progress, cancel and results go to the store, so every `lotwise serve` answers for them. Stops on SIGTERM: no new jobs, running ones get --grace seconds, the rest go back to the queue. A SQLite store needs no worker: `lotwise serve` runs its jobs.",
        true,
      ),
    ],
    load: async () => (await import("./commands/worker.js")).registerWorker,
  },
  {
    commands: [
      cmd(
        "store",
        "Store maintenance: bring a store (SQLite file or PostgreSQL database) to this lotwise's schema version, or copy a whole store into an empty one (e.g. a SQLite file into PostgreSQL to scale out).",
      ),
    ],
    load: async () => (await import("./commands/store.js")).registerStore,
  },
  {
    commands: [
      cmd(
        "completion",
        "Print a shell completion script (bash or zsh) for every command, sub-command and flag of this lotwise; values complete for fixed choices and files (--store, CSV and JSON files).",
        false,
        "<shell>",
      ),
    ],
    load: async () => (await import("./commands/completion.js")).registerCompletion,
  },
];

/** Global options that take a value (the word after them is not a command name). */
const VALUE_OPTIONS = new Set(["--store", "--url", "--api-key", "--org"]);

/**
 * The module whose command `args` (the words after `lotwise`) runs, or undefined when the line runs no known command
 * (`--help`, `--version`, nothing, a typo). `lotwise help clients` is the clients module.
 */
export function commandModuleFor(args: readonly string[]): CommandModule | undefined {
  let word: string | undefined;
  let help = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") break;
    if (a.startsWith("-")) {
      if (VALUE_OPTIONS.has(a)) i++;
      continue;
    }
    if (a === "help" && !help) {
      help = true;
      continue;
    }
    word = a;
    break;
  }
  if (word === undefined) return undefined;
  return COMMAND_MODULES.find((m) => m.commands.some((c) => c.name === word));
}
