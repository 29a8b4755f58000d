/**
 * @module client/remote-backend
 * {@link Backend} over HTTP: every operation of the service called on a running `lotwise serve` (or any service of
 * the same interface), each response validated with its contract schema. Errors arrive as the same
 * {@link PortfolioError} subclasses, codes and messages as with the local backend.
 */
import {
  type Account,
  type AccountCreate,
  type AccountDrift,
  type AccountLookup,
  type AccountOptimization,
  type AccountRebalance,
  type AssetClass,
  type AssetClassCreate,
  accountDriftSchema,
  accountListSchema,
  accountLookupSchema,
  accountOptimizationSchema,
  accountRebalanceSchema,
  accountSchema,
  assetClassListSchema,
  assetClassSchema,
  type BacktestJob,
  type BacktestRequest,
  backtestJobListSchema,
  backtestJobSchema,
  type Client,
  type ClientCreate,
  type ClientUpdate,
  clientListSchema,
  clientSchema,
  type DriftQuery,
  type HarvestQuery,
  type HarvestScan,
  harvestScanSchema,
  type IndustrySearchRequest,
  type IndustrySearchResponse,
  industrySearchResponseSchema,
  type LotImportQuery,
  type LotImportResult,
  lotImportQueryParams,
  lotImportResultSchema,
  type OptimizeRequest,
  type PortfolioConfigCreate,
  type PortfolioConfigRead,
  type PortfolioConfigWrite,
  type ProposalRequest,
  type ProposalResponse,
  portfolioConfigListSchema,
  portfolioConfigReadSchema,
  proposalResponseSchema,
  type RiskModel,
  type RiskModelImport,
  type RiskModelSummary,
  riskModelListSchema,
  riskModelSchema,
  SCAN_PAGE_MAX,
  type ScanRequest,
  type ScanResult,
  scanResultSchema,
  summarizeScan,
  type Theme,
  type ThemeBacktestQuery,
  type ThemeBacktestResult,
  type ThemeConstituentSnapshot,
  type ThemeEvaluateRequest,
  type ThemeMethodologyInput,
  type ThemeRevision,
  type TickerResolveResponse,
  themeBacktestResultSchema,
  themeConstituentSnapshotSchema,
  themeListSchema,
  themeSchema,
  tickerResolveResponseSchema,
  type UniversePresetsResponse,
  universePresetsResponseSchema,
  type WhoAmI,
  whoAmISchema,
} from "../contract/index.js";
import { NotFoundError } from "../core/errors.js";
import type { Backend, ScanProgressOptions } from "../service/backend.js";
import type { LotCsvSource } from "../service/lots-import.js";
import { HttpClient, type HttpClientOptions } from "./http-client.js";

/** Time limit of a lots upload: a file of a million lots is tens of MB. */
export const LOTS_UPLOAD_TIMEOUT_MS = 15 * 60_000;

/** Options of {@link RemoteBackend.connect}. */
export interface RemoteBackendOptions extends HttpClientOptions {
  /** Expected organization; when given it must be the key's. */
  organizationUuid?: string;
}

const seg = encodeURIComponent;

/**
 * The {@link Backend} of a remote service, bound to the organization of its API key.
 * @example
 * const backend = await RemoteBackend.connect({ url: "http://127.0.0.1:8000", apiKey: process.env.LOTWISE_API_KEY! });
 * const configs = await backend.listPortfolioConfigs();
 */
export class RemoteBackend implements Backend {
  readonly kind = "remote" as const;

  /** Prefer {@link RemoteBackend.connect}, which learns the organization from the key. */
  constructor(
    readonly http: HttpClient,
    readonly organizationUuid: string,
  ) {}

  /**
   * Connects to a service: asks `GET /api/v1/me` which organization the key belongs to.
   * @throws {AuthenticationError} for a bad key; {@link ConnectionError} when the service cannot be reached
   * @throws {NotFoundError} `organization_not_found` when `organizationUuid` is given and is not the key's
   * @example const backend = await RemoteBackend.connect({ url: "http://127.0.0.1:8000", apiKey });
   */
  static async connect(options: RemoteBackendOptions): Promise<RemoteBackend> {
    const http = new HttpClient(options);
    const me = await http.request("GET", "/api/v1/me", { operation: "whoAmI", schema: whoAmISchema });
    if (
      options.organizationUuid !== undefined &&
      options.organizationUuid.toLowerCase() !== me.organization_uuid
    )
      throw new NotFoundError(
        `Organization ${options.organizationUuid} not found for this API key (the key belongs to ${me.organization_uuid}).`,
        "organization_not_found",
      );
    return new RemoteBackend(http, me.organization_uuid);
  }

  private org(path: string): string {
    return `/api/v1/custom/org/${seg(this.organizationUuid)}/${path}`;
  }

  whoAmI(): Promise<WhoAmI> {
    return this.http.request("GET", "/api/v1/me", { operation: "whoAmI", schema: whoAmISchema });
  }

  createClient(body: ClientCreate): Promise<Client> {
    return this.http.request("POST", this.org("clients/"), {
      operation: "createClient",
      body,
      schema: clientSchema,
    });
  }
  listClients(): Promise<Client[]> {
    return this.http.request("GET", this.org("clients/"), {
      operation: "listClients",
      schema: clientListSchema,
    });
  }
  getClient(clientUuid: string): Promise<Client> {
    return this.http.request("GET", this.org(`clients/${seg(clientUuid)}/`), {
      operation: "getClient",
      schema: clientSchema,
    });
  }
  updateClient(clientUuid: string, body: ClientUpdate): Promise<Client> {
    return this.http.request("PATCH", this.org(`clients/${seg(clientUuid)}/`), {
      operation: "updateClient",
      body,
      schema: clientSchema,
    });
  }
  async deleteClient(clientUuid: string): Promise<void> {
    await this.http.request("DELETE", this.org(`clients/${seg(clientUuid)}/`), { operation: "deleteClient" });
  }
  createAccount(clientUuid: string, body: AccountCreate): Promise<Account> {
    return this.http.request("POST", this.org(`clients/${seg(clientUuid)}/accounts/`), {
      operation: "createAccount",
      body,
      schema: accountSchema,
    });
  }
  listAccounts(clientUuid: string): Promise<Account[]> {
    return this.http.request("GET", this.org(`clients/${seg(clientUuid)}/accounts/`), {
      operation: "listAccounts",
      schema: accountListSchema,
    });
  }
  getAccount(clientUuid: string, accountUuid: string): Promise<Account> {
    return this.http.request("GET", this.org(`clients/${seg(clientUuid)}/accounts/${seg(accountUuid)}/`), {
      operation: "getAccount",
      schema: accountSchema,
    });
  }
  findAccount(accountUuid: string): Promise<AccountLookup> {
    return this.http.request("GET", this.org(`accounts/${seg(accountUuid)}/`), {
      operation: "findAccount",
      schema: accountLookupSchema,
    });
  }

  listPortfolioConfigs(): Promise<PortfolioConfigRead[]> {
    return this.http.request("GET", this.org("portfolio_configs/"), {
      operation: "listPortfolioConfigs",
      schema: portfolioConfigListSchema,
    });
  }
  getPortfolioConfig(configUuid: string): Promise<PortfolioConfigRead> {
    return this.http.request("GET", this.org(`portfolio_configs/${seg(configUuid)}/`), {
      operation: "getPortfolioConfig",
      schema: portfolioConfigReadSchema,
    });
  }
  createPortfolioConfig(body: PortfolioConfigCreate): Promise<PortfolioConfigRead> {
    return this.http.request("POST", this.org("portfolio_configs/"), {
      operation: "createPortfolioConfig",
      body,
      schema: portfolioConfigReadSchema,
    });
  }
  updatePortfolioConfig(configUuid: string, body: PortfolioConfigWrite): Promise<PortfolioConfigRead> {
    return this.http.request("PATCH", this.org(`portfolio_configs/${seg(configUuid)}/`), {
      operation: "updatePortfolioConfig",
      body,
      schema: portfolioConfigReadSchema,
    });
  }

  createAssetClass(body: AssetClassCreate): Promise<AssetClass> {
    return this.http.request("POST", this.org("asset_classes/"), {
      operation: "createAssetClass",
      body,
      schema: assetClassSchema,
    });
  }
  listAssetClasses(): Promise<AssetClass[]> {
    return this.http.request("GET", this.org("asset_classes/"), {
      operation: "listAssetClasses",
      schema: assetClassListSchema,
    });
  }
  getAssetClass(assetClassUuid: string): Promise<AssetClass> {
    return this.http.request("GET", this.org(`asset_classes/${seg(assetClassUuid)}/`), {
      operation: "getAssetClass",
      schema: assetClassSchema,
    });
  }

  createProposal(clientUuid: string, accountUuid: string, body: ProposalRequest): Promise<ProposalResponse> {
    return this.http.request(
      "POST",
      this.org(`clients/${seg(clientUuid)}/accounts/${seg(accountUuid)}/proposal/`),
      {
        operation: "createProposal",
        body,
        schema: proposalResponseSchema,
      },
    );
  }
  getProposal(clientUuid: string, accountUuid: string, proposalUuid: string): Promise<ProposalResponse> {
    return this.http.request(
      "GET",
      this.org(`clients/${seg(clientUuid)}/accounts/${seg(accountUuid)}/proposals/${seg(proposalUuid)}/`),
      { operation: "getProposal", schema: proposalResponseSchema },
    );
  }
  optimizeAccount(
    clientUuid: string,
    accountUuid: string,
    body: OptimizeRequest = {},
  ): Promise<AccountOptimization> {
    return this.http.request(
      "POST",
      this.org(`clients/${seg(clientUuid)}/accounts/${seg(accountUuid)}/optimize/`),
      { operation: "optimizeAccount", body, schema: accountOptimizationSchema },
    );
  }
  accountDrift(clientUuid: string, accountUuid: string, query: DriftQuery = {}): Promise<AccountDrift> {
    return this.http.request(
      "GET",
      this.org(`clients/${seg(clientUuid)}/accounts/${seg(accountUuid)}/drift/`),
      { operation: "accountDrift", query: { as_of_date: query.as_of_date }, schema: accountDriftSchema },
    );
  }
  async scanAccounts(request: ScanRequest = {}, options: ScanProgressOptions = {}): Promise<ScanResult> {
    const page = (body: ScanRequest) =>
      this.http.request("POST", this.org("scans/"), {
        operation: "scanAccounts",
        body,
        schema: scanResultSchema,
      });
    // A page asked for is one request; a whole selection is read page by page (SCAN_PAGE_MAX accounts each).
    if (request.limit !== undefined) {
      const one = await page(request);
      options.onProgress?.(one.rows.length, one.rows.length);
      return one;
    }
    const start = request.offset ?? 0;
    let next: number | null = start;
    const rows: ScanResult["rows"] = [];
    let first: ScanResult | undefined;
    while (next !== null) {
      // Every page at the first page's date (the default date could move between requests).
      const asOf = first?.as_of_date ?? request.as_of_date;
      const p: ScanResult = await page({
        ...request,
        ...(asOf !== undefined ? { as_of_date: asOf } : {}),
        offset: next,
        limit: SCAN_PAGE_MAX,
      });
      first ??= p;
      rows.push(...p.rows);
      next = p.next_offset;
      options.onProgress?.((next ?? p.selected_accounts) - start, p.selected_accounts - start);
    }
    return {
      as_of_date: first!.as_of_date,
      selected_accounts: first!.selected_accounts,
      offset: start,
      next_offset: null,
      rows,
      summary: summarizeScan(rows),
    };
  }
  harvestScan(clientUuid: string, accountUuid: string, query: HarvestQuery = {}): Promise<HarvestScan> {
    return this.http.request(
      "GET",
      this.org(`clients/${seg(clientUuid)}/accounts/${seg(accountUuid)}/harvest/`),
      {
        operation: "harvestScan",
        query: {
          as_of_date: query.as_of_date,
          min_loss_usd: query.min_loss_usd,
          min_loss_fraction: query.min_loss_fraction,
        },
        schema: harvestScanSchema,
      },
    );
  }
  rebalanceAccount(
    clientUuid: string,
    accountUuid: string,
    body: OptimizeRequest = {},
  ): Promise<AccountRebalance> {
    return this.http.request(
      "POST",
      this.org(`clients/${seg(clientUuid)}/accounts/${seg(accountUuid)}/rebalance/`),
      { operation: "rebalanceAccount", body, schema: accountRebalanceSchema },
    );
  }
  /** Streams the CSV as a `text/csv` body: one request, one all-or-nothing import on the server. */
  importLots(accountUuid: string, csv: LotCsvSource, query: LotImportQuery = {}): Promise<LotImportResult> {
    return this.http.request("POST", this.org(`accounts/${seg(accountUuid)}/tax_lots/import/`), {
      operation: "importLots",
      query: lotImportQueryParams(query),
      upload: { contentType: "text/csv; charset=utf-8", data: csv },
      timeoutMs: LOTS_UPLOAD_TIMEOUT_MS,
      schema: lotImportResultSchema,
    });
  }

  resolveTickers(queries: readonly string[]): Promise<TickerResolveResponse> {
    return this.http.request("POST", "/api/v1/securities/resolve", {
      operation: "resolveTickers",
      body: { tickers: [...queries] },
      schema: tickerResolveResponseSchema,
    });
  }

  importRiskModel(body: RiskModelImport): Promise<RiskModel> {
    return this.http.request("POST", this.org("risk_models/"), {
      operation: "importRiskModel",
      body,
      schema: riskModelSchema,
    });
  }
  listRiskModels(): Promise<RiskModelSummary[]> {
    return this.http.request("GET", this.org("risk_models/"), {
      operation: "listRiskModels",
      schema: riskModelListSchema,
    });
  }
  getRiskModel(riskModelUuid: string): Promise<RiskModel> {
    return this.http.request("GET", this.org(`risk_models/${seg(riskModelUuid)}/`), {
      operation: "getRiskModel",
      schema: riskModelSchema,
    });
  }
  async deleteRiskModel(riskModelUuid: string): Promise<void> {
    await this.http.request("DELETE", this.org(`risk_models/${seg(riskModelUuid)}/`), {
      operation: "deleteRiskModel",
    });
  }

  createTheme(body: ThemeMethodologyInput): Promise<Theme> {
    return this.http.request("POST", "/api/v1/themes", {
      operation: "createTheme",
      body,
      schema: themeSchema,
    });
  }
  listThemes(): Promise<Theme[]> {
    return this.http.request("GET", "/api/v1/themes", { operation: "listThemes", schema: themeListSchema });
  }
  getTheme(themeUuid: string): Promise<Theme> {
    return this.http.request("GET", `/api/v1/themes/${seg(themeUuid)}`, {
      operation: "getTheme",
      schema: themeSchema,
    });
  }
  reviseTheme(themeUuid: string, body: ThemeRevision): Promise<Theme> {
    return this.http.request("PATCH", `/api/v1/themes/${seg(themeUuid)}`, {
      operation: "reviseTheme",
      body,
      schema: themeSchema,
    });
  }
  evaluateTheme(themeUuid: string, body: ThemeEvaluateRequest = {}): Promise<ThemeConstituentSnapshot> {
    return this.http.request("POST", `/api/v1/themes/${seg(themeUuid)}/evaluate`, {
      operation: "evaluateTheme",
      body,
      schema: themeConstituentSnapshotSchema,
    });
  }
  getThemeConstituents(themeUuid: string): Promise<ThemeConstituentSnapshot> {
    return this.http.request("GET", `/api/v1/themes/${seg(themeUuid)}/constituents`, {
      operation: "getThemeConstituents",
      schema: themeConstituentSnapshotSchema,
    });
  }
  backtestTheme(themeUuid: string, query: ThemeBacktestQuery = {}): Promise<ThemeBacktestResult> {
    return this.http.request("GET", `/api/v1/themes/${seg(themeUuid)}/backtest`, {
      operation: "backtestTheme",
      query: { start_date: query.start_date, end_date: query.end_date, benchmark: query.benchmark },
      schema: themeBacktestResultSchema,
    });
  }
  searchIndustries(body: IndustrySearchRequest): Promise<IndustrySearchResponse> {
    return this.http.request("POST", "/api/v1/catalog/industry", {
      operation: "searchIndustries",
      body,
      schema: industrySearchResponseSchema,
    });
  }
  listUniversePresets(): Promise<UniversePresetsResponse> {
    return this.http.request("GET", "/api/v1/catalog/universe_presets", {
      operation: "listUniversePresets",
      schema: universePresetsResponseSchema,
    });
  }

  // Backtests
  startBacktest(clientUuid: string, accountUuid: string, body: BacktestRequest): Promise<BacktestJob> {
    return this.http.request(
      "POST",
      this.org(`clients/${seg(clientUuid)}/accounts/${seg(accountUuid)}/backtests/`),
      { operation: "createBacktest", body, schema: backtestJobSchema },
    );
  }
  listBacktests(clientUuid: string, accountUuid: string): Promise<BacktestJob[]> {
    return this.http.request(
      "GET",
      this.org(`clients/${seg(clientUuid)}/accounts/${seg(accountUuid)}/backtests/`),
      { operation: "listBacktests", schema: backtestJobListSchema },
    );
  }
  getBacktest(jobId: string): Promise<BacktestJob> {
    return this.http.request("GET", this.org(`backtests/${seg(jobId)}/`), {
      operation: "getBacktest",
      schema: backtestJobSchema,
    });
  }
  cancelBacktest(jobId: string): Promise<BacktestJob> {
    return this.http.request("POST", this.org(`backtests/${seg(jobId)}/cancel/`), {
      operation: "cancelBacktest",
      schema: backtestJobSchema,
    });
  }
}
