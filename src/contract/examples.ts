/**
 * @module contract/examples
 * A realistic example of every top-level request and response shape, typed by its schema. The server shows
 * them in the OpenAPI document; the tests check that each one parses, so they cannot drift from the contract.
 */
import type { Account, AccountCreate, AccountLookup, WhoAmI } from "./account.js";
import type { AssetClass, AssetClassCreate } from "./asset-class.js";
import type { BacktestCaseResult, BacktestJob, BacktestRequest } from "./backtest.js";
import type { IndustrySearchRequest, IndustrySearchResponse, UniversePresetsResponse } from "./catalog.js";
import type { Client, ClientCreate, ClientUpdate } from "./client.js";
import type { CorporateActionApplyRequest } from "./corporate-action.js";
import type { ErrorEnvelope } from "./error-envelope.js";
import type { ProposalExecutionRequest, TradesRequest } from "./ledger-executions.js";
import type { OptimizeRequest, RebalanceRequest } from "./optimization.js";
import type { PortfolioConfigCreate, PortfolioConfigRead, PortfolioConfigWrite } from "./portfolio-config.js";
import type { ProposalRequest, ProposalResponse } from "./proposal.js";
import type { RebalanceRunRequest } from "./rebalance-run.js";
import type { RiskModelImport } from "./risk-model.js";
import type { ScanJobRequest, ScanRequest } from "./scan.js";
import type { TaxLotRead, TaxLotWrite } from "./tax-lot.js";
import type {
  Theme,
  ThemeBacktestQuery,
  ThemeBacktestResult,
  ThemeConstituentSnapshot,
  ThemeEvaluateRequest,
  ThemeMethodologyInput,
  ThemeRevision,
} from "./theme.js";
import type { Ticker, TickerResolveRequest, TickerResolveResponse } from "./ticker.js";

const ORG_CONFIG_UUID = "5b0c7c1e-2f4a-4c8e-9a51-3d2f1e0b7a10";
const US_EQUITY_UUID = "8e6f1d2c-4b3a-4f5e-8d7c-1a2b3c4d5e6f";
const CA_EQUITY_UUID = "0f9e8d7c-6b5a-4e3d-9c2b-1a0f9e8d7c6b";
const THEME_UUID = "3c1d5e7f-9a2b-4c6d-8e0f-1a3b5c7d9e2f";
const CLIENT_UUID = "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const ACCOUNT_UUID = "2d4f6a8c-1e3b-4d5f-9a7c-8e0b2d4f6a8c";

const AAPL: Ticker = {
  theme_asset_id: "AAPL:XNAS",
  symbol: "AAPL",
  exchange: "XNAS",
  name: "Apple Inc.",
  description: null,
  image_url: null,
  ticker_url: null,
  ticker_type: "equity",
  market_cap: 3_400_000_000_000,
  sic_description: "Electronic Computers",
};

const XOM: Ticker = {
  ...AAPL,
  theme_asset_id: "XOM:XNYS",
  symbol: "XOM",
  exchange: "XNYS",
  name: "Exxon Mobil",
};

/** A configuration write that touches every list and most scalar fields. */
const configWrite: PortfolioConfigWrite = {
  name: "US core, tax-managed",
  status: "deployed",
  optimization_mode: "LONG_ONLY",
  risk_model_name: "characteristics",
  no_hold_tickers: [{ theme_asset_id: "XOM:XNYS", condition: "esg_exclusion" }],
  no_trade_tickers: [
    { theme_asset_id: "AAPL:XNAS", starts_from: "2025-01-02T00:00:00Z", expires_at: "2025-03-31T00:00:00Z" },
  ],
  target_ticker_weights: [{ theme_asset_id: "MSFT:XNAS", lower_bound: "0.02", upper_bound: "0.08" }],
  min_weight: "0",
  max_weight: "0.05",
  use_active_risk_bounds: true,
  max_active_risk_pct: "2.5",
  factor_exposure_bounds: [{ factor: "momentum", min_active_bound: "-0.1", max_active_bound: "0.1" }],
  tax_preferences: {
    short_term_rate: "0.37",
    long_term_rate: "0.2",
    tax_gamma: "1",
    wash_sale_threshold: 30,
  },
  asset_allocations: [
    { asset_class_uuid: US_EQUITY_UUID, target_allocation: "0.8", direct_indexing_enabled: true },
    { asset_class_uuid: CA_EQUITY_UUID, target_allocation: "0.2" },
  ],
  cash_buffer_usd: "0.02",
  cash_buffer_cad_amount: "500",
  drift_breach_threshold: "0.05",
  asset_drift_breach_threshold: "0.01",
  dynamic_rules: [
    { field_name: "max_weight", rules: [{ value: "0.04", starts_from: "2025-06-01", priority: 1 }] },
  ],
  evaluation_rules: [{ rules: [{ value: 0.03, cron: "0 9 * * 1" }], enabled: true }],
  risk_aversion: "2",
  require_whole_shares: true,
  whole_share_assets: ["RY:XTSE"],
  substitution_pairs: [["GOOGL:XNAS", "GOOG:XNAS"]],
  capital_gains_reductions: { "AAPL:XNAS": "1500" },
};

/** Read shape of a configuration (as returned by list, read, create and update). */
const configRead: PortfolioConfigRead = {
  uuid: ORG_CONFIG_UUID,
  name: "US core, tax-managed",
  status: "deployed",
  optimization_mode: "LONG_ONLY",
  long_weight_sum: null,
  short_weight_sum: null,
  risk_model_name: "characteristics",
  no_hold_tickers: [{ ticker: XOM, starts_from: null, expires_at: null, condition: "esg_exclusion" }],
  no_trade_tickers: [
    {
      ticker: AAPL,
      starts_from: "2025-01-02T00:00:00Z",
      expires_at: "2025-03-31T00:00:00Z",
      condition: null,
    },
  ],
  target_ticker_weights: [],
  min_weight: "0",
  max_weight: "0.05",
  min_active_weight: null,
  max_active_weight: null,
  use_active_risk_bounds: true,
  max_active_risk_pct: "2.5",
  scaling_factor: null,
  use_mean_variance: false,
  factor_exposure_bounds: [],
  tax_preferences: {
    short_term_rate: "0.37",
    long_term_rate: "0.2",
    tracking_error_threshold: null,
    ordinary_income_tax_rate: null,
    tax_gamma: "1",
    positive_tax_alpha_scaling_factor: null,
    tax_gamma_min: null,
    tax_gamma_max: null,
    tax_budget_usd: null,
    tax_gain_target: null,
    tax_gain_target_tolerance: null,
    wash_sale_threshold: 30,
    long_term_threshold: null,
    n_high_loss_lots: null,
    tax_use_tax_alpha: null,
    include_positive_tax_alpha_lots: null,
    prevent_tlh_invalidating_purchase: null,
    prevent_tlh_invalidating_sale: null,
    tax_region: "US",
    tax_algorithm: "tax_aware_qp",
  },
  asset_allocations: [
    {
      asset_class_uuid: US_EQUITY_UUID,
      asset_class_name: "US large cap",
      asset_class_description: "S&P 500 constituents, direct-indexed",
      benchmark_index_identifier: "SP500",
      benchmark_index_name: "S&P 500",
      benchmark_symbol: "SPY",
      single_security_theme_asset_id: null,
      single_security_symbol: null,
      is_composite: false,
      child_asset_allocations: [],
      archived_at: null,
      target_allocation: "1",
      direct_indexing_enabled: true,
      tilts: [],
    },
  ],
  bid_ask_spread_ref_volume: null,
  market_impact_parameter: null,
  bid_ask_spread_parameter: null,
  tcost_bps: null,
  cash_buffer_usd: "0.02",
  cash_buffer_cad: null,
  cash_buffer_usd_amount: null,
  cash_buffer_cad_amount: null,
  drift_warning_threshold: null,
  drift_breach_threshold: "0.05",
  asset_drift_breach_threshold: "0.01",
  dynamic_rules: [],
  evaluation_rules: [],
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
  substitution_pairs: [],
  capital_gains_reductions: {},
  capital_gains_reductions_units: "DOLLARS",
  use_cash_benchmark: false,
  linear_tcaf: "0",
  commission_rate: "0.75",
  broker_spread_bps: "30",
  min_trading_volume_dollars: "1000000",
  min_trade_amount_usd: "100",
  min_trade_pct: "0.05",
  max_trade_count: null,
};

const lotWrite: TaxLotWrite = {
  theme_asset_id: "RY:XTSE",
  quantity: "40",
  cost_basis: "130.5",
  fx_rate: "1.35",
  trade_date: "2023-03-15",
  cost_basis_currency: "CAD",
  cost_basis_unit: "per_share",
};

const lotRead: TaxLotRead = {
  theme_asset_id: "AAPL:XNAS",
  ticker_symbol: "AAPL",
  ticker_name: "Apple Inc.",
  quantity: "25",
  cost_basis: "150.25",
  cost_basis_usd: "150.25",
  cost_basis_per_share: "150.25",
  cost_basis_per_share_usd: "150.25",
  total_cost_basis: "3756.25",
  total_cost_basis_usd: "3756.25",
  current_value: "5731.5",
  fx_rate: "1",
  trade_date: "2022-11-03",
  wash_sale_date: null,
  last_sold_for_loss_date: null,
  cost_basis_currency: "USD",
  cost_basis_unit: "per_share",
};

const assetClass: AssetClass = {
  uuid: US_EQUITY_UUID,
  name: "US large cap",
  description: "S&P 500 constituents, direct-indexed",
  benchmark_index_name: "S&P 500",
  benchmark_index_identifier: "SP500",
  benchmark_direct_indexing_supported: true,
  index_name: "S&P 500",
  index_uuid: "6e5d4c3b-2a19-4f8e-b7d6-c5b4a3928170",
  theme_name: null,
  theme_uuid: null,
  single_security_theme_asset_id: null,
  single_security_symbol: null,
  event_contract_theme_asset_id: null,
  event_contract_side: null,
  alternative_etf_theme_asset_ids: ["SPY:ARCX", "IVV:ARCX"],
  permitted_implementation_uuids: [],
  is_composite: false,
  asset_allocations: [],
  archived_at: null,
  created: "2025-01-02T15:04:05Z",
  modified: "2025-01-02T15:04:05Z",
};

const account: Account = {
  uuid: ACCOUNT_UUID,
  external_id: "BRK-001-TAXABLE",
  name: "Joint taxable",
  holdings: {
    tax_lots: [lotRead],
    cash_value_usd: "1250.4",
    non_tradable_assets_value: "0",
    liabilities_value: "0",
  },
  created: "2025-01-02T15:04:05Z",
  modified: "2025-02-03T10:00:00Z",
  asset_class_settings: [
    { asset_class: assetClass, direct_indexing_enabled: true, implementation_sleeve: null },
  ],
  wash_sale_lots: [],
  household_wash_sale_lots: [],
  short_lots: [],
  aum: "6981.9",
  net_worth: "6981.9",
  holdings_risk_annualized_percentage: "18.4",
  is_read_only: false,
  is_brokerage_backed: false,
  is_externally_owned: false,
  source_brokerage_connection_account_uuid: null,
  source_brokerage_is_paper: null,
  source_brokerage_account_type: null,
  metadata: { advisor: "J. Doe" },
  customization_config: null,
  portfolio_config_uuid: ORG_CONFIG_UUID,
  as_of_date: "2025-02-03",
  positions: [
    {
      theme_asset_id: "AAPL:XNAS",
      symbol: "AAPL",
      name: "Apple Inc.",
      currency: "USD",
      quantity: "25",
      lots: 1,
      price: "229.26",
      price_date: "2025-02-03",
      market_value_usd: "5731.5",
      cost_basis_usd: "3756.25",
      unrealized_short_term_gain_usd: "0",
      unrealized_long_term_gain_usd: "1975.25",
      weight: "0.8209083487",
    },
  ],
  unrealized_short_term_gain_usd: "0",
  unrealized_long_term_gain_usd: "1975.25",
  warnings: [],
};

const caseResult = (over: Partial<BacktestCaseResult>): BacktestCaseResult => ({
  description: "Tax-managed direct index (tax_gamma 1, harvest at 500 bps)",
  tax_managed: true,
  start_date: "2020-01-02",
  end_date: "2020-03-31",
  periods: 3,
  starting_value: 1_000_000,
  ending_value: 812_345.67,
  values: [
    { date: "2020-01-02", value: 1_000_000 },
    { date: "2020-01-31", value: 999_100.12 },
    { date: "2020-02-28", value: 917_500.5 },
    { date: "2020-03-31", value: 812_345.67 },
  ],
  pre_tax_return: -0.18765433,
  pre_tax_return_annualized: -0.5654,
  after_tax_return: -0.1712,
  after_tax_return_annualized: -0.5301,
  after_tax_liquidation_value: 828_800,
  realized_short_term_gains: 0,
  realized_short_term_losses: 61_240.18,
  realized_long_term_gains: 0,
  realized_long_term_losses: 0,
  harvested_losses: 61_240.18,
  taxes_paid: -22_658.87,
  tax_alpha_bps: 412.5,
  turnover: 0.42,
  tracking_error: 0.0061,
  costs: { transaction: 310.22, fx: 0 },
  liquidation_tax: 6_204.54,
  benchmark_name: "SP500",
  return_basis: "total_return",
  assumptions: {
    short_term_rate: 0.37,
    long_term_rate: 0.2,
    loss_usage: "account_only",
    liquidate_at_end: true,
  },
  attribution: {
    reference_case: "pre_tax",
    benchmark_case: "benchmark",
    pre_tax_active_return: 0,
    pre_tax_active_return_vs_benchmark: -0.0021,
    selection: 0.0003,
    costs: -0.0003,
    tax_effect: 0.04125,
    harvest_value: 0.0512,
    deferral_character: 0.0023,
    liquidation_recapture: -0.01225,
    after_tax_active_return: 0.04125,
    tax_effect_usd: 16_454.33,
  },
  tax_years: [
    {
      year: 2020,
      realized_short_term_gains: 0,
      realized_short_term_losses: 61_240.18,
      realized_long_term_gains: 0,
      realized_long_term_losses: 0,
      harvested_losses: 61_240.18,
      taxes_paid: -22_658.87,
      harvest_tax_saving: 22_658.87,
      tax_saved_vs_reference: 22_658.87,
    },
  ],
  ...over,
});

const backtestRequest: BacktestRequest = {
  start_date: "2020-01-02",
  end_date: "2020-03-31",
  rebalance_period: "MONTHLY",
  tax_gamma: 1,
  tax_loss_threshold_bps: 500,
  starting_nav: 1_000_000,
};

const backtestJob: BacktestJob = {
  id: "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
  status: "SUCCESS",
  params: backtestRequest,
  resolved_params: {
    start_date: "2020-01-02",
    end_date: "2020-03-31",
    rebalance_period: "MONTHLY",
    starting_nav: 1_000_000,
    tax_gamma: 1,
    tax_loss_threshold_bps: 500,
    loss_usage: "account_only",
    liquidate_at_end: true,
    basis_reset_max_gain: 0,
  },
  progress: {
    planned_periods: 3,
    completed_periods: 3,
    last_completed_period: "2020-03-31",
    last_progress_at: "2025-02-03T10:00:03.120Z",
  },
  result: {
    tax_managed: caseResult({}),
    pre_tax: caseResult({
      description: "Same portfolio without tax management",
      tax_managed: false,
      realized_short_term_losses: 0,
      harvested_losses: 0,
      taxes_paid: 0,
      tax_alpha_bps: null,
      after_tax_liquidation_value: 812_345.67,
      liquidation_tax: 0,
      attribution: {
        reference_case: "pre_tax",
        benchmark_case: "benchmark",
        pre_tax_active_return: 0,
        pre_tax_active_return_vs_benchmark: -0.0021,
        selection: 0,
        costs: 0,
        tax_effect: 0,
        harvest_value: 0,
        deferral_character: 0,
        liquidation_recapture: 0,
        after_tax_active_return: 0,
        tax_effect_usd: 0,
      },
      tax_years: [
        {
          year: 2020,
          realized_short_term_gains: 0,
          realized_short_term_losses: 0,
          realized_long_term_gains: 0,
          realized_long_term_losses: 0,
          harvested_losses: 0,
          taxes_paid: 0,
          harvest_tax_saving: 0,
          tax_saved_vs_reference: 0,
        },
      ],
    }),
  },
  error_message: null,
  created_at: "2025-02-03T10:00:00Z",
  started_at: "2025-02-03T10:00:00.250Z",
  finished_at: "2025-02-03T10:00:03.120Z",
};

const methodology: ThemeMethodologyInput = {
  name: "AI infrastructure",
  description: "Semiconductors and data-center REITs, top 25 by market cap",
  universe: { preset: "us_large_cap" },
  filters: ["sub_industry in (45301020, 60108020)", "market_cap > 10e9"],
  score: "market_cap",
  selection: { mode: "top_n", value: 25, min_count: 10 },
  weighting: { scheme: "market_cap", max_weight: 0.1 },
  rules: { rebalancing_period: "QUARTERLY" },
};

const snapshot: ThemeConstituentSnapshot = {
  theme_uuid: THEME_UUID,
  revision: "2025-01-15T12:00:00Z",
  as_of_date: "2025-01-31",
  total_constituents: 2,
  total_weight: 1,
  constituents: [
    {
      theme_asset_id: "NVDA:XNAS",
      symbol: "NVDA",
      name: "NVIDIA",
      exchange: "XNAS",
      score: 3.2e12,
      weight: 0.6,
    },
    {
      theme_asset_id: "EQIX:XNAS",
      symbol: "EQIX",
      name: "Equinix",
      exchange: "XNAS",
      score: 8.5e10,
      weight: 0.4,
    },
  ],
};

const themeBacktest: ThemeBacktestResult = {
  theme: {
    backtest_returns: { "2024-03-28": 0.081, "2024-06-28": -0.023 },
    backtest_values: { "2024-01-02": 1, "2024-03-28": 1.081, "2024-06-28": 1.0561 },
    since_inception_returns: "0.0561",
    cumulative_backtest_returns: { "2024-03-28": 0.081, "2024-06-28": 0.0561 },
  },
  benchmark: { identifier: "SPY:ARCX", backtest_returns: { "2024-03-28": 0.104, "2024-06-28": 0.039 } },
  summary: {
    portfolio_return: 0.0561,
    benchmark_return: 0.1471,
    relative_return: -0.091,
    risk_metrics: { beta: 1.32, sharpe: 0.41, volatility: 0.29, max_drawdown: -0.12 },
    benchmark_coverage_note: null,
  },
  rebalance_events: [
    {
      date: "2024-03-28",
      added: [{ symbol: "EQIX", theme_asset_id: "EQIX:XNAS" }],
      removed: [],
      constituent_count: 2,
    },
  ],
};

/** Example payloads keyed by schema id (requests and responses). */
export const CONTRACT_EXAMPLES = {
  ProposalRequest: {
    optimized_weights: [
      { ticker: "AAPL:XNAS", weight: "0.35" },
      { ticker: "MSFT", weight: "0.4" },
      { ticker: "RY:XTSE", weight: "0.23" },
    ],
  } satisfies ProposalRequest,
  ProposalResponse: {
    proposal_uuid: "1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e",
    cash_buffer_cad_amount: null,
    cash_buffer_usd_amount: "139.638",
    orders: [
      {
        ticker: "AAPL:XNAS",
        ticker_symbol: "AAPL",
        currency: "USD",
        amount: "-5",
        amount_usd: "-1146.3",
        type: "qty",
        order_category: "long",
        reason: "weight_decreased",
        existing_quantity: "25",
        existing_weight: "0.4105",
        existing_market_value: "5731.5",
        target_weight: "0.35",
        tax_lots: [{ cost_basis: "751.25", quantity: "5", trade_date: "2022-11-03", gain: "395.05" }],
        fx_cost_breakdown: null,
      },
      {
        ticker: "RY:XTSE",
        ticker_symbol: "RY",
        currency: "CAD",
        amount: "1500",
        amount_usd: "1500",
        type: "notional",
        reason: "added_to_target",
        tax_lots: null,
        fx_cost_breakdown: {
          base_amount_usd: "1500",
          fx_rate: "1.35",
          fx_fee_percentage: "0.25",
          fx_fee_amount_usd: "3.75",
          net_amount_usd: "1496.25",
          currency: "CAD",
        },
      },
    ],
  } satisfies ProposalResponse,
  BacktestRequest: backtestRequest,
  BacktestJob: backtestJob,
  BacktestJobList: [backtestJob],
  PortfolioConfigWrite: configWrite,
  PortfolioConfigCreate: { ...configWrite, name: "US core, tax-managed" } satisfies PortfolioConfigCreate,
  PortfolioConfigRead: configRead,
  PortfolioConfigList: [configRead],
  AssetClass: assetClass,
  AssetClassList: [assetClass],
  AssetClassCreate: {
    name: "US large cap",
    description: "S&P 500 constituents, direct-indexed",
    benchmark_index_identifier: "SP500",
    alternative_etf_theme_asset_ids: ["SPY:ARCX"],
  } satisfies AssetClassCreate,
  ClientUpdate: {
    external_id: "CRM-4411",
    holdings: { tax_lots: [lotWrite], non_tradable_assets_value: "250000" },
    metadata: { segment: "HNW" },
    customization_config: { max_weight: "0.04", no_hold_tickers: [{ theme_asset_id: "XOM:XNYS" }] },
    portfolio_config_uuid: ORG_CONFIG_UUID,
    asset_class_settings: [{ asset_class_uuid: US_EQUITY_UUID, direct_indexing_enabled: true }],
  } satisfies ClientUpdate,
  Client: {
    uuid: CLIENT_UUID,
    external_id: "CRM-4411",
    created: "2025-01-02T15:04:05Z",
    modified: "2025-02-03T10:00:00Z",
    accounts: [account],
    metadata: { segment: "HNW" },
  } satisfies Client,
  ClientCreate: { external_id: "CRM-4411", metadata: { segment: "HNW" } } satisfies ClientCreate,
  Account: account,
  AccountLookup: { client_uuid: CLIENT_UUID, account } satisfies AccountLookup,
  TickerResolveRequest: { tickers: ["AAPL", "RY:XTSE", "ZZZZ"] } satisfies TickerResolveRequest,
  TickerResolveResponse: {
    results: [
      { query: "AAPL", theme_asset_id: "AAPL:XNAS", ticker: AAPL, error: null, message: null, matches: [] },
      {
        query: "ZZZZ",
        theme_asset_id: null,
        ticker: null,
        error: "unknown",
        message: "unknown ticker ZZZZ",
        matches: [],
      },
    ],
  } satisfies TickerResolveResponse,
  WhoAmI: {
    organization_uuid: "0d4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7",
    organization_name: "Acme Advisors",
    api_key_id: "3f2a9c1b7d4e",
  } satisfies WhoAmI,
  AccountCreate: {
    external_id: "BRK-001-TAXABLE",
    name: "Joint taxable",
    cash_value_usd: "1250.40",
    holdings: { tax_lots: [lotWrite] },
    portfolio_config_uuid: ORG_CONFIG_UUID,
  } satisfies AccountCreate,
  TaxLotWrite: lotWrite,
  TaxLotRead: lotRead,
  ThemeMethodology: methodology,
  ThemeRevision: {
    filters: ["sub_industry in (45301020)"],
    weighting: { scheme: "equal" },
  } satisfies ThemeRevision,
  Theme: {
    uuid: THEME_UUID,
    name: "AI infrastructure",
    description: "Semiconductors and data-center REITs, top 25 by market cap",
    revision: "2025-01-15T12:00:00Z",
    methodology: {
      ...methodology,
      filters: methodology.filters ?? [],
      score: methodology.score ?? "market_cap",
    },
    created: "2025-01-10T09:00:00Z",
    modified: "2025-01-15T12:00:00Z",
  } satisfies Theme,
  ThemeEvaluateRequest: { as_of_date: "2025-01-31" } satisfies ThemeEvaluateRequest,
  ThemeConstituentSnapshot: snapshot,
  ThemeBacktestQuery: {
    start_date: "2024-01-02",
    end_date: "2024-06-28",
    benchmark: "SPY",
  } satisfies ThemeBacktestQuery,
  ThemeBacktestResult: themeBacktest,
  IndustrySearchRequest: { query: "semiconductors" } satisfies IndustrySearchRequest,
  IndustrySearchResponse: {
    success: true,
    query: "semiconductors",
    matches: [
      {
        level: "L4",
        id: 45301020,
        name: "Semiconductors",
        expression: "sub_industry == 45301020",
        parent: "Semiconductors & Semiconductor Equipment",
        parent_l1: "Information Technology",
        parent_l2: "Semiconductors & Semiconductor Equipment",
        children: [],
        siblings: ["Semiconductor Materials & Equipment"],
      },
    ],
    hint: "Use a match's expression as a theme filter.",
  } satisfies IndustrySearchResponse,
  UniversePresetsResponse: {
    success: true,
    presets: [
      {
        id: "us_large_cap",
        name: "US large cap",
        description: "US-listed common stocks with market cap above 10 billion USD",
        filter_expression: "country == 'US' and market_cap > 10e9",
        allowed_exchange_locations: ["US"],
        allowed_exchanges: ["XNYS", "XNAS"],
        allowed_currencies: ["USD"],
      },
    ],
  } satisfies UniversePresetsResponse,
  OptimizeRequest: { as_of_date: "2025-12-31" } satisfies OptimizeRequest,
  RebalanceRequest: {
    as_of_date: "2025-12-31",
    cash_request: { withdraw_usd: "50000" },
  } satisfies RebalanceRequest,
  ScanRequest: {
    status: ["breach", "warning"],
    min_loss_usd: "500",
    min_loss_fraction: "0.05",
    limit: 100,
  } satisfies ScanRequest,
  ScanJobRequest: {
    client_uuid: CLIENT_UUID,
    as_of_date: "2025-12-31",
    async: true,
  } satisfies ScanJobRequest,
  RebalanceRunRequest: {
    when: "breached",
    as_of_date: "2025-12-31",
    max_accounts: 50,
  } satisfies RebalanceRunRequest,
  ProposalExecutionRequest: {
    trade_date: "2025-12-31",
    fills: [{ order: 0, quantity: "5", price: "229.26", fees: "1" }],
  } satisfies ProposalExecutionRequest,
  TradesRequest: {
    trades: [
      {
        execution_id: "BRK-20251231-0001",
        side: "buy",
        ticker: "AAPL:XNAS",
        trade_date: "2025-12-31",
        quantity: "10",
        price: "229.26",
        fees: "1",
      },
      {
        execution_id: "BRK-20251231-0002",
        side: "sell",
        ticker: "MSFT",
        trade_date: "2025-12-31",
        quantity: "4",
        price: "421.5",
        lots: [{ lot_id: "LOT-2022-11-03-MSFT", quantity: "4" }],
      },
    ],
  } satisfies TradesRequest,
  RiskModelImport: {
    kind: "vendor",
    name: "Vendor model 2025-12 (two factors)",
    as_of_date: "2025-12-31",
    frequency: "annual",
    units: "percent",
    exposures: [
      { asset: "AAPL:XNAS", factor: "MARKET", exposure: 1.1 },
      { asset: "AAPL:XNAS", factor: "SIZE", exposure: 0.8 },
      { asset: "MSFT:XNAS", factor: "MARKET", exposure: 1.0 },
      { asset: "MSFT:XNAS", factor: "SIZE", exposure: 0.9 },
    ],
    factor_covariance: [
      { factor1: "MARKET", factor2: "MARKET", covariance: 256 },
      { factor1: "MARKET", factor2: "SIZE", covariance: 12 },
      { factor1: "SIZE", factor2: "SIZE", covariance: 36 },
    ],
    specific_risk: [
      { asset: "AAPL:XNAS", specific_risk: 18 },
      { asset: "MSFT:XNAS", specific_risk: 15 },
    ],
  } satisfies RiskModelImport,
  CorporateActionApplyRequest: {
    account_uuid: ACCOUNT_UUID,
    through: "2025-12-31",
    dry_run: true,
  } satisfies CorporateActionApplyRequest,
  ErrorEnvelope: {
    error: {
      code: "validation_error",
      message:
        'Invalid request body: optimized_weights[2].weight: "12.5" has 2 integer digits; decimal(1,10) allows at most 1',
      details: [
        {
          path: "optimized_weights[2].weight",
          message: '"12.5" has 2 integer digits; decimal(1,10) allows at most 1',
        },
      ],
    },
  } satisfies ErrorEnvelope,
};

/** Id of a schema that has an example. */
export type ContractExampleId = keyof typeof CONTRACT_EXAMPLES;
