/**
 * @module store/records
 * The domain objects the repositories return. Decimal amounts are exact decimal strings (the service converts
 * them to decimal.js); JSON documents are parsed; booleans are booleans. Timestamps are ISO 8601 UTC.
 */

export interface OrganizationRecord {
  uuid: string;
  name: string;
  created: string;
  modified: string;
}

export interface ApiKeyRecord {
  id: string;
  organizationUuid: string;
  /** First characters of the key, safe to display, to tell keys apart. */
  prefix: string;
  label: string | null;
  created: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface ClientRecord {
  uuid: string;
  organizationUuid: string;
  externalId: string | null;
  metadata: unknown;
  created: string;
  modified: string;
}

export interface AccountRecord {
  uuid: string;
  organizationUuid: string;
  clientUuid: string;
  externalId: string | null;
  name: string | null;
  cashValueUsd: string;
  nonTradableAssetsValue: string;
  liabilitiesValue: string;
  portfolioConfigUuid: string | null;
  /** The account's customization_config (portfolio-configuration write shape without status), or null. */
  customizationConfig: unknown;
  metadata: unknown;
  isReadOnly: boolean;
  created: string;
  modified: string;
}

export interface AssetClassSettingRecord {
  assetClassUuid: string;
  directIndexingEnabled: boolean;
  implementationSleeveUuid: string | null;
}

export type CostBasisUnit = "per_share" | "total";

export interface TaxLotRecord {
  uuid: string;
  accountUuid: string;
  themeAssetId: string;
  quantity: string;
  costBasis: string;
  costBasisUnit: CostBasisUnit;
  costBasisCurrency: string;
  fxRate: string;
  tradeDate: string;
  /** Start of the holding period when a wash sale carried one over (earlier than tradeDate); null = tradeDate. */
  holdingPeriodStart: string | null;
  washSaleDate: string | null;
  lastSoldForLossDate: string | null;
}

/**
 * A stored lot as a compact row for bulk reads (every lot of an account per proposal): the fields of
 * {@link TaxLotRecord} but the account uuid, in this order, as stored.
 */
export type TaxLotRow = readonly [
  uuid: string,
  themeAssetId: string,
  quantity: string,
  costBasis: string,
  costBasisUnit: CostBasisUnit,
  costBasisCurrency: string,
  fxRate: string,
  tradeDate: string,
  holdingPeriodStart: string | null,
  washSaleDate: string | null,
  lastSoldForLossDate: string | null,
];

/** A tax lot to store: everything but the identifiers the store assigns. */
export type TaxLotInput = Omit<TaxLotRecord, "uuid" | "accountUuid">;

export interface PortfolioConfigRecord {
  uuid: string;
  organizationUuid: string;
  name: string;
  status: string;
  /** The normalized configuration document (write shape, without uuid/name/status). */
  document: Record<string, unknown>;
  created: string;
  modified: string;
}

export interface AssetClassRecord {
  uuid: string;
  organizationUuid: string;
  name: string;
  /** Every asset-class field except uuid, name, archived_at, created, modified. */
  document: Record<string, unknown>;
  archivedAt: string | null;
  created: string;
  modified: string;
}

export interface ThemeRecord {
  uuid: string;
  organizationUuid: string;
  name: string;
  created: string;
  modified: string;
}

export interface ThemeRevisionRecord {
  themeUuid: string;
  /** Revision identifier: the ISO timestamp at which it was saved. */
  revision: string;
  methodology: Record<string, unknown>;
  publishedAt: string | null;
}

export interface ThemeSnapshotRecord {
  themeUuid: string;
  revision: string;
  asOfDate: string;
  totalWeight: number;
  constituents: unknown[];
  created: string;
}

export interface ProposalRecord {
  uuid: string;
  organizationUuid: string;
  accountUuid: string;
  request: unknown;
  response: unknown;
  created: string;
}

/** Kinds of uploaded risk models (the `risk_model_name` values that read one). */
export type RiskModelKind = "custom" | "vendor";

/** An uploaded risk model without its matrices (what lists show). */
export interface RiskModelRecord {
  uuid: string;
  organizationUuid: string;
  kind: RiskModelKind;
  name: string;
  /** The date the model describes (YYYY-MM-DD): it serves optimizations dated on or after it. */
  asOfDate: string;
  assetCount: number;
  factorCount: number;
  /** What the import adjusted (PSD repair, ignored rows...). */
  warnings: string[];
  created: string;
}

/** An uploaded risk model with its document (the validated model and the source options; see the service). */
export interface StoredRiskModelRecord extends RiskModelRecord {
  document: unknown;
}

/** What {@link RiskModelRecord} the store assigns nothing to: everything but uuid, organization and created. */
export type RiskModelInput = Omit<StoredRiskModelRecord, "uuid" | "organizationUuid" | "created">;

export type BacktestStatus = "PENDING" | "RUNNING" | "SUCCESS" | "FAILURE";

export interface BacktestProgress {
  planned_periods: number;
  completed_periods: number;
  last_completed_period: string | null;
  last_progress_at: string | null;
}

/**
 * What a job of the job table runs: an account backtest, a scan of many accounts, or one shard of a rebalance run
 * processed by queue workers (docs/backtest-jobs.md, docs/rebalance-runs.md).
 */
export type JobKind = "backtest" | "scan" | "rebalance_run";
export const JOB_KINDS: readonly JobKind[] = ["backtest", "scan", "rebalance_run"];

/** The sentence that tells a user how to get a job of `kind` done after it failed for good. */
export function jobRestartHint(kind: JobKind): string {
  if (kind === "rebalance_run")
    return "Post the rebalance run again: it resumes with the accounts that have no outcome yet.";
  return `Start the ${kind} again.`;
}

export interface BacktestJobRecord {
  id: string;
  organizationUuid: string;
  kind: JobKind;
  /** The account of a backtest job; null for a scan job (its selection is in `params`). */
  accountUuid: string | null;
  status: BacktestStatus;
  params: Record<string, unknown>;
  resolvedParams: Record<string, unknown>;
  progress: BacktestProgress | null;
  result: Record<string, unknown> | null;
  errorMessage: string | null;
  cancelRequested: boolean;
  attempts: number;
  leaseOwner: string | null;
  heartbeatAt: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface MarketImportRecord {
  id: number;
  kind: string;
  source: string;
  rows: number;
  summary: unknown;
  created: string;
}

/** A long lot as the ledger writes it: a {@link TaxLotInput} with its id (the core's lot id), kept across batches. */
export type LedgerLotInput = TaxLotInput & { uuid: string };

/**
 * An open short lot (tax_lots with side 'short'): `quantity` shares owed (> 0), `proceeds` the net short-sale
 * proceeds in `currency` (its basis), `fxRate` units of the currency per USD on `openDate`, the short-sale date.
 */
export interface ShortLotRecord {
  uuid: string;
  accountUuid: string;
  themeAssetId: string;
  quantity: string;
  proceeds: string;
  currency: string;
  fxRate: string;
  openDate: string;
}

/** A short lot to store (the ledger keeps its id across batches). */
export type ShortLotInput = Omit<ShortLotRecord, "accountUuid">;

export type ExecutionSource = "proposal" | "trade_file" | "api";
export type ExecutionKindRecord = "buy" | "sell" | "short_order" | "short_cover";

/** One applied execution. Money in the listing currency; `fxRate` units of `currency` per USD. */
export interface ExecutionRecord {
  accountUuid: string;
  /** The caller's id, unique per account: applying it twice is refused (`execution_already_applied`). */
  executionId: string;
  source: ExecutionSource;
  proposalUuid: string | null;
  orderIndex: number | null;
  kind: ExecutionKindRecord;
  themeAssetId: string;
  tradeDate: string;
  quantity: string;
  price: string;
  fees: string;
  currency: string;
  fxRate: string;
  /** Named lots (sells: specific identification; covers: short lots), or null. */
  lots: { lotId: string; quantity?: string }[] | null;
  /** Id of the lot a buy or short sale opened, when not the execution id. */
  lotId: string | null;
  appliedAt: string;
}

/** An execution to record (the store adds the account and `appliedAt`). */
export type ExecutionInput = Omit<ExecutionRecord, "accountUuid" | "appliedAt">;

/**
 * One realized lot or lot part (the core's LedgerEntry): the Form 8949 columns in USD, and `record`, the whole
 * entry as JSON (decimals as strings) from which the core's entry is rebuilt exactly (src/store/ledger-mapper.ts).
 */
export interface RealizedLotRecord {
  accountUuid: string;
  clientUuid: string;
  /** `${sourceId}:${n}`; a later purchase that washes the loss rewrites the row with the same id. */
  entryId: string;
  /** The execution or corporate action that realized it. */
  sourceId: string;
  lotId: string;
  themeAssetId: string;
  side: "long" | "short";
  quantity: string;
  dateAcquired: string;
  dateSold: string;
  /** Short entries: the date the short sale opened the lot. */
  openDate: string | null;
  proceeds: string;
  costBasis: string;
  adjustmentCode: "W" | "";
  adjustment: string;
  gain: string;
  term: "short_term" | "long_term";
  /** An economic loss (proceeds < basis): what a later purchase can wash. */
  loss: boolean;
  record: unknown;
}

/**
 * A realized row to store (the store adds the account and its client). `record` is written as
 * `JSON.stringify(record)`: the core's entry itself will do (its decimals serialize as strings).
 */
export type RealizedLotInput = Omit<RealizedLotRecord, "accountUuid" | "clientUuid">;

export type CorporateActionKind =
  | "split"
  | "cash_dividend"
  | "spin_off"
  | "symbol_change"
  | "cash_merger"
  | "stock_merger";

/** A market-level corporate action; `params` holds the kind's own fields (ratio, amountPerShare, ...). */
export interface CorporateActionRecord {
  id: string;
  kind: CorporateActionKind;
  themeAssetId: string;
  exDate: string;
  payDate: string | null;
  params: Record<string, unknown>;
}

export interface CorporateActionApplicationRecord {
  actionId: string;
  accountUuid: string;
  appliedAt: string;
}

/**
 * Only the lots a batch changed, for {@link LedgerBatch.lotChanges}: the store writes these and reads no other lot
 * of the account. Every id of `updated` and `deleted` must be a lot the account holds on that side (else the batch is
 * refused with `lots_changed`: the lots changed since the caller read them); `inserted` ids must be unused.
 */
export interface LedgerLotChanges {
  /** Lots the batch opened (long then short), appended after the account's last position in this order. */
  inserted: readonly LedgerLotInput[];
  insertedShort: readonly ShortLotInput[];
  /** Lots held before whose columns changed, updated in place (their position is kept). */
  updated: readonly LedgerLotInput[];
  updatedShort: readonly ShortLotInput[];
  /** Ids of the lots (long or short) the batch closed. */
  deleted: readonly string[];
}

/** What one application of executions and actions writes to an account (see LedgerRepository.applyBatch). */
export type LedgerBatch = LedgerBatchCommon &
  (
    | {
        /** The account's long lots after the batch (every one: lots absent from it are deleted). */
        lotsAfter: readonly LedgerLotInput[];
        /** The account's short lots after the batch. */
        shortLotsAfter: readonly ShortLotInput[];
        lotChanges?: undefined;
      }
    | {
        /** Instead of the whole lot set after the batch: only the lots it changed (no read of the others). */
        lotChanges: LedgerLotChanges;
        lotsAfter?: undefined;
        shortLotsAfter?: undefined;
      }
  );

/** The fields of {@link LedgerBatch} besides its lots. */
export interface LedgerBatchCommon {
  executions: readonly ExecutionInput[];
  /** New realized rows, and earlier rows of the account rewritten (same entry id) by a wash sale. */
  realized: readonly RealizedLotInput[];
  /** Decimal string added to the account's USD cash. */
  cashDelta: string;
  /** Corporate actions this batch applied (each once per account). */
  appliedActionIds?: readonly string[];
  /** Other accounts of the same client whose loss rows and replacement lots the batch's purchases washed. */
  household?: readonly HouseholdUpdate[];
}

/** Another account's rows and lots that a batch's purchases washed (household wash sales). */
export interface HouseholdUpdate {
  accountUuid: string;
  /** Its realized rows rewritten (same entry ids). */
  realized: readonly RealizedLotInput[];
  /** Its existing long lots whose basis or holding period changed (updated in place by id). */
  lotsChanged: readonly LedgerLotInput[];
}

/** The counts {@link LedgerBatch} wrote. */
export interface LedgerBatchResult {
  executions: number;
  realized: number;
  lotsInserted: number;
  lotsUpdated: number;
  lotsDeleted: number;
  cashValueUsd: string;
}

/** What the household wash-sale view needs: lots acquired and loss sales in a window, every account of a client. */
export interface HouseholdActivity {
  /** Long lots with a trade date in the window, each with its account. */
  lots: TaxLotRecord[];
  /** Realized rows that are economic losses, sold in the window. */
  lossSales: RealizedLotRecord[];
}

/** Reads of realized rows: by account or by client, by tax year or by a date-sold window (inclusive). */
export type RealizedScope = { accountUuid: string } | { clientUuid: string };
export type RealizedPeriod = { year: number } | { from: string; to: string };
