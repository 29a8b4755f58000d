/**
 * @module service
 * The operations of lotwise over a store (one function per operation) and the Backend interface shared by the
 * CLI's local and remote modes.
 */

export { selectAccounts, statusSelected } from "./account-selection.js";
export { accountRead, holdingsRiskPercent, loadValuation, valuePositions } from "./accounts.js";
export { createAssetClass, listAssetClasses, readAssetClass } from "./asset-classes.js";
export type { Backend } from "./backend.js";
export {
  type BacktestServiceContext,
  backtestJobRead,
  cancelBacktest,
  getBacktest,
  listBacktests,
  startBacktest,
} from "./backtest-jobs.js";
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
export { type HarvestScanOptions, harvestScan, MAX_SUBSTITUTES } from "./harvest.js";
export { indexUuid } from "./identifiers.js";
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
  type OptimizeAccountOptions,
  optimizeAccount,
  optimizedWeightsOf,
  type PreparedOptimization,
  prepareAccountOptimization,
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
export {
  deleteRiskModel,
  getRiskModel,
  importRiskModel,
  listRiskModels,
  type RiskModelDocument,
  type RiskModelSource,
} from "./risk-models.js";
export { type ScanOptions, scanAccounts } from "./scan.js";
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
