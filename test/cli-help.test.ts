/** Every command of the CLI teaches: a description, and an example in its --help. */
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../src/cli/main.js";

/** Commands that run something: the leaves, and commands with an action of their own besides sub-commands. */
function leaves(cmd: Command, path: string[] = []): { path: string; cmd: Command }[] {
  if (cmd.commands.length === 0) return [{ path: path.join(" "), cmd }];
  const runs = path.length > 0 && (cmd as unknown as { _actionHandler: unknown })._actionHandler !== null;
  return [
    ...(runs ? [{ path: path.join(" "), cmd }] : []),
    ...cmd.commands.flatMap((c) => leaves(c, [...path, c.name()])),
  ];
}

function helpOf(cmd: Command): string {
  let text = "";
  cmd.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
  cmd.outputHelp();
  return text;
}

const all = leaves(await buildProgram());

describe("CLI help", () => {
  it("has the command tree of PRODUCT.md section 6", () => {
    const paths = all.map((l) => l.path);
    for (const p of [
      "init",
      "serve",
      "orgs create",
      "keys create",
      "keys list",
      "keys revoke",
      "market generate",
      "market import",
      "market list",
      "clients create",
      "clients list",
      "clients show",
      "clients update",
      "accounts create",
      "accounts show",
      "lots import",
      "configs list",
      "configs show",
      "configs create",
      "configs update",
      "asset-classes list",
      "asset-classes show",
      "asset-classes create",
      "proposal create",
      "optimize",
      "rebalance",
      "rebalance runs list",
      "rebalance runs show",
      "themes create",
      "themes update",
      "themes list",
      "themes show",
      "themes evaluate",
      "themes constituents",
      "themes backtest",
      "catalog industry",
      "catalog presets",
      "risk-models import",
      "risk-models list",
      "risk-models show",
      "risk-models delete",
    ])
      expect(paths).toContain(p);
  });

  it.each(all.map((l) => [l.path, l.cmd] as const))("%s has a description and an example", (_path, cmd) => {
    expect(cmd.description().length).toBeGreaterThan(10);
    expect(helpOf(cmd)).toMatch(/Examples:\n\s+\$ lotwise /);
  });
});

describe("CLI help of the backtest parameters", () => {
  it("states the default of every parameter a backtest fills when it is not given", () => {
    for (const path of ["backtest start", "backtest batch"]) {
      const cmd = all.find((l) => l.path === path)!.cmd;
      for (const flag of [
        "--start-date",
        "--end-date",
        "--tax-gamma",
        "--tax-loss-threshold-bps",
        "--starting-nav",
      ]) {
        const option = cmd.options.find((o) => o.long === flag)!;
        expect(option.description, `${path} ${flag}`).toMatch(/\(default[: ]/);
      }
    }
  });
});

describe("CLI help of trades import", () => {
  it("says that rows without a currency take their listing's, as the import does (not USD)", () => {
    const cmd = all.find((l) => l.path === "trades import")!.cmd;
    const option = cmd.options.find((o) => o.long === "--currency")!;
    expect(option.description).toContain("default: the listing's currency");
    expect(option.defaultValue).toBeUndefined();
  });
});

describe("CLI help of the global options", () => {
  it("says --store takes a PostgreSQL URL as well as a SQLite file", async () => {
    const program = await buildProgram();
    const store = program.options.find((o) => o.long === "--store")!;
    expect(store.description).toContain("SQLite file");
    expect(store.description).toContain("postgres:// URL");
  });
});

describe("CLI help of repeatable options", () => {
  it('shows no "(default: [])" and teaches --set by a plain example', () => {
    for (const { path, cmd } of all) expect(helpOf(cmd), path).not.toContain("(default: [])");
    const set = all.find((l) => l.path === "configs update")!.cmd.options.find((o) => o.long === "--set")!;
    expect(set.description).toContain("e.g. --set max_weight=0.05");
  });
});
