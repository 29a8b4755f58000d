import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { caughtAsync } from "../../test/helpers/caught.js";
import { listing } from "../../test/helpers/listing.js";
import type { AssetAllocationWrite } from "../contract/index.js";
import { DataError, ValidationError } from "../core/errors.js";
import { createApp } from "../server/index.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import { accountDrift } from "./drift.js";
import {
  createAccount,
  createAssetClass,
  createClient,
  createOrganization,
  createPortfolioConfig,
  getPortfolioConfig,
  indexUuid,
  type ServiceContext,
  updatePortfolioConfig,
} from "./index.js";
import { benchmarkSource, benchmarkWeightsAsOf } from "./targets.js";
import { createTheme, evaluateTheme } from "./themes.js";

/**
 * A hand market: AAA, BBB, CCC, DDD, EEE (USD), closes on 2025-06-02 and 2025-06-30. Index HAND3 weighs AAA 50%,
 * BBB 30%, CCC 20% (from 2025-06-02); index TILT2 weighs BBB 60%, EEE 40% on 2025-06-02 and EEE 100% from
 * 2025-06-30. market_cap: CCC 300 and EEE 100 on 2025-06-02, both 100 on 2025-06-30.
 */
const IDS = ["AAA:XNYS", "BBB:XNYS", "CCC:XNYS", "DDD:XNYS", "EEE:XNYS"];

async function writeHandMarket(store: SqliteStore): Promise<void> {
  const m = store.market;
  await m.upsertSecurities(IDS.map((id) => listing(id, { sector: 45 })));
  await m.insertPrices(
    IDS.flatMap((id) =>
      ["2025-06-02", "2025-06-30"].map((date) => ({
        themeAssetId: id,
        date,
        open: null,
        high: null,
        low: null,
        close: 50,
        adjClose: null,
        volume: null,
      })),
    ),
  );
  await m.insertCharacteristics([
    { themeAssetId: "CCC:XNYS", date: "2025-06-02", name: "market_cap", value: 300 },
    { themeAssetId: "EEE:XNYS", date: "2025-06-02", name: "market_cap", value: 100 },
    { themeAssetId: "CCC:XNYS", date: "2025-06-30", name: "market_cap", value: 100 },
    { themeAssetId: "EEE:XNYS", date: "2025-06-30", name: "market_cap", value: 100 },
  ]);
  for (const identifier of ["HAND3", "TILT2"])
    await m.upsertIndex({ identifier, name: identifier, currency: "USD", description: null });
  await m.insertIndexWeights([
    { identifier: "HAND3", date: "2025-06-02", themeAssetId: "AAA:XNYS", weight: 0.5 },
    { identifier: "HAND3", date: "2025-06-02", themeAssetId: "BBB:XNYS", weight: 0.3 },
    { identifier: "HAND3", date: "2025-06-02", themeAssetId: "CCC:XNYS", weight: 0.2 },
    { identifier: "TILT2", date: "2025-06-02", themeAssetId: "BBB:XNYS", weight: 0.6 },
    { identifier: "TILT2", date: "2025-06-02", themeAssetId: "EEE:XNYS", weight: 0.4 },
    { identifier: "TILT2", date: "2025-06-30", themeAssetId: "EEE:XNYS", weight: 1 },
  ]);
}

/** A theme of CCC and EEE weighted by market cap. */
const TWO_NAMES = {
  name: "Two names",
  universe: { expression: "symbol in ('CCC', 'EEE')" },
  score: "market_cap",
  selection: { mode: "all" as const },
  weighting: { scheme: "market_cap" as const },
  rules: { rebalancing_period: "MONTHLY" as const },
};

let store: SqliteStore;
let ctx: ServiceContext;
let org: string;
let key: string;
let clientUuid: string;
let accountUuid: string;
let configUuid: string;
let core: string;
let single: string;
let themeUuid: string;

beforeAll(async () => {
  store = openSqliteStore(":memory:");
  await writeHandMarket(store);
  ctx = { store, clock: () => new Date("2025-07-01T12:00:00Z") };
  const made = await createOrganization(ctx, "Tilts");
  org = made.organization.uuid;
  key = made.apiKey.key;
  core = (await createAssetClass(ctx, org, { name: "Core", benchmark_index_identifier: "HAND3" })).uuid;
  single = (
    await createAssetClass(ctx, org, {
      name: "DDD sleeve",
      single_security_theme_asset_id: "DDD:XNYS",
    })
  ).uuid;
  themeUuid = (await createTheme(ctx, org, TWO_NAMES)).uuid;
  // Evaluated on both dates: CCC 75% / EEE 25% on 2025-06-02, 50% / 50% on 2025-06-30.
  await evaluateTheme(ctx, org, themeUuid, { as_of_date: "2025-06-02" });
  await evaluateTheme(ctx, org, themeUuid, { as_of_date: "2025-06-30" });
  configUuid = (await createPortfolioConfig(ctx, org, { name: "Two sleeves", asset_allocations: sleeves() }))
    .uuid;
  clientUuid = (await createClient(ctx, org, { external_id: "tilt-client" })).uuid;
  accountUuid = (
    await createAccount(ctx, org, clientUuid, {
      name: "Taxable",
      cash_value_usd: "0",
      portfolio_config_uuid: configUuid,
      holdings: {
        tax_lots: [
          { theme_asset_id: "AAA:XNYS", quantity: "100", cost_basis: "40", trade_date: "2024-01-02" },
        ],
      },
    })
  ).uuid;
});
afterAll(() => store.close());

/** 60% Core (HAND3) with the given tilts, 40% DDD. */
function sleeves(tilts: AssetAllocationWrite["tilts"] = []): AssetAllocationWrite[] {
  return [
    { asset_class_uuid: core, target_allocation: "0.6", tilts },
    { asset_class_uuid: single, target_allocation: "0.4" },
  ];
}

async function setTilts(tilts: AssetAllocationWrite["tilts"]): Promise<void> {
  await updatePortfolioConfig(ctx, org, configUuid, { asset_allocations: sleeves(tilts) });
}

/** Drift's target weights on a date, by theme_asset_id (zero weights left out). */
async function driftTarget(asOf = "2025-06-30") {
  const d = await accountDrift(ctx, org, accountUuid, { clientUuid, asOf });
  const weights = Object.fromEntries(
    d.assets.filter((a) => a.target_weight !== "0").map((a) => [a.theme_asset_id, a.target_weight]),
  );
  return { name: d.target, date: d.target_weights_date, weights };
}

describe("tilted targets", () => {
  it("moves 10% of the 60% sleeve toward the theme's snapshot, funded pro rata from the index weights", async () => {
    await setTilts([]);
    expect(await driftTarget()).toEqual({
      name: "blend of HAND3, DDD:XNYS",
      date: "2025-06-02",
      weights: { "AAA:XNYS": "0.3", "BBB:XNYS": "0.18", "CCC:XNYS": "0.12", "DDD:XNYS": "0.4" },
    });
    await setTilts([{ weight_adjustment: "0.1", theme_uuid: themeUuid }]);
    // Sleeve: 0.9 x (AAA .5, BBB .3, CCC .2) + 0.1 x (CCC .5, EEE .5) = AAA .45, BBB .27, CCC .23, EEE .05;
    // x 0.6: AAA .27, BBB .162, CCC .138, EEE .03; DDD .4 untouched. Total 1.
    expect(await driftTarget()).toEqual({
      name: 'blend of DDD:XNYS, HAND3 tilted 10% toward theme "Two names"',
      date: "2025-06-02",
      weights: {
        "AAA:XNYS": "0.27",
        "BBB:XNYS": "0.162",
        "CCC:XNYS": "0.138",
        "DDD:XNYS": "0.4",
        "EEE:XNYS": "0.03",
      },
    });
  });

  it("uses the theme snapshot dated on or before the date (point in time)", async () => {
    // On 2025-06-02 the theme is CCC .75, EEE .25: sleeve CCC .9 x .2 + .075 = .255, EEE .025; x 0.6.
    expect((await driftTarget("2025-06-02")).weights).toEqual({
      "AAA:XNYS": "0.27",
      "BBB:XNYS": "0.162",
      "CCC:XNYS": "0.153",
      "DDD:XNYS": "0.4",
      "EEE:XNYS": "0.015",
    });
  });

  it("tilts away with a negative adjustment, dropping names it would take below zero and rescaling the sleeve", async () => {
    await setTilts([{ weight_adjustment: "-0.2", theme_uuid: themeUuid }]);
    // 1.2 x (AAA .5, BBB .3, CCC .2) - 0.2 x (CCC .5, EEE .5) = AAA .6, BBB .36, CCC .14, EEE -.1: EEE goes, the
    // rest (1.1) is scaled back to 1: AAA .6/1.1, BBB .36/1.1, CCC .14/1.1; x 0.6 = .36/1.1, .216/1.1, .084/1.1.
    const t = await driftTarget();
    expect(t.name).toBe('blend of DDD:XNYS, HAND3 tilted 20% away from theme "Two names"');
    expect(t.weights).toEqual({
      "AAA:XNYS": "0.3272727273",
      "BBB:XNYS": "0.1963636364",
      "CCC:XNYS": "0.0763636364",
      "DDD:XNYS": "0.4",
    });
  });

  it("tilts toward an index with the weights in force on the date", async () => {
    await setTilts([{ weight_adjustment: "0.25", index_uuid: indexUuid("TILT2") }]);
    // 2025-06-02: 0.75 x HAND3 + 0.25 x (BBB .6, EEE .4) = AAA .375, BBB .375, CCC .15, EEE .1; x 0.6.
    expect(await driftTarget("2025-06-02")).toEqual({
      name: "blend of DDD:XNYS, HAND3 tilted 25% toward index TILT2",
      date: "2025-06-02",
      weights: {
        "AAA:XNYS": "0.225",
        "BBB:XNYS": "0.225",
        "CCC:XNYS": "0.09",
        "DDD:XNYS": "0.4",
        "EEE:XNYS": "0.06",
      },
    });
    // 2025-06-30: TILT2 is EEE 100%: AAA .375, BBB .225, CCC .15, EEE .25; x 0.6. The weights date moves too.
    expect(await driftTarget("2025-06-30")).toMatchObject({
      date: "2025-06-30",
      weights: {
        "AAA:XNYS": "0.225",
        "BBB:XNYS": "0.135",
        "CCC:XNYS": "0.09",
        "DDD:XNYS": "0.4",
        "EEE:XNYS": "0.15",
      },
    });
  });

  it("combines several tilts of one sleeve: (1 - sum a) x own + sum a x tilt", async () => {
    await setTilts([
      { weight_adjustment: "0.5", theme_uuid: themeUuid },
      { weight_adjustment: "0.5", index_uuid: indexUuid("TILT2") },
    ]);
    // Own weights fully replaced: 0.5 x (CCC .5, EEE .5) + 0.5 x (EEE 1) = CCC .25, EEE .75; x 0.6.
    const account = await store.accounts.require(org, clientUuid, accountUuid);
    const source = (await benchmarkSource(ctx, account, await getPortfolioConfig(ctx, org, configUuid)))!;
    const { weights } = await benchmarkWeightsAsOf(ctx, source, "2025-06-30");
    expect(Object.fromEntries([...weights].map(([id, w]) => [id, Number(w.toFixed(12))]))).toEqual({
      "CCC:XNYS": 0.15,
      "EEE:XNYS": 0.45,
      "DDD:XNYS": 0.4,
    });
  });

  it("refuses a tilt toward a theme never evaluated, naming it (422 over HTTP)", async () => {
    const fresh = (await createTheme(ctx, org, { ...TWO_NAMES, name: "Never evaluated" })).uuid;
    await setTilts([{ weight_adjustment: "0.1", theme_uuid: fresh }]);
    const e = await caughtAsync(() => accountDrift(ctx, org, accountUuid, { clientUuid }));
    expect(e).toBeInstanceOf(DataError);
    expect(e.code).toBe("theme_not_evaluated");
    expect(e.message).toBe(
      `asset_allocations[0].tilts[0] tilts toward theme "Never evaluated" (${fresh}), which has not been evaluated since its latest revision, so it has no constituent weights; evaluate it first (lotwise themes evaluate ${fresh}, or POST /api/v1/themes/${fresh}/evaluate).`,
    );
    const app = createApp({ ctx });
    const res = await app.request(
      `/api/v1/custom/org/${org}/clients/${clientUuid}/accounts/${accountUuid}/drift/`,
      { headers: { "X-Api-Key": key } },
    );
    expect(res.status).toBe(422);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("theme_not_evaluated");
    expect(body.error.message).toContain('"Never evaluated"');
    await setTilts([]);
  });

  it("refuses unknown themes and indexes, and tilts moving more than the sleeve, at write time with the field path", async () => {
    const missing = "0b9c5e1e-4c39-4f47-9d55-1b8f0e1f2a3b";
    const e = await caughtAsync(() =>
      setTilts([
        { weight_adjustment: "0.1", theme_uuid: missing },
        { weight_adjustment: "0.1", index_uuid: indexUuid("NOPE") },
      ]),
    );
    expect(e).toBeInstanceOf(ValidationError);
    expect((e as ValidationError).issues).toEqual([
      { path: "asset_allocations[0].tilts[0].theme_uuid", message: `theme ${missing} not found` },
      { path: "asset_allocations[0].tilts[1].index_uuid", message: `index ${indexUuid("NOPE")} not found` },
    ]);
    const app = createApp({ ctx });
    const res = await app.request(`/api/v1/custom/org/${org}/portfolio_configs/${configUuid}/`, {
      method: "PATCH",
      headers: { "X-Api-Key": key, "Content-Type": "application/json" },
      body: JSON.stringify({
        asset_allocations: sleeves([
          { weight_adjustment: "0.7", theme_uuid: themeUuid },
          { weight_adjustment: "-0.4", index_uuid: indexUuid("TILT2") },
        ]),
      }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { details: { path: string }[] } };
    expect(body.error.details.map((d) => d.path)).toEqual([
      "asset_allocations[0].tilts[1].weight_adjustment",
    ]);
  });

  it("refuses at use tilts past the bound (written by a library caller) and tilts toward an index without weights", async () => {
    await setTilts([
      { weight_adjustment: "0.7", theme_uuid: themeUuid },
      { weight_adjustment: "-0.4", index_uuid: indexUuid("TILT2") },
    ]);
    const e = await caughtAsync(() => accountDrift(ctx, org, accountUuid, { clientUuid }));
    expect(e.code).toBe("invalid_tilt");
    expect(e.message).toBe(
      "The tilts of asset_allocations[0] (Core) move 110% of the sleeve; the sum of |weight_adjustment| of a sleeve may not exceed 100%.",
    );
    await store.market.upsertIndex({
      identifier: "EMPTY",
      name: "No weights",
      currency: "USD",
      description: null,
    });
    await setTilts([{ weight_adjustment: "0.1", index_uuid: indexUuid("EMPTY") }]);
    const empty = await caughtAsync(() => accountDrift(ctx, org, accountUuid, { clientUuid }));
    expect([empty.code, empty.message]).toEqual([
      "tilt_without_weights",
      "asset_allocations[0].tilts[0] tilts toward index EMPTY, which has no stored constituent weights; import them (lotwise market import) or remove the tilt.",
    ]);
    await setTilts([]);
  });
});
