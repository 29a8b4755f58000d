/**
 * @module contract/schemas
 * Every named wire schema by its id, for the OpenAPI document and for tests that walk all of them.
 * Ids equal the keys; each schema carries `{ id, description }` in {@link contractRegistry}.
 */
import {
  accountCreateSchema,
  accountListSchema,
  accountLookupSchema,
  accountSchema,
  assetClassSettingReadSchema,
  assetClassSettingWriteSchema,
  holdingsReadSchema,
  holdingsWriteSchema,
  positionSchema,
  washSaleLotSchema,
  whoAmISchema,
} from "./account.js";
import {
  assetAllocationReadSchema,
  assetAllocationWriteSchema,
  tiltReadSchema,
  tiltWriteSchema,
} from "./asset-allocation.js";
import { assetClassCreateSchema, assetClassListSchema, assetClassSchema } from "./asset-class.js";
import {
  backtestAssumptionsSchema,
  backtestAttributionSchema,
  backtestCaseResultSchema,
  backtestJobListSchema,
  backtestJobSchema,
  backtestProgressSchema,
  backtestRequestSchema,
  backtestResolvedParamsSchema,
  backtestTaxYearSchema,
  backtestValuePointSchema,
} from "./backtest.js";
import {
  industryMatchSchema,
  industrySearchRequestSchema,
  industrySearchResponseSchema,
  universePresetSchema,
  universePresetsResponseSchema,
} from "./catalog.js";
import { clientCreateSchema, clientListSchema, clientSchema, clientUpdateSchema } from "./client.js";
import { accountDriftSchema, assetDriftSchema, driftQuerySchema } from "./drift.js";
import { errorDetailSchema, errorEnvelopeSchema } from "./error-envelope.js";
import {
  accountEvaluationSchema,
  evaluationFactsSchema,
  evaluationQuerySchema,
  ruleOutcomeSchema,
} from "./evaluation.js";
import {
  harvestAssetSubstitutesSchema,
  harvestLotSchema,
  harvestQuerySchema,
  harvestScanSchema,
  harvestSubstituteSchema,
} from "./harvest.js";
import {
  executionListQuerySchema,
  executionListSchema,
  executionRecordSchema,
  executionResultSchema,
  proposalExecutionRequestSchema,
  proposalFillSchema,
  realizedLedgerSchema,
  realizedQuerySchema,
  realizedRowSchema,
  realizedTotalsSchema,
  tradeImportQuerySchema,
  tradeSchema,
  tradesRequestSchema,
} from "./ledger-executions.js";
import { lotImportQuerySchema, lotImportResultSchema, lotImportTickerSchema } from "./lot-import.js";
import {
  accountOptimizationSchema,
  accountRebalanceSchema,
  cashRequestReportSchema,
  cashRequestSchema,
  optimizeRequestSchema,
  rebalanceRequestSchema,
  yearToDateRealizedSchema,
} from "./optimization.js";
import {
  customizationConfigWriteSchema,
  portfolioConfigCreateSchema,
  portfolioConfigListSchema,
  portfolioConfigReadSchema,
  portfolioConfigWriteSchema,
} from "./portfolio-config.js";
import { jsonValueSchema } from "./primitives.js";
import {
  droppedOrderSchema,
  fxCostBreakdownSchema,
  optimizedWeightSchema,
  proposalOrderSchema,
  proposalRealizedSchema,
  proposalRequestSchema,
  proposalResponseSchema,
  proposalTaxLotSchema,
} from "./proposal.js";
import {
  rebalanceRunAccountSchema,
  rebalanceRunListQuerySchema,
  rebalanceRunListSchema,
  rebalanceRunRequestSchema,
  rebalanceRunSchema,
  rebalanceRunSelectionSchema,
  rebalanceRunSummarySchema,
} from "./rebalance-run.js";
import {
  riskModelImportSchema,
  riskModelListSchema,
  riskModelSchema,
  riskModelSummarySchema,
} from "./risk-model.js";
import {
  dynamicRuleSchema,
  evaluationRuleReadSchema,
  evaluationRuleWriteSchema,
  ruleSchema,
} from "./rules.js";
import {
  accountSelectionSchema,
  scanErrorSchema,
  scanJobProgressSchema,
  scanJobRequestSchema,
  scanJobSchema,
  scanRequestSchema,
  scanResultSchema,
  scanRowSchema,
  scanSummarySchema,
} from "./scan.js";
import { taxLotReadSchema, taxLotWriteSchema } from "./tax-lot.js";
import { taxPreferencesReadSchema, taxPreferencesWriteSchema } from "./tax-preferences.js";
import {
  themeBacktestQuerySchema,
  themeBacktestResultSchema,
  themeConstituentSchema,
  themeConstituentSnapshotSchema,
  themeEvaluateRequestSchema,
  themeListSchema,
  themeMethodologySchema,
  themeRebalanceEventSchema,
  themeRevisionSchema,
  themeRulesSchema,
  themeSchema,
  themeSelectionSchema,
  themeUniverseSchema,
  themeWeightingSchema,
} from "./theme.js";
import {
  factorExposureBoundReadSchema,
  factorExposureBoundWriteSchema,
  targetTickerWeightReadSchema,
  targetTickerWeightWriteSchema,
  tickerReferenceReadSchema,
  tickerReferenceWriteSchema,
  tickerResolutionSchema,
  tickerResolveRequestSchema,
  tickerResolveResponseSchema,
  tickerSchema,
} from "./ticker.js";

/** Named wire schemas, keyed by id. */
export const CONTRACT_SCHEMAS = {
  // Proposal (endpoint 1)
  ProposalRequest: proposalRequestSchema,
  OptimizedWeight: optimizedWeightSchema,
  ProposalResponse: proposalResponseSchema,
  ProposalOrder: proposalOrderSchema,
  ProposalTaxLot: proposalTaxLotSchema,
  DroppedOrder: droppedOrderSchema,
  ProposalRealized: proposalRealizedSchema,
  Position: positionSchema,
  AccountLookup: accountLookupSchema,
  WhoAmI: whoAmISchema,
  TickerResolveRequest: tickerResolveRequestSchema,
  TickerResolution: tickerResolutionSchema,
  TickerResolveResponse: tickerResolveResponseSchema,
  FxCostBreakdown: fxCostBreakdownSchema,
  // Optimizer (extensions)
  OptimizeRequest: optimizeRequestSchema,
  YearToDateRealized: yearToDateRealizedSchema,
  AccountOptimization: accountOptimizationSchema,
  AccountDrift: accountDriftSchema,
  AssetDrift: assetDriftSchema,
  DriftQuery: driftQuerySchema,
  HarvestScan: harvestScanSchema,
  HarvestLot: harvestLotSchema,
  HarvestSubstitute: harvestSubstituteSchema,
  HarvestAssetSubstitutes: harvestAssetSubstitutesSchema,
  HarvestQuery: harvestQuerySchema,
  AccountEvaluation: accountEvaluationSchema,
  EvaluationFacts: evaluationFactsSchema,
  RuleOutcome: ruleOutcomeSchema,
  EvaluationQuery: evaluationQuerySchema,
  AccountSelection: accountSelectionSchema,
  ScanRequest: scanRequestSchema,
  ScanError: scanErrorSchema,
  ScanRow: scanRowSchema,
  ScanSummary: scanSummarySchema,
  ScanResult: scanResultSchema,
  ScanJobRequest: scanJobRequestSchema,
  ScanJobProgress: scanJobProgressSchema,
  ScanJob: scanJobSchema,
  AccountRebalance: accountRebalanceSchema,
  RebalanceRequest: rebalanceRequestSchema,
  CashRequest: cashRequestSchema,
  CashRequestReport: cashRequestReportSchema,
  RebalanceRunRequest: rebalanceRunRequestSchema,
  RebalanceRunListQuery: rebalanceRunListQuerySchema,
  RebalanceRunSelection: rebalanceRunSelectionSchema,
  RebalanceRunAccount: rebalanceRunAccountSchema,
  RebalanceRun: rebalanceRunSchema,
  RebalanceRunSummary: rebalanceRunSummarySchema,
  RebalanceRunList: rebalanceRunListSchema,
  // Uploaded risk models (extensions)
  RiskModelImport: riskModelImportSchema,
  RiskModelSummary: riskModelSummarySchema,
  RiskModelList: riskModelListSchema,
  RiskModel: riskModelSchema,
  // Backtest (endpoint 2 and extensions)
  BacktestRequest: backtestRequestSchema,
  BacktestResolvedParams: backtestResolvedParamsSchema,
  BacktestProgress: backtestProgressSchema,
  BacktestValuePoint: backtestValuePointSchema,
  BacktestAttribution: backtestAttributionSchema,
  BacktestAssumptions: backtestAssumptionsSchema,
  BacktestTaxYear: backtestTaxYearSchema,
  BacktestCaseResult: backtestCaseResultSchema,
  BacktestJob: backtestJobSchema,
  BacktestJobList: backtestJobListSchema,
  // Portfolio configuration (endpoints 3, 4 and extensions)
  PortfolioConfigRead: portfolioConfigReadSchema,
  PortfolioConfigWrite: portfolioConfigWriteSchema,
  PortfolioConfigCreate: portfolioConfigCreateSchema,
  PortfolioConfigList: portfolioConfigListSchema,
  CustomizationConfigWrite: customizationConfigWriteSchema,
  Rule: ruleSchema,
  DynamicRule: dynamicRuleSchema,
  EvaluationRuleWrite: evaluationRuleWriteSchema,
  EvaluationRuleRead: evaluationRuleReadSchema,
  TaxPreferencesWrite: taxPreferencesWriteSchema,
  TaxPreferencesRead: taxPreferencesReadSchema,
  Ticker: tickerSchema,
  TickerReferenceWrite: tickerReferenceWriteSchema,
  TickerReferenceRead: tickerReferenceReadSchema,
  TargetTickerWeightWrite: targetTickerWeightWriteSchema,
  TargetTickerWeightRead: targetTickerWeightReadSchema,
  FactorExposureBoundWrite: factorExposureBoundWriteSchema,
  FactorExposureBoundRead: factorExposureBoundReadSchema,
  AssetAllocationWrite: assetAllocationWriteSchema,
  AssetAllocationRead: assetAllocationReadSchema,
  TiltWrite: tiltWriteSchema,
  TiltRead: tiltReadSchema,
  // Asset classes (endpoint 5 and extensions)
  AssetClass: assetClassSchema,
  AssetClassList: assetClassListSchema,
  AssetClassCreate: assetClassCreateSchema,
  // Clients and accounts (endpoint 6 and extensions)
  ClientUpdate: clientUpdateSchema,
  Client: clientSchema,
  ClientList: clientListSchema,
  ClientCreate: clientCreateSchema,
  Account: accountSchema,
  AccountList: accountListSchema,
  AccountCreate: accountCreateSchema,
  HoldingsWrite: holdingsWriteSchema,
  HoldingsRead: holdingsReadSchema,
  AssetClassSettingWrite: assetClassSettingWriteSchema,
  AssetClassSettingRead: assetClassSettingReadSchema,
  WashSaleLot: washSaleLotSchema,
  TaxLotWrite: taxLotWriteSchema,
  TaxLotRead: taxLotReadSchema,
  LotImportQuery: lotImportQuerySchema,
  LotImportTicker: lotImportTickerSchema,
  LotImportResult: lotImportResultSchema,
  // Themes (endpoints 7, 8 and extensions)
  ThemeMethodology: themeMethodologySchema,
  ThemeRevision: themeRevisionSchema,
  ThemeUniverse: themeUniverseSchema,
  ThemeSelection: themeSelectionSchema,
  ThemeWeighting: themeWeightingSchema,
  ThemeRules: themeRulesSchema,
  Theme: themeSchema,
  ThemeList: themeListSchema,
  ThemeEvaluateRequest: themeEvaluateRequestSchema,
  ThemeConstituent: themeConstituentSchema,
  ThemeConstituentSnapshot: themeConstituentSnapshotSchema,
  ThemeBacktestQuery: themeBacktestQuerySchema,
  ThemeRebalanceEvent: themeRebalanceEventSchema,
  ThemeBacktestResult: themeBacktestResultSchema,
  // Catalog (endpoints 9, 10)
  IndustrySearchRequest: industrySearchRequestSchema,
  IndustryMatch: industryMatchSchema,
  IndustrySearchResponse: industrySearchResponseSchema,
  UniversePreset: universePresetSchema,
  UniversePresetsResponse: universePresetsResponseSchema,
  // Account ledger (extensions)
  ProposalFill: proposalFillSchema,
  ProposalExecutionRequest: proposalExecutionRequestSchema,
  Trade: tradeSchema,
  TradesRequest: tradesRequestSchema,
  TradeImportQuery: tradeImportQuerySchema,
  RealizedRow: realizedRowSchema,
  RealizedTotals: realizedTotalsSchema,
  ExecutionResult: executionResultSchema,
  ExecutionRecord: executionRecordSchema,
  ExecutionListQuery: executionListQuerySchema,
  ExecutionList: executionListSchema,
  RealizedQuery: realizedQuerySchema,
  RealizedLedger: realizedLedgerSchema,
  // Shared
  JsonValue: jsonValueSchema,
  // Errors
  ErrorEnvelope: errorEnvelopeSchema,
  ErrorDetail: errorDetailSchema,
} as const;

/** Id of a named wire schema. */
export type ContractSchemaId = keyof typeof CONTRACT_SCHEMAS;
