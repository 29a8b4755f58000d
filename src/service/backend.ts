/**
 * @module service/backend
 * The operations of lotwise as one interface with two implementations: {@link LocalBackend} (the service layer over
 * a local store) and the HTTP client of `src/client` (a running `lotwise serve`). The CLI talks only to a Backend,
 * so every command behaves the same locally and remotely. Inputs and outputs are the wire shapes of the contract.
 */
import type {
  Account,
  AccountCreate,
  AccountDrift,
  AccountLookup,
  AccountOptimization,
  AccountRebalance,
  AssetClass,
  AssetClassCreate,
  BacktestJob,
  BacktestRequest,
  Client,
  ClientCreate,
  ClientUpdate,
  DriftQuery,
  HarvestQuery,
  HarvestScan,
  IndustrySearchRequest,
  IndustrySearchResponse,
  LotImportQuery,
  LotImportResult,
  OptimizeRequest,
  PortfolioConfigCreate,
  PortfolioConfigRead,
  PortfolioConfigWrite,
  ProposalRequest,
  ProposalResponse,
  RiskModel,
  RiskModelImport,
  RiskModelSummary,
  ScanRequest,
  ScanResult,
  Theme,
  ThemeBacktestQuery,
  ThemeBacktestResult,
  ThemeConstituentSnapshot,
  ThemeEvaluateRequest,
  ThemeMethodologyInput,
  ThemeRevision,
  TickerResolveResponse,
  UniversePresetsResponse,
  WhoAmI,
} from "../contract/index.js";
import type { LotCsvSource } from "./lots-import.js";

/** Every operation of one organization. All methods are async so that local and remote look the same. */
export interface Backend {
  readonly kind: "local" | "remote";
  /** The organization (and key) the backend acts for. */
  whoAmI(): Promise<WhoAmI>;

  createClient(body: ClientCreate): Promise<Client>;
  listClients(): Promise<Client[]>;
  getClient(clientUuid: string): Promise<Client>;
  /** Endpoint 6. */
  updateClient(clientUuid: string, body: ClientUpdate): Promise<Client>;
  deleteClient(clientUuid: string): Promise<void>;
  createAccount(clientUuid: string, body: AccountCreate): Promise<Account>;
  listAccounts(clientUuid: string): Promise<Account[]>;
  getAccount(clientUuid: string, accountUuid: string): Promise<Account>;
  /** An account by its uuid alone, with its client. */
  findAccount(accountUuid: string): Promise<AccountLookup>;
  /**
   * Import tax lots from a CSV into an account (extension): streamed, all rows or none, one transaction; `append`
   * adds after the lots the account holds at that moment.
   */
  importLots(accountUuid: string, csv: LotCsvSource, query?: LotImportQuery): Promise<LotImportResult>;

  /** Endpoint 3. */
  listPortfolioConfigs(): Promise<PortfolioConfigRead[]>;
  getPortfolioConfig(configUuid: string): Promise<PortfolioConfigRead>;
  createPortfolioConfig(body: PortfolioConfigCreate): Promise<PortfolioConfigRead>;
  /** Endpoint 4. */
  updatePortfolioConfig(configUuid: string, body: PortfolioConfigWrite): Promise<PortfolioConfigRead>;

  createAssetClass(body: AssetClassCreate): Promise<AssetClass>;
  listAssetClasses(): Promise<AssetClass[]>;
  /** Endpoint 5. */
  getAssetClass(assetClassUuid: string): Promise<AssetClass>;

  /** Endpoint 1: a rebalance proposal for an account from optimized target weights (stored). */
  createProposal(clientUuid: string, accountUuid: string, body: ProposalRequest): Promise<ProposalResponse>;
  /** A stored proposal (extension). */
  getProposal(clientUuid: string, accountUuid: string, proposalUuid: string): Promise<ProposalResponse>;
  /** Run the tax-aware optimizer on an account as of a date (extension); infeasible answers carry a diagnosis. */
  optimizeAccount(
    clientUuid: string,
    accountUuid: string,
    body?: OptimizeRequest,
  ): Promise<AccountOptimization>;
  /** How far an account is from its target, with the status of its drift thresholds (extension). */
  accountDrift(clientUuid: string, accountUuid: string, query?: DriftQuery): Promise<AccountDrift>;
  /** Lots worth harvesting now, their estimated tax value and replacements (extension). */
  harvestScan(clientUuid: string, accountUuid: string, query?: HarvestQuery): Promise<HarvestScan>;
  /**
   * The morning scan of the selected accounts (extension): one row per account with drift, harvest, cash and NAV.
   * Without `limit` the whole selection (remotely: page after page); `onProgress` after each account (locally) or
   * each page (remotely).
   */
  scanAccounts(request?: ScanRequest, options?: ScanProgressOptions): Promise<ScanResult>;
  /** Optimize, then build and store the proposal of the optimized weights through endpoint 1 (extension). */
  rebalanceAccount(
    clientUuid: string,
    accountUuid: string,
    body?: OptimizeRequest,
  ): Promise<AccountRebalance>;

  /** Upload a custom or vendor risk model (extension): validated, annualized, stored with its as-of date. */
  importRiskModel(body: RiskModelImport): Promise<RiskModel>;
  /** The uploaded risk models, without their matrices (extension). */
  listRiskModels(): Promise<RiskModelSummary[]>;
  /** One uploaded risk model: summary, source options, factor volatilities (extension). */
  getRiskModel(riskModelUuid: string): Promise<RiskModel>;
  /** Delete an uploaded risk model (extension). */
  deleteRiskModel(riskModelUuid: string): Promise<void>;

  /** Create a theme with its first revision (extension). */
  createTheme(body: ThemeMethodologyInput): Promise<Theme>;
  listThemes(): Promise<Theme[]>;
  getTheme(themeUuid: string): Promise<Theme>;
  /** Save a new revision (extension). */
  reviseTheme(themeUuid: string, body: ThemeRevision): Promise<Theme>;
  /** Evaluate the latest revision and store the snapshot (extension). */
  evaluateTheme(themeUuid: string, body?: ThemeEvaluateRequest): Promise<ThemeConstituentSnapshot>;
  /** Endpoint 7. */
  getThemeConstituents(themeUuid: string): Promise<ThemeConstituentSnapshot>;
  /** Endpoint 8. */
  backtestTheme(themeUuid: string, query?: ThemeBacktestQuery): Promise<ThemeBacktestResult>;
  /** Endpoint 9. */
  searchIndustries(body: IndustrySearchRequest): Promise<IndustrySearchResponse>;
  /** Endpoint 10. */
  listUniversePresets(): Promise<UniversePresetsResponse>;

  /** Resolve symbols or theme_asset_ids against the security master (extension). */
  resolveTickers(queries: readonly string[]): Promise<TickerResolveResponse>;

  // Backtests
  /** Endpoint 2: a PENDING backtest job with its resolved parameters (it runs on a job runner). */
  startBacktest(clientUuid: string, accountUuid: string, body: BacktestRequest): Promise<BacktestJob>;
  /** The backtest jobs of an account, oldest first (extension). */
  listBacktests(clientUuid: string, accountUuid: string): Promise<BacktestJob[]>;
  /** A backtest job by its id alone (extension). */
  getBacktest(jobId: string): Promise<BacktestJob>;
  /** Cancel a PENDING or RUNNING backtest job (extension). */
  cancelBacktest(jobId: string): Promise<BacktestJob>;
}

/** Progress of a scan through a Backend (accounts done of the accounts selected), and its threads. */
export interface ScanProgressOptions {
  onProgress?: (done: number, total: number) => void;
  /** Worker threads of a local scan over a store file (a server scans each page on its request pool). @default 1 */
  concurrency?: number;
}
