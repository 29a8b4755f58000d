/**
 * @module store/migrations
 * Versioned schema migrations. `PRAGMA user_version` holds the schema version of a store file; each migration
 * runs in its own transaction and moves the version by exactly one. A file with a version above
 * {@link SCHEMA_VERSION} was written by a newer lotwise and is refused (never "downgraded" or corrupted).
 *
 * Decimal quantities and money are stored as TEXT (exact decimal strings); prices, rates and weights as REAL.
 * Market data is shared by all organizations of a store file; everything else is scoped to one organization.
 */

/** `PRAGMA application_id` of lotwise store files ("LWS1" as a 32-bit integer). */
export const APPLICATION_ID = 0x4c575331;

export interface Migration {
  version: number;
  description: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description:
      "organizations, keys, clients, accounts, lots, configurations, asset classes, themes, proposals, jobs, market data",
    sql: `
CREATE TABLE organizations (
  uuid TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created TEXT NOT NULL,
  modified TEXT NOT NULL
);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  organization_uuid TEXT NOT NULL REFERENCES organizations(uuid) ON DELETE CASCADE,
  prefix TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  label TEXT,
  created TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT
);
CREATE INDEX api_keys_org ON api_keys(organization_uuid);

CREATE TABLE clients (
  uuid TEXT PRIMARY KEY,
  organization_uuid TEXT NOT NULL REFERENCES organizations(uuid) ON DELETE CASCADE,
  external_id TEXT,
  metadata TEXT,
  created TEXT NOT NULL,
  modified TEXT NOT NULL
);
CREATE INDEX clients_org ON clients(organization_uuid, created);

CREATE TABLE portfolio_configs (
  uuid TEXT PRIMARY KEY,
  organization_uuid TEXT NOT NULL REFERENCES organizations(uuid) ON DELETE CASCADE,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  document TEXT NOT NULL,
  created TEXT NOT NULL,
  modified TEXT NOT NULL
);
CREATE INDEX portfolio_configs_org ON portfolio_configs(organization_uuid, created);

CREATE TABLE asset_classes (
  uuid TEXT PRIMARY KEY,
  organization_uuid TEXT NOT NULL REFERENCES organizations(uuid) ON DELETE CASCADE,
  name TEXT NOT NULL,
  document TEXT NOT NULL,
  archived_at TEXT,
  created TEXT NOT NULL,
  modified TEXT NOT NULL
);
CREATE INDEX asset_classes_org ON asset_classes(organization_uuid, created);

CREATE TABLE accounts (
  uuid TEXT PRIMARY KEY,
  organization_uuid TEXT NOT NULL REFERENCES organizations(uuid) ON DELETE CASCADE,
  client_uuid TEXT NOT NULL REFERENCES clients(uuid) ON DELETE CASCADE,
  external_id TEXT,
  name TEXT,
  cash_value_usd TEXT NOT NULL DEFAULT '0',
  non_tradable_assets_value TEXT NOT NULL DEFAULT '0',
  liabilities_value TEXT NOT NULL DEFAULT '0',
  portfolio_config_uuid TEXT REFERENCES portfolio_configs(uuid) ON DELETE SET NULL,
  customization_config TEXT,
  metadata TEXT,
  is_read_only INTEGER NOT NULL DEFAULT 0,
  created TEXT NOT NULL,
  modified TEXT NOT NULL
);
CREATE INDEX accounts_client ON accounts(client_uuid, created);
CREATE INDEX accounts_org ON accounts(organization_uuid);

CREATE TABLE account_asset_class_settings (
  account_uuid TEXT NOT NULL REFERENCES accounts(uuid) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  asset_class_uuid TEXT NOT NULL REFERENCES asset_classes(uuid),
  direct_indexing_enabled INTEGER NOT NULL DEFAULT 0,
  implementation_sleeve_uuid TEXT REFERENCES asset_classes(uuid),
  PRIMARY KEY (account_uuid, position)
);

CREATE TABLE tax_lots (
  uuid TEXT PRIMARY KEY,
  account_uuid TEXT NOT NULL REFERENCES accounts(uuid) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  theme_asset_id TEXT NOT NULL,
  quantity TEXT NOT NULL,
  cost_basis TEXT NOT NULL,
  cost_basis_unit TEXT NOT NULL DEFAULT 'per_share',
  cost_basis_currency TEXT NOT NULL DEFAULT 'USD',
  fx_rate TEXT NOT NULL DEFAULT '1',
  trade_date TEXT NOT NULL,
  holding_period_start TEXT,
  wash_sale_date TEXT,
  last_sold_for_loss_date TEXT
);
CREATE INDEX tax_lots_account ON tax_lots(account_uuid, position);

CREATE TABLE themes (
  uuid TEXT PRIMARY KEY,
  organization_uuid TEXT NOT NULL REFERENCES organizations(uuid) ON DELETE CASCADE,
  name TEXT NOT NULL,
  created TEXT NOT NULL,
  modified TEXT NOT NULL
);
CREATE INDEX themes_org ON themes(organization_uuid, created);

CREATE TABLE theme_revisions (
  theme_uuid TEXT NOT NULL REFERENCES themes(uuid) ON DELETE CASCADE,
  revision TEXT NOT NULL,
  methodology TEXT NOT NULL,
  published_at TEXT,
  PRIMARY KEY (theme_uuid, revision)
);

CREATE TABLE theme_snapshots (
  theme_uuid TEXT NOT NULL,
  revision TEXT NOT NULL,
  as_of_date TEXT NOT NULL,
  total_weight REAL NOT NULL,
  constituents TEXT NOT NULL,
  created TEXT NOT NULL,
  PRIMARY KEY (theme_uuid, revision, as_of_date),
  FOREIGN KEY (theme_uuid, revision) REFERENCES theme_revisions(theme_uuid, revision) ON DELETE CASCADE
);

CREATE TABLE proposals (
  uuid TEXT PRIMARY KEY,
  organization_uuid TEXT NOT NULL REFERENCES organizations(uuid) ON DELETE CASCADE,
  account_uuid TEXT NOT NULL REFERENCES accounts(uuid) ON DELETE CASCADE,
  request TEXT NOT NULL,
  response TEXT NOT NULL,
  created TEXT NOT NULL
);
CREATE INDEX proposals_account ON proposals(account_uuid, created);

CREATE TABLE backtest_jobs (
  id TEXT PRIMARY KEY,
  organization_uuid TEXT NOT NULL REFERENCES organizations(uuid) ON DELETE CASCADE,
  account_uuid TEXT NOT NULL REFERENCES accounts(uuid) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN ('PENDING', 'RUNNING', 'SUCCESS', 'FAILURE')),
  params TEXT NOT NULL,
  resolved_params TEXT NOT NULL,
  progress TEXT,
  result TEXT,
  error_message TEXT,
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0,
  lease_owner TEXT,
  heartbeat_at TEXT,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT
);
CREATE INDEX backtest_jobs_account ON backtest_jobs(account_uuid, created_at);
CREATE INDEX backtest_jobs_status ON backtest_jobs(status, created_at);

-- Market data (shared by every organization of the store file)
CREATE TABLE securities (
  theme_asset_id TEXT PRIMARY KEY,
  symbol TEXT NOT NULL,
  mic TEXT NOT NULL,
  name TEXT NOT NULL,
  currency TEXT NOT NULL,
  country TEXT NOT NULL,
  asset_type TEXT NOT NULL,
  sector INTEGER,
  industry_group INTEGER,
  industry INTEGER,
  sub_industry INTEGER,
  sic_code INTEGER,
  shares_outstanding REAL,
  description TEXT,
  listed_from TEXT,
  delisted_on TEXT
);
CREATE INDEX securities_symbol ON securities(symbol);

CREATE TABLE prices (
  theme_asset_id TEXT NOT NULL,
  date TEXT NOT NULL,
  open REAL, high REAL, low REAL,
  close REAL NOT NULL,
  adj_close REAL,
  volume REAL,
  PRIMARY KEY (theme_asset_id, date)
) WITHOUT ROWID;

-- Every date with at least one price (kept by the price writers): the trading calendar of the store. A separate
-- table instead of an index on prices(date), whose random inserts made bulk imports three times slower.
CREATE TABLE trading_dates (
  date TEXT PRIMARY KEY
) WITHOUT ROWID;

CREATE TABLE splits (
  theme_asset_id TEXT NOT NULL,
  date TEXT NOT NULL,
  ratio REAL NOT NULL,
  PRIMARY KEY (theme_asset_id, date)
) WITHOUT ROWID;

CREATE TABLE dividends (
  theme_asset_id TEXT NOT NULL,
  ex_date TEXT NOT NULL,
  amount REAL NOT NULL,
  PRIMARY KEY (theme_asset_id, ex_date)
) WITHOUT ROWID;

CREATE TABLE fx_rates (
  currency TEXT NOT NULL,
  date TEXT NOT NULL,
  per_usd REAL NOT NULL,
  PRIMARY KEY (currency, date)
) WITHOUT ROWID;

CREATE TABLE characteristics (
  name TEXT NOT NULL,
  theme_asset_id TEXT NOT NULL,
  date TEXT NOT NULL,
  value REAL NOT NULL,
  PRIMARY KEY (name, theme_asset_id, date)
) WITHOUT ROWID;

CREATE TABLE indexes (
  identifier TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  currency TEXT NOT NULL,
  description TEXT
);

CREATE TABLE index_levels (
  identifier TEXT NOT NULL REFERENCES indexes(identifier) ON DELETE CASCADE,
  date TEXT NOT NULL,
  level REAL NOT NULL,
  PRIMARY KEY (identifier, date)
) WITHOUT ROWID;

CREATE TABLE index_weights (
  identifier TEXT NOT NULL REFERENCES indexes(identifier) ON DELETE CASCADE,
  date TEXT NOT NULL,
  theme_asset_id TEXT NOT NULL,
  weight REAL NOT NULL,
  PRIMARY KEY (identifier, date, theme_asset_id)
) WITHOUT ROWID;

CREATE TABLE market_imports (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  source TEXT NOT NULL,
  rows INTEGER NOT NULL,
  summary TEXT NOT NULL,
  created TEXT NOT NULL
);
`,
  },
  {
    version: 2,
    description:
      "accounts.lots_token: a random token replaced by triggers whenever one of the account's tax lots changes",
    // Readers that keep an account's converted lots in memory compare this token instead of reading every lot
    // row again (src/service/proposals.ts). Triggers, not repository code, replace it, so that no write path can
    // forget; a random value (not a counter) stays correct across rolled-back transactions, because a rollback
    // restores the token together with the lots it stands for. NULL (an account never given lots) is never
    // reused by readers.
    sql: `
ALTER TABLE accounts ADD COLUMN lots_token BLOB;
UPDATE accounts SET lots_token = randomblob(16);
CREATE TRIGGER tax_lots_token_insert AFTER INSERT ON tax_lots BEGIN
  UPDATE accounts SET lots_token = randomblob(16) WHERE uuid = NEW.account_uuid;
END;
CREATE TRIGGER tax_lots_token_update AFTER UPDATE ON tax_lots BEGIN
  UPDATE accounts SET lots_token = randomblob(16) WHERE uuid IN (OLD.account_uuid, NEW.account_uuid);
END;
CREATE TRIGGER tax_lots_token_delete AFTER DELETE ON tax_lots BEGIN
  UPDATE accounts SET lots_token = randomblob(16) WHERE uuid = OLD.account_uuid;
END;
`,
  },
  {
    version: 3,
    description:
      "risk_models: an organization's uploaded custom and vendor risk models, each dated (point in time)",
    // The model is one JSON document (already validated, annualized, in fractions, PSD-repaired) read whole by the
    // optimizer; the counts and warnings are columns so that listing models never parses the matrices. Several
    // models of a kind coexist: the optimizer takes the newest one dated on or before its as-of date.
    sql: `
CREATE TABLE risk_models (
  uuid TEXT PRIMARY KEY,
  organization_uuid TEXT NOT NULL REFERENCES organizations(uuid) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('custom', 'vendor')),
  name TEXT NOT NULL,
  as_of_date TEXT NOT NULL,
  asset_count INTEGER NOT NULL,
  factor_count INTEGER NOT NULL,
  warnings TEXT NOT NULL,
  document TEXT NOT NULL,
  created TEXT NOT NULL
);
CREATE INDEX risk_models_org_kind_date ON risk_models(organization_uuid, kind, as_of_date);
`,
  },
  {
    version: 4,
    description:
      "rebalance_runs and rebalance_run_accounts: batch rebalances over many accounts, one outcome row per account",
    // A run is keyed by (organization, as-of date, when, selection) in run_key; several runs may share a key (a
    // forced re-run), readers take the newest. The primary key of rebalance_run_accounts makes "one outcome per
    // account and run" a constraint, so a resumed or concurrent run cannot record (or store a proposal for) an
    // account twice: the outcome row is written in the proposal's transaction.
    sql: `
CREATE TABLE rebalance_runs (
  uuid TEXT PRIMARY KEY,
  organization_uuid TEXT NOT NULL REFERENCES organizations(uuid) ON DELETE CASCADE,
  run_key TEXT NOT NULL,
  as_of_date TEXT NOT NULL,
  run_when TEXT NOT NULL CHECK (run_when IN ('breached', 'harvest', 'always')),
  selection TEXT NOT NULL,
  account_uuids TEXT NOT NULL,
  forced INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'completed')),
  created TEXT NOT NULL,
  finished TEXT
);
CREATE INDEX rebalance_runs_key ON rebalance_runs(organization_uuid, run_key, created);
CREATE INDEX rebalance_runs_org_date ON rebalance_runs(organization_uuid, as_of_date);

CREATE TABLE rebalance_run_accounts (
  run_uuid TEXT NOT NULL REFERENCES rebalance_runs(uuid) ON DELETE CASCADE,
  account_uuid TEXT NOT NULL,
  position INTEGER NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('created', 'skipped', 'failed')),
  proposal_uuid TEXT,
  reason TEXT,
  error_code TEXT,
  error_message TEXT,
  recorded TEXT NOT NULL,
  PRIMARY KEY (run_uuid, account_uuid)
) WITHOUT ROWID;
CREATE INDEX rebalance_run_accounts_created ON rebalance_run_accounts(account_uuid, outcome);
`,
  },
  {
    version: 5,
    description:
      "backtest_jobs.kind: the job table holds scan jobs too ('backtest' default, 'scan' with no account)",
    // SQLite cannot drop NOT NULL from a column, so the table is rebuilt (create, copy, drop, rename, indexes);
    // every existing row becomes a 'backtest' job with its account. Nothing references backtest_jobs, so dropping
    // it under foreign_keys = ON is safe. A backtest job must name its account; a scan job names none (its
    // selection is in params).
    sql: `
CREATE TABLE backtest_jobs_v5 (
  id TEXT PRIMARY KEY,
  organization_uuid TEXT NOT NULL REFERENCES organizations(uuid) ON DELETE CASCADE,
  kind TEXT NOT NULL DEFAULT 'backtest' CHECK (kind IN ('backtest', 'scan')),
  account_uuid TEXT REFERENCES accounts(uuid) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN ('PENDING', 'RUNNING', 'SUCCESS', 'FAILURE')),
  params TEXT NOT NULL,
  resolved_params TEXT NOT NULL,
  progress TEXT,
  result TEXT,
  error_message TEXT,
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0,
  lease_owner TEXT,
  heartbeat_at TEXT,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT,
  CHECK (kind = 'scan' OR account_uuid IS NOT NULL)
);
INSERT INTO backtest_jobs_v5 (id, organization_uuid, kind, account_uuid, status, params, resolved_params, progress,
  result, error_message, cancel_requested, attempts, lease_owner, heartbeat_at, created_at, started_at, finished_at)
SELECT id, organization_uuid, 'backtest', account_uuid, status, params, resolved_params, progress,
  result, error_message, cancel_requested, attempts, lease_owner, heartbeat_at, created_at, started_at, finished_at
FROM backtest_jobs;
DROP TABLE backtest_jobs;
ALTER TABLE backtest_jobs_v5 RENAME TO backtest_jobs;
CREATE INDEX backtest_jobs_account ON backtest_jobs(account_uuid, created_at);
CREATE INDEX backtest_jobs_status ON backtest_jobs(status, created_at);
CREATE INDEX backtest_jobs_org_kind ON backtest_jobs(organization_uuid, kind, created_at);
`,
  },
  {
    version: 6,
    description:
      "the account ledger: tax_lots.side (short lots), executions, realized_lots, corporate_actions and their applications",
    // Short lots live in tax_lots (side 'short': quantity = shares owed, cost_basis = net short-sale proceeds, unit
    // 'total', trade_date = the short-sale date) so the lots token triggers cover them; the long-lot reads filter
    // side = 'long'. executions: one row per applied execution, the caller's id unique per account (idempotency),
    // seq its place in the account's application order (same-date executions replay in that order).
    // realized_lots: one row per realized lot part (the core's LedgerEntry: its 8949 columns, plus the whole entry
    // as JSON in `record` so that later wash-sale matching reads it back exactly), keyed by (account, entry id);
    // client_uuid is copied from the account for the household reads. corporate_actions are market-level (no
    // organization), their applications one row per (action, account).
    sql: `
ALTER TABLE tax_lots ADD COLUMN side TEXT NOT NULL DEFAULT 'long' CHECK (side IN ('long', 'short'));

CREATE TABLE executions (
  account_uuid TEXT NOT NULL REFERENCES accounts(uuid) ON DELETE CASCADE,
  execution_id TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('proposal', 'trade_file', 'api')),
  proposal_uuid TEXT,
  order_index INTEGER,
  kind TEXT NOT NULL CHECK (kind IN ('buy', 'sell', 'short_order', 'short_cover')),
  theme_asset_id TEXT NOT NULL,
  trade_date TEXT NOT NULL,
  quantity TEXT NOT NULL,
  price TEXT NOT NULL,
  fees TEXT NOT NULL DEFAULT '0',
  currency TEXT NOT NULL DEFAULT 'USD',
  fx_rate TEXT NOT NULL DEFAULT '1',
  lots TEXT,
  lot_id TEXT,
  applied_at TEXT NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (account_uuid, execution_id)
) WITHOUT ROWID;
CREATE INDEX executions_account_date ON executions(account_uuid, trade_date, seq);

CREATE TABLE realized_lots (
  account_uuid TEXT NOT NULL REFERENCES accounts(uuid) ON DELETE CASCADE,
  entry_id TEXT NOT NULL,
  client_uuid TEXT NOT NULL,
  source_id TEXT NOT NULL,
  lot_id TEXT NOT NULL,
  theme_asset_id TEXT NOT NULL,
  side TEXT NOT NULL CHECK (side IN ('long', 'short')),
  quantity TEXT NOT NULL,
  date_acquired TEXT NOT NULL,
  date_sold TEXT NOT NULL,
  open_date TEXT,
  proceeds TEXT NOT NULL,
  cost_basis TEXT NOT NULL,
  adjustment_code TEXT NOT NULL CHECK (adjustment_code IN ('', 'W')),
  adjustment TEXT NOT NULL,
  gain TEXT NOT NULL,
  term TEXT NOT NULL CHECK (term IN ('short_term', 'long_term')),
  loss INTEGER NOT NULL,
  record TEXT NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (account_uuid, entry_id)
) WITHOUT ROWID;
CREATE INDEX realized_lots_account_date ON realized_lots(account_uuid, date_sold);
CREATE INDEX realized_lots_client_date ON realized_lots(client_uuid, date_sold);

CREATE TABLE corporate_actions (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL
    CHECK (kind IN ('split', 'cash_dividend', 'spin_off', 'symbol_change', 'cash_merger', 'stock_merger')),
  theme_asset_id TEXT NOT NULL,
  ex_date TEXT NOT NULL,
  pay_date TEXT,
  params TEXT NOT NULL
);
CREATE INDEX corporate_actions_date ON corporate_actions(ex_date, id);
CREATE INDEX corporate_actions_listing ON corporate_actions(theme_asset_id, ex_date);

CREATE TABLE corporate_action_applications (
  action_id TEXT NOT NULL REFERENCES corporate_actions(id),
  account_uuid TEXT NOT NULL REFERENCES accounts(uuid) ON DELETE CASCADE,
  applied_at TEXT NOT NULL,
  PRIMARY KEY (action_id, account_uuid)
) WITHOUT ROWID;
CREATE INDEX corporate_action_applications_account ON corporate_action_applications(account_uuid, applied_at);
`,
  },
  {
    version: 7,
    description:
      "backtest_jobs.kind: rebalance-run jobs ('rebalance_run', no account: the run's shard is in params)",
    // The CHECK constraints change, which SQLite can only do by rebuilding the table (as migration 5 did); every row
    // keeps its kind. Only a backtest job names an account.
    sql: `
CREATE TABLE backtest_jobs_v7 (
  id TEXT PRIMARY KEY,
  organization_uuid TEXT NOT NULL REFERENCES organizations(uuid) ON DELETE CASCADE,
  kind TEXT NOT NULL DEFAULT 'backtest' CHECK (kind IN ('backtest', 'scan', 'rebalance_run')),
  account_uuid TEXT REFERENCES accounts(uuid) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN ('PENDING', 'RUNNING', 'SUCCESS', 'FAILURE')),
  params TEXT NOT NULL,
  resolved_params TEXT NOT NULL,
  progress TEXT,
  result TEXT,
  error_message TEXT,
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0,
  lease_owner TEXT,
  heartbeat_at TEXT,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT,
  CHECK (kind <> 'backtest' OR account_uuid IS NOT NULL)
);
INSERT INTO backtest_jobs_v7 (id, organization_uuid, kind, account_uuid, status, params, resolved_params, progress,
  result, error_message, cancel_requested, attempts, lease_owner, heartbeat_at, created_at, started_at, finished_at)
SELECT id, organization_uuid, kind, account_uuid, status, params, resolved_params, progress,
  result, error_message, cancel_requested, attempts, lease_owner, heartbeat_at, created_at, started_at, finished_at
FROM backtest_jobs;
DROP TABLE backtest_jobs;
ALTER TABLE backtest_jobs_v7 RENAME TO backtest_jobs;
CREATE INDEX backtest_jobs_account ON backtest_jobs(account_uuid, created_at);
CREATE INDEX backtest_jobs_status ON backtest_jobs(status, created_at);
CREATE INDEX backtest_jobs_org_kind ON backtest_jobs(organization_uuid, kind, created_at);
`,
  },
  {
    version: 8,
    description: "realized_lots: a rowid table (entry ids unique per account by a UNIQUE index)",
    // Rows are ~900 bytes (the entry's JSON record). In the WITHOUT ROWID table of migration 6 they sat in the
    // primary key's b-tree, ordered by (account, entry id), and entry ids start with the execution id, so the
    // ~2,000 rows of one batch went to scattered places of wide, 4-row pages: page splits, and about twice the
    // pages written to the WAL at commit. A rowid table appends them; the UNIQUE index keeps the upsert's
    // ON CONFLICT target and the lookups by key. Same columns in the same order (SELECT * reads are unchanged);
    // every row is copied, in the account's seq order.
    sql: `
CREATE TABLE realized_lots_v8 (
  account_uuid TEXT NOT NULL REFERENCES accounts(uuid) ON DELETE CASCADE,
  entry_id TEXT NOT NULL,
  client_uuid TEXT NOT NULL,
  source_id TEXT NOT NULL,
  lot_id TEXT NOT NULL,
  theme_asset_id TEXT NOT NULL,
  side TEXT NOT NULL CHECK (side IN ('long', 'short')),
  quantity TEXT NOT NULL,
  date_acquired TEXT NOT NULL,
  date_sold TEXT NOT NULL,
  open_date TEXT,
  proceeds TEXT NOT NULL,
  cost_basis TEXT NOT NULL,
  adjustment_code TEXT NOT NULL CHECK (adjustment_code IN ('', 'W')),
  adjustment TEXT NOT NULL,
  gain TEXT NOT NULL,
  term TEXT NOT NULL CHECK (term IN ('short_term', 'long_term')),
  loss INTEGER NOT NULL,
  record TEXT NOT NULL,
  seq INTEGER NOT NULL,
  UNIQUE (account_uuid, entry_id)
);
INSERT INTO realized_lots_v8 (account_uuid, entry_id, client_uuid, source_id, lot_id, theme_asset_id, side, quantity,
  date_acquired, date_sold, open_date, proceeds, cost_basis, adjustment_code, adjustment, gain, term, loss, record, seq)
SELECT account_uuid, entry_id, client_uuid, source_id, lot_id, theme_asset_id, side, quantity,
  date_acquired, date_sold, open_date, proceeds, cost_basis, adjustment_code, adjustment, gain, term, loss, record, seq
FROM realized_lots ORDER BY account_uuid, seq;
DROP TABLE realized_lots;
ALTER TABLE realized_lots_v8 RENAME TO realized_lots;
CREATE INDEX realized_lots_account_date ON realized_lots(account_uuid, date_sold);
CREATE INDEX realized_lots_client_date ON realized_lots(client_uuid, date_sold);
`,
  },
];

/** The schema version this build of lotwise writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
