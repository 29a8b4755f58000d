import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestStore,
  type SeededOrganization,
  seedOrganization,
  type TestStore,
  vendorModelBody,
} from "../../test/helpers/fixture.js";
import { type RiskModelImport, riskModelListSchema, riskModelSchema } from "../contract/index.js";
import { DataError, NotFoundError, ValidationError } from "../core/errors.js";
import { symmetricEigen } from "../core/numeric/eigen.js";
import { optimizePortfolio } from "../core/optimizer/index.js";
import {
  activeRisk,
  buildCustomRiskModel,
  buildVendorRiskModel,
  riskModelCovariance,
  selectRiskModelAssets,
} from "../core/risk/index.js";
import { resolveBacktestParams, runAccountBacktest } from "./backtest-run.js";
import { LocalBackend } from "./local-backend.js";
import { optimizeAccount, prepareAccountOptimization } from "./optimize.js";
import { updatePortfolioConfig } from "./portfolio-configs.js";
import {
  deleteRiskModel,
  getRiskModel,
  importRiskModel,
  listRiskModels,
  storedFactorModel,
} from "./risk-models.js";

let t: TestStore;
let a: SeededOrganization;
let b: SeededOrganization;
let local: LocalBackend;
/** The seeded account's universe on the market's last date (from a pca preparation). */
let universe: string[];

beforeAll(async () => {
  t = await createTestStore();
  a = await seedOrganization(t, t.orgA);
  b = await seedOrganization(t, t.orgB);
  local = new LocalBackend(t.ctx, t.orgA.uuid);
  // The fixture's configuration bounds a momentum exposure, a factor the uploaded models below do not have.
  for (const [org, s] of [
    [t.orgA.uuid, a],
    [t.orgB.uuid, b],
  ] as const)
    await updatePortfolioConfig(t.ctx, org, s.configUuid, {
      risk_model_name: "pca",
      factor_exposure_bounds: [],
    });
  universe = [...(await prepareAccountOptimization(t.ctx, t.orgA.uuid, a.accountUuid)).input.assets];
});
afterAll(() => t.close());

const useModel = (org: string, s: SeededOrganization, name: "vendor" | "custom" | "pca") =>
  updatePortfolioConfig(t.ctx, org, s.configUuid, { risk_model_name: name });

const vendorBody = vendorModelBody;

describe("importing risk models", () => {
  it("converts a vendor model in percent of daily numbers to annualized fractions (hand-computed)", async () => {
    const m = await local.importRiskModel({
      kind: "vendor",
      name: "Hand model",
      as_of_date: "2025-01-31",
      frequency: "daily",
      units: "percent",
      exposures: { "AAA:XNYS": { market: 1, size: 0.5 }, "BBB:XNYS": { market: 1.2 } },
      factor_covariance: [
        { factor1: "market", factor2: "market", covariance: 1.5 },
        { factor1: "size", factor2: "market", covariance: 0.3 },
        { factor1: "size", factor2: "size", covariance: 0.5 },
      ],
      specific_risk: { "AAA:XNYS": 2, "BBB:XNYS": 1 },
    });
    riskModelSchema.parse(m);
    expect(m).toMatchObject({
      kind: "vendor",
      name: "Hand model",
      as_of_date: "2025-01-31",
      asset_count: 2,
      factor_count: 2,
      warnings: [],
      source: {
        form: "factor_model",
        frequency: "daily",
        units: "percent",
        specific_risk_kind: "volatility",
      },
    });
    // 1.5 %^2 a day = 1.5e-4 a day = 0.0378 a year; 0.3 -> 0.00756; 0.5 -> 0.0126. A 2% daily specific
    // volatility is 4e-4 a day = 0.1008 a year; 1% is 0.0252.
    const stored = storedFactorModel(await t.store.riskModels.require(t.orgA.uuid, m.uuid));
    expect(stored.assets).toEqual(["AAA:XNYS", "BBB:XNYS"]);
    expect(stored.factors).toEqual(["market", "size"]);
    const F = [...stored.factorCovariance];
    expect(F[0]).toBeCloseTo(0.0378, 15); // market, market
    expect(F[1]).toBeCloseTo(0.00756, 15);
    expect(F[2]).toBeCloseTo(0.00756, 15);
    expect(F[3]).toBeCloseTo(0.0126, 15); // size, size
    expect(stored.specificVariance[0]).toBeCloseTo(0.1008, 15);
    expect(stored.specificVariance[1]).toBeCloseTo(0.0252, 15);
    // B has no size exposure: 0.
    expect([...stored.exposures]).toEqual([1, 0.5, 1.2, 0]);
    expect(stored.annualization).toBe(252);
    expect(m.factors).toEqual([
      { name: "market", volatility: Math.sqrt(F[0]!) },
      { name: "size", volatility: Math.sqrt(F[3]!) },
    ]);
    expect(m.factors[0]!.volatility).toBeCloseTo(0.19442222, 8);
    expect(m.specific_volatility.min).toBeCloseTo(Math.sqrt(0.0252), 15);
    expect(m.specific_volatility.max).toBeCloseTo(Math.sqrt(0.1008), 15);
    // A's variance is 0.0378 + 0.25 * 0.0126 + 2 * 0.5 * 0.00756 + 0.1008.
    expect(riskModelCovariance(stored)[0]).toBeCloseTo(0.0378 + 0.00315 + 0.00756 + 0.1008, 14);
    await deleteRiskModel(t.ctx, t.orgA.uuid, m.uuid);
  });

  it("repairs a factor covariance that is not positive semidefinite and says so", async () => {
    const m = await importRiskModel(t.ctx, t.orgA.uuid, {
      kind: "custom",
      name: "Indefinite",
      as_of_date: "2025-01-31",
      exposures: [
        { asset: "AAA:XNYS", factor: "f1", exposure: 1 },
        { asset: "BBB:XNYS", factor: "f2", exposure: 1 },
      ],
      // Eigenvalues 3 and -1.
      factor_covariance: { f1: { f1: 1, f2: 2 }, f2: { f2: 1 } },
      specific_variance: [
        { asset: "AAA:XNYS", specific_variance: 0.01 },
        { asset: "BBB:XNYS", specific_variance: 0.02 },
      ],
    });
    expect(m.warnings).toHaveLength(1);
    expect(m.warnings[0]).toMatch(
      /^Factor covariance was not positive definite \(min eigenvalue -0\.99999\d*\); 1 eigenvalue\(s\) clipped to /,
    );
    expect((await t.store.riskModels.list(t.orgA.uuid)).find((x) => x.uuid === m.uuid)?.warnings).toEqual(
      m.warnings,
    );
    const F = storedFactorModel(await t.store.riskModels.require(t.orgA.uuid, m.uuid)).factorCovariance;
    const eig = symmetricEigen({ rows: 2, cols: 2, data: F }, { vectors: false }).values;
    expect(Math.min(...eig)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...eig)).toBeCloseTo(3, 12);
    await deleteRiskModel(t.ctx, t.orgA.uuid, m.uuid);
  });

  it("refuses bad input naming the offending items, and stores nothing", async () => {
    const before = (await listRiskModels(t.ctx, t.orgA.uuid)).length;
    const refused = async (body: unknown) => {
      const err = await local.importRiskModel(body as RiskModelImport).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ValidationError);
      return err as ValidationError;
    };
    const good = vendorBody(["AAA:XNYS", "BBB:XNYS"], "2025-01-31", "Bad");
    // An exposure to a factor the covariance does not have.
    const unknown = await refused({
      ...good,
      exposures: [...good.exposures, { asset: "BBB:XNYS", factor: "value", exposure: 0.3 }],
    });
    expect(unknown.message).toBe(
      'Invalid vendor risk model "Bad": exposure problems: unknown factor "value" for BBB:XNYS.',
    );
    expect(unknown.issues).toEqual([
      { path: "exposures[4]", message: 'unknown factor "value" for BBB:XNYS' },
    ]);
    // Exposures of an asset without a specific risk.
    const missing = await refused({ ...good, specific_risk: [good.specific_risk[0]] });
    expect(missing.issues).toEqual([
      { path: "specific_risk.BBB:XNYS", message: "no specific risk for BBB:XNYS" },
    ]);
    // A negative specific variance (custom factor form).
    const negative = await refused({
      kind: "custom",
      name: "Bad",
      as_of_date: "2025-01-31",
      exposures: { "AAA:XNYS": { f: 1 }, "BBB:XNYS": { f: 1 } },
      factor_covariance: { f: { f: 0.04 } },
      specific_variance: { "AAA:XNYS": 0.01, "BBB:XNYS": -0.01 },
    });
    expect(negative.issues).toEqual([{ path: "specific_variance[1]", message: "negative for BBB:XNYS" }]);
    // A covariance whose shape does not match its assets.
    const shape = await refused({
      kind: "custom",
      name: "Bad",
      as_of_date: "2025-01-31",
      assets: ["AAA:XNYS", "BBB:XNYS", "CCC:XNYS"],
      covariance: [
        [0.04, 0.01],
        [0.01, 0.09],
      ],
    });
    expect(shape.issues).toEqual([
      { path: "covariance", message: "has 2 rows, expected 3 (one per asset of assets)" },
      {
        path: "covariance[0]",
        message: "row of AAA:XNYS has 2 entries, expected 3 (one per asset of assets)",
      },
      {
        path: "covariance[1]",
        message: "row of BBB:XNYS has 2 entries, expected 3 (one per asset of assets)",
      },
    ]);
    // An asymmetric covariance, a covariance missing an entry, a vendor model without its frequency.
    const asymmetric = await refused({
      kind: "custom",
      name: "Bad",
      as_of_date: "2025-01-31",
      assets: ["AAA:XNYS", "BBB:XNYS"],
      covariance: [
        [0.04, 0.01],
        [0.02, 0.09],
      ],
    });
    expect(asymmetric.message).toMatch(/covariance is not symmetric: entry \(BBB:XNYS, AAA:XNYS\) is 0.02/);
    const incomplete = await refused({ ...good, factor_covariance: good.factor_covariance.slice(0, 2) });
    expect(incomplete.issues).toEqual([{ path: "factor_covariance", message: "missing entry (size, size)" }]);
    const { frequency: _, ...noFrequency } = good;
    expect((await refused(noFrequency)).issues).toEqual([{ path: "frequency", message: "Required" }]);
    expect((await refused({ ...good, frequency: "hourly" })).issues).toEqual([
      {
        path: "frequency",
        message: 'expected one of annual, quarterly, monthly, weekly, daily, received "hourly"',
      },
    ]);
    const badId = await refused({ ...good, specific_risk: { AAPL: 1 } });
    expect(badId.issues[0]).toEqual({
      path: "specific_risk.AAPL",
      message: expect.stringMatching(/^expected a theme_asset_id SYMBOL:MIC/),
    });
    expect(await listRiskModels(t.ctx, t.orgA.uuid)).toHaveLength(before);
  });
});

describe("optimizing with an uploaded model", () => {
  it("uses the vendor model as the core optimizer would given the same model directly", async () => {
    const body = vendorBody(universe, "2025-06-30", "Full coverage");
    const m = await importRiskModel(t.ctx, t.orgA.uuid, body);
    await useModel(t.orgA.uuid, a, "vendor");
    try {
      const r = await optimizeAccount(t.ctx, t.orgA.uuid, a.accountUuid);
      expect(r.risk_model).toBe("vendor");
      expect(r.uploaded_risk_model).toEqual({
        uuid: m.uuid,
        name: "Full coverage",
        as_of_date: "2025-06-30",
        assets_covered: universe.length,
        assets_imputed: 0,
      });
      expect(r.status).toBe("optimal");
      // The same input with the model built by the core from the same records.
      const prepared = await prepareAccountOptimization(t.ctx, t.orgA.uuid, a.accountUuid);
      const direct = selectRiskModelAssets(
        buildVendorRiskModel(
          {
            exposures: body.exposures,
            factorCovariance: body.factor_covariance,
            specificRisk: body.specific_risk.map((x) => ({ asset: x.asset, specificRisk: x.specific_risk })),
          },
          { frequency: "daily", units: "percent" },
        ),
        prepared.input.assets,
      );
      expect([...prepared.input.riskModel.factorCovariance]).toEqual([...direct.factorCovariance]);
      expect([...prepared.input.riskModel.exposures]).toEqual([...direct.exposures]);
      expect([...prepared.input.riskModel.specificVariance]).toEqual([...direct.specificVariance]);
      const core = optimizePortfolio({ ...prepared.input, riskModel: direct });
      expect(r.tracking_error).toBe(core.trackingError);
      expect(r.total_risk).toBe(core.totalRisk);
      expect(r.trades.map((x) => [x.ticker, x.shares])).toEqual(
        core.trades.map((x) => [x.themeAssetId, x.shares]),
      );
      // The reported tracking error is the active risk of the weights under the uploaded model.
      expect(r.tracking_error!).toBeCloseTo(activeRisk(direct, core.weights, core.benchmarkWeights), 12);
      // It is not the pca model's answer.
      await useModel(t.orgA.uuid, a, "pca");
      const pca = await optimizeAccount(t.ctx, t.orgA.uuid, a.accountUuid);
      expect(pca.uploaded_risk_model).toBeNull();
      expect(Math.abs(pca.total_risk! - r.total_risk!)).toBeGreaterThan(0.005);
    } finally {
      await useModel(t.orgA.uuid, a, "pca");
      await deleteRiskModel(t.ctx, t.orgA.uuid, m.uuid);
    }
  });

  it("imputes the universe's assets a model does not cover from their sector, with a warning", async () => {
    const left = universe.slice(0, 3);
    const m = await importRiskModel(
      t.ctx,
      t.orgA.uuid,
      vendorBody(universe.slice(3), "2025-06-30", "Partial"),
    );
    await useModel(t.orgA.uuid, a, "vendor");
    try {
      const r = await optimizeAccount(t.ctx, t.orgA.uuid, a.accountUuid);
      expect(r.uploaded_risk_model).toMatchObject({ assets_covered: universe.length - 3, assets_imputed: 3 });
      expect(r.warnings).toContain(
        `3 of ${universe.length} assets are not in the vendor risk model "Partial" (${m.uuid}, as of 2025-06-30) (${left.join(", ")}): imputed from their sector's average exposures and median specific variance.`,
      );
      // An imputed asset's size exposure is the mean over the covered assets of its sector.
      const { input } = await prepareAccountOptimization(t.ctx, t.orgA.uuid, a.accountUuid);
      const sectors = await t.store.market.securitiesByIds(universe);
      const sector = (id: string) => sectors.get(id)!.sector;
      const full = storedFactorModel(await t.store.riskModels.require(t.orgA.uuid, m.uuid));
      const peers = full.assets
        .map((id, i) => [id, i] as const)
        .filter(([id]) => sector(id) === sector(left[0]!));
      expect(peers.length).toBeGreaterThan(0);
      const mean = peers.reduce((s, [, i]) => s + full.exposures[i * 2 + 1]!, 0) / peers.length;
      const row = input.assets.indexOf(left[0]!);
      expect(input.riskModel.exposures[row * 2 + 1]).toBeCloseTo(mean, 14);
    } finally {
      await useModel(t.orgA.uuid, a, "pca");
      await deleteRiskModel(t.ctx, t.orgA.uuid, m.uuid);
    }
  });

  it("takes the newest model dated on or before the optimization's date (point in time)", async () => {
    const march = await importRiskModel(t.ctx, t.orgA.uuid, vendorBody(universe, "2025-03-31", "March", 1));
    const june = await importRiskModel(t.ctx, t.orgA.uuid, vendorBody(universe, "2025-06-30", "June", 4));
    await useModel(t.orgA.uuid, a, "vendor");
    try {
      const early = await optimizeAccount(t.ctx, t.orgA.uuid, a.accountUuid, { asOf: "2025-05-30" });
      const late = await optimizeAccount(t.ctx, t.orgA.uuid, a.accountUuid, { asOf: "2025-06-30" });
      expect(early.uploaded_risk_model?.uuid).toBe(march.uuid);
      expect(late.uploaded_risk_model?.uuid).toBe(june.uuid);
      expect(
        (await optimizeAccount(t.ctx, t.orgA.uuid, a.accountUuid, { asOf: "2025-03-31" })).uploaded_risk_model
          ?.uuid,
      ).toBe(march.uuid);
      // June's factor covariance is 4 times March's: more total risk for a similar portfolio.
      expect(late.total_risk!).toBeGreaterThan(early.total_risk! * 1.3);
      await expect(
        (() => optimizeAccount(t.ctx, t.orgA.uuid, a.accountUuid, { asOf: "2025-03-28" }))(),
      ).rejects.toThrow(
        'risk_model_name is "vendor" but no vendor risk model is dated on or before 2025-03-28 (the earliest is dated 2025-03-31).',
      );
      await deleteRiskModel(t.ctx, t.orgA.uuid, june.uuid);
      expect((await optimizeAccount(t.ctx, t.orgA.uuid, a.accountUuid)).uploaded_risk_model?.uuid).toBe(
        march.uuid,
      );
    } finally {
      await useModel(t.orgA.uuid, a, "pca");
      for (const x of await listRiskModels(t.ctx, t.orgA.uuid))
        await deleteRiskModel(t.ctx, t.orgA.uuid, x.uuid);
    }
  });

  it("optimizes with a custom asset covariance", async () => {
    const n = universe.length;
    // 20% volatility, pairwise correlation 0.3 (positive definite).
    const covariance = universe.map((_, i) => universe.map((_, j) => (i === j ? 0.04 : 0.3 * 0.04)));
    const m = await importRiskModel(t.ctx, t.orgA.uuid, {
      kind: "custom",
      name: "Equicorrelated",
      as_of_date: "2025-06-30",
      assets: universe,
      covariance,
    });
    expect(m).toMatchObject({ asset_count: n, factor_count: n, warnings: [] });
    expect(m.source.form).toBe("covariance");
    await useModel(t.orgA.uuid, a, "custom");
    try {
      const r = await optimizeAccount(t.ctx, t.orgA.uuid, a.accountUuid);
      expect(r.uploaded_risk_model?.uuid).toBe(m.uuid);
      const { input } = await prepareAccountOptimization(t.ctx, t.orgA.uuid, a.accountUuid);
      const direct = buildCustomRiskModel({
        assets: universe,
        covariance: Float64Array.from(covariance.flat()),
      });
      const w = Float64Array.from(
        input.assets,
        (id) => r.weights.find((x) => x.ticker === id)?.target_weight ?? 0,
      );
      const bw = Float64Array.from(
        input.assets,
        (id) => r.weights.find((x) => x.ticker === id)?.benchmark_weight ?? 0,
      );
      expect(r.tracking_error!).toBeCloseTo(
        activeRisk(selectRiskModelAssets(direct, input.assets), w, bw),
        9,
      );
    } finally {
      await useModel(t.orgA.uuid, a, "pca");
      await deleteRiskModel(t.ctx, t.orgA.uuid, m.uuid);
    }
  });

  it("refuses a model that covers none of the universe, and says how to upload when there is none", async () => {
    const m = await importRiskModel(
      t.ctx,
      t.orgA.uuid,
      vendorBody(["ZZZ1:XNYS", "ZZZ2:XNYS"], "2025-01-31", "Elsewhere"),
    );
    await useModel(t.orgA.uuid, a, "vendor");
    try {
      await expect((() => optimizeAccount(t.ctx, t.orgA.uuid, a.accountUuid))()).rejects.toThrow(
        ValidationError,
      );
      await expect((() => optimizeAccount(t.ctx, t.orgA.uuid, a.accountUuid))()).rejects.toThrow(
        /covers none of the \d+ assets to optimize .*its assets are theme_asset_ids such as ZZZ1:XNYS, ZZZ2:XNYS/,
      );
      await deleteRiskModel(t.ctx, t.orgA.uuid, m.uuid);
      await expect((() => optimizeAccount(t.ctx, t.orgA.uuid, a.accountUuid))()).rejects.toThrow(DataError);
      await expect((() => optimizeAccount(t.ctx, t.orgA.uuid, a.accountUuid))()).rejects.toThrow(
        /no vendor risk model has been uploaded\. Upload one with `lotwise risk-models import --kind vendor \.\.\.`/,
      );
    } finally {
      await useModel(t.orgA.uuid, a, "pca");
    }
  });
});

describe("organizations", () => {
  it("neither see nor use another organization's models", async () => {
    const m = await importRiskModel(t.ctx, t.orgA.uuid, vendorBody(universe, "2025-01-31", "A's model"));
    await useModel(t.orgB.uuid, b, "vendor");
    try {
      expect(riskModelListSchema.parse(await listRiskModels(t.ctx, t.orgA.uuid)).map((x) => x.uuid)).toEqual([
        m.uuid,
      ]);
      expect(await listRiskModels(t.ctx, t.orgB.uuid)).toEqual([]);
      await expect((() => getRiskModel(t.ctx, t.orgB.uuid, m.uuid))()).rejects.toThrow(NotFoundError);
      await expect((() => deleteRiskModel(t.ctx, t.orgB.uuid, m.uuid))()).rejects.toThrow(
        `Risk model ${m.uuid} not found.`,
      );
      await expect(new LocalBackend(t.ctx, t.orgB.uuid).getRiskModel(m.uuid)).rejects.toThrow(NotFoundError);
      // B's account (same market, same universe) cannot use A's model.
      await expect((() => optimizeAccount(t.ctx, t.orgB.uuid, b.accountUuid))()).rejects.toThrow(
        /no vendor risk model has been uploaded/,
      );
      expect((await getRiskModel(t.ctx, t.orgA.uuid, m.uuid)).name).toBe("A's model");
    } finally {
      await useModel(t.orgB.uuid, b, "pca");
      await deleteRiskModel(t.ctx, t.orgA.uuid, m.uuid);
    }
  });
});

describe("the account backtest with an uploaded model", () => {
  const params = {
    start_date: "2024-12-31",
    end_date: "2025-06-30",
    rebalance_period: "MONTHLY" as const,
    starting_nav: 1_000_000,
    tax_gamma: 1,
    tax_loss_threshold_bps: 500,
  };
  const tickers = () => [...t.usTickers, ...t.caTickers];
  const managed = async () =>
    (await runAccountBacktest(t.ctx, t.orgA.uuid, a.accountUuid, params)).tax_managed!;

  it("uses at each rebalance the newest model dated on or before it, and refuses to start without one", async () => {
    await useModel(t.orgA.uuid, a, "vendor");
    try {
      const later = await importRiskModel(t.ctx, t.orgA.uuid, vendorBody(tickers(), "2025-01-31", "January"));
      await expect(
        (() => resolveBacktestParams(t.ctx, t.orgA.uuid, a.accountUuid, params))(),
      ).rejects.toThrow(
        'risk_model_name is "vendor" but no vendor risk model is dated on or before 2024-12-31 (the earliest is dated 2025-01-31).',
      );
      await deleteRiskModel(t.ctx, t.orgA.uuid, later.uuid);
      await importRiskModel(t.ctx, t.orgA.uuid, vendorBody(tickers(), "2024-12-31", "December"));
      expect((await resolveBacktestParams(t.ctx, t.orgA.uuid, a.accountUuid, params)).start_date).toBe(
        "2024-12-31",
      );
      const december = await managed();
      // A model dated after the window changes nothing; one dated 2025-03-31 (100 times the factor risk) changes
      // the decisions from that date on only.
      await importRiskModel(t.ctx, t.orgA.uuid, vendorBody(tickers(), "2025-07-31", "July", 100));
      expect(await managed()).toEqual(december);
      await importRiskModel(t.ctx, t.orgA.uuid, vendorBody(tickers(), "2025-03-31", "March", 100));
      const march = await managed();
      const untilMarch = (r: typeof march) => r.values.filter((v) => v.date <= "2025-03-31");
      const fromApril = (r: typeof march) => r.values.filter((v) => v.date > "2025-03-31");
      expect(untilMarch(march)).toEqual(untilMarch(december));
      expect(fromApril(march)).not.toEqual(fromApril(december));
      // And it is not the estimated (pca) model's backtest.
      await useModel(t.orgA.uuid, a, "pca");
      expect((await managed()).values).not.toEqual(december.values);
    } finally {
      await useModel(t.orgA.uuid, a, "pca");
      for (const x of await listRiskModels(t.ctx, t.orgA.uuid))
        await deleteRiskModel(t.ctx, t.orgA.uuid, x.uuid);
    }
  });
});
