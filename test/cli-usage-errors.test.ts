/**
 * Usage errors exit 2 in every command (issue 17): a bad number, an unknown enum value, a missing required flag,
 * conflicting flags, an unknown flag, a malformed uuid, a bad date. Each message names the flag (or argument) and
 * says what it expects; runtime errors of a well-formed command line (a uuid that is not in the store) exit 1.
 * In-process: `main` with captured output, against a real (empty) store.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../src/cli/main.js";
import { memoryOutput } from "../src/cli/output.js";

const dir = mkdtempSync(join(tmpdir(), "lotwise-usage-"));
const store = join(dir, "s.db");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A well-formed uuid that names nothing in the store. */
const U = "00000000-0000-4000-8000-000000000001";

async function lotwise(args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  const out = memoryOutput(false);
  const code = await main(["node", "lotwise", ...args], { output: () => out });
  return { code, stderr: out.stderr.join("\n"), stdout: out.stdout.join("\n") };
}

beforeAll(async () => {
  const r = await lotwise(["init", "--store", store]);
  expect(r.code, r.stderr).toBe(0);
});

/** [what is wrong, the command line (--store added), what the message must name, what it must say is expected]. */
const CASES: readonly [string, string[], string, RegExp?][] = [
  [
    "a seed that is not a number",
    ["init", "--store", join(dir, "a.db"), "--seed", "abc"],
    "--seed",
    /whole number/,
  ],
  [
    "too few demo securities",
    ["init", "--store", join(dir, "b.db"), "--demo", "--securities", "10"],
    "--securities",
    /50 to 5000/,
  ],
  [
    "a fractional year count",
    ["init", "--store", join(dir, "c.db"), "--demo", "--years", "0.5"],
    "--years",
    /1 to 30/,
  ],
  ["a market seed that is not a number", ["market", "generate", "--seed", "xyz"], "--seed"],
  [
    "a share above its range",
    ["market", "generate", "--canadian-share", "12"],
    "--canadian-share",
    /0\.05 means 5%/,
  ],
  ["a row limit that is not a number", ["themes", "evaluate", U, "--limit", "many"], "--limit"],
  ["an unknown flag", ["clients", "list", "--bogus"], "--bogus"],
  ["a malformed client uuid", ["clients", "show", "not-a-uuid"], "client", /uuid/],
  ["a malformed account uuid", ["accounts", "show", "42"], "account", /uuid/],
  ["a malformed account uuid in a flag", ["optimize", "--account", "not-a-uuid"], "--account", /uuid/],
  ["a malformed --org", ["--org", "acme", "clients", "list"], "--org", /uuid/],
  [
    "an impossible --as-of date",
    ["accounts", "holdings", U, "--as-of", "2025-13-01"],
    "--as-of",
    /YYYY-MM-DD/,
  ],
  ["February 30th", ["optimize", "--account", U, "--as-of", "2025-02-30"], "--as-of", /YYYY-MM-DD/],
  [
    "February 30th for a rebalance run",
    ["rebalance", "--all", "--as-of", "2025-02-30"],
    "--as-of",
    /YYYY-MM-DD/,
  ],
  [
    "a risk model dated February 30th",
    ["risk-models", "import", "--kind", "custom", "--name", "m", "--as-of", "2025-02-30"],
    "--as-of",
    /YYYY-MM-DD/,
  ],
  [
    "a compact --start-date",
    ["backtest", "start", "--account", U, "--start-date", "20250101"],
    "--start-date",
  ],
  ["an unknown --fail-on level", ["accounts", "drift", U, "--fail-on", "maybe"], "--fail-on", /warning/],
  ["a negative --top", ["accounts", "drift", U, "--top", "-1"], "--top"],
  ["a loss in words", ["accounts", "harvest", U, "--min-loss-usd", "abc"], "--min-loss-usd", /USD/],
  [
    "a loss fraction above 1",
    ["accounts", "harvest", U, "--min-loss-fraction", "5"],
    "--min-loss-fraction",
    /0 to 1/,
  ],
  [
    "an unknown --date-order",
    ["lots", "import", "lots.csv", "--account", U, "--date-order", "xyz"],
    "--date-order",
    /mdy/,
  ],
  [
    "an unknown currency",
    ["trades", "import", "t.csv", "--account", U, "--currency", "XYZ"],
    "--currency",
    /USD/,
  ],
  [
    "--withdraw with --deposit",
    ["rebalance", "--account", U, "--withdraw", "10", "--deposit", "10"],
    "--withdraw",
    /not both/,
  ],
  [
    "a --set value out of range",
    ["configs", "update", U, "--set", "max_weight=2"],
    "--set max_weight=2",
    /fraction/,
  ],
  [
    "a --set of an unknown field",
    ["configs", "update", U, "--set", "bogus=2"],
    "--set bogus=2",
    /unknown field/,
  ],
  ["a withdrawal in words", ["rebalance", "--account", U, "--withdraw", "lots"], "--withdraw", /USD/],
  ["an unknown --when", ["rebalance", "--all", "--when", "sometimes"], "--when", /breached/],
  ["--account with --all", ["rebalance", "--account", U, "--all"], "--all", /not both/],
  ["a --concurrency in words", ["scan", "--concurrency", "abc"], "--concurrency", /1 to 64/],
  [
    "a --tax-gamma in words",
    ["backtest", "start", "--account", U, "--tax-gamma", "abc"],
    "--tax-gamma",
    /number/,
  ],
  ["a malformed job uuid", ["backtest", "status", "job-1"], "job", /uuid/],
  ["a missing required flag", ["ledger", "show", "--account", U], "--year"],
  ["a year in words", ["ledger", "show", "--account", U, "--year", "last"], "--year", /2025/],
  ["a port out of range", ["serve", "--port", "99999"], "--port", /0 to 65535/],
  ["a missing --to", ["store", "copy", "--from", join(dir, "a.db")], "--to"],
  ["a malformed configuration uuid", ["configs", "show", "cfg"], "config", /uuid/],
  [
    "an unknown order-file --layout",
    ["proposal", "export", U, "--account", U, "--layout", "foo"],
    "--layout",
    /generic/,
  ],
  ["metadata that is not JSON", ["clients", "create", "--metadata", "{tier:gold"], "--metadata", /JSON/],
  ["a cash amount in words", ["accounts", "create", "--client", U, "--cash", "plenty"], "--cash", /USD/],
  ["a malformed theme uuid", ["themes", "backtest", "growth"], "theme", /uuid/],
  ["a malformed run uuid", ["rebalance", "runs", "show", "run-7"], "run_uuid", /uuid/],
  ["an unknown completion shell", ["completion", "fish"], "shell", /bash, zsh/],
  [
    "a --url without its scheme",
    ["--url", "127.0.0.1:8000", "--api-key", "k", "clients", "list"],
    "--url",
    /http:\/\/127\.0\.0\.1:8000/,
  ],
  ["an unknown command", ["clinets", "list"], "clinets", /clients/],
];

describe("usage errors exit 2 and name the flag", () => {
  it.each(CASES)("%s", async (_what, args, flag, expects) => {
    const r = await lotwise([...args, ...(args.includes("--store") ? [] : ["--store", store])]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(flag);
    if (expects) expect(r.stderr).toMatch(expects);
    expect(r.stderr).not.toMatch(/unexpected error|at .*\.ts:\d+/);
  });

  it("reports a market file that cannot be opened before anything runs (even before opening the store)", async () => {
    const missing = join(dir, "missing.csv");
    const r = await lotwise(["market", "import", "prices", missing, "--store", join(dir, "no-store.db")]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(`lotwise: cannot open ${missing}: no such file or folder`);
  });

  it("covers at least 20 cases across at least 15 commands", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(20);
    const commands = new Set(CASES.map(([, args]) => args.filter((a) => !a.startsWith("-"))[0]));
    expect(commands.size).toBeGreaterThanOrEqual(15);
  });
});

describe("runtime errors of a well-formed command line exit 1", () => {
  it("answers 1 for a well-formed uuid that names no client, account or theme", async () => {
    for (const args of [
      ["clients", "show", U],
      ["accounts", "show", U],
      ["themes", "show", U],
    ]) {
      const r = await lotwise([...args, "--store", store]);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toMatch(/not found/);
    }
  });

  it("answers 1 for a store that does not exist (a runtime condition, not a malformed flag)", async () => {
    const r = await lotwise(["clients", "list", "--store", join(dir, "missing.db")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("No lotwise store at");
  });
});
