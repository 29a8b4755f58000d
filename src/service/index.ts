/**
 * @module service
 * The operations of lotwise over a store (one function per operation) and the Backend interface shared by the
 * CLI's local and remote modes.
 */

export { selectAccounts, statusSelected } from "./account-selection.js";
export { accountRead, holdingsRiskPercent, loadValuation, valuePositions } from "./accounts.js";
export { createAssetClass, listAssetClasses, readAssetClass } from "./asset-classes.js";
export type { Backend, BackendMethods } from "./backend.js";
export {
  type BatchRow,
  type BatchSummary,
  type BatchThresholds,
  batchRow,
  rejectedRow,
  rowsToCsv as batchRowsToCsv,
  summarize as summarizeBatch,
  thresholdBreaches,
} from "./backtest-batch.js";
export {
  type BacktestServiceContext,
  backtestJobRead,
  cancelBacktest,
  getBacktest,
  listBacktests,
  startBacktest,
} from "./backtest-jobs.js";
export { resolveBacktestParams, runAccountBacktest } from "./backtest-run.js";
export { getUniversePreset, listUniversePresets, searchIndustries } from "./catalog.js";
export {
  clientRead,
  createAccount,
  createClient,
  deleteClient,
  findAccount,
  getAccount,
  getClient,
  listAccounts,
  listClients,
  updateClient,
} from "./clients.js";
export {
  clockDate,
  DEFAULT_SERVICE_LIMITS,
  marketAsOf,
  nowIso,
  openStoreContext,
  type ServiceContext,
  type ServiceLimits,
  serviceLimit,
} from "./context.js";
export { buildDemo, type DemoOptions, type DemoResult } from "./demo.js";
export { type AccountDriftOptions, accountDrift } from "./drift.js";
export { type EffectiveConfig, effectiveConfig } from "./effective-config.js";
export {
  type EvaluateAccountRulesOptions,
  evaluateAccountRules,
  evaluateAccountRulesWith,
  type RuleFactSources,
} from "./evaluation.js";
export { type HarvestScanOptions, harvestScan, MAX_SUBSTITUTES } from "./harvest.js";
export { indexUuid } from "./identifiers.js";
export {
  accountRealized,
  clientRealized,
  executeProposal,
  listExecutions,
  recordTrades,
} from "./ledger.js";
export { importTrades } from "./ledger-trades-csv.js";
export { LocalBackend } from "./local-backend.js";
export { importLots, type LotCsvSource } from "./lots-import.js";
export {
  generateMarketData,
  importMarketData,
  MARKET_IMPORT_KINDS,
  type MarketChangePlan,
  type MarketGenerateResult,
  type MarketImportKind,
  type MarketImportOptions,
  type MarketImportResult,
  MarketModeRequiredError,
  type MarketWriteMode,
  type MarketWriteOptions,
  PLAN_PRICE_EXAMPLES,
} from "./market-data.js";
export {
  type AnyOperation,
  type BodyEncoding,
  type CallInput,
  callInput,
  defineOperation,
  type FormFile,
  type HttpMethod,
  installOperationMethods,
  JsonText,
  type Operation,
  type OperationBody,
  type OperationInput,
  type OperationMethods,
  type OperationResponse,
  type OperationSpec,
  type OperationUpload,
  pathParameters,
  queryStrings,
  type UploadSpec,
} from "./operation.js";
export {
  LOTS_CSV_MAX_BODY_BYTES,
  LOTS_CSV_MULTIPART_MAX_BODY_BYTES,
  LOTS_UPLOAD_TIMEOUT_MS,
  OPERATION_LIST,
  OPERATIONS,
  type OperationErrorCode,
  type OperationName,
  ORG_PREFIX,
  RISK_MODEL_MAX_BODY_BYTES,
} from "./operations.js";
export {
  createOptimizationMemo,
  type NoProposalReason,
  type OptimizationMemo,
  type OptimizeAccountOptions,
  optimizeAccount,
  optimizedWeightsOf,
  type PreparedOptimization,
  prepareAccountOptimization,
  proposalOfOptimization,
  rebalanceAccount,
} from "./optimize.js";
export { type ConfigResolution, optimizerConfigFromPortfolioConfig } from "./optimizer-inputs.js";
export {
  authenticate,
  createApiKey,
  createOrganization,
  type IssuedKey,
  listApiKeys,
  listOrganizations,
  revokeApiKey,
} from "./organizations.js";
export {
  createPortfolioConfig,
  getPortfolioConfig,
  listPortfolioConfigs,
  updatePortfolioConfig,
} from "./portfolio-configs.js";
export { type CreateProposalOptions, createProposal, createProposalJson, getProposal } from "./proposals.js";
export { runRebalanceInWorkers } from "./rebalance-run-workers.js";
export {
  getRebalanceRun,
  listRebalanceRuns,
  type RebalanceRunProgress,
  type RunRebalanceOptions,
  rebalanceRunKey,
  runRebalance,
  UNEXPECTED_ACCOUNT_ERROR,
} from "./rebalance-runs.js";
export { type RunSelectionInput, runSelectionOf, selectRunAccounts } from "./rebalance-selection.js";
export {
  type CsvText,
  RISK_MODEL_FILE_FIELDS,
  RISK_MODEL_FILE_PARTS,
  type RiskModelFileNaming,
  type RiskModelFiles,
  readAssetCovarianceCsv,
  readExposuresCsv,
  readFactorCovarianceCsv,
  readSpecificRiskCsv,
  riskModelImportFromCsv,
  UPLOAD_FILE_NAMING,
} from "./risk-model-csv.js";
export {
  deleteRiskModel,
  getRiskModel,
  importRiskModel,
  listRiskModels,
  type RiskModelDocument,
  type RiskModelSource,
} from "./risk-models.js";
export { type ScanOptions, scanAccounts } from "./scan.js";
export { cancelScanJob, getScanJob, scanJobRead, startScanJob } from "./scan-jobs.js";
export {
  BUSY_BACKOFF_BASE_MS,
  BUSY_BACKOFF_MAX_MS,
  BusyEpisode,
  busyBackoffMs,
  isStoreBusyError,
} from "./store-busy.js";
export {
  BENCHMARK_ALIASES,
  backtestTheme,
  createTheme,
  DEFAULT_THEME_BACKTEST_DAYS,
  DEFAULT_THEME_RISK_FREE_RATE,
  evaluateTheme,
  getTheme,
  getThemeConstituents,
  listThemes,
  reviseTheme,
} from "./themes.js";
export { resolveTicker, resolveTickerQueries, resolveTickers, TickerBook } from "./tickers.js";
export { parseWeights } from "./weights-file.js";
