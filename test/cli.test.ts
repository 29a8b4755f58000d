/**
 * The CLI as users run it: exit codes (0 ok, 1 failure, 2 usage), --help with examples, --json output validated by
 * the contract, the demo, lots import from a broker export, configurations, proposals, themes, catalog, and
 * local/remote parity. The commands run in-process (test/helpers/cli-inprocess.ts: `main()` with the output
 * captured, the same text and exit codes as the binary, without a process start per command); the server of the
 * remote tests is a real `lotwise serve` process (the built binary: `npm run build` first).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  accountOptimizationSchema,
  accountRebalanceSchema,
  accountSchema,
  clientListSchema,
  industrySearchResponseSchema,
  portfolioConfigReadSchema,
  proposalResponseSchema,
  themeBacktestResultSchema,
  themeConstituentSnapshotSchema,
} from "../src/contract/index.js";
import { ROOT, type Served, serveStore } from "./helpers/cli.js";
import { okJson as json, type Run, run } from "./helpers/cli-inprocess.js";

const FIXTURES = join(ROOT, "fixtures");

describe("lotwise CLI", () => {
  let dir: string;
  let store: string;
  let demo: {
    store: string;
    organization_uuid: string;
    api_key: string;
    client_uuid: string;
    account_uuid: string;
    portfolio_config_uuid: string;
    asset_class_uuid: string;
    theme_uuid: string;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "lotwise-cli-"));
    store = join(dir, "demo.db");
    demo = json(await run(["init", "--demo", "--store", store, "--json"]));
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("prints the identifiers of init --demo --json with the fixed names", () => {
    expect(Object.keys(demo).sort()).toEqual(
      [
        "store",
        "organization_uuid",
        "api_key",
        "client_uuid",
        "account_uuid",
        "portfolio_config_uuid",
        "asset_class_uuid",
        "theme_uuid",
      ].sort(),
    );
    expect(demo.api_key).toMatch(/^lw_[0-9a-f]{12}_/);
    expect(demo.store).toBe(store);
  });

  it("teaches with --help: every command has an example", async () => {
    const top = await run(["--help"]);
    expect(top.code).toBe(0);
    for (const c of [
      "init",
      "serve",
      "orgs",
      "keys",
      "market",
      "clients",
      "accounts",
      "lots",
      "configs",
      "asset-classes",
      "proposal",
      "optimize",
      "rebalance",
      "themes",
      "catalog",
    ])
      expect(top.stdout).toContain(c);
    for (const c of [
      ["lots", "import"],
      ["proposal", "create"],
      ["optimize"],
      ["rebalance"],
      ["themes", "backtest"],
      ["market", "import"],
      ["init"],
    ]) {
      const h = await run([...c, "--help"]);
      expect(h.code).toBe(0);
      expect(h.stdout, c.join(" ")).toContain("Examples:");
    }
  });

  it("exits 2 on usage errors and 1 on failures, with a message", async () => {
    const unknown = await run(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command/);
    const missing = await run(["proposal", "create", "--store", store]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/required option/);
    const again = await run(["init", "--store", store]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already holds a lotwise store/);
    const nostore = await run(["clients", "list", "--store", join(dir, "none.db")]);
    expect(nostore.code).toBe(1);
    expect(nostore.stderr).toMatch(/No lotwise store at .*lotwise init/);
    const workers = await run(["serve", "--store", store, "--port", "0", "--request-workers", "two"]);
    expect(workers.code).toBe(2);
    expect(workers.stderr).toMatch(/--request-workers must be an integer from 0 to 64, got two/);
    // A malformed date flag is a usage error in every command, naming the flag, before anything runs.
    for (const args of [
      ["accounts", "drift", demo.account_uuid, "--as-of", "2025-13-45"],
      ["optimize", "--account", demo.account_uuid, "--as-of", "2025-02-30"],
      ["scan", "--as-of", "tomorrow"],
      ["themes", "backtest", demo.theme_uuid, "--start-date", "2025-1-2"],
      ["backtest", "start", "--account", demo.account_uuid, "--start-date", "2025-13-45", "--no-wait"],
    ]) {
      const bad = await run([...args, "--store", store]);
      expect(bad.code, args.join(" ")).toBe(2);
      expect(bad.stderr, args.join(" ")).toMatch(/--(as-of|start-date).*(YYYY-MM-DD|calendar date)/s);
    }
  });

  it("shows the demo account with positions, lots, gains and NAV", async () => {
    const table = await run(["accounts", "show", demo.account_uuid, "--store", store]);
    expect(table.code).toBe(0);
    for (const s of [
      "Positions",
      "Tax lots",
      "NAV / AUM (USD)",
      "Unrealized short-term",
      "Unrealized long-term",
      "VRV:XTSE",
    ])
      expect(table.stdout).toContain(s);
    const a = accountSchema.parse(
      json(await run(["accounts", "show", demo.account_uuid, "--store", store, "--json"])),
    );
    expect(a.positions.length).toBeGreaterThan(5);
  });

  it("scan --fail-on says on stderr why it exits 1, and nothing when the gate holds", async () => {
    const out = join(dir, "scan.csv");
    const tripped = await run(["scan", "--out", out, "--fail-on", "warning", "--store", store]);
    expect(tripped.code, tripped.stderr).toBe(1);
    expect(tripped.stdout.trim()).toBe(`Wrote 1 scan row to ${out} (CSV).`);
    expect(tripped.stderr.trim()).toBe(
      "lotwise: --fail-on warning: 1 of 1 account at warning or breach; exit code 1.",
    );
    const held = await run(["scan", "--out", out, "--fail-on", "error", "--store", store]);
    expect(held.code, held.stderr).toBe(0);
    expect(held.stderr).toBe("");
  });

  it("imports a broker export of lots all-or-nothing, naming the line and column of bad rows", async () => {
    const dryRun = [
      "lots",
      "import",
      join(FIXTURES, "lots-broker-export.csv"),
      "--account",
      demo.account_uuid,
      "--dry-run",
      "--store",
      store,
    ];
    const dry = json(await run([...dryRun, "--json"]));
    expect(dry.lots_in_file).toBe(6);
    // In words: the dry run says the file would replace the account's lots, and how many.
    const said = await run(dryRun);
    expect(said.stdout).toContain(
      `Dry run: 6 lot(s) would be set on account ${demo.account_uuid}, replacing its ${dry.lots_before} lot(s)`,
    );
    expect(dry.lots_before).toBeGreaterThan(6);
    expect(dry.lots.map((l: { theme_asset_id: string }) => l.theme_asset_id)).toEqual([
      "DEL:XNYS",
      "DEL:XNYS",
      "OSM:XNYS",
      "SGR:XNYS",
      "NORL:XNAS",
      "VRV:XTSE",
    ]);
    const bad = join(dir, "bad.csv");
    writeFileSync(
      bad,
      "Symbol,Quantity,Cost Basis,Open Date\nDEL,10,100,2024-01-02\nZZZZ,5,50,2024-01-02\nOSM,x,1,2024-01-02\n",
    );
    const failed = await run(["lots", "import", bad, "--account", demo.account_uuid, "--store", store]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('bad.csv: line 4, column "Quantity"');
    const before = accountSchema.parse(
      json(await run(["accounts", "show", demo.account_uuid, "--json", "--store", store])),
    );
    expect(before.holdings.tax_lots.length).toBeGreaterThan(6); // the demo's lots are untouched
    const unknown = join(dir, "unknown.csv");
    writeFileSync(
      unknown,
      "Symbol,Quantity,Cost Basis,Open Date\nDEL,10,100,2024-01-02\nZZZZ,5,50,2024-01-02\n",
    );
    const u = await run(["lots", "import", unknown, "--account", demo.account_uuid, "--store", store]);
    expect(u.code).toBe(1);
    expect(u.stderr).toContain("unknown ticker ZZZZ");
  });

  it("summarizes a large lots import in a screenful; --json lists every lot", async () => {
    const big = join(dir, "big-lots.csv");
    const symbols = ["DEL", "OSM", "SGR", "NORL"];
    writeFileSync(
      big,
      `Symbol,Quantity,Cost Basis,Open Date\n${Array.from({ length: 500 }, (_, i) => `${symbols[i % 4]},${i + 1},${i + 10},2024-01-02`).join("\n")}\n`,
    );
    const args = [
      "lots",
      "import",
      big,
      "--account",
      demo.account_uuid,
      "--append",
      "--dry-run",
      "--store",
      store,
    ];
    const text = await run(args);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain("Dry run: 500 lot(s) would be added");
    expect(text.stdout).toContain("First 20 of 500 lots (--json lists them all)");
    expect(text.stdout).toContain("Totals per asset");
    expect(text.stdout.split("\n").length).toBeLessThan(60);
    // 125 lots of DEL: quantities 1, 5, ..., 497 and total costs 10, 14, ..., 506.
    expect(text.stdout).toMatch(/DEL:XNYS\s+│\s+125\s+│\s+31125\s+│\s+32,250\.00/);
    const full = json(await run([...args, "--json"]));
    expect(full.lots).toHaveLength(500);
    expect(full.lots[499]).toMatchObject({ theme_asset_id: "NORL:XNAS", quantity: "500", cost_basis: "509" });
    expect(full.by_ticker.map((t: { lots: number }) => t.lots)).toEqual([125, 125, 125, 125]);
  });

  it("creates and updates a configuration from the sample file", async () => {
    const c = portfolioConfigReadSchema.parse(
      json(
        await run([
          "configs",
          "create",
          "--file",
          join(FIXTURES, "portfolio-config.json"),
          "--json",
          "--store",
          store,
        ]),
      ),
    );
    expect(c.name).toBe("US core direct index, tax-managed");
    const u = portfolioConfigReadSchema.parse(
      json(await run(["configs", "update", c.uuid, "--set", "max_weight=0.05", "--json", "--store", store])),
    );
    expect(u.max_weight).toBe("0.05");
    expect(u.no_hold_tickers).toHaveLength(1);
  });

  it("creates a proposal from the sample weights file", async () => {
    const p = proposalResponseSchema.parse(
      json(
        await run([
          "proposal",
          "create",
          "--account",
          demo.account_uuid,
          "--weights",
          join(FIXTURES, "target-weights.csv"),
          "--json",
          "--store",
          store,
        ]),
      ),
    );
    expect(p.orders.some((o) => o.tax_lots && o.tax_lots.length > 0)).toBe(true);
    expect(p.orders.find((o) => o.ticker === "VRV:XTSE")?.fx_cost_breakdown?.currency).toBe("CAD");
    const shown = proposalResponseSchema.parse(
      json(
        await run([
          "proposal",
          "show",
          p.proposal_uuid,
          "--account",
          demo.account_uuid,
          "--json",
          "--store",
          store,
        ]),
      ),
    );
    expect(shown).toEqual(p);
  });

  it("optimizes the demo account and rebalances it into a stored proposal; infeasible exits 1", async () => {
    const table = await run(["optimize", "--account", demo.account_uuid, "--store", store]);
    expect(table.code, table.stderr).toBe(0);
    for (const s of [
      "Status",
      "OPTIMAL",
      "Tracking error",
      "Tax cost (USD)",
      "Turnover",
      "Solver",
      "Trades",
      "Lots to sell",
    ])
      expect(table.stdout).toContain(s);
    const o = accountOptimizationSchema.parse(
      json(await run(["optimize", "--account", demo.account_uuid, "--json", "--store", store])),
    );
    expect(o.status).toBe("optimal");
    expect(o.trades.length).toBeGreaterThan(0);
    // The table shows the same figures as the JSON.
    expect(table.stdout).toContain(`${(o.turnover * 100).toFixed(2)}%`);
    const r = accountRebalanceSchema.parse(
      json(await run(["rebalance", "--account", demo.account_uuid, "--json", "--store", store])),
    );
    expect(r.optimization).toEqual(o);
    const shown = proposalResponseSchema.parse(
      json(
        await run([
          "proposal",
          "show",
          r.proposal!.proposal_uuid,
          "--account",
          demo.account_uuid,
          "--json",
          "--store",
          store,
        ]),
      ),
    );
    expect(shown).toEqual(r.proposal);
    const human = await run(["rebalance", "--account", demo.account_uuid, "--store", store]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain("Optimization");
    expect(human.stdout).toContain("Rebalance proposal");
    const bad = await run([
      "optimize",
      "--account",
      demo.account_uuid,
      "--as-of",
      "31/12/2025",
      "--store",
      store,
    ]);
    expect(bad.code).toBe(2);
    const set = (v: string) =>
      run(["configs", "update", demo.portfolio_config_uuid, "--set", `min_weight=${v}`, "--store", store]);
    expect((await set("0.05")).code).toBe(0);
    try {
      const infeasible = await run(["rebalance", "--account", demo.account_uuid, "--store", store]);
      expect(infeasible.code).toBe(1);
      expect(infeasible.stdout).toContain("Diagnosis");
      expect(infeasible.stdout).toContain("min_weight 0.05");
      expect(infeasible.stdout).toContain("No proposal");
    } finally {
      expect((await set("0")).code).toBe(0);
    }
  }, 60_000);

  it("creates and evaluates the sample theme (its name count in English) and searches the catalog", async () => {
    const created = json(
      await run([
        "themes",
        "create",
        "--file",
        join(FIXTURES, "theme-dividend-tech.json"),
        "--evaluate",
        "--json",
        "--store",
        store,
      ]),
    );
    const snap = themeConstituentSnapshotSchema.parse(created.snapshot);
    expect(snap.theme_uuid).toBe(created.theme.uuid);
    const stored = themeConstituentSnapshotSchema.parse(
      json(await run(["themes", "constituents", demo.theme_uuid, "--json", "--store", store])),
    );
    expect(stored.total_weight).toBeCloseTo(1, 9);
    const table = await run(["themes", "constituents", demo.theme_uuid, "--store", store]);
    const n = stored.total_constituents;
    expect(table.stdout).toContain(`: ${n} ${n === 1 ? "name" : "names"}, total weight`);
    const search = industrySearchResponseSchema.parse(
      json(await run(["catalog", "industry", "semiconductors", "--json", "--store", store])),
    );
    expect(search.matches[0]!.name.toLowerCase()).toContain("semiconductor");
  });

  it("warns when a theme's max_weight cannot hold with the names selected, and not when it holds", async () => {
    const file = join(dir, "theme-top5.json");
    const methodology = JSON.parse(readFileSync(join(FIXTURES, "theme-dividend-tech.json"), "utf8"));
    writeFileSync(
      file,
      JSON.stringify({
        ...methodology,
        name: "Top 5",
        filters: ["sector = 45"],
        selection: { mode: "top_n", value: 5 },
        weighting: { scheme: "score", max_weight: 0.1 },
      }),
    );
    const created = await run(["themes", "create", "--file", file, "--evaluate", "--store", store]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain(
      "Warning: max_weight 10.00% cannot hold with 5 names (5 x 10.00% is under 100%), so each name weighs 20.00%",
    );
    const uuid = /Top 5\s+([0-9a-f-]{36})/.exec(created.stdout)![1]!;
    const again = await run(["themes", "constituents", uuid, "--store", store]);
    expect(again.stdout).toContain("Warning: max_weight 10.00% cannot hold with 5 names");
    const held = await run(["themes", "constituents", demo.theme_uuid, "--store", store]);
    expect(held.stdout).not.toContain("Warning");
  });

  it("backtests the demo theme against the synthetic index and writes an HTML report", async () => {
    const html = join(dir, "theme.html");
    const r = await run([
      "themes",
      "backtest",
      demo.theme_uuid,
      "--start-date",
      "2025-01-02",
      "--benchmark",
      "SYNTH500",
      "--html",
      html,
      "--json",
      "--store",
      store,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const result = themeBacktestResultSchema.parse(json(r));
    // The same flag names as \`backtest start\`; the short names of earlier versions still work.
    const first = Object.keys(result.theme.backtest_values).sort()[0]!;
    expect(first >= "2025-01-02" && first <= "2025-01-08", first).toBe(true);
    const old = await run([
      "themes",
      "backtest",
      demo.theme_uuid,
      "--start",
      "2025-01-02",
      "--benchmark",
      "SYNTH500",
      "--json",
      "--store",
      store,
    ]);
    expect(json(old)).toEqual(json(r));
    expect(r.stderr).toContain(`wrote the report to ${html}`);
    const table = await run([
      "themes",
      "backtest",
      demo.theme_uuid,
      "--start-date",
      "2025-01-02",
      "--store",
      store,
    ]);
    const name = json(await run(["themes", "show", demo.theme_uuid, "--json", "--store", store])).name;
    expect(table.stdout).toContain(`Theme backtest of ${name}`);
    expect(table.stdout).toMatch(/Window\s+│ 2025-01-02 to 2025-12-31/);
    const page = readFileSync(html, "utf8");
    expect(page).toMatch(/^<!doctype html>/);
    expect(page.match(/<polyline /g)).toHaveLength(2);
    // The benchmark is charted daily, as the theme: as many points in both lines.
    const [themeLine, benchLine] = [...page.matchAll(/<polyline points="([^"]+)"/g)].map(
      (m) => m[1]!.split(" ").length,
    );
    expect(benchLine).toBe(themeLine);
    expect(Object.keys(result.benchmark!.backtest_values!)).toEqual(
      Object.keys(result.theme.backtest_values),
    );
    // Every rebalance event of the answer is a row of the report.
    for (const e of result.rebalance_events)
      expect(page).toContain(`<tr><td>${e.date}</td><td>${e.constituent_count}</td>`);
  });

  describe("against a served instance", () => {
    let server: Served;
    let url: string;

    beforeAll(async () => {
      server = await serveStore(store);
      url = server.url;
    }, 30_000);
    afterAll(() => server.stop());

    it("runs heavy requests on min(2, cores) request workers and says so", () => {
      const printed = JSON.parse(server.printed()) as { request_workers: number };
      expect(printed.request_workers).toBe(Math.min(2, availableParallelism()));
    });

    it("gives identical JSON locally and remotely", async () => {
      const remote = ["--url", url, "--api-key", demo.api_key, "--json"];
      const local = ["--store", store, "--json"];
      for (const cmd of [
        ["accounts", "show", demo.account_uuid],
        ["clients", "list"],
        ["configs", "show", demo.portfolio_config_uuid],
        ["asset-classes", "show", demo.asset_class_uuid],
        ["themes", "constituents", demo.theme_uuid],
        ["catalog", "presets"],
      ]) {
        const a = await run([...cmd, ...local]);
        const b = await run([...cmd, ...remote]);
        expect(a.code, a.stderr).toBe(0);
        expect(b.code, b.stderr).toBe(0);
        expect(b.stdout, cmd.join(" ")).toBe(a.stdout);
      }
      clientListSchema.parse(JSON.parse((await run(["clients", "list", ...remote])).stdout));
    });

    it("optimizes and rebalances identically locally and remotely", async () => {
      const remote = ["--url", url, "--api-key", demo.api_key];
      const local = ["--store", store];
      for (const extra of [["--json"], [], ["--as-of", "2025-11-28", "--json"]]) {
        const cmd = ["optimize", "--account", demo.account_uuid, ...extra];
        const a = await run([...cmd, ...local]);
        const b = await run([...cmd, ...remote]);
        expect(a.code, a.stderr).toBe(0);
        expect(b.code, b.stderr).toBe(0);
        expect(b.stdout, cmd.join(" ")).toBe(a.stdout);
      }
      // Each rebalance stores its own proposal: the same answer but for the proposal's uuid and timestamp.
      const cmd = ["rebalance", "--account", demo.account_uuid, "--json"];
      const strip = (r: Run) => {
        expect(r.code, r.stderr).toBe(0);
        const x = accountRebalanceSchema.parse(JSON.parse(r.stdout));
        return { ...x, proposal: { ...x.proposal!, proposal_uuid: "", created: "" } };
      };
      const a = strip(await run([...cmd, ...local]));
      const b = strip(await run([...cmd, ...remote]));
      expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    });

    it("refuses a wrong key and reports an unreachable server", async () => {
      const bad = await run([
        "clients",
        "list",
        "--url",
        url,
        "--api-key",
        "lw_000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      ]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/unauthorized|API key/i);
      const down = await run(["clients", "list", "--url", "http://127.0.0.1:9", "--api-key", demo.api_key]);
      expect(down.code).toBe(1);
    });
  });
});
