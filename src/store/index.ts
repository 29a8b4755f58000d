/**
 * @module store
 * Persistence behind the asynchronous {@link LotwiseStore} interface (`openStore(location)`): SQLite (better-sqlite3,
 * the embedded default) and PostgreSQL (src/store/pg, loaded on demand for postgres:// URLs). The only module of
 * lotwise that speaks SQL.
 */
export { COPY_TABLES, type CopyCounts, copyStore } from "./copy.js";
export { DEFAULT_BUSY_TIMEOUT_MS, isStoreBusyError } from "./database.js";
export {
  corporateActionFromRecord,
  corporateActionRecord,
  DecimalTexts,
  entryFromRecord,
  executionInput,
  ledgerLotChanges,
  ledgerLotInput,
  realizedInput,
  shortLotFromRecord,
  shortLotInput,
  taxLotFromRecord,
} from "./ledger-mapper.js";
export type {
  AsyncAccountRepository,
  AsyncMarketRepository,
  LotImportSession,
  LotwiseStore,
  Promised,
  SqliteControls,
  StoreKind,
} from "./lotwise-store.js";
export { APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION } from "./migrations.js";
export { isPostgresLocation, type MigrationReport, migrateStore, openStore } from "./open.js";
export { isPgTransientError } from "./pg/errors.js";
export type { PgStore, PgStoreOptions } from "./pg/pg-store.js";
export type {
  AccountRecord,
  ApiKeyRecord,
  AssetClassRecord,
  AssetClassSettingRecord,
  BacktestJobRecord,
  BacktestProgress,
  BacktestStatus,
  ClientRecord,
  CorporateActionApplicationRecord,
  CorporateActionKind,
  CorporateActionRecord,
  CostBasisUnit,
  ExecutionInput,
  ExecutionKindRecord,
  ExecutionRecord,
  ExecutionSource,
  HouseholdActivity,
  HouseholdUpdate,
  LedgerBatch,
  LedgerBatchResult,
  LedgerLotChanges,
  LedgerLotInput,
  MarketImportRecord,
  OrganizationRecord,
  PortfolioConfigRecord,
  ProposalRecord,
  RealizedLotInput,
  RealizedLotRecord,
  RealizedPeriod,
  RealizedScope,
  RiskModelInput,
  RiskModelKind,
  RiskModelRecord,
  ShortLotInput,
  ShortLotRecord,
  StoredRiskModelRecord,
  TaxLotInput,
  TaxLotRecord,
  TaxLotRow,
  ThemeRecord,
  ThemeRevisionRecord,
  ThemeSnapshotRecord,
} from "./records.js";
export type { BacktestJobRepository } from "./repositories/backtest-jobs.js";
export type {
  AccountCreate,
  AccountPatch,
  AccountRepository,
  ClientCreate,
  ClientPatch,
  ClientRepository,
} from "./repositories/clients.js";
export type { LedgerRepository } from "./repositories/ledger.js";
export type { LotImportCounts, LotImportMode, LotImportStaging } from "./repositories/lot-imports.js";
export type {
  CapturedMarketChanges,
  CloseMatrix,
  MarketRemovalCounts,
  MarketRepository,
  MarketSummary,
  PriceChange,
  PriceMatrix,
} from "./repositories/market.js";
export type { ApiKeyRepository, OrganizationRepository } from "./repositories/organizations.js";
export type { AssetClassRepository, PortfolioConfigRepository } from "./repositories/portfolio-configs.js";
export type { ProposalRepository } from "./repositories/proposals.js";
export type {
  RebalanceOutcomeKind,
  RebalanceOutcomeRecord,
  RebalanceRunRecord,
  RebalanceRunRepository,
  RebalanceRunWhen,
} from "./repositories/rebalance-runs.js";
export type { RiskModelRepository } from "./repositories/risk-models.js";
export type { ThemeRepository } from "./repositories/themes.js";
export { openSqliteStore, SqliteStore } from "./sqlite-store.js";
export { Store, type StoreOptions } from "./store.js";
