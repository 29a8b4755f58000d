/**
 * @module service/local-backend
 * {@link Backend} over the service layer and a local store, bound to one organization. The HTTP server uses the same
 * service functions, so a command run locally and one run against `lotwise serve` give identical JSON. Bodies are
 * validated with the same contract schemas as at the HTTP boundary.
 */

import type * as z from "zod";
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
import {
  accountCreateSchema,
  accountDriftSchema,
  accountListSchema,
  accountLookupSchema,
  accountOptimizationSchema,
  accountRebalanceSchema,
  accountSchema,
  assetClassCreateSchema,
  assetClassListSchema,
  assetClassSchema,
  backtestJobListSchema,
  backtestJobSchema,
  backtestRequestSchema,
  clientCreateSchema,
  clientListSchema,
  clientSchema,
  clientUpdateSchema,
  driftQuerySchema,
  harvestQuerySchema,
  harvestScanSchema,
  industrySearchRequestSchema,
  industrySearchResponseSchema,
  lotImportQueryParams,
  lotImportQuerySchema,
  lotImportResultSchema,
  optimizeRequestSchema,
  parseOrThrow,
  portfolioConfigCreateSchema,
  portfolioConfigListSchema,
  portfolioConfigReadSchema,
  portfolioConfigWriteSchema,
  proposalRequestSchema,
  proposalResponseSchema,
  riskModelImportSchema,
  riskModelListSchema,
  riskModelSchema,
  type ScanRequest,
  type ScanResult,
  scanRequestSchema,
  scanResultSchema,
  themeBacktestQuerySchema,
  themeBacktestResultSchema,
  themeConstituentSnapshotSchema,
  themeListSchema,
  themeMethodologySchema,
  themeRevisionSchema,
  themeSchema,
  tickerResolveResponseSchema,
  universePresetsResponseSchema,
  whoAmISchema,
} from "../contract/index.js";
import { NotFoundError } from "../core/errors.js";
import { createAssetClass, listAssetClasses, readAssetClass } from "./asset-classes.js";
import type { Backend, ScanProgressOptions } from "./backend.js";
import { cancelBacktest, getBacktest, listBacktests, startBacktest } from "./backtest-jobs.js";
import { listUniversePresets, searchIndustries } from "./catalog.js";
import {
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
import { marketAsOf, type ServiceContext } from "./context.js";
import { accountDrift } from "./drift.js";
import { harvestScan } from "./harvest.js";
import { importLots, type LotCsvSource } from "./lots-import.js";
import { optimizeAccount, rebalanceAccount } from "./optimize.js";
import {
  createPortfolioConfig,
  getPortfolioConfig,
  listPortfolioConfigs,
  updatePortfolioConfig,
} from "./portfolio-configs.js";
import { createProposal, getProposal } from "./proposals.js";
import { deleteRiskModel, getRiskModel, importRiskModel, listRiskModels } from "./risk-models.js";
import { scanAccountsParallel } from "./scan-parallel.js";
import {
  backtestTheme,
  createTheme,
  evaluateTheme,
  getTheme,
  getThemeConstituents,
  listThemes,
  reviseTheme,
} from "./themes.js";
import { resolveTickerQueries } from "./tickers.js";

export class LocalBackend implements Backend {
  readonly kind = "local" as const;

  constructor(
    readonly ctx: ServiceContext,
    readonly organizationUuid: string,
  ) {
    if (!ctx.store.organizations.get(organizationUuid))
      throw new NotFoundError(
        `Organization ${organizationUuid} not found in ${ctx.store.path}.`,
        "organization_not_found",
      );
  }

  private run<T>(fn: () => T): Promise<T> {
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Run an operation and pass its answer through the contract's response schema, as the HTTP client does with the
   * server's: a local answer is validated and has the same key order as a remote one (identical JSON).
   */
  private reply<T>(schema: z.ZodType<T>, fn: () => T): Promise<T> {
    return this.run(() => {
      const result = schema.safeParse(fn());
      if (!result.success)
        throw new Error(`internal error: an answer does not match the contract: ${result.error.message}`);
      return result.data;
    });
  }

  whoAmI(): Promise<WhoAmI> {
    return this.reply(whoAmISchema, () => ({
      organization_uuid: this.organizationUuid,
      organization_name: this.ctx.store.organizations.get(this.organizationUuid)!.name,
      api_key_id: "local",
    }));
  }

  createClient(body: ClientCreate): Promise<Client> {
    return this.reply(clientSchema, () =>
      createClient(this.ctx, this.organizationUuid, parseOrThrow(clientCreateSchema, body)),
    );
  }
  listClients(): Promise<Client[]> {
    return this.reply(clientListSchema, () => listClients(this.ctx, this.organizationUuid));
  }
  getClient(clientUuid: string): Promise<Client> {
    return this.reply(clientSchema, () => getClient(this.ctx, this.organizationUuid, clientUuid));
  }
  updateClient(clientUuid: string, body: ClientUpdate): Promise<Client> {
    return this.reply(clientSchema, () =>
      updateClient(this.ctx, this.organizationUuid, clientUuid, parseOrThrow(clientUpdateSchema, body)),
    );
  }
  deleteClient(clientUuid: string): Promise<void> {
    return this.run(() => deleteClient(this.ctx, this.organizationUuid, clientUuid));
  }
  createAccount(clientUuid: string, body: AccountCreate): Promise<Account> {
    return this.reply(accountSchema, () =>
      createAccount(this.ctx, this.organizationUuid, clientUuid, parseOrThrow(accountCreateSchema, body)),
    );
  }
  listAccounts(clientUuid: string): Promise<Account[]> {
    return this.reply(accountListSchema, () => listAccounts(this.ctx, this.organizationUuid, clientUuid));
  }
  getAccount(clientUuid: string, accountUuid: string): Promise<Account> {
    return this.reply(accountSchema, () =>
      getAccount(this.ctx, this.organizationUuid, clientUuid, accountUuid),
    );
  }
  findAccount(accountUuid: string): Promise<AccountLookup> {
    return this.reply(accountLookupSchema, () => {
      const { clientUuid } = findAccount(this.ctx, this.organizationUuid, accountUuid);
      return {
        client_uuid: clientUuid,
        account: getAccount(this.ctx, this.organizationUuid, clientUuid, accountUuid),
      };
    });
  }

  listPortfolioConfigs(): Promise<PortfolioConfigRead[]> {
    return this.reply(portfolioConfigListSchema, () => listPortfolioConfigs(this.ctx, this.organizationUuid));
  }
  getPortfolioConfig(configUuid: string): Promise<PortfolioConfigRead> {
    return this.reply(portfolioConfigReadSchema, () =>
      getPortfolioConfig(this.ctx, this.organizationUuid, configUuid),
    );
  }
  createPortfolioConfig(body: PortfolioConfigCreate): Promise<PortfolioConfigRead> {
    return this.reply(portfolioConfigReadSchema, () =>
      createPortfolioConfig(this.ctx, this.organizationUuid, parseOrThrow(portfolioConfigCreateSchema, body)),
    );
  }
  updatePortfolioConfig(configUuid: string, body: PortfolioConfigWrite): Promise<PortfolioConfigRead> {
    return this.reply(portfolioConfigReadSchema, () =>
      updatePortfolioConfig(
        this.ctx,
        this.organizationUuid,
        configUuid,
        parseOrThrow(portfolioConfigWriteSchema, body),
      ),
    );
  }

  createAssetClass(body: AssetClassCreate): Promise<AssetClass> {
    return this.reply(assetClassSchema, () =>
      createAssetClass(this.ctx, this.organizationUuid, parseOrThrow(assetClassCreateSchema, body)),
    );
  }
  listAssetClasses(): Promise<AssetClass[]> {
    return this.reply(assetClassListSchema, () => listAssetClasses(this.ctx, this.organizationUuid));
  }
  getAssetClass(assetClassUuid: string): Promise<AssetClass> {
    return this.reply(assetClassSchema, () =>
      readAssetClass(this.ctx, this.organizationUuid, assetClassUuid),
    );
  }

  async importLots(
    accountUuid: string,
    csv: LotCsvSource,
    query: LotImportQuery = {},
  ): Promise<LotImportResult> {
    const parsed = parseOrThrow(lotImportQuerySchema, lotImportQueryParams(query), "query");
    const result = await importLots(this.ctx, this.organizationUuid, accountUuid, csv, parsed);
    return this.reply(lotImportResultSchema, () => result);
  }

  resolveTickers(queries: readonly string[]): Promise<TickerResolveResponse> {
    return this.reply(tickerResolveResponseSchema, () =>
      resolveTickerQueries(this.ctx.store, marketAsOf(this.ctx), queries),
    );
  }

  createProposal(clientUuid: string, accountUuid: string, body: ProposalRequest): Promise<ProposalResponse> {
    return this.reply(proposalResponseSchema, () =>
      createProposal(
        this.ctx,
        this.organizationUuid,
        clientUuid,
        accountUuid,
        parseOrThrow(proposalRequestSchema, body),
      ),
    );
  }
  getProposal(clientUuid: string, accountUuid: string, proposalUuid: string): Promise<ProposalResponse> {
    return this.reply(proposalResponseSchema, () =>
      getProposal(this.ctx, this.organizationUuid, clientUuid, accountUuid, proposalUuid),
    );
  }

  optimizeAccount(
    clientUuid: string,
    accountUuid: string,
    body: OptimizeRequest = {},
  ): Promise<AccountOptimization> {
    return this.reply(accountOptimizationSchema, () => {
      const b = parseOrThrow(optimizeRequestSchema, body, "request body");
      return optimizeAccount(this.ctx, this.organizationUuid, accountUuid, {
        clientUuid,
        asOf: b.as_of_date,
      });
    });
  }
  accountDrift(clientUuid: string, accountUuid: string, query: DriftQuery = {}): Promise<AccountDrift> {
    return this.reply(accountDriftSchema, () => {
      const q = parseOrThrow(driftQuerySchema, query, "query");
      return accountDrift(this.ctx, this.organizationUuid, accountUuid, { clientUuid, asOf: q.as_of_date });
    });
  }
  async scanAccounts(request: ScanRequest = {}, options: ScanProgressOptions = {}): Promise<ScanResult> {
    const { as_of_date, min_loss_usd, min_loss_fraction, offset, limit, ...selection } = parseOrThrow(
      scanRequestSchema,
      request,
      "body",
    );
    const result = await scanAccountsParallel(this.ctx, this.organizationUuid, selection, {
      asOf: as_of_date,
      minLossUsd: min_loss_usd,
      minLossFraction: min_loss_fraction,
      offset,
      limit,
      onProgress: options.onProgress,
      concurrency: options.concurrency,
    });
    return scanResultSchema.parse(result);
  }
  harvestScan(clientUuid: string, accountUuid: string, query: HarvestQuery = {}): Promise<HarvestScan> {
    return this.reply(harvestScanSchema, () => {
      const q = parseOrThrow(harvestQuerySchema, query, "query");
      return harvestScan(this.ctx, this.organizationUuid, accountUuid, {
        clientUuid,
        asOf: q.as_of_date,
        minLossUsd: q.min_loss_usd,
        minLossFraction: q.min_loss_fraction,
      });
    });
  }
  rebalanceAccount(
    clientUuid: string,
    accountUuid: string,
    body: OptimizeRequest = {},
  ): Promise<AccountRebalance> {
    return this.reply(accountRebalanceSchema, () => {
      const b = parseOrThrow(optimizeRequestSchema, body, "request body");
      return rebalanceAccount(this.ctx, this.organizationUuid, accountUuid, {
        clientUuid,
        asOf: b.as_of_date,
      });
    });
  }

  importRiskModel(body: RiskModelImport): Promise<RiskModel> {
    return this.reply(riskModelSchema, () =>
      importRiskModel(
        this.ctx,
        this.organizationUuid,
        parseOrThrow(riskModelImportSchema, body, "request body"),
      ),
    );
  }
  listRiskModels(): Promise<RiskModelSummary[]> {
    return this.reply(riskModelListSchema, () => listRiskModels(this.ctx, this.organizationUuid));
  }
  getRiskModel(riskModelUuid: string): Promise<RiskModel> {
    return this.reply(riskModelSchema, () => getRiskModel(this.ctx, this.organizationUuid, riskModelUuid));
  }
  deleteRiskModel(riskModelUuid: string): Promise<void> {
    return this.run(() => deleteRiskModel(this.ctx, this.organizationUuid, riskModelUuid));
  }

  createTheme(body: ThemeMethodologyInput): Promise<Theme> {
    return this.reply(themeSchema, () =>
      createTheme(this.ctx, this.organizationUuid, parseOrThrow(themeMethodologySchema, body)),
    );
  }
  listThemes(): Promise<Theme[]> {
    return this.reply(themeListSchema, () => listThemes(this.ctx, this.organizationUuid));
  }
  getTheme(themeUuid: string): Promise<Theme> {
    return this.reply(themeSchema, () => getTheme(this.ctx, this.organizationUuid, themeUuid));
  }
  reviseTheme(themeUuid: string, body: ThemeRevision): Promise<Theme> {
    return this.reply(themeSchema, () =>
      reviseTheme(this.ctx, this.organizationUuid, themeUuid, parseOrThrow(themeRevisionSchema, body)),
    );
  }
  evaluateTheme(themeUuid: string, body: ThemeEvaluateRequest = {}): Promise<ThemeConstituentSnapshot> {
    return this.reply(themeConstituentSnapshotSchema, () =>
      evaluateTheme(this.ctx, this.organizationUuid, themeUuid, body),
    );
  }
  getThemeConstituents(themeUuid: string): Promise<ThemeConstituentSnapshot> {
    return this.reply(themeConstituentSnapshotSchema, () =>
      getThemeConstituents(this.ctx, this.organizationUuid, themeUuid),
    );
  }
  backtestTheme(themeUuid: string, query: ThemeBacktestQuery = {}): Promise<ThemeBacktestResult> {
    return this.reply(themeBacktestResultSchema, () =>
      backtestTheme(
        this.ctx,
        this.organizationUuid,
        themeUuid,
        parseOrThrow(themeBacktestQuerySchema, query),
      ),
    );
  }
  searchIndustries(body: IndustrySearchRequest): Promise<IndustrySearchResponse> {
    return this.reply(industrySearchResponseSchema, () =>
      searchIndustries(this.ctx, parseOrThrow(industrySearchRequestSchema, body)),
    );
  }
  listUniversePresets(): Promise<UniversePresetsResponse> {
    return this.reply(universePresetsResponseSchema, () => listUniversePresets(this.ctx));
  }

  // Backtests
  startBacktest(clientUuid: string, accountUuid: string, body: BacktestRequest): Promise<BacktestJob> {
    return this.reply(backtestJobSchema, () =>
      startBacktest(
        this.ctx,
        this.organizationUuid,
        clientUuid,
        accountUuid,
        parseOrThrow(backtestRequestSchema, body, "backtest request"),
      ),
    );
  }
  listBacktests(clientUuid: string, accountUuid: string): Promise<BacktestJob[]> {
    return this.reply(backtestJobListSchema, () =>
      listBacktests(this.ctx, this.organizationUuid, clientUuid, accountUuid),
    );
  }
  getBacktest(jobId: string): Promise<BacktestJob> {
    return this.reply(backtestJobSchema, () => getBacktest(this.ctx, this.organizationUuid, jobId));
  }
  cancelBacktest(jobId: string): Promise<BacktestJob> {
    return this.reply(backtestJobSchema, () => cancelBacktest(this.ctx, this.organizationUuid, jobId));
  }
}
