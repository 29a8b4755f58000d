/**
 * @module service/local-backend
 * {@link Backend} over the service layer and a local store, bound to one organization. The HTTP server uses the same
 * service functions, so a command run locally and one run against `lotwise serve` give identical JSON. Bodies are
 * validated with the same contract schemas as at the HTTP boundary.
 */
import type {
  Account,
  AccountCreate,
  AccountLookup,
  AssetClass,
  AssetClassCreate,
  BacktestJob,
  BacktestRequest,
  Client,
  ClientCreate,
  ClientUpdate,
  IndustrySearchRequest,
  IndustrySearchResponse,
  PortfolioConfigCreate,
  PortfolioConfigRead,
  PortfolioConfigWrite,
  ProposalRequest,
  ProposalResponse,
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
  assetClassCreateSchema,
  backtestRequestSchema,
  clientCreateSchema,
  clientUpdateSchema,
  industrySearchRequestSchema,
  parseOrThrow,
  portfolioConfigCreateSchema,
  portfolioConfigWriteSchema,
  proposalRequestSchema,
  themeBacktestQuerySchema,
  themeMethodologySchema,
  themeRevisionSchema,
} from "../contract/index.js";
import { NotFoundError } from "../core/errors.js";
import { createAssetClass, listAssetClasses, readAssetClass } from "./asset-classes.js";
import type { Backend } from "./backend.js";
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
import {
  createPortfolioConfig,
  getPortfolioConfig,
  listPortfolioConfigs,
  updatePortfolioConfig,
} from "./portfolio-configs.js";
import { createProposal, getProposal } from "./proposals.js";
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

  whoAmI(): Promise<WhoAmI> {
    return this.run(() => ({
      organization_uuid: this.organizationUuid,
      organization_name: this.ctx.store.organizations.get(this.organizationUuid)!.name,
      api_key_id: "local",
    }));
  }

  createClient(body: ClientCreate): Promise<Client> {
    return this.run(() =>
      createClient(this.ctx, this.organizationUuid, parseOrThrow(clientCreateSchema, body)),
    );
  }
  listClients(): Promise<Client[]> {
    return this.run(() => listClients(this.ctx, this.organizationUuid));
  }
  getClient(clientUuid: string): Promise<Client> {
    return this.run(() => getClient(this.ctx, this.organizationUuid, clientUuid));
  }
  updateClient(clientUuid: string, body: ClientUpdate): Promise<Client> {
    return this.run(() =>
      updateClient(this.ctx, this.organizationUuid, clientUuid, parseOrThrow(clientUpdateSchema, body)),
    );
  }
  deleteClient(clientUuid: string): Promise<void> {
    return this.run(() => deleteClient(this.ctx, this.organizationUuid, clientUuid));
  }
  createAccount(clientUuid: string, body: AccountCreate): Promise<Account> {
    return this.run(() =>
      createAccount(this.ctx, this.organizationUuid, clientUuid, parseOrThrow(accountCreateSchema, body)),
    );
  }
  listAccounts(clientUuid: string): Promise<Account[]> {
    return this.run(() => listAccounts(this.ctx, this.organizationUuid, clientUuid));
  }
  getAccount(clientUuid: string, accountUuid: string): Promise<Account> {
    return this.run(() => getAccount(this.ctx, this.organizationUuid, clientUuid, accountUuid));
  }
  findAccount(accountUuid: string): Promise<AccountLookup> {
    return this.run(() => {
      const { clientUuid } = findAccount(this.ctx, this.organizationUuid, accountUuid);
      return {
        client_uuid: clientUuid,
        account: getAccount(this.ctx, this.organizationUuid, clientUuid, accountUuid),
      };
    });
  }

  listPortfolioConfigs(): Promise<PortfolioConfigRead[]> {
    return this.run(() => listPortfolioConfigs(this.ctx, this.organizationUuid));
  }
  getPortfolioConfig(configUuid: string): Promise<PortfolioConfigRead> {
    return this.run(() => getPortfolioConfig(this.ctx, this.organizationUuid, configUuid));
  }
  createPortfolioConfig(body: PortfolioConfigCreate): Promise<PortfolioConfigRead> {
    return this.run(() =>
      createPortfolioConfig(this.ctx, this.organizationUuid, parseOrThrow(portfolioConfigCreateSchema, body)),
    );
  }
  updatePortfolioConfig(configUuid: string, body: PortfolioConfigWrite): Promise<PortfolioConfigRead> {
    return this.run(() =>
      updatePortfolioConfig(
        this.ctx,
        this.organizationUuid,
        configUuid,
        parseOrThrow(portfolioConfigWriteSchema, body),
      ),
    );
  }

  createAssetClass(body: AssetClassCreate): Promise<AssetClass> {
    return this.run(() =>
      createAssetClass(this.ctx, this.organizationUuid, parseOrThrow(assetClassCreateSchema, body)),
    );
  }
  listAssetClasses(): Promise<AssetClass[]> {
    return this.run(() => listAssetClasses(this.ctx, this.organizationUuid));
  }
  getAssetClass(assetClassUuid: string): Promise<AssetClass> {
    return this.run(() => readAssetClass(this.ctx, this.organizationUuid, assetClassUuid));
  }

  resolveTickers(queries: readonly string[]): Promise<TickerResolveResponse> {
    return this.run(() => resolveTickerQueries(this.ctx.store, marketAsOf(this.ctx), queries));
  }

  createProposal(clientUuid: string, accountUuid: string, body: ProposalRequest): Promise<ProposalResponse> {
    return this.run(() =>
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
    return this.run(() =>
      getProposal(this.ctx, this.organizationUuid, clientUuid, accountUuid, proposalUuid),
    );
  }

  createTheme(body: ThemeMethodologyInput): Promise<Theme> {
    return this.run(() =>
      createTheme(this.ctx, this.organizationUuid, parseOrThrow(themeMethodologySchema, body)),
    );
  }
  listThemes(): Promise<Theme[]> {
    return this.run(() => listThemes(this.ctx, this.organizationUuid));
  }
  getTheme(themeUuid: string): Promise<Theme> {
    return this.run(() => getTheme(this.ctx, this.organizationUuid, themeUuid));
  }
  reviseTheme(themeUuid: string, body: ThemeRevision): Promise<Theme> {
    return this.run(() =>
      reviseTheme(this.ctx, this.organizationUuid, themeUuid, parseOrThrow(themeRevisionSchema, body)),
    );
  }
  evaluateTheme(themeUuid: string, body: ThemeEvaluateRequest = {}): Promise<ThemeConstituentSnapshot> {
    return this.run(() => evaluateTheme(this.ctx, this.organizationUuid, themeUuid, body));
  }
  getThemeConstituents(themeUuid: string): Promise<ThemeConstituentSnapshot> {
    return this.run(() => getThemeConstituents(this.ctx, this.organizationUuid, themeUuid));
  }
  backtestTheme(themeUuid: string, query: ThemeBacktestQuery = {}): Promise<ThemeBacktestResult> {
    return this.run(() =>
      backtestTheme(
        this.ctx,
        this.organizationUuid,
        themeUuid,
        parseOrThrow(themeBacktestQuerySchema, query),
      ),
    );
  }
  searchIndustries(body: IndustrySearchRequest): Promise<IndustrySearchResponse> {
    return this.run(() => searchIndustries(this.ctx, parseOrThrow(industrySearchRequestSchema, body)));
  }
  listUniversePresets(): Promise<UniversePresetsResponse> {
    return this.run(() => listUniversePresets(this.ctx));
  }

  // Backtests
  startBacktest(clientUuid: string, accountUuid: string, body: BacktestRequest): Promise<BacktestJob> {
    return this.run(() =>
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
    return this.run(() => listBacktests(this.ctx, this.organizationUuid, clientUuid, accountUuid));
  }
  getBacktest(jobId: string): Promise<BacktestJob> {
    return this.run(() => getBacktest(this.ctx, this.organizationUuid, jobId));
  }
  cancelBacktest(jobId: string): Promise<BacktestJob> {
    return this.run(() => cancelBacktest(this.ctx, this.organizationUuid, jobId));
  }
}
