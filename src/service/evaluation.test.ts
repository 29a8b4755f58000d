import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { envelope, send } from "../../test/helpers/http.js";
import { listing } from "../../test/helpers/listing.js";
import { main } from "../cli/main.js";
import { memoryOutput } from "../cli/output.js";
import { accountEvaluationSchema, portfolioConfigWriteSchema } from "../contract/index.js";
import { createApp, serve } from "../server/index.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import { accountDrift } from "./drift.js";
import { evaluateAccountRules, evaluateAccountRulesWith } from "./evaluation.js";
import { harvestScan } from "./harvest.js";
import {
  createAccount,
  createAssetClass,
  createClient,
  createOrganization,
  createPortfolioConfig,
  type ServiceContext,
} from "./index.js";

/**
 * A hand market: AAA and BBB (USD) at constant closes AAA 100, BBB 50 from 2026-01-02 to 2026-03-31; index HAND2
 * weighs AAA 60%, BBB 40%.
 */
async function writeHandMarket(store: SqliteStore): Promise<void> {
  const m = store.market;
  await m.upsertSecurities(["AAA:XNYS", "BBB:XNYS"].map((id) => listing(id, { sector: 45 })));
  const closes: Record<string, number> = { "AAA:XNYS": 100, "BBB:XNYS": 50 };
  await m.insertPrices(
    Object.entries(closes).flatMap(([id, close]) =>
      ["2026-01-02", "2026-03-31"].map((date) => ({
        themeAssetId: id,
        date,
        open: null,
        high: null,
        low: null,
        close,
        adjClose: null,
        volume: null,
      })),
    ),
  );
  await m.upsertIndex({ identifier: "HAND2", name: "Hand two", currency: "USD", description: null });
  await m.insertIndexWeights([
    { identifier: "HAND2", date: "2026-01-02", themeAssetId: "AAA:XNYS", weight: 0.6 },
    { identifier: "HAND2", date: "2026-01-02", themeAssetId: "BBB:XNYS", weight: 0.4 },
  ]);
}

/**
 * Policy 0 (enabled): rebalance on Mondays when total_drift > 15%; harvest on the 1st and 16th when the tax value
 * of the harvestable losses is at least 100 USD and the drift status is warning; review when total_drift > 50%
 * (never here); a January-only review (expires 2026-01-31); a label in force from 2026-02-20. Policy 1 is disabled.
 */
const EVALUATION_RULES = [
  {
    enabled: true,
    rules: [
      { value: "rebalance", cron: "0 9 * * 1", condition: "total_drift > 0.15", priority: 5 },
      {
        value: "harvest",
        cron: "0 0 1,16 * *",
        condition: "harvest_value_usd >= 100 and drift_status = 'warning'",
        priority: 10,
      },
      { value: "review", condition: "total_drift > 0.5" },
      { value: "january-review", expires_at: "2026-01-31" },
      { value: "later", starts_from: "2026-02-20", priority: 1 },
    ],
  },
  { enabled: false, rules: [{ value: "never", priority: 99 }] },
];

const dir = mkdtempSync(join(tmpdir(), "lotwise-evaluation-"));
const file = join(dir, "evaluation.db");
let store: SqliteStore;
let ctx: ServiceContext;
let org: string;
let key: string;
let clientUuid: string;
/** Off target (total drift 17.78%, status warning) with a harvestable BBB loss of 500 USD. */
let drifted: string;
/** Exactly on target, no loss. */
let onTarget: string;
let configUuid: string;

beforeAll(async () => {
  store = openSqliteStore(file);
  await writeHandMarket(store);
  ctx = { store, clock: () => new Date("2026-04-01T12:00:00Z") };
  const made = await createOrganization(ctx, "Evaluation test");
  org = made.organization.uuid;
  key = made.apiKey.key;
  const core = await createAssetClass(ctx, org, { name: "Core", benchmark_index_identifier: "HAND2" });
  configUuid = (
    await createPortfolioConfig(ctx, org, {
      name: "Watched",
      asset_allocations: [{ asset_class_uuid: core.uuid, target_allocation: "1" }],
      drift_warning_threshold: "0.1",
      drift_breach_threshold: "0.25",
      evaluation_rules: EVALUATION_RULES,
    })
  ).uuid;
  clientUuid = (await createClient(ctx, org, { external_id: "evaluation-client" })).uuid;
  // AAA 60 x 100 = 6,000; BBB 40 x 50 = 2,000 (basis 40 x 62.5 = 2,500: a 500 loss); cash 1,000; NAV 9,000.
  drifted = (
    await createAccount(ctx, org, clientUuid, {
      name: "Drifted",
      cash_value_usd: "1000",
      portfolio_config_uuid: configUuid,
      holdings: {
        tax_lots: [
          { theme_asset_id: "AAA:XNYS", quantity: "60", cost_basis: "80", trade_date: "2025-01-02" },
          { theme_asset_id: "BBB:XNYS", quantity: "40", cost_basis: "62.5", trade_date: "2025-06-02" },
        ],
      },
    })
  ).uuid;
  // AAA 54 x 100 = 5,400 (60%), BBB 72 x 50 = 3,600 (40%), no cash: on target, no loss.
  onTarget = (
    await createAccount(ctx, org, clientUuid, {
      name: "On target",
      cash_value_usd: "0",
      portfolio_config_uuid: configUuid,
      holdings: {
        tax_lots: [
          { theme_asset_id: "AAA:XNYS", quantity: "54", cost_basis: "100", trade_date: "2025-01-02" },
          { theme_asset_id: "BBB:XNYS", quantity: "72", cost_basis: "50", trade_date: "2025-01-02" },
        ],
      },
    })
  ).uuid;
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const february = Array.from({ length: 28 }, (_, i) => `2026-02-${String(i + 1).padStart(2, "0")}`);

/** The values of the fired rules on each date of February 2026 where some rule fires. */
async function calendar(accountUuid: string): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const date of february) {
    const e = await evaluateAccountRules(ctx, org, accountUuid, { clientUuid, asOf: date });
    if (e.fired.length > 0) out[date] = e.fired.map((r) => r.value);
  }
  return out;
}

describe("evaluation rules", () => {
  it("fires by cron and condition over a month: which dates fire, highest priority first", async () => {
    // February 2026 starts on a Sunday: Mondays are the 2nd, 9th, 16th, 23rd. The harvest rule's cron fires on
    // the 1st and 16th; "later" is in force from the 20th; January's review expired on the 31st.
    expect(await calendar(drifted)).toEqual({
      "2026-02-01": ["harvest"],
      "2026-02-02": ["rebalance"],
      "2026-02-09": ["rebalance"],
      "2026-02-16": ["harvest", "rebalance"],
      "2026-02-20": ["later"],
      "2026-02-21": ["later"],
      "2026-02-22": ["later"],
      "2026-02-23": ["rebalance", "later"],
      "2026-02-24": ["later"],
      "2026-02-25": ["later"],
      "2026-02-26": ["later"],
      "2026-02-27": ["later"],
      "2026-02-28": ["later"],
    });
    // On target with no loss, the conditions never hold: only the unconditional label fires.
    expect(Object.keys(await calendar(onTarget))).toEqual(february.slice(19));
    expect(Object.values(await calendar(onTarget)).every((v) => v.length === 1 && v[0] === "later")).toBe(
      true,
    );
  });

  it("says why each rule fired or not, with the facts its condition read", async () => {
    const e = await evaluateAccountRules(ctx, org, drifted, { asOf: "2026-02-16" });
    expect(accountEvaluationSchema.parse(e)).toEqual(e);
    // Drift: AAA 6000/9000 - 0.6 = +0.0667, BBB 2000/9000 - 0.4 = -0.1778, cash +0.1111: total 0.3556 / 2.
    // Harvest: BBB loss 2,500 - 2,000 = 500, short term (bought 2025-06-02) at 37%: 185.
    expect(e.facts).toEqual({
      total_drift: "0.1777777778",
      max_asset_drift: "0.1777777778",
      drift_status: "warning",
      harvestable_loss_usd: "500",
      harvest_value_usd: "185",
      cash_usd: "1000",
      cash_weight: "0.1111111111",
      nav: "9000",
      positions: 2,
      year: 2026,
      month: 2,
      day: 16,
    });
    expect(e.evaluated).toBe(6);
    expect(e.fired).toEqual([
      {
        rule_type: "model_drift",
        index: 0,
        rule_index: 1,
        value: "harvest",
        priority: 10,
        reason:
          "cron \"0 0 1,16 * *\" fires on 2026-02-16 (Monday); condition \"harvest_value_usd >= 100 and drift_status = 'warning'\" holds (drift_status = 'warning', harvest_value_usd = 185)",
        facts_used: { drift_status: "warning", harvest_value_usd: "185" },
      },
      {
        rule_type: "model_drift",
        index: 0,
        rule_index: 0,
        value: "rebalance",
        priority: 5,
        reason:
          'cron "0 9 * * 1" fires on 2026-02-16 (Monday); condition "total_drift > 0.15" holds (total_drift = 0.1777777778)',
        facts_used: { total_drift: "0.1777777778" },
      },
    ]);
    expect(e.not_fired.map((r) => [r.index, r.rule_index, r.reason])).toEqual([
      [0, 2, 'condition "total_drift > 0.5" is false (total_drift = 0.1777777778)'],
      [0, 3, "expired: its last day was 2026-01-31"],
      [0, 4, "not in force yet: it starts on 2026-02-20"],
      [1, 0, "its policy is disabled (enabled: false)"],
    ]);
    const tuesday = await evaluateAccountRules(ctx, org, drifted, { asOf: "2026-02-17" });
    expect(tuesday.not_fired[0]!.reason).toBe('cron "0 9 * * 1" does not fire on 2026-02-17 (Tuesday)');
  });

  it("keeps a rule in force through its expires_at day and not after; a disabled policy never fires", async () => {
    const last = await evaluateAccountRules(ctx, org, onTarget, { asOf: "2026-01-31" });
    expect(last.fired.map((r) => [r.value, r.reason])).toEqual([
      ["january-review", "in force … to 2026-01-31"],
    ]);
    const after = await evaluateAccountRules(ctx, org, onTarget, { asOf: "2026-02-01" });
    expect(after.fired).toEqual([]);
    for (const date of ["2026-01-31", "2026-02-20", "2026-03-31"])
      expect(
        (await evaluateAccountRules(ctx, org, drifted, { asOf: date })).fired.some(
          (r) => r.value === "never",
        ),
      ).toBe(false);
  });

  it("evaluates from a drift and harvest scan computed by the caller, reading no other result", async () => {
    const account = await store.accounts.require(org, clientUuid, drifted);
    const asOf = "2026-02-16";
    const drift = await accountDrift(ctx, org, drifted, { asOf });
    const harvest = await harvestScan(ctx, org, drifted, { asOf });
    const direct = await evaluateAccountRules(ctx, org, drifted, { asOf });
    expect(await evaluateAccountRulesWith(ctx, account, asOf, { drift, harvest })).toEqual(direct);
    // The facts are the caller's: a drift reporting a breach makes the harvest rule's condition false.
    const breach = await evaluateAccountRulesWith(ctx, account, asOf, {
      drift: { ...drift, status: "breach" },
      harvest,
    });
    expect(breach.fired.map((r) => r.value)).toEqual(["rebalance"]);
    expect(breach.not_fired[0]!.reason).toBe(
      "condition \"harvest_value_usd >= 100 and drift_status = 'warning'\" is false (drift_status = 'breach', harvest_value_usd = 185)",
    );
    // Without a drift (no target), drift facts are null and every comparison with them is false.
    const none = await evaluateAccountRulesWith(ctx, account, asOf, { drift: null, harvest });
    expect(none.facts).toMatchObject({ total_drift: null, drift_status: null, nav: "9000", positions: 2 });
    expect(none.facts.cash_weight).toBe("0.1111111111");
    expect(none.fired).toEqual([]);
    expect(none.not_fired[0]!.reason).toBe('condition "total_drift > 0.15" is false (total_drift = null)');
  });
});

describe("rules stored before the write-time checks", () => {
  it("load, never fire when their cron or condition does not parse, and are named in warnings", async () => {
    // The service functions take already-validated writes: this stands for a configuration stored earlier.
    const legacy = (
      await createPortfolioConfig(ctx, org, {
        name: "Legacy",
        evaluation_rules: [
          {
            enabled: true,
            rules: [
              { value: "bad-cron", cron: "0 9 * * 8" },
              { value: "label", condition: "advisor approved" },
              { value: "ok", condition: "nav > 0" },
            ],
          },
        ],
      })
    ).uuid;
    const account = (
      await createAccount(ctx, org, clientUuid, {
        name: "Legacy",
        cash_value_usd: "500",
        portfolio_config_uuid: legacy,
      })
    ).uuid;
    const e = await evaluateAccountRules(ctx, org, account, { asOf: "2026-02-16" });
    expect(e.fired.map((r) => r.value)).toEqual(["ok"]);
    expect(e.not_fired.map((r) => r.reason)).toEqual([
      'cron "0 9 * * 8" is not valid',
      'condition "advisor approved" is not valid',
    ]);
    expect(e.warnings.filter((w) => w.includes("never fires"))).toHaveLength(2);
    expect(e.warnings[0]).toMatch(/^Drift facts are null: Account .* has no target on 2026-02-16/);
    expect(e.warnings[1]).toMatch(/^evaluation_rules\[0\]\.rules\[0\]\.cron is not valid/);
    // No holdings: nothing to drift from, so the drift facts are null and say why.
    expect(e.facts).toMatchObject({ total_drift: null, nav: "500", cash_weight: "1", positions: 0 });
  });
});

describe("write-time checks of rules", () => {
  const errorsOf = (write: unknown) => {
    const r = portfolioConfigWriteSchema.safeParse(write);
    return r.success ? [] : r.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
  };

  it("refuses an invalid cron with the field and its position", () => {
    expect(
      errorsOf({ evaluation_rules: [{ enabled: true, rules: [{ value: "x", cron: "0 9 * * 8" }] }] }),
    ).toEqual([
      {
        path: "evaluation_rules.0.rules.0.cron",
        message: 'invalid cron "0 9 * * 8": day-of-week "8" is outside 0-7 (field 5 at position 8)',
      },
    ]);
    expect(
      errorsOf({ evaluation_rules: [{ enabled: true, rules: [{ value: "x", cron: "0 9 * *" }] }] }),
    ).toEqual([
      {
        path: "evaluation_rules.0.rules.0.cron",
        message:
          'invalid cron "0 9 * *": expected 5 fields (minute hour day-of-month month day-of-week), found 4',
      },
    ]);
  });

  it("refuses a condition that does not parse, or names an unknown fact, with the position and the facts", () => {
    const [syntax] = errorsOf({
      evaluation_rules: [{ enabled: true, rules: [{ value: "x", condition: "total_drift >" }] }],
    });
    expect(syntax!.path).toBe("evaluation_rules.0.rules.0.condition");
    expect(syntax!.message).toMatch(
      /^invalid condition "total_drift >": Expected .* at position 13 but found end of input/,
    );
    const [unknown] = errorsOf({
      evaluation_rules: [{ enabled: true, rules: [{ value: "x", condition: "cash > 0 and drift > 0.1" }] }],
    });
    expect(unknown!.message).toBe(
      "invalid condition \"cash > 0 and drift > 0.1\": Unknown field 'cash' at position 0; the facts are total_drift, max_asset_drift, drift_status, harvestable_loss_usd, harvest_value_usd, cash_usd, cash_weight, nav, positions, year, month, day",
    );
    const [typed] = errorsOf({
      evaluation_rules: [{ enabled: true, rules: [{ value: "x", condition: "drift_status > 1" }] }],
    });
    expect(typed!.message).toMatch(
      /Cannot compare 'drift_status' \(a string\) with 1 \(a number\) at position 13/,
    );
  });

  it("refuses a dynamic rule condition that is not an expression over the account context", () => {
    const issues = errorsOf({
      dynamic_rules: [
        {
          field_name: "max_weight",
          rules: [
            { value: "0.1", condition: "advisor approved" },
            { value: "0.1", condition: "total_drift > 0.1" },
          ],
        },
      ],
    });
    expect(issues.map((i) => i.path)).toEqual([
      "dynamic_rules.0.rules.0.condition",
      "dynamic_rules.0.rules.1.condition",
    ]);
    expect(issues[0]!.message).toMatch(/at position 8/);
    expect(issues[1]!.message).toMatch(
      /Unknown field 'total_drift' at position 0.*; the facts are nav, cash_usd, cash_weight, positions, year, month, day$/,
    );
  });

  it("answers 400 over HTTP with the path and position, and refuses a drift threshold given in percent", async () => {
    const app = createApp({ ctx });
    const res = await send(app, "PATCH", `/api/v1/custom/org/${org}/portfolio_configs/${configUuid}/`, {
      key,
      json: {
        drift_breach_threshold: "5",
        evaluation_rules: [{ enabled: true, rules: [{ value: "x", condition: "total_drift >> 1" }] }],
      },
    });
    expect(res.status).toBe(400);
    const body = envelope(res);
    expect(body.code).toBe("validation_error");
    expect(body.details!.map((d) => d.path).sort()).toEqual([
      "drift_breach_threshold",
      "evaluation_rules[0].rules[0].condition",
    ]);
    const cond = body.details!.find((d) => d.path!.startsWith("evaluation_rules"))!;
    expect(cond.message).toMatch(/at position 13/);
    const threshold = body.details!.find((d) => d.path === "drift_breach_threshold")!;
    expect(threshold.message).toBe(
      "drift_breach_threshold is a fractional weight, 0 to 1: 0.05 means 5%; got 5",
    );
  });
});

describe("evaluation over HTTP and the CLI", () => {
  it("answers the same through HTTP, the CLI (local and --account) and the service", async () => {
    const expected = JSON.parse(
      JSON.stringify(await evaluateAccountRules(ctx, org, drifted, { clientUuid, asOf: "2026-02-16" })),
    );
    const app = createApp({ ctx });
    const path = `/api/v1/custom/org/${org}/clients/${clientUuid}/accounts/${drifted}/evaluation/`;
    const res = await app.request(`${path}?as_of_date=2026-02-16`, { headers: { "X-Api-Key": key } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(expected);
    const late = await app.request(`${path}?as_of_date=2026-05-01`, { headers: { "X-Api-Key": key } });
    expect(late.status).toBe(400);

    const out = memoryOutput(true);
    const args = ["--store", file, "--org", org, "--as-of", "2026-02-16"];
    const code = await main(
      ["node", "lotwise", "accounts", "evaluate", "--account", drifted, ...args, "--json"],
      { output: () => out },
    );
    expect(code, out.stderr.join("\n")).toBe(0);
    expect(JSON.parse(out.stdout.join("\n"))).toEqual(expected);

    // The remote CLI (over a listening server) prints exactly what the local one does, JSON and table alike.
    const human = memoryOutput(false);
    const gate = await main(["node", "lotwise", "accounts", "evaluate", drifted, ...args, "--fail-on-fire"], {
      output: () => human,
    });
    const handle = await serve({ ctx, port: 0, log: () => {} });
    try {
      const remoteArgs = ["--url", handle.url, "--api-key", key, "--as-of", "2026-02-16"];
      const remoteJson = memoryOutput(true);
      const remoteCode = await main(
        ["node", "lotwise", "accounts", "evaluate", "--account", drifted, ...remoteArgs, "--json"],
        { output: () => remoteJson },
      );
      expect(remoteCode, remoteJson.stderr.join("\n")).toBe(0);
      expect(remoteJson.stdout).toEqual(out.stdout);
      const remoteHuman = memoryOutput(false);
      const remoteGate = await main(
        ["node", "lotwise", "accounts", "evaluate", drifted, ...remoteArgs, "--fail-on-fire"],
        { output: () => remoteHuman },
      );
      expect(remoteGate).toBe(1);
      expect(remoteHuman.stdout).toEqual(human.stdout);
    } finally {
      await handle.close();
    }
    expect(gate).toBe(1);
    const text = human.stdout.join("\n");
    expect(text).toContain("Fired (highest priority first)");
    expect(text).toMatch(/evaluation_rules\[0\]\.rules\[1\].*harvest.*10/);
    expect(text).toContain("Rules evaluated / fired");
  });
});
