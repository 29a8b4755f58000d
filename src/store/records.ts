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

/** What a job of the job table runs: an account backtest, or a scan of many accounts (docs/backtest-jobs.md). */
export type JobKind = "backtest" | "scan";

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
