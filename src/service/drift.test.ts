import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTwoSleeveConfig, writeHandMarket } from "../../test/helpers/hand-market.js";
import { main } from "../cli/main.js";
import { memoryOutput } from "../cli/output.js";
import { accountDriftSchema } from "../contract/index.js";
import { createApp } from "../server/index.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import { accountDrift } from "./drift.js";
import {
  createAccount,
  createClient,
  createOrganization,
  type ServiceContext,
  updatePortfolioConfig,
} from "./index.js";

const dir = mkdtempSync(join(tmpdir(), "lotwise-drift-"));
const file = join(dir, "drift.db");
let store: SqliteStore;
let ctx: ServiceContext;
let org: string;
let clientUuid: string;
let accountUuid: string;
let configUuid: string;
let key: string;

beforeAll(async () => {
  store = openSqliteStore(file);
  writeHandMarket(store.engine);
  ctx = { store, clock: () => new Date("2025-07-01T12:00:00Z") };
  const made = await createOrganization(ctx, "Drift test");
  org = made.organization.uuid;
  key = made.apiKey.key;
  configUuid = await createTwoSleeveConfig(ctx, org);
  clientUuid = (await createClient(ctx, org, { external_id: "drift-client" })).uuid;
  accountUuid = (
    await createAccount(ctx, org, clientUuid, {
      name: "Taxable",
      cash_value_usd: "1000",
      portfolio_config_uuid: configUuid,
      holdings: {
        tax_lots: [
          { theme_asset_id: "AAA:XNYS", quantity: "40", cost_basis: "90", trade_date: "2024-01-02" },
          { theme_asset_id: "BBB:XNYS", quantity: "60", cost_basis: "55", trade_date: "2025-01-02" },
          {
            theme_asset_id: "DDD:XTSE",
            quantity: "50",
            cost_basis: "28",
            trade_date: "2024-06-03",
            cost_basis_currency: "CAD",
            fx_rate: "1.25",
          },
        ],
      },
    })
  ).uuid;
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("account drift", () => {
  it("computes weights, per-asset and total drift by hand on a 3-asset account with a 2-sleeve target", async () => {
    // NAV on 2025-06-30: AAA 40 x 110 = 4,400; BBB 60 x 40 = 2,400; DDD 50 x 30 / 1.25 = 1,200; cash 1,000 = 9,000.
    // Target: 0.9 x HAND3 (AAA .45, BBB .27, CCC .18) + 0.1 DDD; cash 0.
    // Drifts (in 90ths): AAA 44 - 40.5 = +3.5, BBB 24 - 24.3 = -0.3, CCC 0 - 16.2, DDD 12 - 9 = +3, cash +10.
    // Total = (3.5 + 0.3 + 16.2 + 3 + 10) / 90 / 2 = 16.5 / 90 = 0.18333...
    const d = await accountDrift(ctx, org, accountUuid, { clientUuid });
    expect(accountDriftSchema.parse(d)).toEqual(d);
    expect(d.as_of_date).toBe("2025-06-30");
    expect(d.nav_usd).toBe("9000");
    expect(d.target).toBe("blend of HAND3, DDD:XTSE");
    expect(d.target_weights_date).toBe("2025-06-02");
    expect(d.total_drift).toBe("0.1833333333");
    expect(d.max_asset_drift).toBe("0.18");
    expect(d.cash).toEqual({ current_weight: "0.1111111111", target_weight: "0", drift: "0.1111111111" });
    expect(d.assets.map((a) => [a.theme_asset_id, a.current_weight, a.target_weight, a.drift])).toEqual([
      ["CCC:XNYS", "0", "0.18", "-0.18"],
      ["AAA:XNYS", "0.4888888889", "0.45", "0.0388888889"],
      ["DDD:XTSE", "0.1333333333", "0.1", "0.0333333333"],
      ["BBB:XNYS", "0.2666666667", "0.27", "-0.0033333333"],
    ]);
    // 0.1 <= 0.1833 < 0.25 and |CCC| 0.18 < 0.2: a warning.
    expect(d.status).toBe("warning");
    expect(d.reasons).toEqual(["total drift 18.33% >= drift_warning_threshold 10.00%"]);
    expect(d.assets.every((a) => !a.breach)).toBe(true);
  });

  it("breaches on one asset past asset_drift_breach_threshold, and is ok with no thresholds (and says so)", async () => {
    await updatePortfolioConfig(ctx, org, configUuid, { asset_drift_breach_threshold: "0.15" });
    const breach = await accountDrift(ctx, org, accountUuid, { clientUuid });
    expect(breach.status).toBe("breach");
    expect(breach.assets.filter((a) => a.breach).map((a) => a.theme_asset_id)).toEqual(["CCC:XNYS"]);
    expect(breach.reasons[0]).toBe(
      "1 asset with |drift| >= asset_drift_breach_threshold 15.00% (largest: CCC:XNYS -18.00%)",
    );
    await updatePortfolioConfig(ctx, org, configUuid, { drift_breach_threshold: "0.18" });
    expect((await accountDrift(ctx, org, accountUuid, { clientUuid })).reasons).toHaveLength(3);
    await updatePortfolioConfig(ctx, org, configUuid, {
      drift_warning_threshold: null,
      drift_breach_threshold: null,
      asset_drift_breach_threshold: null,
    });
    const none = await accountDrift(ctx, org, accountUuid, { clientUuid });
    expect(none.status).toBe("ok");
    expect(none.total_drift).toBe("0.1833333333");
    expect(none.warnings.join(" ")).toMatch(/sets no drift threshold/);
    await updatePortfolioConfig(ctx, org, configUuid, {
      drift_warning_threshold: "0.1",
      drift_breach_threshold: "0.25",
      asset_drift_breach_threshold: "0.2",
    });
  });

  it("values the account on an earlier date with the closes and index weights of that date", async () => {
    // 2025-06-02: AAA 4,000; BBB 3,000; DDD 1,200; cash 1,000 = 9,200.
    const d = await accountDrift(ctx, org, accountUuid, { clientUuid, asOf: "2025-06-02" });
    expect(d.nav_usd).toBe("9200");
    const aaa = d.assets.find((a) => a.theme_asset_id === "AAA:XNYS")!;
    expect(aaa.current_weight).toBe("0.4347826087"); // 4000 / 9200
  });

  it("refuses a date after the last market date, naming that date", async () => {
    await expect(
      (() => accountDrift(ctx, org, accountUuid, { clientUuid, asOf: "2025-07-15" }))(),
    ).rejects.toThrow("as_of_date 2025-07-15 is after the last market date 2025-06-30.");
  });

  it("answers the same through HTTP and the CLI as through the service", async () => {
    const other = (await createOrganization(ctx, "Other")).apiKey.key;
    const app = createApp({ ctx });
    const path = `/api/v1/custom/org/${org}/clients/${clientUuid}/accounts/${accountUuid}/drift/`;
    const res = await app.request(`${path}?as_of_date=2025-06-30`, { headers: { "X-Api-Key": key } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(await accountDrift(ctx, org, accountUuid, { clientUuid }));
    expect((await app.request(path, { headers: { "X-Api-Key": other } })).status).toBe(404);

    const out = memoryOutput(true);
    const hooks = { output: () => out };
    const code = await main(
      ["node", "lotwise", "accounts", "drift", accountUuid, "--store", file, "--org", org, "--json"],
      hooks,
    );
    expect(code, out.stderr.join("\n")).toBe(0);
    expect(JSON.parse(out.stdout.join("\n"))).toEqual(
      await accountDrift(ctx, org, accountUuid, { clientUuid }),
    );
    const gate = memoryOutput(false);
    const failed = await main(
      [
        "node",
        "lotwise",
        "accounts",
        "drift",
        accountUuid,
        "--store",
        file,
        "--org",
        org,
        "--fail-on",
        "warning",
      ],
      { output: () => gate },
    );
    expect(failed).toBe(1);
    expect(gate.stdout.join("\n")).toContain("WARNING");
  });
});
