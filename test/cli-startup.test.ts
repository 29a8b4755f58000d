/**
 * The CLI loads only what the command line runs (issue 17, start-up): `--version` and the top-level `--help` import
 * no command module, no zod, no SQLite driver and no service; `lotwise clients ...` imports the clients module and
 * not the backtest one. The top-level help built from the command table equals the help of the full tree.
 * What a command loads is measured on real processes of the built binary (a module-resolution hook in NODE_OPTIONS;
 * `npm run build` first); the other commands run in-process (test/helpers/cli-inprocess.ts).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Command } from "commander";
import { afterAll, describe, expect, it } from "vitest";
import { COMMAND_MODULES, commandModuleFor } from "../src/cli/command-table.js";
import { buildProgram } from "../src/cli/main.js";
import { run } from "./helpers/cli.js";
import { run as runHere } from "./helpers/cli-inprocess.js";

const dir = mkdtempSync(join(tmpdir(), "lotwise-startup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function helpOf(cmd: Command): string {
  let text = "";
  cmd.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
  cmd.outputHelp();
  return text;
}

/** The module URLs a run of the binary loads, recorded by a module-resolution hook. */
async function modulesLoadedBy(args: string[]): Promise<string[]> {
  const log = join(dir, `loaded-${Math.random().toString(36).slice(2)}.txt`);
  const hooks = join(dir, "hooks.mjs");
  writeFileSync(
    hooks,
    `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, r.url + "\\n");
  return r;
}
`,
  );
  const register = join(dir, "register.mjs");
  writeFileSync(
    register,
    `import { register } from "node:module"; register(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  writeFileSync(log, "");
  const r = await run(args, { NODE_OPTIONS: `--import ${pathToFileURL(register).href}` });
  expect(r.code, r.stderr).toBe(0);
  return readFileSync(log, "utf8").split("\n").filter(Boolean);
}

describe("CLI start-up", () => {
  it("lists the same top-level commands from its table as the full command tree does", async () => {
    const lazy = helpOf(await buildProgram({}, []));
    const full = helpOf(await buildProgram());
    expect(lazy).toBe(full);
  });

  it("finds the module of the command being run past the global options", () => {
    const name = (args: string[]) => commandModuleFor(args)?.commands[0]?.name;
    expect(name(["--store", "x.db", "--json", "lots", "import", "f.csv"])).toBe("clients");
    expect(name(["--url=http://h", "backtest", "list"])).toBe("backtest");
    expect(name(["actions", "apply", "--all"])).toBe("actions");
    expect(name(["help", "catalog"])).toBe("themes");
    expect(name(["--version"])).toBeUndefined();
    expect(name(["--help"])).toBeUndefined();
    expect(name(["clinets"])).toBeUndefined();
    expect(name(["ledger", "show", "--year", "2025"])).toBe("trades");
    expect(name(["--store", "postgres://db/x", "worker", "--concurrency", "2"])).toBe("worker");
    expect(name(["store", "copy", "--from", "a.db", "--to", "b.db"])).toBe("store");
    expect(COMMAND_MODULES.flatMap((m) => m.commands.map((c) => c.name))).toHaveLength(24);
  });

  it("loads no command module, zod, SQLite driver or service for --version and --help", async () => {
    for (const args of [["--version"], ["--help"]]) {
      const loaded = await modulesLoadedBy(args);
      expect(loaded.some((u) => u.includes("/dist/cli/main.js"))).toBe(true);
      const heavy = loaded.filter((u) => /\/commands\/|zod|better-sqlite3|\/service\/|\/store\//.test(u));
      expect(heavy, args.join(" ")).toEqual([]);
    }
  });

  it("loads the clients module and not the backtest one for a clients command", async () => {
    const loaded = await modulesLoadedBy(["clients", "list", "--help"]);
    expect(loaded.some((u) => u.endsWith("/dist/cli/commands/clients.js"))).toBe(true);
    expect(loaded.some((u) => u.endsWith("/dist/cli/commands/backtest.js"))).toBe(false);
  });

  it("loads the service module of the operation it calls and not the optimizer, backtests or themes (clients list)", async () => {
    const store = join(dir, "s.db");
    expect((await runHere(["init", "--store", store])).code).toBe(0);
    const loaded = await modulesLoadedBy(["clients", "list", "--store", store]);
    expect(loaded.some((u) => u.endsWith("/dist/service/clients.js"))).toBe(true);
    const heavy = loaded.filter((u) =>
      /\/core\/(optimizer|backtest|numeric|risk)\/|\/market\/|\/service\/(optimize|backtest-jobs|themes|scan)\.js|\/dist\/client\/|\/dist\/server\/|\/node_modules\/ora\//.test(
        u,
      ),
    );
    expect(heavy).toEqual([]);
  });

  it("still reports an unknown command as a usage error with a suggestion", async () => {
    const r = await runHere(["clinets", "list"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'clinets'");
    expect(r.stderr).toContain("clients");
  });
});
