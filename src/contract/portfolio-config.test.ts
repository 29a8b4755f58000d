import { describe, expect, it } from "vitest";
import { NotFoundError } from "../core/errors.js";
import type { TiltRead } from "./asset-allocation.js";
import { PORTFOLIO_CONFIG_DECIMAL_FIELDS, type PortfolioConfigDecimalField } from "./config-fields.js";
import { formatDecimal } from "./decimal.js";
import { CONTRACT_EXAMPLES } from "./examples.js";
import {
  customizationConfigWriteSchema,
  type PortfolioConfigWrite,
  portfolioConfigCreateSchema,
  portfolioConfigReadSchema,
  portfolioConfigWriteSchema,
} from "./portfolio-config.js";
import {
  type AssetAllocationDetails,
  mergePortfolioConfigWrite,
  type PortfolioConfigResolvers,
  portfolioConfigReadFromWrite,
} from "./portfolio-config-read.js";
import type { Ticker } from "./ticker.js";
import { parseOrThrow, toFieldIssues } from "./validation.js";

const US = "8e6f1d2c-4b3a-4f5e-8d7c-1a2b3c4d5e6f";
const CA = "0f9e8d7c-6b5a-4e3d-9c2b-1a0f9e8d7c6b";
const THEME = "3c1d5e7f-9a2b-4c6d-8e0f-1a3b5c7d9e2f";
const INDEX = "6e5d4c3b-2a19-4f8e-b7d6-c5b4a3928170";

const ticker = (themeAssetId: string): Ticker => {
  const [symbol, mic] = themeAssetId.split(":") as [string, string];
  return {
    theme_asset_id: themeAssetId,
    symbol,
    exchange: mic,
    name: `${symbol} Corp`,
    description: null,
    image_url: null,
    ticker_url: null,
    ticker_type: "equity",
    market_cap: 1_000_000_000,
    sic_description: null,
  };
};

const sleeve = (uuid: string, name: string): AssetAllocationDetails => ({
  asset_class_uuid: uuid,
  asset_class_name: name,
  asset_class_description: null,
  benchmark_index_identifier: "SP500",
  benchmark_index_name: "S&P 500",
  benchmark_symbol: "SPY",
  single_security_theme_asset_id: null,
  single_security_symbol: null,
  is_composite: false,
  child_asset_allocations: [],
  archived_at: null,
});

/** In-memory resolvers over a tiny security master; unknown references throw like the store would. */
const KNOWN = new Set(["AAPL:XNAS", "MSFT:XNAS", "XOM:XNYS", "RY:XTSE", "GOOG:XNAS", "GOOGL:XNAS"]);
const resolvers: PortfolioConfigResolvers = {
  ticker: (id) => {
    if (!KNOWN.has(id)) throw new NotFoundError(`No security ${id}.`);
    return ticker(id);
  },
  assetClass: (uuid) => {
    if (uuid === US) return sleeve(US, "US large cap");
    if (uuid === CA) return sleeve(CA, "Canada");
    throw new NotFoundError(`No asset class ${uuid}.`);
  },
  theme: (uuid): NonNullable<TiltRead["theme"]> => ({ uuid, name: "AI infrastructure", published_at: null }),
  index: (uuid): NonNullable<TiltRead["index"]> => ({ uuid, name: "S&P 500 Value", status: "IN_PROGRESS" }),
};

/** A full configuration write with some decimals in non-canonical form. */
const FULL_WRITE = {
  name: "US core, tax-managed",
  status: "deployed",
  optimization_mode: "LONG_BIASED",
  long_weight_sum: "1.30",
  short_weight_sum: "-0.30",
  risk_model_name: "pca",
  no_hold_tickers: [{ theme_asset_id: "XOM:XNYS", condition: "esg_exclusion" }],
  no_trade_tickers: [
    { theme_asset_id: "AAPL:XNAS", starts_from: "2025-01-02T00:00:00Z", expires_at: "2025-03-31T00:00:00Z" },
  ],
  target_ticker_weights: [
    {
      theme_asset_id: "MSFT:XNAS",
      target_weight: "0.0500",
      lower_bound: "0.02",
      upper_bound: "0.08",
      condition: null,
    },
  ],
  min_weight: "0.00",
  max_weight: "0.05",
  min_active_weight: "-0.02",
  max_active_weight: "0.02",
  use_active_risk_bounds: true,
  max_active_risk_pct: "2.50",
  scaling_factor: "1",
  use_mean_variance: false,
  factor_exposure_bounds: [{ factor: "momentum", min_bound: "-0.5", max_bound: "0.5" }],
  tax_preferences: {
    short_term_rate: "0.370",
    long_term_rate: "0.2",
    tax_gamma: "1.5",
    tax_gamma_min: "0",
    tax_gamma_max: "10",
    tax_budget_usd: "25000.00",
    wash_sale_threshold: 30,
    long_term_threshold: 365,
    prevent_tlh_invalidating_purchase: true,
  },
  asset_allocations: [
    {
      asset_class_uuid: US,
      target_allocation: "0.80",
      direct_indexing_enabled: true,
      tilts: [
        { weight_adjustment: "0.05", theme_uuid: THEME },
        { weight_adjustment: "-0.05", index_uuid: INDEX },
      ],
    },
    { asset_class_uuid: CA, target_allocation: "0.2" },
  ],
  bid_ask_spread_ref_volume: "1000000.00",
  market_impact_parameter: "0.1",
  bid_ask_spread_parameter: "0.5",
  tcost_bps: "5",
  cash_buffer_usd: "0.0200",
  cash_buffer_cad: "0.01",
  cash_buffer_usd_amount: "1500.00",
  cash_buffer_cad_amount: null,
  drift_warning_threshold: "0.03",
  drift_breach_threshold: "0.05",
  asset_drift_breach_threshold: "0.0100000000",
  dynamic_rules: [
    { field_name: "max_weight", rules: [{ value: "0.04", starts_from: "2025-06-01", priority: 2 }] },
  ],
  evaluation_rules: [{ rules: [{ value: { threshold: 0.03 }, cron: "0 9 * * 1" }], enabled: true }],
  risk_aversion: "2.500",
  risk_free_rate_pct: "4.25",
  spectral_shift: "0.0001",
  risk_bound_increase_factor: "1.5",
  risk_bound_max_iterations: 20,
  use_regula_falsi: false,
  use_turnover_constraint: true,
  max_turnover_pct: "25",
  require_whole_shares: true,
  whole_share_assets: ["RY:XTSE"],
  substitution_pairs: [["GOOGL:XNAS", "GOOG:XNAS"]],
  capital_gains_reductions: { "AAPL:XNAS": "1500.00" },
  capital_gains_reductions_units: "DOLLARS",
  use_cash_benchmark: true,
  linear_tcaf: "0.000500",
  commission_rate: "0.5",
  broker_spread_bps: "12.5",
  min_trading_volume_dollars: "500000.00",
};

const UUID = "5b0c7c1e-2f4a-4c8e-9a51-3d2f1e0b7a10";

describe("portfolio configuration round trip", () => {
  const write = parseOrThrow(portfolioConfigWriteSchema, FULL_WRITE, "configuration");
  const stored = mergePortfolioConfigWrite({}, write);
  const read = portfolioConfigReadFromWrite({ uuid: UUID, config: stored }, resolvers);

  it("produces a read that the read schema accepts", () => {
    expect(portfolioConfigReadSchema.safeParse(read).error?.issues ?? []).toEqual([]);
  });

  it("carries every written decimal field in canonical form", () => {
    for (const field of Object.keys(PORTFOLIO_CONFIG_DECIMAL_FIELDS) as PortfolioConfigDecimalField[]) {
      const written = write[field];
      const spec = PORTFOLIO_CONFIG_DECIMAL_FIELDS[field];
      const expected =
        written == null ? spec.default : formatDecimal(written, spec.integerDigits, spec.fractionDigits);
      expect(read[field], field).toBe(expected);
    }
    expect(read.long_weight_sum).toBe("1.3");
    expect(read.cash_buffer_usd).toBe("0.02");
    expect(read.min_weight).toBe("0");
    expect(read.asset_drift_breach_threshold).toBe("0.01");
    expect(read.cash_buffer_cad_amount).toBeNull();
  });

  it("carries scalar, boolean and enum fields unchanged", () => {
    expect(read).toMatchObject({
      uuid: UUID,
      name: "US core, tax-managed",
      status: "deployed",
      optimization_mode: "LONG_BIASED",
      risk_model_name: "pca",
      use_active_risk_bounds: true,
      use_mean_variance: false,
      risk_bound_max_iterations: 20,
      use_regula_falsi: false,
      use_turnover_constraint: true,
      require_whole_shares: true,
      whole_share_assets: ["RY:XTSE"],
      capital_gains_reductions_units: "DOLLARS",
      use_cash_benchmark: true,
    });
  });

  it("expands ticker references into ticker objects", () => {
    expect(read.no_hold_tickers).toEqual([
      { ticker: ticker("XOM:XNYS"), starts_from: null, expires_at: null, condition: "esg_exclusion" },
    ]);
    expect(read.no_trade_tickers[0]).toEqual({
      ticker: ticker("AAPL:XNAS"),
      starts_from: "2025-01-02T00:00:00Z",
      expires_at: "2025-03-31T00:00:00Z",
      condition: null,
    });
    expect(read.target_ticker_weights).toEqual([
      {
        ticker: ticker("MSFT:XNAS"),
        target_weight: "0.05",
        lower_bound: "0.02",
        upper_bound: "0.08",
        min_active: null,
        max_active: null,
        condition: null,
      },
    ]);
  });

  it("expands allocations with sleeve details and tilt objects", () => {
    expect(
      read.asset_allocations.map((a) => [a.asset_class_name, a.target_allocation, a.direct_indexing_enabled]),
    ).toEqual([
      ["US large cap", "0.8", true],
      ["Canada", "0.2", false],
    ]);
    expect(read.asset_allocations[0]!.tilts).toEqual([
      {
        weight_adjustment: "0.05",
        theme: { uuid: THEME, name: "AI infrastructure", published_at: null },
        index: null,
      },
      {
        weight_adjustment: "-0.05",
        theme: null,
        index: { uuid: INDEX, name: "S&P 500 Value", status: "IN_PROGRESS" },
      },
    ]);
  });

  it("fills tax preferences: written values canonical, the rest null, region and algorithm set", () => {
    expect(read.tax_preferences).toMatchObject({
      short_term_rate: "0.37",
      long_term_rate: "0.2",
      tax_gamma: "1.5",
      tax_budget_usd: "25000",
      wash_sale_threshold: 30,
      long_term_threshold: 365,
      prevent_tlh_invalidating_purchase: true,
      prevent_tlh_invalidating_sale: null,
      ordinary_income_tax_rate: null,
      tax_region: "US",
      tax_algorithm: "tax_aware_qp",
    });
  });

  it("reads a stored substitution group with a repeated asset (written before writes refused it) de-duplicated", () => {
    const legacy = { ...stored, substitution_pairs: [["GOOGL:XNAS", "GOOG:XNAS", "GOOGL:XNAS"]] };
    expect(
      portfolioConfigReadFromWrite({ uuid: UUID, config: legacy }, resolvers).substitution_pairs,
    ).toEqual([["GOOGL:XNAS", "GOOG:XNAS"]]);
  });

  it("keeps rules, gives evaluation rules a type and version, keeps substitution groups", () => {
    expect(read.dynamic_rules).toEqual(FULL_WRITE.dynamic_rules);
    expect(read.evaluation_rules).toEqual([
      {
        rule_type: "model_drift",
        rules: [{ value: { threshold: 0.03 }, cron: "0 9 * * 1" }],
        version: "1",
        enabled: true,
      },
    ]);
    expect(read.substitution_pairs).toEqual([["GOOGL:XNAS", "GOOG:XNAS"]]);
    expect(read.capital_gains_reductions).toEqual({ "AAPL:XNAS": "1500" });
    expect(read.factor_exposure_bounds).toEqual([
      {
        factor: "momentum",
        min_bound: "-0.5",
        max_bound: "0.5",
        min_active_bound: null,
        max_active_bound: null,
      },
    ]);
  });

  it("gives an empty configuration the library defaults", () => {
    const empty = portfolioConfigReadFromWrite({ uuid: UUID, config: {} }, resolvers);
    expect(portfolioConfigReadSchema.safeParse(empty).success).toBe(true);
    expect(empty).toMatchObject({
      name: "",
      status: "draft",
      optimization_mode: "LONG_ONLY",
      risk_aversion: "2",
      risk_free_rate_pct: "4",
      spectral_shift: "0",
      risk_bound_increase_factor: "2",
      risk_bound_max_iterations: 10,
      use_regula_falsi: true,
      use_turnover_constraint: false,
      max_turnover_pct: "100",
      require_whole_shares: false,
      whole_share_assets: null,
      capital_gains_reductions_units: "DOLLARS",
      use_cash_benchmark: false,
      linear_tcaf: "0",
      commission_rate: "0.75",
      broker_spread_bps: "30",
      min_trading_volume_dollars: "1000000",
      max_weight: null,
      no_hold_tickers: [],
      asset_allocations: [],
      capital_gains_reductions: {},
    });
  });

  it("lets a resolver's NotFoundError through for a reference that no longer resolves", () => {
    const config = parseOrThrow(portfolioConfigWriteSchema, {
      no_hold_tickers: [{ theme_asset_id: "ZZZ:XNAS" }],
    });
    expect(() => portfolioConfigReadFromWrite({ uuid: UUID, config }, resolvers)).toThrow(NotFoundError);
  });

  it("does not mutate the stored write", () => {
    const before = structuredClone(stored);
    portfolioConfigReadFromWrite({ uuid: UUID, config: stored }, resolvers);
    expect(stored).toEqual(before);
  });
});

describe("mergePortfolioConfigWrite (PATCH semantics)", () => {
  const base = parseOrThrow(portfolioConfigWriteSchema, FULL_WRITE);

  it("replaces provided lists and keeps absent ones", () => {
    const merged = mergePortfolioConfigWrite(base, { no_hold_tickers: [] });
    expect(merged.no_hold_tickers).toEqual([]);
    expect(merged.no_trade_tickers).toEqual(base.no_trade_tickers);
    expect(merged.asset_allocations).toEqual(base.asset_allocations);
  });

  it("merges tax preferences field by field; null removes one field", () => {
    const merged = mergePortfolioConfigWrite(base, {
      tax_preferences: { tax_gamma: "3", tax_budget_usd: null },
    });
    expect(merged.tax_preferences).toEqual({
      ...base.tax_preferences,
      tax_gamma: "3",
      tax_budget_usd: undefined,
    });
    expect("tax_budget_usd" in merged.tax_preferences!).toBe(false);
  });

  it("resets a scalar to its default when patched with null", () => {
    const merged = mergePortfolioConfigWrite(base, { risk_aversion: null, max_weight: null });
    expect("risk_aversion" in merged).toBe(false);
    const read = portfolioConfigReadFromWrite({ uuid: UUID, config: merged }, resolvers);
    expect(read.risk_aversion).toBe("2");
    expect(read.max_weight).toBeNull();
  });

  it("leaves both inputs untouched", () => {
    const patch: PortfolioConfigWrite = { tax_preferences: { tax_gamma: "3" }, name: "Renamed" };
    const beforeBase = structuredClone(base);
    const beforePatch = structuredClone(patch);
    mergePortfolioConfigWrite(base, patch);
    expect(base).toEqual(beforeBase);
    expect(patch).toEqual(beforePatch);
  });

  it("yields a write that still parses, so the merged result can be re-validated", () => {
    const merged = mergePortfolioConfigWrite(base, { max_weight: "0.10", status: "archived" });
    expect(portfolioConfigWriteSchema.safeParse(merged).success).toBe(true);
  });
});

describe("configuration write validation", () => {
  const issues = (body: unknown) => {
    const result = portfolioConfigWriteSchema.safeParse(body);
    return result.success ? [] : toFieldIssues(result.error);
  };

  it("accepts an empty PATCH and the example write", () => {
    expect(issues({})).toEqual([]);
    expect(issues(CONTRACT_EXAMPLES.PortfolioConfigWrite)).toEqual([]);
  });

  it.each([
    ["status", "live"],
    ["optimization_mode", "SHORT_ONLY"],
    ["risk_model_name", "barra"],
    ["capital_gains_reductions_units", "EUROS"],
  ])("rejects %s %j naming the field", (field, value) => {
    expect(issues({ [field]: value }).map((i) => i.path)).toEqual([field]);
  });

  it("rejects min_weight above max_weight and min_active above max_active", () => {
    expect(issues({ min_weight: "0.2", max_weight: "0.1" })).toEqual([
      { path: "max_weight", message: "max_weight (0.1) is below min_weight (0.2)" },
    ]);
    expect(issues({ min_active_weight: "0.01", max_active_weight: "-0.01" }).map((i) => i.path)).toEqual([
      "max_active_weight",
    ]);
    expect(issues({ min_weight: "0.1", max_weight: "0.10" })).toEqual([]);
  });

  it("rejects an asset listed twice in no_hold_tickers or target_ticker_weights", () => {
    const twice = [{ theme_asset_id: "XOM:XNYS" }, { theme_asset_id: "XOM:XNYS" }];
    expect(issues({ no_hold_tickers: twice })).toEqual([
      { path: "no_hold_tickers[1].theme_asset_id", message: "XOM:XNYS is already listed at index 0" },
    ]);
    expect(issues({ target_ticker_weights: twice }).map((i) => i.path)).toEqual([
      "target_ticker_weights[1].theme_asset_id",
    ]);
  });

  it("rejects a restriction window that ends before it starts", () => {
    const body = {
      no_trade_tickers: [
        {
          theme_asset_id: "AAPL:XNAS",
          starts_from: "2025-03-01T00:00:00Z",
          expires_at: "2025-01-01T00:00:00Z",
        },
      ],
    };
    expect(issues(body)).toEqual([
      { path: "no_trade_tickers[0].expires_at", message: "expires_at must be after starts_from" },
    ]);
  });

  it("rejects a non-UTC or malformed datetime without a second, misleading issue", () => {
    const body = {
      no_trade_tickers: [{ theme_asset_id: "AAPL:XNAS", starts_from: "2025-03-01T00:00:00+01:00" }],
    };
    expect(issues(body).map((i) => i.path)).toEqual(["no_trade_tickers[0].starts_from"]);
  });

  it("rejects a lower bound above the upper bound of a target ticker weight", () => {
    const body = {
      target_ticker_weights: [{ theme_asset_id: "MSFT:XNAS", lower_bound: "0.1", upper_bound: "0.05" }],
    };
    expect(issues(body).map((i) => i.path)).toEqual(["target_ticker_weights[0].upper_bound"]);
  });

  it("rejects allocations above 100% in total or naming a sleeve twice", () => {
    const over = [
      { asset_class_uuid: US, target_allocation: "0.7" },
      { asset_class_uuid: CA, target_allocation: "0.4" },
    ];
    expect(issues({ asset_allocations: over })).toEqual([
      { path: "asset_allocations", message: "target allocations add up to 1.1; they may not exceed 1" },
    ]);
    // Rounded-up thirds: 3 x 0.33334 = 1.00002, within the 0.0001 tolerance.
    const thirds = [US, CA, "11111111-2222-4333-8444-555555555555"].map((u) => ({
      asset_class_uuid: u,
      target_allocation: "0.33334",
    }));
    expect(issues({ asset_allocations: thirds })).toEqual([]);
    const twice = [
      { asset_class_uuid: US, target_allocation: "0.5" },
      { asset_class_uuid: US.toUpperCase(), target_allocation: "0.5" },
    ];
    expect(issues({ asset_allocations: twice }).map((i) => i.path)).toEqual([
      "asset_allocations[1].asset_class_uuid",
    ]);
  });

  it("requires a tilt to name exactly one of theme_uuid or index_uuid", () => {
    const tilt = (t: object) => ({
      asset_allocations: [{ asset_class_uuid: US, target_allocation: "1", tilts: [t] }],
    });
    expect(issues(tilt({ weight_adjustment: "0.1", theme_uuid: THEME }))).toEqual([]);
    expect(issues(tilt({ weight_adjustment: "0.1" })).map((i) => i.path)).toEqual([
      "asset_allocations[0].tilts[0].theme_uuid",
    ]);
    expect(issues(tilt({ weight_adjustment: "0.1", theme_uuid: THEME, index_uuid: INDEX })).length).toBe(1);
  });

  it("refuses tilts that move more than the whole sleeve, naming the tilt where the sum passes 1", () => {
    const tilts = (...adjustments: string[]) => ({
      asset_allocations: [
        {
          asset_class_uuid: US,
          target_allocation: "1",
          tilts: adjustments.map((weight_adjustment) => ({ weight_adjustment, theme_uuid: THEME })),
        },
      ],
    });
    expect(issues(tilts("0.6", "-0.4"))).toEqual([]);
    expect(issues(tilts("-1"))).toEqual([]);
    expect(issues(tilts("0.5", "0.25", "-0.3"))).toEqual([
      {
        path: "asset_allocations[0].tilts[2].weight_adjustment",
        message:
          "the tilts of a sleeve may move at most all of it: the sum of |weight_adjustment| reaches 1.05 here; at most 1",
      },
    ]);
    expect(issues(tilts("1.5")).map((i) => i.path)).toEqual([
      "asset_allocations[0].tilts[0].weight_adjustment",
    ]);
  });

  it("validates each dynamic-rule value against its field", () => {
    const rule = (field_name: string, value: unknown) => ({
      dynamic_rules: [{ field_name, rules: [{ value }] }],
    });
    expect(issues(rule("max_weight", "0.04"))).toEqual([]);
    expect(issues(rule("use_mean_variance", true))).toEqual([]);
    expect(issues(rule("optimization_mode", "LONG_SHORT"))).toEqual([]);
    expect(issues(rule("cash_buffer_usd", "1.5"))).toEqual([
      {
        path: "dynamic_rules[0].rules[0].value",
        message:
          "invalid value for cash_buffer_usd: cash_buffer_usd is a fraction of the portfolio, 0 to 1: 0.05 means 5%; got 1.5",
      },
    ]);
    expect(issues(rule("risk_bound_max_iterations", -1)).map((i) => i.path)).toEqual([
      "dynamic_rules[0].rules[0].value",
    ]);
    expect(issues(rule("no_hold_tickers", []))[0]!.path).toBe("dynamic_rules[0].field_name");
  });

  it("rejects a rule that expires before it starts", () => {
    const body = {
      dynamic_rules: [
        {
          field_name: "max_weight",
          rules: [{ value: "0.1", starts_from: "2025-06-01", expires_at: "2025-05-31" }],
        },
      ],
    };
    expect(issues(body).map((i) => i.path)).toEqual(["dynamic_rules[0].rules[0].expires_at"]);
  });

  it("rejects tax_gamma_max below tax_gamma_min and a rate above 1", () => {
    expect(
      issues({ tax_preferences: { tax_gamma_min: "5", tax_gamma_max: "1" } }).map((i) => i.path),
    ).toEqual(["tax_preferences.tax_gamma_max"]);
    expect(issues({ tax_preferences: { short_term_rate: "37" } }).map((i) => i.path)).toEqual([
      "tax_preferences.short_term_rate",
    ]);
  });

  it("rejects a theme_asset_id that is not SYMBOL:MIC in upper case", () => {
    for (const id of ["aapl:xnas", "AAPL", "AAPL:XNASDAQ", ":XNAS", "AAPL XNAS"])
      expect(issues({ whole_share_assets: [id] }).map((i) => i.path)).toEqual(["whole_share_assets[0]"]);
    for (const id of ["BRK.B:XNYS", "RY:XTSE", "BF-B:XNYS"])
      expect(issues({ whole_share_assets: [id] })).toEqual([]);
  });

  it("requires a name on create and refuses status in a customization", () => {
    expect(portfolioConfigCreateSchema.safeParse({ name: "Core" }).success).toBe(true);
    expect(toFieldIssues(portfolioConfigCreateSchema.safeParse({ max_weight: "0.1" }).error!)).toEqual([
      { path: "name", message: "Required" },
    ]);
    expect(customizationConfigWriteSchema.safeParse({ max_weight: "0.1" }).success).toBe(true);
    expect(toFieldIssues(customizationConfigWriteSchema.safeParse({ status: "draft" }).error!)[0]!.path).toBe(
      "status",
    );
  });
});
