/**
 * @module service/operations
 * THE operation table: every operation of lotwise declared once (see service/operation.ts for the fields). The
 * HTTP routes and the OpenAPI document (src/server/routes.ts, openapi.ts), LocalBackend (local-backend.ts),
 * RemoteBackend (src/client/remote-backend.ts), the Backend type (backend.ts) and the operation and error tables of
 * docs/http.md are all derived from it: adding an operation is adding one entry here (docs/architecture.md, "How to
 * add an operation"). Entries are in documentation order. Paths are written exactly as in the spec:
 * organization-scoped paths end with a slash, design-preview paths (`/api/v1/...`) do not.
 */
import {
  accountCreateSchema,
  accountDriftSchema,
  accountEvaluationSchema,
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
  backtestRequestFromForm,
  backtestRequestSchema,
  clientCreateSchema,
  clientListSchema,
  clientSchema,
  clientUpdateSchema,
  corporateActionApplyRequestSchema,
  corporateActionApplyResultSchema,
  corporateActionListQuerySchema,
  corporateActionListSchema,
  driftQuerySchema,
  evaluationQuerySchema,
  executionListQuerySchema,
  executionListSchema,
  executionResultSchema,
  harvestQuerySchema,
  harvestScanSchema,
  holdingsAsOfQuerySchema,
  holdingsAsOfSchema,
  industrySearchRequestSchema,
  industrySearchResponseSchema,
  lotImportQuerySchema,
  lotImportResultSchema,
  optimizeRequestSchema,
  portfolioConfigCreateSchema,
  portfolioConfigListSchema,
  portfolioConfigReadSchema,
  portfolioConfigWriteSchema,
  proposalExecutionRequestSchema,
  proposalRequestSchema,
  proposalResponseSchema,
  REBALANCE_RUN_QUEUE_SHARDS,
  realizedLedgerSchema,
  realizedQuerySchema,
  rebalanceRequestSchema,
  rebalanceRunListQuerySchema,
  rebalanceRunListSchema,
  rebalanceRunRequestSchema,
  rebalanceRunSchema,
  riskModelImportSchema,
  riskModelListSchema,
  riskModelSchema,
  SCAN_JOB_THRESHOLD,
  SCAN_PAGE_MAX,
  scanJobRequestSchema,
  scanJobSchema,
  scanRequestSchema,
  scanResultSchema,
  themeBacktestQuerySchema,
  themeBacktestResultSchema,
  themeConstituentSnapshotSchema,
  themeEvaluateRequestSchema,
  themeListSchema,
  themeMethodologySchema,
  themeRevisionSchema,
  themeSchema,
  tickerResolveRequestSchema,
  tickerResolveResponseSchema,
  tradeImportQuerySchema,
  tradesRequestSchema,
  universePresetsResponseSchema,
  whoAmISchema,
} from "../contract/index.js";
import { marketAsOf } from "./context.js";
import { lazyFunction } from "./lazy.js";
import { type AnyOperation, defineOperation, JsonText } from "./operation.js";

// The service modules load on the first call of one of their operations: a command or request that lists clients
// does not load the optimizer, the backtest engine or the theme evaluator (issue 17, start-up).
const assetClassesModule = () => import("./asset-classes.js");
const createAssetClass = lazyFunction(assetClassesModule, "createAssetClass");
const listAssetClasses = lazyFunction(assetClassesModule, "listAssetClasses");
const readAssetClass = lazyFunction(assetClassesModule, "readAssetClass");
const backtestJobsModule = () => import("./backtest-jobs.js");
const cancelBacktest = lazyFunction(backtestJobsModule, "cancelBacktest");
const getBacktest = lazyFunction(backtestJobsModule, "getBacktest");
const listBacktests = lazyFunction(backtestJobsModule, "listBacktests");
const startBacktest = lazyFunction(backtestJobsModule, "startBacktest");
const catalogModule = () => import("./catalog.js");
const listUniversePresets = lazyFunction(catalogModule, "listUniversePresets");
const searchIndustries = lazyFunction(catalogModule, "searchIndustries");
const clientsModule = () => import("./clients.js");
const createAccount = lazyFunction(clientsModule, "createAccount");
const createClient = lazyFunction(clientsModule, "createClient");
const deleteClient = lazyFunction(clientsModule, "deleteClient");
const findAccount = lazyFunction(clientsModule, "findAccount");
const getAccount = lazyFunction(clientsModule, "getAccount");
const getClient = lazyFunction(clientsModule, "getClient");
const listAccounts = lazyFunction(clientsModule, "listAccounts");
const listClients = lazyFunction(clientsModule, "listClients");
const updateClient = lazyFunction(clientsModule, "updateClient");
const corporateActionsModule = () => import("./corporate-actions.js");
const applyStoredCorporateActions = lazyFunction(corporateActionsModule, "applyStoredCorporateActions");
const listCorporateActions = lazyFunction(corporateActionsModule, "listCorporateActions");
const driftModule = () => import("./drift.js");
const accountDrift = lazyFunction(driftModule, "accountDrift");
const evaluationModule = () => import("./evaluation.js");
const evaluateAccountRules = lazyFunction(evaluationModule, "evaluateAccountRules");
const harvestModule = () => import("./harvest.js");
const harvestScan = lazyFunction(harvestModule, "harvestScan");
const holdingsHistoryModule = () => import("./holdings-history.js");
const accountHoldingsAsOf = lazyFunction(holdingsHistoryModule, "accountHoldingsAsOf");
const ledgerModule = () => import("./ledger.js");
const accountRealized = lazyFunction(ledgerModule, "accountRealized");
const clientRealized = lazyFunction(ledgerModule, "clientRealized");
const executeProposal = lazyFunction(ledgerModule, "executeProposal");
const listExecutions = lazyFunction(ledgerModule, "listExecutions");
const recordTrades = lazyFunction(ledgerModule, "recordTrades");
const ledgerTradesCsvModule = () => import("./ledger-trades-csv.js");
const importTrades = lazyFunction(ledgerTradesCsvModule, "importTrades");
const lotsImportModule = () => import("./lots-import.js");
const importLots = lazyFunction(lotsImportModule, "importLots");
const optimizeModule = () => import("./optimize.js");
const optimizeAccount = lazyFunction(optimizeModule, "optimizeAccount");
const rebalanceAccount = lazyFunction(optimizeModule, "rebalanceAccount");
const portfolioConfigsModule = () => import("./portfolio-configs.js");
const createPortfolioConfig = lazyFunction(portfolioConfigsModule, "createPortfolioConfig");
const getPortfolioConfig = lazyFunction(portfolioConfigsModule, "getPortfolioConfig");
const listPortfolioConfigs = lazyFunction(portfolioConfigsModule, "listPortfolioConfigs");
const updatePortfolioConfig = lazyFunction(portfolioConfigsModule, "updatePortfolioConfig");
const proposalsModule = () => import("./proposals.js");
const createProposalJson = lazyFunction(proposalsModule, "createProposalJson");
const getProposal = lazyFunction(proposalsModule, "getProposal");
const rebalanceRunJobsModule = () => import("./rebalance-run-jobs.js");
const queueRebalanceRun = lazyFunction(rebalanceRunJobsModule, "queueRebalanceRun");
const rebalanceRunsModule = () => import("./rebalance-runs.js");
const getRebalanceRun = lazyFunction(rebalanceRunsModule, "getRebalanceRun");
const listRebalanceRuns = lazyFunction(rebalanceRunsModule, "listRebalanceRuns");
const runRebalance = lazyFunction(rebalanceRunsModule, "runRebalance");
const riskModelCsvModule = () => import("./risk-model-csv.js");
const riskModelsModule = () => import("./risk-models.js");
const deleteRiskModel = lazyFunction(riskModelsModule, "deleteRiskModel");
const getRiskModel = lazyFunction(riskModelsModule, "getRiskModel");
const importRiskModel = lazyFunction(riskModelsModule, "importRiskModel");
const listRiskModels = lazyFunction(riskModelsModule, "listRiskModels");
const scanModule = () => import("./scan.js");
const scanAccounts = lazyFunction(scanModule, "scanAccounts");
const scanJobsModule = () => import("./scan-jobs.js");
const cancelScanJob = lazyFunction(scanJobsModule, "cancelScanJob");
const getScanJob = lazyFunction(scanJobsModule, "getScanJob");
const startScanJob = lazyFunction(scanJobsModule, "startScanJob");
const themesModule = () => import("./themes.js");
const backtestTheme = lazyFunction(themesModule, "backtestTheme");
const createTheme = lazyFunction(themesModule, "createTheme");
const evaluateTheme = lazyFunction(themesModule, "evaluateTheme");
const getTheme = lazyFunction(themesModule, "getTheme");
const getThemeConstituents = lazyFunction(themesModule, "getThemeConstituents");
const listThemes = lazyFunction(themesModule, "listThemes");
const reviseTheme = lazyFunction(themesModule, "reviseTheme");
const tickersModule = () => import("./tickers.js");
const weightsFileModule = () => import("./weights-file.js");
const resolveTickerQueries = lazyFunction(tickersModule, "resolveTickerQueries");

/**
 * Body limit of a risk-model upload. Server memory grows with the numbers uploaded (about 300 bytes per exposure
 * while the upload is parsed, validated and built: bench/risk-upload-memory.bench.ts), and the compact nested layout
 * packs about 3 times more exposures per MiB than rows: 16 MiB holds a vendor model of 5,000 assets x 100 factors
 * (factor names of a dozen characters, 6-decimal exposures) in the nested layout the CLI sends. Peak server memory
 * for a full 16 MiB: about 110 MiB in rows, 275 MiB nested; under the former 64 MiB limit, nested took about 1 GiB.
 */
export const RISK_MODEL_MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Limit of a streamed lots CSV: about 4 million lots (the file is never held whole; staging is on disk). */
export const LOTS_CSV_MAX_BODY_BYTES = 256 * 1024 * 1024;
/** Limit of a lots CSV sent as a multipart form: the form is buffered to be parsed. */
export const LOTS_CSV_MULTIPART_MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * Accounts one `POST .../rebalance_runs/` request processes at most (a request runs synchronously on a request
 * worker; at ~50 accounts/s that is a few seconds): a larger run answers `running` and the same request continues it
 * (the remote CLI loops). `max_accounts` in the body can lower it.
 */
export const REBALANCE_RUN_ACCOUNTS_PER_REQUEST = 200;
/** Time limit of a lots upload by the client: a file of a million lots is tens of MB. */
export const LOTS_UPLOAD_TIMEOUT_MS = 15 * 60_000;

/** Prefix of the organization-scoped path family. */
export const ORG_PREFIX = "/api/v1/custom/org/{organization_uuid}";
const ACCOUNT = `${ORG_PREFIX}/clients/{client_uuid}/accounts/{account_uuid}`;

const TAGS = {
  me: "Identity",
  clients: "Clients and accounts",
  configs: "Portfolio configurations",
  assetClasses: "Asset classes",
  proposals: "Rebalance proposals",
  riskModels: "Risk models",
  securities: "Securities",
  themes: "Themes (design preview)",
  catalog: "Catalog (design preview)",
  backtests: "Backtests",
  ledger: "Account ledger",
} as const;

/** Every operation of the service, by Backend method name, in documentation order. */
export const OPERATIONS = {
  whoAmI: defineOperation({
    method: "GET",
    path: "/api/v1/me",
    tag: TAGS.me,
    summary: "The organization of the presented API key",
    description:
      "Extension. Answers which organization (and which key id) the X-Api-Key belongs to; remote clients use it to learn the organization uuid of their key.",
    response: { status: 200, schema: whoAmISchema, description: "The key's organization." },
    errors: [],
    run: async ({ ctx, org, keyId }) => ({
      organization_uuid: org,
      organization_name: (await ctx.store.organizations.get(org))?.name ?? "",
      api_key_id: keyId,
    }),
  }),

  // Clients and accounts
  createClient: defineOperation({
    method: "POST",
    path: `${ORG_PREFIX}/clients/`,
    tag: TAGS.clients,
    summary: "Create a client",
    description: "Extension. Creates a client without accounts.",
    body: { schema: clientCreateSchema },
    response: { status: 201, schema: clientSchema, description: "The new client." },
    errors: [],
    run: ({ ctx, org, body }) => createClient(ctx, org, body),
  }),
  listClients: defineOperation({
    method: "GET",
    path: `${ORG_PREFIX}/clients/`,
    tag: TAGS.clients,
    summary: "List clients",
    description: "Extension. Every client of the organization with its accounts, oldest first.",
    cache: true,
    response: { status: 200, schema: clientListSchema, description: "The clients." },
    errors: [],
    run: ({ ctx, org }) => listClients(ctx, org),
  }),
  getClient: defineOperation({
    method: "GET",
    path: `${ORG_PREFIX}/clients/{uuid}/`,
    tag: TAGS.clients,
    summary: "Get a client",
    description: "Extension. One client with its accounts in the read shape.",
    cache: true,
    response: { status: 200, schema: clientSchema, description: "The client." },
    errors: ["client_not_found"],
    run: ({ ctx, org, params }) => getClient(ctx, org, params.uuid),
  }),
  updateClient: defineOperation({
    method: "PATCH",
    path: `${ORG_PREFIX}/clients/{uuid}/`,
    tag: TAGS.clients,
    specEndpoint: 6,
    summary: "Update a client",
    description:
      "Endpoint 6. Absent fields keep their values; provided lists (holdings.tax_lots, asset_class_settings) replace the stored ones. Account-level fields apply to `account_uuid` (extension) or to the client's first account. An archived asset class cannot be newly assigned, but an existing assignment survives. All or nothing.",
    body: { schema: clientUpdateSchema },
    response: { status: 200, schema: clientSchema, description: "The updated client." },
    errors: ["client_not_found", "account_not_found", "conflict"],
    run: ({ ctx, org, params, body }) => updateClient(ctx, org, params.uuid, body),
  }),
  deleteClient: defineOperation({
    method: "DELETE",
    path: `${ORG_PREFIX}/clients/{uuid}/`,
    tag: TAGS.clients,
    summary: "Delete a client",
    description: "Extension. Deletes the client, its accounts and their lots.",
    response: { status: 204, description: "Deleted; no body." },
    errors: ["client_not_found"],
    run: ({ ctx, org, params }) => deleteClient(ctx, org, params.uuid),
  }),
  createAccount: defineOperation({
    method: "POST",
    path: `${ORG_PREFIX}/clients/{client_uuid}/accounts/`,
    tag: TAGS.clients,
    summary: "Create an account",
    description:
      "Extension. Creates an account of the client, optionally with cash, tax lots and a configuration.",
    body: { schema: accountCreateSchema },
    response: { status: 201, schema: accountSchema, description: "The new account." },
    errors: ["client_not_found"],
    run: ({ ctx, org, params, body }) => createAccount(ctx, org, params.client_uuid, body),
  }),
  listAccounts: defineOperation({
    method: "GET",
    path: `${ORG_PREFIX}/clients/{client_uuid}/accounts/`,
    tag: TAGS.clients,
    summary: "List the accounts of a client",
    description: "Extension.",
    cache: true,
    response: { status: 200, schema: accountListSchema, description: "The client's accounts." },
    errors: ["client_not_found"],
    run: ({ ctx, org, params }) => listAccounts(ctx, org, params.client_uuid),
  }),
  getAccount: defineOperation({
    method: "GET",
    path: `${ORG_PREFIX}/clients/{client_uuid}/accounts/{account_uuid}/`,
    tag: TAGS.clients,
    summary: "Get an account",
    description: "Extension. The account with valued positions and unrealized gains.",
    cache: true,
    response: { status: 200, schema: accountSchema, description: "The account." },
    errors: ["client_not_found", "account_not_found"],
    run: ({ ctx, org, params }) => getAccount(ctx, org, params.client_uuid, params.account_uuid),
  }),
  findAccount: defineOperation({
    method: "GET",
    path: `${ORG_PREFIX}/accounts/{account_uuid}/`,
    tag: TAGS.clients,
    summary: "Find an account by its uuid alone",
    description: "Extension. The account and the uuid of the client it belongs to.",
    cache: true,
    response: { status: 200, schema: accountLookupSchema, description: "The account and its client." },
    errors: ["account_not_found"],
    run: async ({ ctx, org, params }) => {
      const { clientUuid } = await findAccount(ctx, org, params.account_uuid);
      return {
        client_uuid: clientUuid,
        account: await getAccount(ctx, org, clientUuid, params.account_uuid),
      };
    },
  }),

  importLots: defineOperation({
    method: "POST",
    path: `${ORG_PREFIX}/accounts/{account_uuid}/tax_lots/import/`,
    tag: TAGS.clients,
    summary: "Import tax lots from a CSV file",
    description:
      "Extension. Reads a broker export of tax lots (columns recognized by name or mapped with map_FIELD=HEADER) as a stream and imports it into the account as ONE transaction: every row is checked, errors name the line and column, and a file with any bad row changes nothing. mode=replace (default) replaces the account's lots; mode=append adds after the lots the account holds when the import commits (concurrent appends all land). dry_run=true checks and summarizes only. The answer is a summary (totals per asset, the first 20 lots); include_lots=true adds every lot.",
    query: lotImportQuerySchema,
    upload: {
      maxBytes: LOTS_CSV_MAX_BODY_BYTES,
      multipartMaxBytes: LOTS_CSV_MULTIPART_MAX_BODY_BYTES,
      description: "The lots CSV (UTF-8).",
      contentType: "text/csv; charset=utf-8",
      clientTimeoutMs: LOTS_UPLOAD_TIMEOUT_MS,
    },
    response: { status: 200, schema: lotImportResultSchema, description: "The import's summary." },
    errors: ["account_not_found", "invalid_lots_file"],
    run: ({ ctx, org, params, query, upload }) => importLots(ctx, org, params.account_uuid, upload, query),
  }),

  // Portfolio configurations
  listPortfolioConfigs: defineOperation({
    method: "GET",
    path: `${ORG_PREFIX}/portfolio_configs/`,
    tag: TAGS.configs,
    specEndpoint: 3,
    summary: "List portfolio configurations",
    description: "Endpoint 3. Every configuration of the organization in the read shape, oldest first.",
    cache: true,
    response: { status: 200, schema: portfolioConfigListSchema, description: "The configurations." },
    errors: [],
    run: ({ ctx, org }) => listPortfolioConfigs(ctx, org),
  }),
  createPortfolioConfig: defineOperation({
    method: "POST",
    path: `${ORG_PREFIX}/portfolio_configs/`,
    tag: TAGS.configs,
    summary: "Create a portfolio configuration",
    description: "Extension. The write shape with `name` required; status defaults to draft.",
    body: { schema: portfolioConfigCreateSchema },
    response: { status: 201, schema: portfolioConfigReadSchema, description: "The new configuration." },
    errors: ["conflict"],
    run: ({ ctx, org, body }) => createPortfolioConfig(ctx, org, body),
  }),
  getPortfolioConfig: defineOperation({
    method: "GET",
    path: `${ORG_PREFIX}/portfolio_configs/{config_uuid}/`,
    tag: TAGS.configs,
    summary: "Get a portfolio configuration",
    description: "Extension.",
    cache: true,
    response: { status: 200, schema: portfolioConfigReadSchema, description: "The configuration." },
    errors: ["portfolio_config_not_found"],
    run: ({ ctx, org, params }) => getPortfolioConfig(ctx, org, params.config_uuid),
  }),
  updatePortfolioConfig: defineOperation({
    method: "PATCH",
    path: `${ORG_PREFIX}/portfolio_configs/{config_uuid}/`,
    tag: TAGS.configs,
    specEndpoint: 4,
    summary: "Update a portfolio configuration",
    description:
      "Endpoint 4. Absent fields keep their values, null resets a scalar, provided lists (no_hold_tickers, no_trade_tickers, target_ticker_weights, asset_allocations, dynamic_rules, ...) replace the stored lists, tax_preferences merge field by field. Every theme_asset_id must be in the security master; unknown ones are named in the error details.",
    body: { schema: portfolioConfigWriteSchema },
    response: { status: 200, schema: portfolioConfigReadSchema, description: "The updated configuration." },
    errors: ["portfolio_config_not_found", "conflict"],
    run: ({ ctx, org, params, body }) => updatePortfolioConfig(ctx, org, params.config_uuid, body),
  }),

  // Asset classes
  createAssetClass: defineOperation({
    method: "POST",
    path: `${ORG_PREFIX}/asset_classes/`,
    tag: TAGS.assetClasses,
    summary: "Create an asset class",
    description:
      "Extension. A simple sleeve names what it invests in; a composite one lists child allocations.",
    body: { schema: assetClassCreateSchema },
    response: { status: 201, schema: assetClassSchema, description: "The new asset class." },
    errors: ["conflict"],
    run: ({ ctx, org, body }) => createAssetClass(ctx, org, body),
  }),
  listAssetClasses: defineOperation({
    method: "GET",
    path: `${ORG_PREFIX}/asset_classes/`,
    tag: TAGS.assetClasses,
    summary: "List asset classes",
    description: "Extension. Asset classes that are not archived, oldest first.",
    cache: true,
    response: { status: 200, schema: assetClassListSchema, description: "The asset classes." },
    errors: [],
    run: ({ ctx, org }) => listAssetClasses(ctx, org),
  }),
  getAssetClass: defineOperation({
    method: "GET",
    path: `${ORG_PREFIX}/asset_classes/{asset_class_uuid}/`,
    tag: TAGS.assetClasses,
    specEndpoint: 5,
    summary: "Get an asset class",
    description: "Endpoint 5. Archived asset classes stay readable.",
    cache: true,
    response: { status: 200, schema: assetClassSchema, description: "The asset class." },
    errors: ["asset_class_not_found", "conflict"],
    run: ({ ctx, org, params }) => readAssetClass(ctx, org, params.asset_class_uuid),
  }),

  // Rebalance proposals
  createProposal: defineOperation({
    method: "POST",
    path: `${ORG_PREFIX}/clients/{client_uuid}/accounts/{account_uuid}/proposal/`,
    rateLimited: true,
    heavy: "write",
    tag: TAGS.proposals,
    specEndpoint: 1,
    summary: "Create a rebalance proposal",
    description:
      "Endpoint 1. Turns optimized target weights into orders: sells list the tax lots they consume (tax-optimal order, wash-sale aware) with basis and gain; buys are notional USD unless whole shares apply; non-USD orders carry an FX cost breakdown. Tickers may be theme_asset_ids or plain symbols; unknown, ambiguous or duplicated ones are named in the error details. Accepts JSON, form-urlencoded and multipart bodies (form arrays in bracket notation: optimized_weights[0][ticker]=AAPL&optimized_weights[0][weight]=0.5). Extension: a multipart body may instead carry the weights as a file part named `weights` (CSV ticker,weight with fractions or percents, or JSON), read as `lotwise proposal --weights-file` reads it; its errors name the file and line. The proposal is stored (read it back with the GET extension).",
    body: {
      schema: proposalRequestSchema,
      accept: ["json", "form", "multipart"],
      files: {
        weights:
          "extension: the target weights as a file instead of optimized_weights fields: CSV ticker,weight (weights as fractions or with %) or JSON, read as `lotwise proposal --weights-file` reads it",
      },
      fromForm: async (value, files) =>
        files.weights
          ? (await weightsFileModule()).proposalRequestWithWeightsFile(
              value as Record<string, unknown>,
              files.weights,
            )
          : value,
    },
    response: { status: 200, schema: proposalResponseSchema, description: "The proposal." },
    // The stored JSON text is the reply: a response of hundreds of KiB is serialized once.
    errors: [
      "invalid_tickers",
      "client_not_found",
      "account_not_found",
      "missing_price",
      "missing_fx_rate",
      "insufficient_lots",
      "tax_lot_error",
      "invalid_cron",
    ],
    run: async ({ ctx, org, params, body }) => {
      const { response, json } = await createProposalJson(
        ctx,
        org,
        params.client_uuid,
        params.account_uuid,
        body,
      );
      return new JsonText(response, json);
    },
  }),
  getProposal: defineOperation({
    method: "GET",
    path: `${ORG_PREFIX}/clients/{client_uuid}/accounts/{account_uuid}/proposals/{proposal_uuid}/`,
    tag: TAGS.proposals,
    summary: "Get a stored proposal",
    description: "Extension. The proposal exactly as it was returned at creation.",
    cache: true,
    response: { status: 200, schema: proposalResponseSchema, description: "The proposal." },
    errors: ["client_not_found", "account_not_found", "proposal_not_found"],
    run: ({ ctx, org, params }) =>
      getProposal(ctx, org, params.client_uuid, params.account_uuid, params.proposal_uuid),
  }),

  // Optimizer (extensions; service/optimize.ts, docs/optimize-service.md)
  optimizeAccount: defineOperation({
    method: "POST",
    path: `${ORG_PREFIX}/clients/{client_uuid}/accounts/{account_uuid}/optimize/`,
    rateLimited: true,
    heavy: true,
    tag: TAGS.proposals,
    summary: "Optimize an account",
    description:
      "Extension. Runs the tax-aware optimizer on the account as of `as_of_date` (default: the market's latest date): universe = benchmark constituents, holdings and tickers the effective configuration names; prices = last closes on or before the date in USD; benchmark = the configuration's asset allocations with their tilts (docs/targets.md), else the asset-class benchmarks, else SYNTH500/SP500; risk model = risk_model_name (default pca): pca and characteristics are estimated from the trailing year of returns, custom and vendor are the organization's newest uploaded model of that kind dated on or before the date (`uploaded_risk_model` names it; assets it does not cover are imputed from their sector, with a warning). Answers target weights, trades, lots to sell, risk, tax and costs. An infeasible configuration answers 200 with status `infeasible` and a `diagnosis`. Nothing is stored. Errors: validation_error (400), client_not_found / account_not_found (404), empty_account (an account worth nothing) / missing_price / risk_model_inputs_missing (no uploaded model of the kind dated on or before the date) / theme_not_evaluated / tilt_without_weights / invalid_tilt (a tilt that cannot be applied: docs/targets.md) (422); a custom/vendor model covering none of the universe is a validation_error (400).",
    body: { schema: optimizeRequestSchema },
    response: { status: 200, schema: accountOptimizationSchema, description: "The optimization." },
    errors: [
      "client_not_found",
      "account_not_found",
      "empty_account",
      "missing_price",
      "missing_fx",
      "insufficient_history",
      "risk_model_inputs_missing",
      "solver_error",
      "invalid_cron",
      "theme_not_evaluated",
      "tilt_without_weights",
      "invalid_tilt",
    ],
    run: ({ ctx, org, params, body }) =>
      optimizeAccount(ctx, org, params.account_uuid, {
        clientUuid: params.client_uuid,
        asOf: body.as_of_date,
      }),
  }),
  accountDrift: defineOperation({
    method: "GET",
    path: `${ORG_PREFIX}/clients/{client_uuid}/accounts/{account_uuid}/drift/`,
    tag: TAGS.proposals,
    summary: "Drift of an account from its target",
    description:
      "Extension. The account's weights on `as_of_date` (default: the market's latest date) against the target the optimizer uses (the effective configuration's asset allocations with their tilts, else the asset-class benchmarks, else SYNTH500/SP500; docs/targets.md): per-asset drift (current - target), total drift (half the sum of |current - target| over assets and cash) and the status from drift_warning_threshold, drift_breach_threshold and asset_drift_breach_threshold (docs/drift.md). Errors: validation_error (400: a date after the last market date), client_not_found / account_not_found (404), no_target / empty_account / theme_not_evaluated / tilt_without_weights / invalid_tilt (422).",
    query: driftQuerySchema,
    cache: true,
    response: { status: 200, schema: accountDriftSchema, description: "The drift." },
    errors: [
      "client_not_found",
      "account_not_found",
      "missing_price",
      "missing_fx",
      "no_target",
      "empty_account",
      "invalid_cron",
      "theme_not_evaluated",
      "tilt_without_weights",
      "invalid_tilt",
    ],
    run: ({ ctx, org, params, query }) =>
      accountDrift(ctx, org, params.account_uuid, {
        clientUuid: params.client_uuid,
        asOf: query.as_of_date,
      }),
  }),
  evaluateAccount: defineOperation({
    method: "GET",
    path: `${ORG_PREFIX}/clients/{client_uuid}/accounts/{account_uuid}/evaluation/`,
    tag: TAGS.proposals,
    summary: "Evaluation rules of an account: which fire and why",
    description:
      "Extension. Evaluates the `model_drift` evaluation rules of the account's configuration (customization merged over it) on `as_of_date` (default: the market's latest date). A rule fires when its policy is enabled, starts_from <= date <= expires_at, its cron fires on the date (day-level) and its condition (a filter expression over the facts) holds. Facts: total_drift, max_asset_drift, drift_status (null without a target), harvestable_loss_usd, harvest_value_usd, cash_usd, cash_weight, nav, positions, year, month, day. `fired` is highest priority first; every rule says why it fired or not, with the fact values its condition used (docs/evaluation-rules.md). Errors: validation_error (400: a date after the last market date), client_not_found / account_not_found (404), missing_price / missing_fx (422).",
    query: evaluationQuerySchema,
    cache: true,
    response: { status: 200, schema: accountEvaluationSchema, description: "The evaluation." },
    errors: ["client_not_found", "account_not_found", "missing_price", "missing_fx", "invalid_cron"],
    run: ({ ctx, org, params, query }) =>
      evaluateAccountRules(ctx, org, params.account_uuid, {
        clientUuid: params.client_uuid,
        asOf: query.as_of_date,
      }),
  }),
  harvestScan: defineOperation({
    method: "GET",
    path: `${ORG_PREFIX}/clients/{client_uuid}/accounts/{account_uuid}/harvest/`,
    tag: TAGS.proposals,
    summary: "Harvest scan: lots worth selling at a loss now",
    description:
      "Extension. Every lot of the account at an unrealized loss on `as_of_date` (default: the market's latest date): loss in USD and as a fraction of basis, term, estimated tax value (loss x short_term_rate or long_term_rate of the effective configuration) and whether it can be harvested now, else why (below_threshold: under min_loss_usd or min_loss_fraction, default 0 and 0.05; wash_sale_account / wash_sale_household: the asset was bought within tax_preferences.wash_sale_threshold days in this account or another account of the client; no_trade). Totals of the harvestable losses (short/long term) and their tax value, and up to 3 replacements per harvested asset (same sector, most correlated daily returns over the trailing year, none in a wash-sale window or restricted). docs/harvest.md. Errors: validation_error (400: a date after the last market date, a bad threshold), client_not_found / account_not_found (404), missing_price / missing_fx (422).",
    query: harvestQuerySchema,
    cache: true,
    response: { status: 200, schema: harvestScanSchema, description: "The harvest scan." },
    errors: ["client_not_found", "account_not_found", "missing_price", "missing_fx", "invalid_cron"],
    run: ({ ctx, org, params, query }) =>
      harvestScan(ctx, org, params.account_uuid, {
        clientUuid: params.client_uuid,
        asOf: query.as_of_date,
        minLossUsd: query.min_loss_usd,
        minLossFraction: query.min_loss_fraction,
      }),
  }),
  rebalanceAccount: defineOperation({
    method: "POST",
    path: `${ORG_PREFIX}/clients/{client_uuid}/accounts/{account_uuid}/rebalance/`,
    rateLimited: true,
    heavy: "write",
    tag: TAGS.proposals,
    summary: "Optimize an account and store the rebalance proposal",
    description:
      "Extension. The optimize extension, then endpoint 1 with the optimized weights (priced at the same date): the proposal is stored and returned with the optimization. When the optimization is infeasible no proposal is stored: `proposal` is null and `message` gives the diagnosis (200). With `cash_request` (docs/cash-requests.md): `withdraw_usd` raises that cash with the least tax (the optimizer with the withdrawal reserved as cash, or the lot engine when the account has no target or no risk model: then `optimization` is null), `deposit_usd` invests new cash (the proposal assumes it; the stored cash is unchanged); `cash_request` in the answer reports the cash raised, realized gains and estimated tax. A withdrawal above the account's value (less its buffers), a zero or negative amount, or both amounts are a validation_error naming the field (400).",
    body: { schema: rebalanceRequestSchema },
    response: {
      status: 200,
      schema: accountRebalanceSchema,
      description: "The optimization and the stored proposal.",
    },
    errors: [
      "client_not_found",
      "account_not_found",
      "empty_account",
      "missing_price",
      "missing_fx",
      "missing_fx_rate",
      "insufficient_history",
      "risk_model_inputs_missing",
      "solver_error",
      "insufficient_lots",
      "invalid_cron",
      "theme_not_evaluated",
      "tilt_without_weights",
      "invalid_tilt",
    ],
    run: ({ ctx, org, params, body }) =>
      rebalanceAccount(ctx, org, params.account_uuid, {
        clientUuid: params.client_uuid,
        asOf: body.as_of_date,
        cashRequest: body.cash_request,
      }),
  }),

  // The morning scan (extension; service/scan.ts, docs/scan.md)
  scanAccounts: defineOperation({
    method: "POST",
    path: `${ORG_PREFIX}/scans/`,
    rateLimited: true,
    heavy: true,
    tag: TAGS.proposals,
    summary: "Scan many accounts: drift, harvestable losses, cash to invest",
    description: `Extension (the morning scan, docs/scan.md). One row per selected account (all accounts of the organization, narrowed by \`accounts\`, \`client_uuid\`, \`portfolio_config_uuid\`; \`status\` keeps the rows whose drift status is listed, and rows whose status could not be computed), oldest first: drift status and total drift (as the drift extension), harvestable lots, loss and tax value (the totals of the harvest extension, same thresholds), cash to invest (cash above the configuration's cash buffers), NAV and the evaluation rules that fire. A part that fails for one account leaves its fields null and is listed in the row's \`errors\` with the code the single-account extension answers; the scan goes on. One request scans at most ${SCAN_PAGE_MAX} selected accounts (\`limit\`, default ${SCAN_PAGE_MAX}): larger selections are read page by page with \`offset\` = the previous page's \`next_offset\` (null on the last page), or scanned whole as a job (\`POST .../scan_jobs/\`). Nothing is stored.`,
    body: { schema: scanRequestSchema },
    response: {
      status: 200,
      schema: scanResultSchema,
      description: "The rows of this page and their summary.",
    },
    errors: ["client_not_found", "portfolio_config_not_found", "account_not_found"],
    run: ({ ctx, org, body }) => {
      const { as_of_date, min_loss_usd, min_loss_fraction, offset, limit, ...selection } = body;
      return scanAccounts(ctx, org, selection, {
        asOf: as_of_date,
        minLossUsd: min_loss_usd,
        minLossFraction: min_loss_fraction,
        offset,
        limit: limit ?? SCAN_PAGE_MAX,
      });
    },
  }),

  startScanJob: defineOperation({
    method: "POST",
    path: `${ORG_PREFIX}/scan_jobs/`,
    rateLimited: true,
    heavy: "write",
    tag: TAGS.proposals,
    summary: "Scan many accounts as a job",
    description: `Extension (docs/scan.md). The scan of \`POST .../scans/\` over the whole selection (no page), as a job of the job table. A selection of at most the server's scan job threshold (default ${SCAN_JOB_THRESHOLD} accounts; \`LOTWISE_SCAN_JOB_THRESHOLD\`) is scanned in this request and the job answered SUCCESS with the scan in \`result\`; a larger one, or a request with \`async\`: true, answers a PENDING job that the server's job workers run like a backtest (progress in accounts, recovery, cancel). The selection and the date are checked, and the date fixed, when the job is created. Poll \`GET .../scan_jobs/{job_uuid}/\`.`,
    body: { schema: scanJobRequestSchema },
    response: {
      status: 202,
      schema: scanJobSchema,
      description: "The job: SUCCESS with the scan, or PENDING.",
    },
    errors: ["client_not_found", "portfolio_config_not_found", "account_not_found"],
    run: ({ ctx, org, body }) => startScanJob(ctx, org, body),
  }),
  getScanJob: defineOperation({
    method: "GET",
    path: `${ORG_PREFIX}/scan_jobs/{job_uuid}/`,
    tag: TAGS.proposals,
    summary: "Get a scan job",
    description:
      "Extension. The scan job with status, progress (accounts scanned of the accounts selected) and, when done, the whole scan in `result` or `error_message`.",
    response: { status: 200, schema: scanJobSchema, description: "The job." },
    errors: ["scan_job_not_found"],
    run: ({ ctx, org, params }) => getScanJob(ctx, org, params.job_uuid),
  }),
  cancelScanJob: defineOperation({
    method: "POST",
    path: `${ORG_PREFIX}/scan_jobs/{job_uuid}/cancel/`,
    tag: TAGS.proposals,
    summary: "Cancel a scan job",
    description:
      "Extension. A PENDING job becomes FAILURE at once (error_message `Cancelled before it started.`); a RUNNING job stops before its next account and becomes FAILURE (202 returns it while it still runs). scan_job_finished (409) when the job already ended.",
    response: { status: 202, schema: scanJobSchema, description: "The job after the request." },
    errors: ["scan_job_not_found", "scan_job_finished"],
    run: ({ ctx, org, params }) => cancelScanJob(ctx, org, params.job_uuid),
  }),

  // Rebalance runs over many accounts (extensions; service/rebalance-runs.ts, docs/rebalance-runs.md)
  runRebalance: defineOperation({
    method: "POST",
    path: `${ORG_PREFIX}/rebalance_runs/`,
    rateLimited: true,
    heavy: "write",
    tag: TAGS.proposals,
    summary: "Run, resume or report a rebalance run over many accounts",
    description: `Extension. Selects accounts (every account of the organization, or client_uuid, portfolio_config_uuid or account_uuids) and, for each that needs it (when: breached = drift status breach, harvest = at least one harvestable lot, always), optimizes it and stores the proposal as the rebalance extension does. Each account gets an outcome: created (proposal_uuid), skipped (reason, e.g. "drift ok (total drift 1.20%)", "no harvestable loss", "already in run X (proposal Y)") or failed (error code and message); one failing account never stops the run. The run key is as_of_date|when|selection: the same request again answers the newest run of that key and creates nothing for accounts that already have an outcome (it resumes an interrupted run); force starts a new run. One request processes at most ${REBALANCE_RUN_ACCOUNTS_PER_REQUEST} accounts (or max_accounts): a larger run answers status running with pending accounts, and the same request continues it. On a service with a job queue (PostgreSQL and \`lotwise serve --queue\`) the request processes no account: the run's pending accounts go to the workers as up to ${REBALANCE_RUN_QUEUE_SHARDS} jobs, the answer is the run (status running) with queued_jobs, and GET .../rebalance_runs/{run_uuid}/ follows it (max_accounts is ignored). docs/rebalance-runs.md.`,
    body: { schema: rebalanceRunRequestSchema },
    response: { status: 200, schema: rebalanceRunSchema, description: "The run with its outcomes." },
    errors: ["client_not_found", "portfolio_config_not_found"],
    run: ({ ctx, org, body }) =>
      ctx.jobQueue
        ? queueRebalanceRun(ctx, org, body)
        : runRebalance(ctx, org, body, { maxAccounts: REBALANCE_RUN_ACCOUNTS_PER_REQUEST }),
  }),
  listRebalanceRuns: defineOperation({
    method: "GET",
    path: `${ORG_PREFIX}/rebalance_runs/`,
    tag: TAGS.proposals,
    summary: "List rebalance runs",
    description:
      "Extension. The organization's rebalance runs, newest first, with their totals (no per-account outcomes).",
    query: rebalanceRunListQuerySchema,
    response: { status: 200, schema: rebalanceRunListSchema, description: "The runs." },
    errors: [],
    run: ({ ctx, org, query }) => listRebalanceRuns(ctx, org, query),
  }),
  getRebalanceRun: defineOperation({
    method: "GET",
    path: `${ORG_PREFIX}/rebalance_runs/{run_uuid}/`,
    tag: TAGS.proposals,
    summary: "Get a rebalance run",
    description: "Extension. The run with the outcome of every account (pending: not processed yet).",
    response: { status: 200, schema: rebalanceRunSchema, description: "The run." },
    errors: ["rebalance_run_not_found"],
    run: ({ ctx, org, params }) => getRebalanceRun(ctx, org, params.run_uuid),
  }),

  // Uploaded risk models (extensions; service/risk-models.ts, docs/optimize-service.md)
  importRiskModel: defineOperation({
    method: "POST",
    path: `${ORG_PREFIX}/risk_models/`,
    tag: TAGS.riskModels,
    summary: "Upload a custom or vendor risk model",
    description: `Extension. Stores a risk model that configurations with risk_model_name \`vendor\` or \`custom\` use: the optimizer takes the organization's newest model of that kind whose as_of_date is on or before its own date. A vendor model is exposures, factor_covariance and specific_risk (rows or nested records) with its frequency (required) and units; a custom one is a factor model with specific_variance, or assets + a square covariance. The numbers are validated record by record, converted to fractions, annualized and made positive semidefinite (a repair is reported in \`warnings\`). The same model can come as CSV files: a multipart/form-data body with the other fields as text parts and the files as parts named exposures, covariance and specific_risk (or covariance alone: a custom model's square asset covariance), read as \`lotwise risk-models import\` reads them (docs/risk-models.md). Bodies up to ${RISK_MODEL_MAX_BODY_BYTES / 1024 / 1024} MiB, JSON or multipart. Errors: validation_error naming each bad record, or the file, line and column of each bad cell (400); nothing is stored when any file is bad.`,
    body: {
      schema: riskModelImportSchema,
      accept: ["json", "multipart"],
      maxBytes: RISK_MODEL_MAX_BODY_BYTES,
      files: {
        exposures: "exposures CSV: long asset,factor,exposure or wide asset,<factor>,<factor>,...",
        covariance:
          "factor covariance CSV: long factor1,factor2,covariance or a square matrix; for a custom model sent alone, a square asset covariance",
        specific_risk: "specific risk CSV: asset,specific_risk (volatilities) or asset,specific_variance",
      },
      fromForm: async (value, files) =>
        (await riskModelCsvModule()).riskModelImportFromCsv(value as Record<string, unknown>, files),
    },
    response: {
      status: 201,
      schema: riskModelSchema,
      description: "The stored model, without its matrices.",
    },
    errors: [],
    run: ({ ctx, org, body }) => importRiskModel(ctx, org, body),
  }),
  listRiskModels: defineOperation({
    method: "GET",
    path: `${ORG_PREFIX}/risk_models/`,
    tag: TAGS.riskModels,
    summary: "List uploaded risk models",
    description:
      "Extension. The organization's models without their matrices, by as_of_date then upload order.",
    cache: true,
    response: { status: 200, schema: riskModelListSchema, description: "The models." },
    errors: [],
    run: ({ ctx, org }) => listRiskModels(ctx, org),
  }),
  getRiskModel: defineOperation({
    method: "GET",
    path: `${ORG_PREFIX}/risk_models/{risk_model_uuid}/`,
    tag: TAGS.riskModels,
    summary: "Get an uploaded risk model",
    description:
      "Extension. The summary, how the numbers were read (form, frequency, units), each factor's annualized volatility and the range of specific volatilities; never the matrices.",
    cache: true,
    response: { status: 200, schema: riskModelSchema, description: "The model." },
    errors: ["risk_model_not_found"],
    run: ({ ctx, org, params }) => getRiskModel(ctx, org, params.risk_model_uuid),
  }),
  deleteRiskModel: defineOperation({
    method: "DELETE",
    path: `${ORG_PREFIX}/risk_models/{risk_model_uuid}/`,
    tag: TAGS.riskModels,
    summary: "Delete an uploaded risk model",
    description:
      "Extension. Optimizations dated after it then use the previous model of its kind (or fail with risk_model_inputs_missing when none is left).",
    response: { status: 204, description: "Deleted; no body." },
    errors: ["risk_model_not_found"],
    run: ({ ctx, org, params }) => deleteRiskModel(ctx, org, params.risk_model_uuid),
  }),

  // Securities
  resolveTickers: defineOperation({
    method: "POST",
    path: "/api/v1/securities/resolve",
    tag: TAGS.securities,
    summary: "Resolve symbols to listings",
    description:
      "Extension (design-preview family). Resolves plain symbols (AAPL) or theme_asset_ids (AAPL:XNAS) against the security master, in request order; unknown and ambiguous queries say why (ambiguous ones list the listings).",
    body: { schema: tickerResolveRequestSchema },
    response: { status: 200, schema: tickerResolveResponseSchema, description: "One resolution per query." },
    errors: [],
    // The method takes the queries themselves: resolveTickers(["AAPL", "RY:XTSE"]).
    backend: { args: (queries: readonly string[]) => ({ body: { tickers: [...queries] } }) },
    run: async ({ ctx, body }) => resolveTickerQueries(ctx.store, await marketAsOf(ctx), body.tickers),
  }),

  // Themes (design preview: no organization in the path; the key's organization owns the theme)
  createTheme: defineOperation({
    method: "POST",
    path: "/api/v1/themes",
    tag: TAGS.themes,
    summary: "Create a theme",
    description:
      "Extension. A theme is a saved selection methodology (universe, filters, score, selection, weighting, rules.rebalancing_period); this saves its first revision. Expressions use the filter language (docs/expression-language.md); errors carry the position.",
    body: { schema: themeMethodologySchema },
    response: { status: 201, schema: themeSchema, description: "The new theme." },
    errors: ["invalid_expression", "invalid_methodology"],
    run: ({ ctx, org, body }) => createTheme(ctx, org, body),
  }),
  listThemes: defineOperation({
    method: "GET",
    path: "/api/v1/themes",
    tag: TAGS.themes,
    summary: "List themes",
    description: "Extension. The organization's themes with their latest revision.",
    cache: true,
    response: { status: 200, schema: themeListSchema, description: "The themes." },
    errors: [],
    run: ({ ctx, org }) => listThemes(ctx, org),
  }),
  getTheme: defineOperation({
    method: "GET",
    path: "/api/v1/themes/{theme_uuid}",
    tag: TAGS.themes,
    summary: "Get a theme",
    description: "Extension. The theme with its latest methodology.",
    cache: true,
    response: { status: 200, schema: themeSchema, description: "The theme." },
    errors: ["theme_not_found"],
    run: ({ ctx, org, params }) => getTheme(ctx, org, params.theme_uuid),
  }),
  reviseTheme: defineOperation({
    method: "PATCH",
    path: "/api/v1/themes/{theme_uuid}",
    tag: TAGS.themes,
    summary: "Revise a theme",
    description:
      "Extension. Saves a new revision from the fields given (absent fields keep the latest revision's values). Snapshots belong to revisions: endpoint 7 answers snapshot_not_found until the new revision is evaluated.",
    body: { schema: themeRevisionSchema },
    response: { status: 200, schema: themeSchema, description: "The theme with its new revision." },
    errors: ["theme_not_found", "invalid_expression", "invalid_methodology"],
    run: ({ ctx, org, params, body }) => reviseTheme(ctx, org, params.theme_uuid, body),
  }),
  evaluateTheme: defineOperation({
    method: "POST",
    path: "/api/v1/themes/{theme_uuid}/evaluate",
    heavy: true,
    tag: TAGS.themes,
    summary: "Evaluate the latest revision",
    description:
      "Extension. Evaluates the latest revision as of `as_of_date` (default: the latest market date) with point-in-time data and stores the constituent snapshot that endpoint 7 returns.",
    body: { schema: themeEvaluateRequestSchema },
    response: { status: 200, schema: themeConstituentSnapshotSchema, description: "The stored snapshot." },
    errors: ["theme_not_found", "invalid_expression", "no_market_data"],
    run: ({ ctx, org, params, body }) => evaluateTheme(ctx, org, params.theme_uuid, body),
  }),
  getThemeConstituents: defineOperation({
    method: "GET",
    path: "/api/v1/themes/{theme_uuid}/constituents",
    tag: TAGS.themes,
    specEndpoint: 7,
    summary: "Get evaluated constituents of a theme",
    description:
      "Endpoint 7. The latest snapshot of the theme's latest revision, ordered by weight descending; `snapshot_not_found` (404) when that revision has not been evaluated.",
    cache: true,
    response: { status: 200, schema: themeConstituentSnapshotSchema, description: "The snapshot." },
    errors: ["theme_not_found", "snapshot_not_found"],
    run: ({ ctx, org, params }) => getThemeConstituents(ctx, org, params.theme_uuid),
  }),
  backtestTheme: defineOperation({
    method: "GET",
    path: "/api/v1/themes/{theme_uuid}/backtest",
    heavy: true,
    tag: TAGS.themes,
    specEndpoint: 8,
    summary: "Backtest a theme",
    description:
      "Endpoint 8. Query: start_date, end_date (defaults: 365 days before the latest data date, and the latest data date) and benchmark (an index identifier such as SP500 or SYNTH500, or a ticker). Rebalances at the saved rules.rebalancing_period with point-in-time evaluation. Errors: theme_not_found (404), invalid_window (400), unknown_benchmark (400), no_data_in_window (422).",
    query: themeBacktestQuerySchema,
    cache: true,
    response: { status: 200, schema: themeBacktestResultSchema, description: "The backtest." },
    errors: ["invalid_window", "unknown_benchmark", "theme_not_found", "no_data_in_window"],
    run: ({ ctx, org, params, query }) => backtestTheme(ctx, org, params.theme_uuid, query),
  }),

  // Catalog (design preview)
  searchIndustries: defineOperation({
    method: "POST",
    path: "/api/v1/catalog/industry",
    tag: TAGS.catalog,
    specEndpoint: 9,
    summary: "Search industry classifications",
    description:
      "Endpoint 9. Searches the built-in four-level taxonomy by words (stems and synonyms such as tech, banks, pharma); each match has a ready-to-use filter expression, parents, children and siblings; `hint` helps when nothing matches. Errors: invalid_query (400).",
    body: { schema: industrySearchRequestSchema },
    response: { status: 200, schema: industrySearchResponseSchema, description: "The matches." },
    errors: ["invalid_query"],
    run: ({ ctx, body }) => searchIndustries(ctx, body),
  }),
  listUniversePresets: defineOperation({
    method: "GET",
    path: "/api/v1/catalog/universe_presets",
    tag: TAGS.catalog,
    specEndpoint: 10,
    summary: "List universe presets",
    description: "Endpoint 10. Candidate universes with their filter expressions, exchanges and currencies.",
    cache: true,
    response: { status: 200, schema: universePresetsResponseSchema, description: "The presets." },
    errors: [],
    run: ({ ctx }) => listUniversePresets(ctx),
  }),

  // Backtests (endpoint 2 and the job extensions; service/backtest-jobs.ts, docs/backtest-jobs.md)
  startBacktest: defineOperation({
    method: "POST",
    operationId: "createBacktest",
    path: `${ACCOUNT}/backtests/`,
    rateLimited: true,
    tag: TAGS.backtests,
    specEndpoint: 2,
    summary: "Start an account backtest",
    description:
      "Endpoint 2. Validates the parameters (tax_gamma 0-100, tax_loss_threshold_bps 0-5000, starting_nav 100-1e9, rebalance_period MONTHLY, ls_tlh_factor quality|value|growth, start_date before end_date; every field optional), resolves the defaults against the account and the market data, and stores a PENDING job (202) with `resolved_params`. A job runner (`lotwise serve`) runs it on a worker thread: RUNNING with progress after every period, then SUCCESS with `result` (case name -> case result) or FAILURE with `error_message`. Accepts JSON, form-urlencoded and multipart bodies with the same fields (numbers as decimal text in forms). Jobs are scheduled fairly across organizations. Errors: validation_error naming the field (400), client_not_found / account_not_found (404), too_many_queued_jobs when the organization already has the most PENDING jobs the server accepts (default 100) and rate_limited with Retry-After when the API key exceeds its rate on the expensive routes (429).",
    body: {
      schema: backtestRequestSchema,
      accept: ["json", "form", "multipart"],
      fromForm: (value) => backtestRequestFromForm(value as Record<string, string>),
    },
    response: { status: 202, schema: backtestJobSchema, description: "The PENDING job." },
    errors: ["client_not_found", "account_not_found", "data_error", "too_many_queued_jobs"],
    run: ({ ctx, org, params, body }) =>
      startBacktest(ctx, org, params.client_uuid, params.account_uuid, body),
  }),
  listBacktests: defineOperation({
    method: "GET",
    path: `${ACCOUNT}/backtests/`,
    tag: TAGS.backtests,
    summary: "List the backtest jobs of an account",
    description: "Extension. Every job of the account, oldest first, with status and progress.",
    response: { status: 200, schema: backtestJobListSchema, description: "The jobs." },
    errors: ["client_not_found", "account_not_found"],
    run: ({ ctx, org, params }) => listBacktests(ctx, org, params.client_uuid, params.account_uuid),
  }),
  getAccountBacktest: defineOperation({
    method: "GET",
    path: `${ACCOUNT}/backtests/{backtest_uuid}/`,
    // The CLI reads a job by its id alone (getBacktest); this form of the path has no Backend method.
    backend: false,
    tag: TAGS.backtests,
    summary: "Get a backtest job of an account",
    description:
      "Extension. The job with status, progress and, when done, result or error_message; backtest_not_found (404) when it is not this account's.",
    response: { status: 200, schema: backtestJobSchema, description: "The job." },
    errors: ["client_not_found", "account_not_found", "backtest_not_found"],
    run: ({ ctx, org, params }) =>
      getBacktest(ctx, org, params.backtest_uuid, {
        clientUuid: params.client_uuid,
        accountUuid: params.account_uuid,
      }),
  }),
  getBacktest: defineOperation({
    method: "GET",
    path: `${ORG_PREFIX}/backtests/{backtest_uuid}/`,
    tag: TAGS.backtests,
    summary: "Get a backtest job by its id alone",
    description: "Extension. The same job as under its account's path, for clients that only kept the id.",
    response: { status: 200, schema: backtestJobSchema, description: "The job." },
    errors: ["backtest_not_found"],
    run: ({ ctx, org, params }) => getBacktest(ctx, org, params.backtest_uuid),
  }),
  cancelBacktest: defineOperation({
    method: "POST",
    path: `${ORG_PREFIX}/backtests/{backtest_uuid}/cancel/`,
    tag: TAGS.backtests,
    summary: "Cancel a backtest job",
    description:
      "Extension. A PENDING job becomes FAILURE at once (error_message `Cancelled before it started.`); a RUNNING job stops at its next period and becomes FAILURE (202 returns it while it still runs). backtest_finished (409) when the job already ended.",
    response: { status: 202, schema: backtestJobSchema, description: "The job after the request." },
    errors: ["backtest_not_found", "backtest_finished"],
    run: ({ ctx, org, params }) => cancelBacktest(ctx, org, params.backtest_uuid),
  }),

  // Corporate actions on held lots and holdings history (docs/ledger.md, sections 8-10)
  listCorporateActions: defineOperation({
    method: "GET",
    path: `${ORG_PREFIX}/corporate_actions/`,
    tag: TAGS.ledger,
    summary: "List corporate actions",
    description:
      "Extension. The stored corporate actions by ex-date then id, optionally within from..to and for one listing.",
    query: corporateActionListQuerySchema,
    cache: true,
    response: { status: 200, schema: corporateActionListSchema, description: "The actions." },
    errors: [],
    run: ({ ctx, org, query }) => listCorporateActions(ctx, org, query),
  }),
  applyCorporateActions: defineOperation({
    method: "POST",
    path: `${ORG_PREFIX}/corporate_actions/apply/`,
    tag: TAGS.ledger,
    summary: "Apply stored corporate actions to accounts",
    description:
      "Extension. Applies every stored action dated on or before `through` (default: the market's latest date) to one account (`account_uuid`) or to every account of the organization, once per account: lots of the listing bought before the action's date are split, spun off (basis allocated by the announced fraction, holding period carried), renamed or merged; cash dividends are credited (reinvested at the pay-date close when the account's metadata has reinvest_dividends: true). One transaction per account. Applying again applies nothing new. The answer lists, per account changed, the actions and the lots and cash they changed.",
    body: { schema: corporateActionApplyRequestSchema },
    response: {
      status: 200,
      schema: corporateActionApplyResultSchema,
      description: "What changed, per account.",
    },
    errors: ["account_not_found", "action_already_applied"],
    run: ({ ctx, org, body }) => applyStoredCorporateActions(ctx, org, body),
  }),
  getAccountHoldings: defineOperation({
    method: "GET",
    path: `${ACCOUNT}/holdings/`,
    tag: TAGS.ledger,
    summary: "An account's holdings as of a date",
    description:
      "Extension. The account's long lots, short lots and cash at the close of `as_of` (default: the market's latest date), rebuilt from the ledger: executions and corporate actions after the date undone, lots with a later trade date left out, later market splits divided back. `undone` lists what was undone. The optimizer, drift, evaluation and a dated rebalance use the same positions.",
    query: holdingsAsOfQuerySchema,
    cache: true,
    response: { status: 200, schema: holdingsAsOfSchema, description: "The holdings on the date." },
    errors: ["client_not_found", "account_not_found"],
    run: async ({ ctx, org, params, query }) => {
      await ctx.store.accounts.require(org, params.client_uuid, params.account_uuid);
      return accountHoldingsAsOf(ctx, org, params.account_uuid, query.as_of);
    },
  }),
  // Account ledger (extensions; service/ledger.ts, docs/ledger.md)
  executeProposal: defineOperation({
    method: "POST",
    path: `${ACCOUNT}/proposals/{proposal_uuid}/execution/`,
    tag: TAGS.ledger,
    summary: "Apply a stored proposal as executed",
    description:
      "Extension. Records the proposal's orders as executed, in ONE transaction: without `fills`, every order in full at the closes of the proposal's as_of_date; with `fills` (order index, quantity, price, optional fees, fx_rate, trade_date), only the fills (partial fills allowed). Sells relieve exactly the lots the proposal named (`tax_lots[].lot_id`); buys open lots; cash moves by proceeds, cost and fees; wash sales apply across the client's accounts. Execution ids are `{proposal_uuid}:{order}:{fill}`, so applying a proposal twice is refused (execution_already_applied, 409). A fill for an order not in the proposal, a quantity above the order or a price <= 0 is a validation_error naming `fills[i].field`; nothing is applied.",
    body: { schema: proposalExecutionRequestSchema },
    response: { status: 200, schema: executionResultSchema, description: "What was applied." },
    errors: [
      "client_not_found",
      "account_not_found",
      "proposal_not_found",
      "execution_already_applied",
      "lots_changed",
      "missing_price",
    ],
    run: ({ ctx, org, params, body }) =>
      executeProposal(ctx, org, params.client_uuid, params.account_uuid, params.proposal_uuid, body),
  }),
  recordTrades: defineOperation({
    method: "POST",
    path: `${ACCOUNT}/executions/`,
    tag: TAGS.ledger,
    summary: "Record trades",
    description:
      "Extension. A batch of buys, sells, short sales and covers with the caller's execution ids, applied whole or not at all (one transaction). Sells relieve the lots they name, else the account's lot method (`metadata.lot_method`, default TAX_OPTIMAL) picks them. Errors: validation_error naming `trades[i].field` (oversell, unknown lot, trade date before the lot's, price <= 0...), invalid_tickers, execution_already_applied (409) when an id was already applied.",
    body: { schema: tradesRequestSchema },
    response: { status: 200, schema: executionResultSchema, description: "What was applied." },
    errors: [
      "client_not_found",
      "account_not_found",
      "invalid_tickers",
      "execution_already_applied",
      "lots_changed",
    ],
    run: ({ ctx, org, params, body }) =>
      recordTrades(ctx, org, params.client_uuid, params.account_uuid, body),
  }),
  listExecutions: defineOperation({
    method: "GET",
    path: `${ACCOUNT}/executions/`,
    tag: TAGS.ledger,
    summary: "List an account's executions",
    description:
      "Extension. The executions applied to the account (from proposals, trade files and the API), by trade date then in the order applied; `from` / `to` bound the trade dates.",
    query: executionListQuerySchema,
    cache: true,
    response: { status: 200, schema: executionListSchema, description: "The executions." },
    errors: ["client_not_found", "account_not_found"],
    run: ({ ctx, org, params, query }) =>
      listExecutions(ctx, org, params.client_uuid, params.account_uuid, query),
  }),
  importTrades: defineOperation({
    method: "POST",
    path: `${ORG_PREFIX}/accounts/{account_uuid}/executions/import/`,
    tag: TAGS.ledger,
    summary: "Record trades from a trade-confirmation CSV",
    description:
      "Extension. A broker trade-confirmation CSV (columns recognized by name or mapped with map_FIELD=HEADER: execution_id, side, symbol, trade_date, quantity, price, fees, currency, fx_rate, mic, lot_id) recorded as ONE batch in one transaction: every problem names the line and column (invalid_trades_file), and a file with any bad row, unknown symbol or refused trade applies nothing.",
    query: tradeImportQuerySchema,
    upload: {
      maxBytes: LOTS_CSV_MAX_BODY_BYTES,
      multipartMaxBytes: LOTS_CSV_MULTIPART_MAX_BODY_BYTES,
      description: "The trade-confirmation CSV (UTF-8).",
      contentType: "text/csv; charset=utf-8",
      clientTimeoutMs: LOTS_UPLOAD_TIMEOUT_MS,
    },
    response: { status: 200, schema: executionResultSchema, description: "What was applied." },
    errors: ["account_not_found", "invalid_trades_file", "execution_already_applied", "lots_changed"],
    run: ({ ctx, org, params, query, upload }) => importTrades(ctx, org, params.account_uuid, upload, query),
  }),
  accountRealized: defineOperation({
    method: "GET",
    path: `${ACCOUNT}/realized/`,
    tag: TAGS.ledger,
    summary: "Realized gains of an account for a tax year",
    description:
      "Extension. Every lot or lot part the account closed in the year (description, dates acquired and sold, proceeds, cost basis, wash-sale code W and amount, gain, term), the year's totals per term, the Schedule D lines and the Form 8949-style CSV (`reporting` picks the check boxes).",
    query: realizedQuerySchema,
    cache: true,
    response: { status: 200, schema: realizedLedgerSchema, description: "The realized-gains ledger." },
    errors: ["client_not_found", "account_not_found"],
    run: ({ ctx, org, params, query }) =>
      accountRealized(ctx, org, params.client_uuid, params.account_uuid, query),
  }),
  clientRealized: defineOperation({
    method: "GET",
    path: `${ORG_PREFIX}/clients/{client_uuid}/realized/`,
    tag: TAGS.ledger,
    summary: "Realized gains of a client (household) for a tax year",
    description:
      "Extension. The realized-gains ledger of every account of the client together: rows (each with its account), household totals, Schedule D and the Form 8949-style CSV.",
    query: realizedQuerySchema,
    cache: true,
    response: { status: 200, schema: realizedLedgerSchema, description: "The realized-gains ledger." },
    errors: ["client_not_found"],
    run: ({ ctx, org, params, query }) => clientRealized(ctx, org, params.client_uuid, query),
  }),
} satisfies Record<string, unknown>;

/** The name of an operation of the table. */
export type OperationName = keyof typeof OPERATIONS;

/**
 * The union of the error codes an operation declares as its own, e.g. `OperationErrorCode<"getClient">` is
 * `"client_not_found"` (routeErrorCodes in src/server adds those every route of its shape answers).
 */
export type OperationErrorCode<N extends OperationName> = (typeof OPERATIONS)[N]["errors"][number];

/** The table as a list with names and operationIds, in documentation order. */
export const OPERATION_LIST: readonly AnyOperation[] = Object.entries(OPERATIONS).map(([name, op]) => {
  const o = op as unknown as Omit<AnyOperation, "name" | "operationId"> & { operationId?: string };
  return { ...o, name, operationId: o.operationId ?? name };
});
