/**
 * @module contract/schemas
 * Every named wire schema by its id, for the OpenAPI document and for tests that walk all of them.
 * Ids equal the keys; each schema carries `{ id, description }` in {@link contractRegistry}.
 */
import {
  account,
  accountCreate,
  accountList,
  assetClassSettingRead,
  assetClassSettingWrite,
  holdingsRead,
  holdingsWrite,
  washSaleLot,
} from "./account.js";
import { assetAllocationRead, assetAllocationWrite, tiltRead, tiltWrite } from "./asset-allocation.js";
import { assetClass, assetClassCreate, assetClassList } from "./asset-class.js";
import {
  backtestCaseResult,
  backtestJob,
  backtestJobList,
  backtestProgress,
  backtestRequest,
  backtestResolvedParams,
  backtestValuePoint,
} from "./backtest.js";
import {
  industryMatch,
  industrySearchRequest,
  industrySearchResponse,
  universePreset,
  universePresetsResponse,
} from "./catalog.js";
import { client, clientCreate, clientList, clientUpdate } from "./client.js";
import { errorDetail, errorEnvelope } from "./error-envelope.js";
import {
  customizationConfigWrite,
  portfolioConfigCreate,
  portfolioConfigList,
  portfolioConfigRead,
  portfolioConfigWrite,
} from "./portfolio-config.js";
import {
  fxCostBreakdown,
  optimizedWeight,
  proposalOrder,
  proposalRequest,
  proposalResponse,
  proposalTaxLot,
} from "./proposal.js";
import { jsonValue } from "./primitives.js";
import { dynamicRule, evaluationRuleRead, evaluationRuleWrite, rule } from "./rules.js";
import { taxLotRead, taxLotWrite } from "./tax-lot.js";
import { taxPreferencesRead, taxPreferencesWrite } from "./tax-preferences.js";
import {
  theme,
  themeBacktestQuery,
  themeBacktestResult,
  themeConstituent,
  themeConstituentSnapshot,
  themeEvaluateRequest,
  themeList,
  themeMethodology,
  themeRebalanceEvent,
  themeRevision,
  themeRules,
  themeSelection,
  themeUniverse,
  themeWeighting,
} from "./theme.js";
import {
  factorExposureBoundRead,
  factorExposureBoundWrite,
  targetTickerWeightRead,
  targetTickerWeightWrite,
  ticker,
  tickerReferenceRead,
  tickerReferenceWrite,
} from "./ticker.js";

/** Named wire schemas, keyed by id. */
export const CONTRACT_SCHEMAS = {
  // Proposal (endpoint 1)
  ProposalRequest: proposalRequest,
  OptimizedWeight: optimizedWeight,
  ProposalResponse: proposalResponse,
  ProposalOrder: proposalOrder,
  ProposalTaxLot: proposalTaxLot,
  FxCostBreakdown: fxCostBreakdown,
  // Backtest (endpoint 2 and extensions)
  BacktestRequest: backtestRequest,
  BacktestResolvedParams: backtestResolvedParams,
  BacktestProgress: backtestProgress,
  BacktestValuePoint: backtestValuePoint,
  BacktestCaseResult: backtestCaseResult,
  BacktestJob: backtestJob,
  BacktestJobList: backtestJobList,
  // Portfolio configuration (endpoints 3, 4 and extensions)
  PortfolioConfigRead: portfolioConfigRead,
  PortfolioConfigWrite: portfolioConfigWrite,
  PortfolioConfigCreate: portfolioConfigCreate,
  PortfolioConfigList: portfolioConfigList,
  CustomizationConfigWrite: customizationConfigWrite,
  Rule: rule,
  DynamicRule: dynamicRule,
  EvaluationRuleWrite: evaluationRuleWrite,
  EvaluationRuleRead: evaluationRuleRead,
  TaxPreferencesWrite: taxPreferencesWrite,
  TaxPreferencesRead: taxPreferencesRead,
  Ticker: ticker,
  TickerReferenceWrite: tickerReferenceWrite,
  TickerReferenceRead: tickerReferenceRead,
  TargetTickerWeightWrite: targetTickerWeightWrite,
  TargetTickerWeightRead: targetTickerWeightRead,
  FactorExposureBoundWrite: factorExposureBoundWrite,
  FactorExposureBoundRead: factorExposureBoundRead,
  AssetAllocationWrite: assetAllocationWrite,
  AssetAllocationRead: assetAllocationRead,
  TiltWrite: tiltWrite,
  TiltRead: tiltRead,
  // Asset classes (endpoint 5 and extensions)
  AssetClass: assetClass,
  AssetClassList: assetClassList,
  AssetClassCreate: assetClassCreate,
  // Clients and accounts (endpoint 6 and extensions)
  ClientUpdate: clientUpdate,
  Client: client,
  ClientList: clientList,
  ClientCreate: clientCreate,
  Account: account,
  AccountList: accountList,
  AccountCreate: accountCreate,
  HoldingsWrite: holdingsWrite,
  HoldingsRead: holdingsRead,
  AssetClassSettingWrite: assetClassSettingWrite,
  AssetClassSettingRead: assetClassSettingRead,
  WashSaleLot: washSaleLot,
  TaxLotWrite: taxLotWrite,
  TaxLotRead: taxLotRead,
  // Themes (endpoints 7, 8 and extensions)
  ThemeMethodology: themeMethodology,
  ThemeRevision: themeRevision,
  ThemeUniverse: themeUniverse,
  ThemeSelection: themeSelection,
  ThemeWeighting: themeWeighting,
  ThemeRules: themeRules,
  Theme: theme,
  ThemeList: themeList,
  ThemeEvaluateRequest: themeEvaluateRequest,
  ThemeConstituent: themeConstituent,
  ThemeConstituentSnapshot: themeConstituentSnapshot,
  ThemeBacktestQuery: themeBacktestQuery,
  ThemeRebalanceEvent: themeRebalanceEvent,
  ThemeBacktestResult: themeBacktestResult,
  // Catalog (endpoints 9, 10)
  IndustrySearchRequest: industrySearchRequest,
  IndustryMatch: industryMatch,
  IndustrySearchResponse: industrySearchResponse,
  UniversePreset: universePreset,
  UniversePresetsResponse: universePresetsResponse,
  // Shared
  JsonValue: jsonValue,
  // Errors
  ErrorEnvelope: errorEnvelope,
  ErrorDetail: errorDetail,
} as const;

/** Id of a named wire schema. */
export type ContractSchemaId = keyof typeof CONTRACT_SCHEMAS;
