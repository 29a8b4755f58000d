/**
 * @module store/pg/migrations
 * The PostgreSQL schema, in the version steps of the SQLite migrations (src/store/migrations.ts): version N here
 * holds the same tables, columns, keys, constraints and indexes as version N there, in PostgreSQL's types.
 *
 * - Money and lot quantities (`accounts.cash_value_usd`, `non_tradable_assets_value`, `liabilities_value`,
 *   `tax_lots.quantity`, `cost_basis`, `fx_rate`) are `numeric`: exact, and read back as the decimal text written
 *   (numeric keeps the scale, so "10.50" stays "10.50").
 * - Prices, rates, weights and characteristics are `double precision` (SQLite REAL); flags are `boolean`.
 * - Timestamps, dates, uuids and JSON documents stay `text` (the record shapes and the JSON text are those of
 *   SQLite; `json`/`jsonb` would reorder or re-space documents). Text columns use the "C" collation so that
 *   ORDER BY sorts by code point, as SQLite's BINARY collation does, whatever the database's locale.
 * - Tables whose SQLite reads order by `rowid` (proposals, risk_models, rebalance_runs) get a `seq` identity
 *   column, the insertion order.
 *
 * Bookkeeping that SQLite keeps in pragmas lives in tables: `lotwise_schema` (one row per applied version),
 * `lotwise_changes` (the change token, below) and `lot_import_staging` (staged tax-lot imports).
 *
 * **Change token.** A statement-level trigger on every data table inserts one row per writing transaction into
 * `lotwise_changes` (keyed by the transaction id, so concurrent writers never touch the same row and never wait
 * for each other); the token is the sum of `n` over the table. A commit adds 1, a rollback nothing, and compaction
 * folds old rows into the row of transaction 0 within one transaction (the sum does not move), so equal tokens read
 * by any connection mean that no write committed in between. Compaction runs in the trigger of one writing
 * transaction in 256 and on token reads that find over 1,000 rows, one at a time (advisory lock LOCK_SPACE, 2).
 *
 * **Lots token.** Statement-level triggers with transition tables replace `accounts.lots_token` (16 random bytes)
 * of every account whose lots a statement inserted, updated or deleted: once per statement, not once per row.
 */

/** First key of the store's advisory locks ("LWS1"); (LOCK_SPACE, 2) is the lock of change-token compaction. */
export const LOCK_SPACE = 0x4c575331;

/** A text column sorting by code point (SQLite's BINARY collation). */
const T = 'text COLLATE "C"';

export interface PgMigration {
  version: number;
  description: string;
  sql: string;
}

/** `CREATE TRIGGER` statements that note every write to `tables` in `lotwise_changes`. */
function changeTriggers(tables: readonly string[]): string {
  return tables
    .map(
      (t) =>
        `CREATE TRIGGER ${t}_lotwise_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${t}
         FOR EACH STATEMENT EXECUTE FUNCTION lotwise_note_change();`,
    )
    .join("\n");
}

export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    description:
      "organizations, keys, clients, accounts, lots, configurations, asset classes, themes, proposals, jobs, market data",
    sql: `
CREATE TABLE lotwise_changes (
  tx bigint PRIMARY KEY,
  n bigint NOT NULL
);
INSERT INTO lotwise_changes (tx, n) VALUES (0, 0);
CREATE FUNCTION lotwise_note_change() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO lotwise_changes (tx, n) VALUES (txid_current(), 1) ON CONFLICT (tx) DO NOTHING;
  -- One writing transaction in 256 folds the table (see the module comment), unless another compaction runs.
  IF txid_current() % 256 = 0 AND pg_try_advisory_xact_lock(${LOCK_SPACE}, 2) THEN
    WITH gone AS (DELETE FROM lotwise_changes WHERE tx <> 0 RETURNING n)
    UPDATE lotwise_changes SET n = n + (SELECT coalesce(sum(n), 0) FROM gone) WHERE tx = 0;
  END IF;
  RETURN NULL;
END $$;

CREATE UNLOGGED TABLE lot_import_staging (
  import_id ${T} NOT NULL,
  seq integer NOT NULL,
  uuid ${T} NOT NULL,
  theme_asset_id ${T} NOT NULL,
  quantity numeric NOT NULL,
  cost_basis numeric NOT NULL,
  cost_basis_unit ${T} NOT NULL,
  cost_basis_currency ${T} NOT NULL,
  fx_rate numeric NOT NULL,
  trade_date ${T} NOT NULL,
  holding_period_start ${T},
  wash_sale_date ${T},
  last_sold_for_loss_date ${T},
  staged_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (import_id, seq)
);

CREATE TABLE organizations (
  uuid ${T} PRIMARY KEY,
  name ${T} NOT NULL,
  created ${T} NOT NULL,
  modified ${T} NOT NULL
);

CREATE TABLE api_keys (
  id ${T} PRIMARY KEY,
  organization_uuid ${T} NOT NULL REFERENCES organizations(uuid) ON DELETE CASCADE,
  prefix ${T} NOT NULL,
  hash ${T} NOT NULL UNIQUE,
  label ${T},
  created ${T} NOT NULL,
  last_used_at ${T},
  revoked_at ${T}
);
CREATE INDEX api_keys_org ON api_keys(organization_uuid);

CREATE TABLE clients (
  uuid ${T} PRIMARY KEY,
  organization_uuid ${T} NOT NULL REFERENCES organizations(uuid) ON DELETE CASCADE,
  external_id ${T},
  metadata ${T},
  created ${T} NOT NULL,
  modified ${T} NOT NULL
);
CREATE INDEX clients_org ON clients(organization_uuid, created);

CREATE TABLE portfolio_configs (
  uuid ${T} PRIMARY KEY,
  organization_uuid ${T} NOT NULL REFERENCES organizations(uuid) ON DELETE CASCADE,
  name ${T} NOT NULL,
  status ${T} NOT NULL,
  document ${T} NOT NULL,
  created ${T} NOT NULL,
  modified ${T} NOT NULL
);
CREATE INDEX portfolio_configs_org ON portfolio_configs(organization_uuid, created);

CREATE TABLE asset_classes (
  uuid ${T} PRIMARY KEY,
  organization_uuid ${T} NOT NULL REFERENCES organizations(uuid) ON DELETE CASCADE,
  name ${T} NOT NULL,
  document ${T} NOT NULL,
  archived_at ${T},
  created ${T} NOT NULL,
  modified ${T} NOT NULL
);
CREATE INDEX asset_classes_org ON asset_classes(organization_uuid, created);

CREATE TABLE accounts (
  uuid ${T} PRIMARY KEY,
  organization_uuid ${T} NOT NULL REFERENCES organizations(uuid) ON DELETE CASCADE,
  client_uuid ${T} NOT NULL REFERENCES clients(uuid) ON DELETE CASCADE,
  external_id ${T},
  name ${T},
  cash_value_usd numeric NOT NULL DEFAULT 0,
  non_tradable_assets_value numeric NOT NULL DEFAULT 0,
  liabilities_value numeric NOT NULL DEFAULT 0,
  portfolio_config_uuid ${T} REFERENCES portfolio_configs(uuid) ON DELETE SET NULL,
  customization_config ${T},
  metadata ${T},
  is_read_only boolean NOT NULL DEFAULT false,
  created ${T} NOT NULL,
  modified ${T} NOT NULL
);
CREATE INDEX accounts_client ON accounts(client_uuid, created);
CREATE INDEX accounts_org ON accounts(organization_uuid);

CREATE TABLE account_asset_class_settings (
  account_uuid ${T} NOT NULL REFERENCES accounts(uuid) ON DELETE CASCADE,
  position integer NOT NULL,
  asset_class_uuid ${T} NOT NULL REFERENCES asset_classes(uuid),
  direct_indexing_enabled boolean NOT NULL DEFAULT false,
  implementation_sleeve_uuid ${T} REFERENCES asset_classes(uuid),
  PRIMARY KEY (account_uuid, position)
);

CREATE TABLE tax_lots (
  uuid ${T} PRIMARY KEY,
  account_uuid ${T} NOT NULL REFERENCES accounts(uuid) ON DELETE CASCADE,
  position integer NOT NULL,
  theme_asset_id ${T} NOT NULL,
  quantity numeric NOT NULL,
  cost_basis numeric NOT NULL,
  cost_basis_unit ${T} NOT NULL DEFAULT 'per_share',
  cost_basis_currency ${T} NOT NULL DEFAULT 'USD',
  fx_rate numeric NOT NULL DEFAULT 1,
  trade_date ${T} NOT NULL,
  holding_period_start ${T},
  wash_sale_date ${T},
  last_sold_for_loss_date ${T}
);
CREATE INDEX tax_lots_account ON tax_lots(account_uuid, position);

CREATE TABLE themes (
  uuid ${T} PRIMARY KEY,
  organization_uuid ${T} NOT NULL REFERENCES organizations(uuid) ON DELETE CASCADE,
  name ${T} NOT NULL,
  created ${T} NOT NULL,
  modified ${T} NOT NULL
);
CREATE INDEX themes_org ON themes(organization_uuid, created);

CREATE TABLE theme_revisions (
  theme_uuid ${T} NOT NULL REFERENCES themes(uuid) ON DELETE CASCADE,
  revision ${T} NOT NULL,
  methodology ${T} NOT NULL,
  published_at ${T},
  PRIMARY KEY (theme_uuid, revision)
);

CREATE TABLE theme_snapshots (
  theme_uuid ${T} NOT NULL,
  revision ${T} NOT NULL,
  as_of_date ${T} NOT NULL,
  total_weight double precision NOT NULL,
  constituents ${T} NOT NULL,
  created ${T} NOT NULL,
  PRIMARY KEY (theme_uuid, revision, as_of_date),
  FOREIGN KEY (theme_uuid, revision) REFERENCES theme_revisions(theme_uuid, revision) ON DELETE CASCADE
);

CREATE TABLE proposals (
  uuid ${T} PRIMARY KEY,
  organization_uuid ${T} NOT NULL REFERENCES organizations(uuid) ON DELETE CASCADE,
  account_uuid ${T} NOT NULL REFERENCES accounts(uuid) ON DELETE CASCADE,
  request ${T} NOT NULL,
  response ${T} NOT NULL,
  created ${T} NOT NULL,
  seq bigint GENERATED BY DEFAULT AS IDENTITY UNIQUE
);
CREATE INDEX proposals_account ON proposals(account_uuid, created);

CREATE TABLE backtest_jobs (
  id ${T} PRIMARY KEY,
  organization_uuid ${T} NOT NULL REFERENCES organizations(uuid) ON DELETE CASCADE,
  account_uuid ${T} NOT NULL REFERENCES accounts(uuid) ON DELETE CASCADE,
  status ${T} NOT NULL CHECK (status IN ('PENDING', 'RUNNING', 'SUCCESS', 'FAILURE')),
  params ${T} NOT NULL,
  resolved_params ${T} NOT NULL,
  progress ${T},
  result ${T},
  error_message ${T},
  cancel_requested boolean NOT NULL DEFAULT false,
  attempts integer NOT NULL DEFAULT 0,
  lease_owner ${T},
  heartbeat_at ${T},
  created_at ${T} NOT NULL,
  started_at ${T},
  finished_at ${T}
);
CREATE INDEX backtest_jobs_account ON backtest_jobs(account_uuid, created_at);
CREATE INDEX backtest_jobs_status ON backtest_jobs(status, created_at);

CREATE TABLE securities (
  theme_asset_id ${T} PRIMARY KEY,
  symbol ${T} NOT NULL,
  mic ${T} NOT NULL,
  name ${T} NOT NULL,
  currency ${T} NOT NULL,
  country ${T} NOT NULL,
  asset_type ${T} NOT NULL,
  sector integer,
  industry_group integer,
  industry integer,
  sub_industry integer,
  sic_code integer,
  shares_outstanding double precision,
  description ${T},
  listed_from ${T},
  delisted_on ${T}
);
CREATE INDEX securities_symbol ON securities(symbol);

CREATE TABLE prices (
  theme_asset_id ${T} NOT NULL,
  date ${T} NOT NULL,
  open double precision, high double precision, low double precision,
  close double precision NOT NULL,
  adj_close double precision,
  volume double precision,
  PRIMARY KEY (theme_asset_id, date)
);

CREATE TABLE trading_dates (
  date ${T} PRIMARY KEY
);

CREATE TABLE splits (
  theme_asset_id ${T} NOT NULL,
  date ${T} NOT NULL,
  ratio double precision NOT NULL,
  PRIMARY KEY (theme_asset_id, date)
);

CREATE TABLE dividends (
  theme_asset_id ${T} NOT NULL,
  ex_date ${T} NOT NULL,
  amount double precision NOT NULL,
  PRIMARY KEY (theme_asset_id, ex_date)
);

CREATE TABLE fx_rates (
  currency ${T} NOT NULL,
  date ${T} NOT NULL,
  per_usd double precision NOT NULL,
  PRIMARY KEY (currency, date)
);

CREATE TABLE characteristics (
  name ${T} NOT NULL,
  theme_asset_id ${T} NOT NULL,
  date ${T} NOT NULL,
  value double precision NOT NULL,
  PRIMARY KEY (name, theme_asset_id, date)
);

CREATE TABLE indexes (
  identifier ${T} PRIMARY KEY,
  name ${T} NOT NULL,
  currency ${T} NOT NULL,
  description ${T}
);

CREATE TABLE index_levels (
  identifier ${T} NOT NULL REFERENCES indexes(identifier) ON DELETE CASCADE,
  date ${T} NOT NULL,
  level double precision NOT NULL,
  PRIMARY KEY (identifier, date)
);

CREATE TABLE index_weights (
  identifier ${T} NOT NULL REFERENCES indexes(identifier) ON DELETE CASCADE,
  date ${T} NOT NULL,
  theme_asset_id ${T} NOT NULL,
  weight double precision NOT NULL,
  PRIMARY KEY (identifier, date, theme_asset_id)
);

CREATE TABLE market_imports (
  id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  kind ${T} NOT NULL,
  source ${T} NOT NULL,
  rows bigint NOT NULL,
  summary ${T} NOT NULL,
  created ${T} NOT NULL
);

-- Change plans of market imports (captureChanges): row triggers that stay idle unless the writing transaction set
-- lotwise.capture = 'on' (set_config(..., true): that transaction only); they fill temporary tables of the session.
CREATE FUNCTION lotwise_plan_security_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO pg_temp.plan_listings_added VALUES (NEW.theme_asset_id) ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
CREATE FUNCTION lotwise_plan_security_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO pg_temp.plan_listings_changed VALUES (NEW.theme_asset_id) ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
CREATE FUNCTION lotwise_plan_price_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO pg_temp.plan_price_changes VALUES (OLD.theme_asset_id, OLD.date, OLD.close, NEW.close)
    ON CONFLICT (theme_asset_id, date) DO UPDATE SET new = excluded.new;
  RETURN NULL;
END $$;
CREATE FUNCTION lotwise_plan_price_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_temp.plan_listings_before WHERE theme_asset_id = NEW.theme_asset_id) THEN
    INSERT INTO pg_temp.plan_price_inserts VALUES (NEW.theme_asset_id, 1)
      ON CONFLICT (theme_asset_id) DO UPDATE SET n = plan_price_inserts.n + 1;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER lotwise_plan_security_insert AFTER INSERT ON securities FOR EACH ROW
  WHEN (current_setting('lotwise.capture', true) = 'on') EXECUTE FUNCTION lotwise_plan_security_insert();
CREATE TRIGGER lotwise_plan_security_update AFTER UPDATE ON securities FOR EACH ROW
  WHEN (current_setting('lotwise.capture', true) = 'on' AND (
    OLD.symbol IS DISTINCT FROM NEW.symbol OR OLD.mic IS DISTINCT FROM NEW.mic OR OLD.name IS DISTINCT FROM NEW.name
    OR OLD.currency IS DISTINCT FROM NEW.currency OR OLD.country IS DISTINCT FROM NEW.country
    OR OLD.asset_type IS DISTINCT FROM NEW.asset_type OR OLD.sector IS DISTINCT FROM NEW.sector
    OR OLD.industry_group IS DISTINCT FROM NEW.industry_group OR OLD.industry IS DISTINCT FROM NEW.industry
    OR OLD.sub_industry IS DISTINCT FROM NEW.sub_industry OR OLD.sic_code IS DISTINCT FROM NEW.sic_code
    OR OLD.shares_outstanding IS DISTINCT FROM NEW.shares_outstanding
    OR OLD.listed_from IS DISTINCT FROM NEW.listed_from OR OLD.delisted_on IS DISTINCT FROM NEW.delisted_on))
  EXECUTE FUNCTION lotwise_plan_security_update();
CREATE TRIGGER lotwise_plan_price_update AFTER UPDATE OF close ON prices FOR EACH ROW
  WHEN (current_setting('lotwise.capture', true) = 'on' AND OLD.close IS DISTINCT FROM NEW.close)
  EXECUTE FUNCTION lotwise_plan_price_update();
CREATE TRIGGER lotwise_plan_price_insert AFTER INSERT ON prices FOR EACH ROW
  WHEN (current_setting('lotwise.capture', true) = 'on') EXECUTE FUNCTION lotwise_plan_price_insert();
${changeTriggers([
  "organizations",
  "api_keys",
  "clients",
  "portfolio_configs",
  "asset_classes",
  "accounts",
  "account_asset_class_settings",
  "tax_lots",
  "themes",
  "theme_revisions",
  "theme_snapshots",
  "proposals",
  "backtest_jobs",
  "securities",
  "prices",
  "trading_dates",
  "splits",
  "dividends",
  "fx_rates",
  "characteristics",
  "indexes",
  "index_levels",
  "index_weights",
  "market_imports",
])}
`,
  },
  {
    version: 2,
    description:
      "accounts.lots_token: a random token replaced by triggers whenever one of the account's tax lots changes",
    // One UPDATE per statement over the distinct accounts of its transition table (a 10,000-lot insert replaces one
    // token once, not 10,000 times). Random bytes, not a counter, for the reason of the SQLite migration.
    sql: `
ALTER TABLE accounts ADD COLUMN lots_token bytea;
UPDATE accounts SET lots_token = uuid_send(gen_random_uuid());
CREATE FUNCTION lotwise_lots_token_new() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  UPDATE accounts SET lots_token = uuid_send(gen_random_uuid())
  WHERE uuid IN (SELECT DISTINCT account_uuid FROM new_lots);
  RETURN NULL;
END $$;
CREATE FUNCTION lotwise_lots_token_old() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  UPDATE accounts SET lots_token = uuid_send(gen_random_uuid())
  WHERE uuid IN (SELECT DISTINCT account_uuid FROM old_lots);
  RETURN NULL;
END $$;
CREATE FUNCTION lotwise_lots_token_both() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  UPDATE accounts SET lots_token = uuid_send(gen_random_uuid())
  WHERE uuid IN (SELECT account_uuid FROM old_lots UNION SELECT account_uuid FROM new_lots);
  RETURN NULL;
END $$;
CREATE TRIGGER tax_lots_token_insert AFTER INSERT ON tax_lots REFERENCING NEW TABLE AS new_lots
  FOR EACH STATEMENT EXECUTE FUNCTION lotwise_lots_token_new();
CREATE TRIGGER tax_lots_token_update AFTER UPDATE ON tax_lots REFERENCING OLD TABLE AS old_lots NEW TABLE AS new_lots
  FOR EACH STATEMENT EXECUTE FUNCTION lotwise_lots_token_both();
CREATE TRIGGER tax_lots_token_delete AFTER DELETE ON tax_lots REFERENCING OLD TABLE AS old_lots
  FOR EACH STATEMENT EXECUTE FUNCTION lotwise_lots_token_old();
`,
  },
  {
    version: 3,
    description:
      "risk_models: an organization's uploaded custom and vendor risk models, each dated (point in time)",
    sql: `
CREATE TABLE risk_models (
  uuid ${T} PRIMARY KEY,
  organization_uuid ${T} NOT NULL REFERENCES organizations(uuid) ON DELETE CASCADE,
  kind ${T} NOT NULL CHECK (kind IN ('custom', 'vendor')),
  name ${T} NOT NULL,
  as_of_date ${T} NOT NULL,
  asset_count integer NOT NULL,
  factor_count integer NOT NULL,
  warnings ${T} NOT NULL,
  document ${T} NOT NULL,
  created ${T} NOT NULL,
  seq bigint GENERATED BY DEFAULT AS IDENTITY UNIQUE
);
CREATE INDEX risk_models_org_kind_date ON risk_models(organization_uuid, kind, as_of_date);
${changeTriggers(["risk_models"])}
`,
  },
  {
    version: 4,
    description:
      "rebalance_runs and rebalance_run_accounts: batch rebalances over many accounts, one outcome row per account",
    sql: `
CREATE TABLE rebalance_runs (
  uuid ${T} PRIMARY KEY,
  organization_uuid ${T} NOT NULL REFERENCES organizations(uuid) ON DELETE CASCADE,
  run_key ${T} NOT NULL,
  as_of_date ${T} NOT NULL,
  run_when ${T} NOT NULL CHECK (run_when IN ('breached', 'harvest', 'always')),
  selection ${T} NOT NULL,
  account_uuids ${T} NOT NULL,
  forced boolean NOT NULL,
  status ${T} NOT NULL CHECK (status IN ('running', 'completed')),
  created ${T} NOT NULL,
  finished ${T},
  seq bigint GENERATED BY DEFAULT AS IDENTITY UNIQUE
);
CREATE INDEX rebalance_runs_key ON rebalance_runs(organization_uuid, run_key, created);
CREATE INDEX rebalance_runs_org_date ON rebalance_runs(organization_uuid, as_of_date);

CREATE TABLE rebalance_run_accounts (
  run_uuid ${T} NOT NULL REFERENCES rebalance_runs(uuid) ON DELETE CASCADE,
  account_uuid ${T} NOT NULL,
  position integer NOT NULL,
  outcome ${T} NOT NULL CHECK (outcome IN ('created', 'skipped', 'failed')),
  proposal_uuid ${T},
  reason ${T},
  error_code ${T},
  error_message ${T},
  recorded ${T} NOT NULL,
  PRIMARY KEY (run_uuid, account_uuid)
);
CREATE INDEX rebalance_run_accounts_created ON rebalance_run_accounts(account_uuid, outcome);
${changeTriggers(["rebalance_runs", "rebalance_run_accounts"])}
`,
  },
  {
    version: 5,
    description:
      "backtest_jobs.kind: the job table holds scan jobs too ('backtest' default, 'scan' with no account)",
    // PostgreSQL drops a NOT NULL in place, so no rebuild is needed; existing rows become 'backtest' jobs.
    sql: `
ALTER TABLE backtest_jobs ADD COLUMN kind ${T} NOT NULL DEFAULT 'backtest' CHECK (kind IN ('backtest', 'scan'));
ALTER TABLE backtest_jobs ALTER COLUMN account_uuid DROP NOT NULL;
ALTER TABLE backtest_jobs ADD CONSTRAINT backtest_jobs_kind_account CHECK (kind = 'scan' OR account_uuid IS NOT NULL);
CREATE INDEX backtest_jobs_org_kind ON backtest_jobs(organization_uuid, kind, created_at);
`,
  },
  {
    version: 6,
    description:
      "the account ledger: tax_lots.side (short lots), executions, realized_lots, corporate_actions and their applications",
    // The SQLite migration 6 in PostgreSQL terms: money and quantities numeric (read back as written), flags boolean.
    sql: `
ALTER TABLE tax_lots ADD COLUMN side ${T} NOT NULL DEFAULT 'long' CHECK (side IN ('long', 'short'));

CREATE TABLE executions (
  account_uuid ${T} NOT NULL REFERENCES accounts(uuid) ON DELETE CASCADE,
  execution_id ${T} NOT NULL,
  source ${T} NOT NULL CHECK (source IN ('proposal', 'trade_file', 'api')),
  proposal_uuid ${T},
  order_index integer,
  kind ${T} NOT NULL CHECK (kind IN ('buy', 'sell', 'short_order', 'short_cover')),
  theme_asset_id ${T} NOT NULL,
  trade_date ${T} NOT NULL,
  quantity numeric NOT NULL,
  price numeric NOT NULL,
  fees numeric NOT NULL DEFAULT 0,
  currency ${T} NOT NULL DEFAULT 'USD',
  fx_rate numeric NOT NULL DEFAULT 1,
  lots ${T},
  lot_id ${T},
  applied_at ${T} NOT NULL,
  seq integer NOT NULL,
  PRIMARY KEY (account_uuid, execution_id)
);
CREATE INDEX executions_account_date ON executions(account_uuid, trade_date, seq);

CREATE TABLE realized_lots (
  account_uuid ${T} NOT NULL REFERENCES accounts(uuid) ON DELETE CASCADE,
  entry_id ${T} NOT NULL,
  client_uuid ${T} NOT NULL,
  source_id ${T} NOT NULL,
  lot_id ${T} NOT NULL,
  theme_asset_id ${T} NOT NULL,
  side ${T} NOT NULL CHECK (side IN ('long', 'short')),
  quantity numeric NOT NULL,
  date_acquired ${T} NOT NULL,
  date_sold ${T} NOT NULL,
  open_date ${T},
  proceeds numeric NOT NULL,
  cost_basis numeric NOT NULL,
  adjustment_code ${T} NOT NULL CHECK (adjustment_code IN ('', 'W')),
  adjustment numeric NOT NULL,
  gain numeric NOT NULL,
  term ${T} NOT NULL CHECK (term IN ('short_term', 'long_term')),
  loss boolean NOT NULL,
  record ${T} NOT NULL,
  seq integer NOT NULL,
  PRIMARY KEY (account_uuid, entry_id)
);
CREATE INDEX realized_lots_account_date ON realized_lots(account_uuid, date_sold);
CREATE INDEX realized_lots_client_date ON realized_lots(client_uuid, date_sold);

CREATE TABLE corporate_actions (
  id ${T} PRIMARY KEY,
  kind ${T} NOT NULL
    CHECK (kind IN ('split', 'cash_dividend', 'spin_off', 'symbol_change', 'cash_merger', 'stock_merger')),
  theme_asset_id ${T} NOT NULL,
  ex_date ${T} NOT NULL,
  pay_date ${T},
  params ${T} NOT NULL
);
CREATE INDEX corporate_actions_date ON corporate_actions(ex_date, id);
CREATE INDEX corporate_actions_listing ON corporate_actions(theme_asset_id, ex_date);

CREATE TABLE corporate_action_applications (
  action_id ${T} NOT NULL REFERENCES corporate_actions(id),
  account_uuid ${T} NOT NULL REFERENCES accounts(uuid) ON DELETE CASCADE,
  applied_at ${T} NOT NULL,
  PRIMARY KEY (action_id, account_uuid)
);
CREATE INDEX corporate_action_applications_account ON corporate_action_applications(account_uuid, applied_at);
${changeTriggers(["executions", "realized_lots", "corporate_actions", "corporate_action_applications"])}
`,
  },
  {
    version: 7,
    description:
      "backtest_jobs.kind: rebalance-run jobs ('rebalance_run', no account: the run's shard is in params)",
    // The kind CHECK of migration 5 was declared with its column, so PostgreSQL named it backtest_jobs_kind_check.
    sql: `
ALTER TABLE backtest_jobs DROP CONSTRAINT backtest_jobs_kind_check;
ALTER TABLE backtest_jobs ADD CONSTRAINT backtest_jobs_kind_check CHECK (kind IN ('backtest', 'scan', 'rebalance_run'));
ALTER TABLE backtest_jobs DROP CONSTRAINT backtest_jobs_kind_account;
ALTER TABLE backtest_jobs ADD CONSTRAINT backtest_jobs_kind_account CHECK (kind <> 'backtest' OR account_uuid IS NOT NULL);
`,
  },
  {
    version: 8,
    description:
      "realized_lots: a rowid table on SQLite; nothing to change on PostgreSQL (versions kept in step)",
    // SQLite's migration 8 rebuilds realized_lots out of a WITHOUT ROWID layout. A PostgreSQL table is a heap with
    // its primary key as a separate index already, which is what SQLite's table becomes.
    sql: "SELECT 1;",
  },
];

/** The schema version this build writes (equal to SQLite's SCHEMA_VERSION). */
export const PG_SCHEMA_VERSION = PG_MIGRATIONS[PG_MIGRATIONS.length - 1]!.version;
