/** @module store/repositories/clients Clients, their accounts, tax lots and asset-class settings. */
import { randomUUID } from "node:crypto";
import type { Statement } from "better-sqlite3";
import { NotFoundError } from "../../core/errors.js";
import type { Db } from "../database.js";
import type {
  AccountRecord,
  AssetClassSettingRecord,
  ClientRecord,
  CostBasisUnit,
  TaxLotInput,
  TaxLotRecord,
  TaxLotRow,
} from "../records.js";
import { fromJson, statementCache, toJson } from "./util.js";

// Row shapes and their mapping to records, shared with the PostgreSQL repository (src/store/pg/repositories/clients.ts):
// the two engines return the same columns; where a driver gives a column another JS type, the row type allows both.

export interface ClientRow {
  uuid: string;
  organization_uuid: string;
  external_id: string | null;
  metadata: string | null;
  created: string;
  modified: string;
}

export interface AccountRow {
  uuid: string;
  organization_uuid: string;
  client_uuid: string;
  external_id: string | null;
  name: string | null;
  cash_value_usd: string;
  non_tradable_assets_value: string;
  liabilities_value: string;
  portfolio_config_uuid: string | null;
  customization_config: string | null;
  metadata: string | null;
  /** INTEGER 0/1 in SQLite, boolean in PostgreSQL. */
  is_read_only: number | boolean;
  created: string;
  modified: string;
}

export interface LotRow {
  uuid: string;
  account_uuid: string;
  theme_asset_id: string;
  quantity: string;
  cost_basis: string;
  cost_basis_unit: string;
  cost_basis_currency: string;
  fx_rate: string;
  trade_date: string;
  holding_period_start: string | null;
  wash_sale_date: string | null;
  last_sold_for_loss_date: string | null;
}

/** The lot columns of a {@link TaxLotRow}, in its order. */
export const LOT_ROW_COLUMNS = `uuid, theme_asset_id, quantity, cost_basis, cost_basis_unit, cost_basis_currency, fx_rate,
  trade_date, holding_period_start, wash_sale_date, last_sold_for_loss_date`;

export const toClient = (r: ClientRow): ClientRecord => ({
  uuid: r.uuid,
  organizationUuid: r.organization_uuid,
  externalId: r.external_id,
  metadata: fromJson(r.metadata),
  created: r.created,
  modified: r.modified,
});

export const toAccount = (r: AccountRow): AccountRecord => ({
  uuid: r.uuid,
  organizationUuid: r.organization_uuid,
  clientUuid: r.client_uuid,
  externalId: r.external_id,
  name: r.name,
  cashValueUsd: r.cash_value_usd,
  nonTradableAssetsValue: r.non_tradable_assets_value,
  liabilitiesValue: r.liabilities_value,
  portfolioConfigUuid: r.portfolio_config_uuid,
  customizationConfig: fromJson(r.customization_config),
  metadata: fromJson(r.metadata),
  isReadOnly: Boolean(r.is_read_only),
  created: r.created,
  modified: r.modified,
});

export const toLot = (r: LotRow): TaxLotRecord => ({
  uuid: r.uuid,
  accountUuid: r.account_uuid,
  themeAssetId: r.theme_asset_id,
  quantity: r.quantity,
  costBasis: r.cost_basis,
  costBasisUnit: r.cost_basis_unit as CostBasisUnit,
  costBasisCurrency: r.cost_basis_currency,
  fxRate: r.fx_rate,
  tradeDate: r.trade_date,
  holdingPeriodStart: r.holding_period_start,
  washSaleDate: r.wash_sale_date,
  lastSoldForLossDate: r.last_sold_for_loss_date,
});

export interface ClientCreate {
  externalId?: string | null;
  metadata?: unknown;
}

export interface ClientPatch {
  externalId?: string | null;
  metadata?: unknown;
}

export class ClientRepository {
  private readonly cached: (sql: string) => Statement;

  constructor(
    private readonly db: Db,
    private readonly now: () => string,
  ) {
    this.cached = statementCache(db);
  }

  create(organizationUuid: string, input: ClientCreate = {}): ClientRecord {
    const t = this.now();
    const row: ClientRow = {
      uuid: randomUUID(),
      organization_uuid: organizationUuid,
      external_id: input.externalId ?? null,
      metadata: toJson(input.metadata),
      created: t,
      modified: t,
    };
    this.db
      .prepare(
        "INSERT INTO clients (uuid, organization_uuid, external_id, metadata, created, modified) VALUES (@uuid, @organization_uuid, @external_id, @metadata, @created, @modified)",
      )
      .run(row);
    return toClient(row);
  }

  /** The client, or undefined when it does not exist in this organization. */
  get(organizationUuid: string, uuid: string): ClientRecord | undefined {
    const r = this.cached("SELECT * FROM clients WHERE uuid = ? AND organization_uuid = ?").get(
      uuid,
      organizationUuid,
    ) as ClientRow | undefined;
    return r && toClient(r);
  }

  /** @throws {NotFoundError} */
  require(organizationUuid: string, uuid: string): ClientRecord {
    const c = this.get(organizationUuid, uuid);
    if (!c) throw new NotFoundError(`Client ${uuid} not found.`, "client_not_found");
    return c;
  }

  list(organizationUuid: string, options: { limit?: number; offset?: number } = {}): ClientRecord[] {
    const rows = this.db
      .prepare("SELECT * FROM clients WHERE organization_uuid = ? ORDER BY created, uuid LIMIT ? OFFSET ?")
      .all(organizationUuid, options.limit ?? -1, options.offset ?? 0) as ClientRow[];
    return rows.map(toClient);
  }

  update(organizationUuid: string, uuid: string, patch: ClientPatch): ClientRecord {
    const cur = this.require(organizationUuid, uuid);
    const next = {
      uuid,
      external_id: patch.externalId !== undefined ? patch.externalId : cur.externalId,
      metadata: patch.metadata !== undefined ? toJson(patch.metadata) : toJson(cur.metadata),
      modified: this.now(),
    };
    this.db
      .prepare(
        "UPDATE clients SET external_id = @external_id, metadata = @metadata, modified = @modified WHERE uuid = @uuid",
      )
      .run(next);
    return this.require(organizationUuid, uuid);
  }

  /** Delete a client with its accounts, lots, proposals and jobs. @throws {NotFoundError} */
  delete(organizationUuid: string, uuid: string): void {
    const r = this.db
      .prepare("DELETE FROM clients WHERE uuid = ? AND organization_uuid = ?")
      .run(uuid, organizationUuid);
    if (r.changes === 0) throw new NotFoundError(`Client ${uuid} not found.`, "client_not_found");
  }
}

export interface AccountCreate {
  externalId?: string | null;
  name?: string | null;
  cashValueUsd?: string;
  nonTradableAssetsValue?: string;
  liabilitiesValue?: string;
  portfolioConfigUuid?: string | null;
  customizationConfig?: unknown;
  metadata?: unknown;
  isReadOnly?: boolean;
}

export type AccountPatch = AccountCreate;

export class AccountRepository {
  /** The bulk lot read of {@link AccountRepository.lotRows}, prepared once. */
  private lotRowsJoined: Statement | undefined;
  /** The lots token read of {@link AccountRepository.lotsToken}, prepared once. */
  private lotsTokenRead: Statement | undefined;
  private readonly cached: (sql: string) => Statement;

  constructor(
    private readonly db: Db,
    private readonly now: () => string,
  ) {
    this.cached = statementCache(db);
  }

  create(organizationUuid: string, clientUuid: string, input: AccountCreate = {}): AccountRecord {
    const t = this.now();
    const row: AccountRow = {
      uuid: randomUUID(),
      organization_uuid: organizationUuid,
      client_uuid: clientUuid,
      external_id: input.externalId ?? null,
      name: input.name ?? null,
      cash_value_usd: input.cashValueUsd ?? "0",
      non_tradable_assets_value: input.nonTradableAssetsValue ?? "0",
      liabilities_value: input.liabilitiesValue ?? "0",
      portfolio_config_uuid: input.portfolioConfigUuid ?? null,
      customization_config: toJson(input.customizationConfig),
      metadata: toJson(input.metadata),
      is_read_only: input.isReadOnly ? 1 : 0,
      created: t,
      modified: t,
    };
    this.db
      .prepare(
        `INSERT INTO accounts (uuid, organization_uuid, client_uuid, external_id, name, cash_value_usd, non_tradable_assets_value,
          liabilities_value, portfolio_config_uuid, customization_config, metadata, is_read_only, created, modified)
         VALUES (@uuid, @organization_uuid, @client_uuid, @external_id, @name, @cash_value_usd, @non_tradable_assets_value,
          @liabilities_value, @portfolio_config_uuid, @customization_config, @metadata, @is_read_only, @created, @modified)`,
      )
      .run(row);
    return toAccount(row);
  }

  /** The account when it belongs to this client of this organization. */
  get(organizationUuid: string, clientUuid: string, uuid: string): AccountRecord | undefined {
    const r = this.cached(
      "SELECT * FROM accounts WHERE uuid = ? AND client_uuid = ? AND organization_uuid = ?",
    ).get(uuid, clientUuid, organizationUuid) as AccountRow | undefined;
    return r && toAccount(r);
  }

  /** The account by uuid within an organization (any client). */
  getInOrganization(organizationUuid: string, uuid: string): AccountRecord | undefined {
    const r = this.cached("SELECT * FROM accounts WHERE uuid = ? AND organization_uuid = ?").get(
      uuid,
      organizationUuid,
    ) as AccountRow | undefined;
    return r && toAccount(r);
  }

  /** @throws {NotFoundError} */
  require(organizationUuid: string, clientUuid: string, uuid: string): AccountRecord {
    const a = this.get(organizationUuid, clientUuid, uuid);
    if (!a)
      throw new NotFoundError(`Account ${uuid} not found for client ${clientUuid}.`, "account_not_found");
    return a;
  }

  listByClient(organizationUuid: string, clientUuid: string): AccountRecord[] {
    const rows = this.cached(
      "SELECT * FROM accounts WHERE client_uuid = ? AND organization_uuid = ? ORDER BY created, uuid",
    ).all(clientUuid, organizationUuid) as AccountRow[];
    return rows.map(toAccount);
  }

  listByOrganization(organizationUuid: string): AccountRecord[] {
    const rows = this.db
      .prepare("SELECT * FROM accounts WHERE organization_uuid = ? ORDER BY created, uuid")
      .all(organizationUuid) as AccountRow[];
    return rows.map(toAccount);
  }

  update(organizationUuid: string, clientUuid: string, uuid: string, patch: AccountPatch): AccountRecord {
    const cur = this.require(organizationUuid, clientUuid, uuid);
    const pick = <T>(v: T | undefined, old: T): T => (v !== undefined ? v : old);
    this.db
      .prepare(
        `UPDATE accounts SET external_id = @external_id, name = @name, cash_value_usd = @cash_value_usd,
          non_tradable_assets_value = @non_tradable_assets_value, liabilities_value = @liabilities_value,
          portfolio_config_uuid = @portfolio_config_uuid, customization_config = @customization_config,
          metadata = @metadata, is_read_only = @is_read_only, modified = @modified WHERE uuid = @uuid`,
      )
      .run({
        uuid,
        external_id: pick(patch.externalId, cur.externalId),
        name: pick(patch.name, cur.name),
        cash_value_usd: pick(patch.cashValueUsd, cur.cashValueUsd),
        non_tradable_assets_value: pick(patch.nonTradableAssetsValue, cur.nonTradableAssetsValue),
        liabilities_value: pick(patch.liabilitiesValue, cur.liabilitiesValue),
        portfolio_config_uuid: pick(patch.portfolioConfigUuid, cur.portfolioConfigUuid),
        customization_config: toJson(pick(patch.customizationConfig, cur.customizationConfig)),
        metadata: toJson(pick(patch.metadata, cur.metadata)),
        is_read_only: pick(patch.isReadOnly, cur.isReadOnly) ? 1 : 0,
        modified: this.now(),
      });
    return this.require(organizationUuid, clientUuid, uuid);
  }

  /**
   * Every listing named by a tax lot of any account of the store (every organization: market data is shared), with
   * its lot and account counts, ascending by listing.
   */
  heldListings(): { themeAssetId: string; lots: number; accounts: number }[] {
    return this.db
      .prepare(
        `SELECT theme_asset_id AS themeAssetId, count(*) AS lots, count(DISTINCT account_uuid) AS accounts
         FROM tax_lots GROUP BY theme_asset_id ORDER BY theme_asset_id`,
      )
      .all() as { themeAssetId: string; lots: number; accounts: number }[];
  }

  /** The account's long tax lots in stored order (short lots: `ledger.shortLots`). */
  lots(accountUuid: string): TaxLotRecord[] {
    const rows = this.db
      .prepare("SELECT * FROM tax_lots WHERE account_uuid = ? AND side = 'long' ORDER BY position")
      .all(accountUuid) as LotRow[];
    return rows.map(toLot);
  }

  /**
   * The account's tax lots in stored order as compact rows (the same content as {@link AccountRepository.lots}
   * without the account uuid): the per-request read of a proposal.
   */
  lotRows(accountUuid: string): TaxLotRow[] {
    return this.lotValues(accountUuid, (row) => row).values;
  }

  /**
   * A token that changes whenever any tax lot of the account is inserted, updated or deleted (SQLite triggers
   * replace it with random bytes; see migration 2), as hex; null for an unknown account or one never given lots.
   * Equal tokens from two reads mean the account's lots did not change in between, so a reader may keep what it
   * converted from them instead of reading every row again.
   */
  lotsToken(accountUuid: string): string | null {
    this.lotsTokenRead ??= this.db
      .prepare("SELECT hex(lots_token) FROM accounts WHERE uuid = ? AND lots_token IS NOT NULL")
      .pluck(true);
    const token = this.lotsTokenRead.get(accountUuid) as string | undefined;
    return token ?? null;
  }

  /**
   * The account's lots in stored order, each row converted by `convert`, except rows whose stored content is a key
   * of `previous`: those give that key's value again (a converted lot is a pure function of its row, so a caller
   * that reads the same account repeatedly converts only what changed). Returns the values and the memo of this
   * read (content key -> value) to pass as `previous` next time; the keys are opaque. The memo is empty when a row
   * has no usable key (the column fallback below); then every row is converted.
   */
  lotValues<T>(
    accountUuid: string,
    convert: (row: TaxLotRow) => T,
    previous?: ReadonlyMap<string, T>,
  ): { values: T[]; memo: Map<string, T> } {
    // Each row comes back as ONE string of its fields joined by the unit separator (U+001F), split here: handing
    // over 11 values per row costs better-sqlite3 about twice as much as one string and a split. No field can
    // contain U+001F (uuids, validated ids, decimal strings, dates, enums); NULLs travel as empty strings (no
    // field is ever empty). A row that does not split into 11 fields makes the read fall back to plain columns.
    this.lotRowsJoined ??= this.db
      .prepare(
        `SELECT uuid || char(31) || theme_asset_id || char(31) || quantity || char(31) || cost_basis || char(31) ||
          cost_basis_unit || char(31) || cost_basis_currency || char(31) || fx_rate || char(31) || trade_date ||
          char(31) || coalesce(holding_period_start, '') || char(31) || coalesce(wash_sale_date, '') || char(31) ||
          coalesce(last_sold_for_loss_date, '')
         FROM tax_lots WHERE account_uuid = ? AND side = 'long' ORDER BY position`,
      )
      .pluck(true);
    const joined = this.lotRowsJoined.all(accountUuid) as (string | null)[];
    const values = new Array<T>(joined.length);
    const memo = new Map<string, T>();
    for (let i = 0; i < joined.length; i++) {
      const text = joined[i];
      if (text === null || text === undefined) return this.lotColumnValues(accountUuid, convert);
      const known = previous?.get(text);
      if (known !== undefined) {
        values[i] = known;
        memo.set(text, known);
        continue;
      }
      const f = text.split("\u001f") as (string | null)[];
      if (f.length !== 11) return this.lotColumnValues(accountUuid, convert);
      if (f[8] === "") f[8] = null;
      if (f[9] === "") f[9] = null;
      if (f[10] === "") f[10] = null;
      const value = convert(f as unknown as TaxLotRow);
      values[i] = value;
      memo.set(text, value);
    }
    return { values, memo };
  }

  private lotColumnValues<T>(
    accountUuid: string,
    convert: (row: TaxLotRow) => T,
  ): { values: T[]; memo: Map<string, T> } {
    return { values: this.lotColumns(accountUuid).map(convert), memo: new Map() };
  }

  /** {@link AccountRepository.lotRows} read column by column (the fallback). */
  private lotColumns(accountUuid: string): TaxLotRow[] {
    return this.db
      .prepare(
        `SELECT ${LOT_ROW_COLUMNS}
         FROM tax_lots WHERE account_uuid = ? AND side = 'long' ORDER BY position`,
      )
      .raw(true)
      .all(accountUuid) as TaxLotRow[];
  }

  /**
   * Replace every long lot of the account (the spec's "holdings replace tax lots"; the ledger's short lots stay).
   * Returns the stored lots.
   */
  replaceLots(accountUuid: string, lots: readonly TaxLotInput[]): TaxLotRecord[] {
    this.db.prepare("DELETE FROM tax_lots WHERE account_uuid = ? AND side = 'long'").run(accountUuid);
    this.appendLots(accountUuid, lots);
    return this.lots(accountUuid);
  }

  /** Add lots after the existing ones (used by `lots import --append`). */
  appendLots(accountUuid: string, lots: readonly TaxLotInput[]): void {
    const start = (
      this.db
        .prepare("SELECT coalesce(max(position), -1) + 1 AS p FROM tax_lots WHERE account_uuid = ?")
        .get(accountUuid) as {
        p: number;
      }
    ).p;
    const insert = this.db.prepare(
      `INSERT INTO tax_lots (uuid, account_uuid, position, theme_asset_id, quantity, cost_basis, cost_basis_unit,
        cost_basis_currency, fx_rate, trade_date, holding_period_start, wash_sale_date, last_sold_for_loss_date)
       VALUES (@uuid, @account_uuid, @position, @theme_asset_id, @quantity, @cost_basis, @cost_basis_unit,
        @cost_basis_currency, @fx_rate, @trade_date, @holding_period_start, @wash_sale_date, @last_sold_for_loss_date)`,
    );
    lots.forEach((l, i) => {
      insert.run({
        uuid: randomUUID(),
        account_uuid: accountUuid,
        position: start + i,
        theme_asset_id: l.themeAssetId,
        quantity: l.quantity,
        cost_basis: l.costBasis,
        cost_basis_unit: l.costBasisUnit,
        cost_basis_currency: l.costBasisCurrency,
        fx_rate: l.fxRate,
        trade_date: l.tradeDate,
        holding_period_start: l.holdingPeriodStart,
        wash_sale_date: l.washSaleDate,
        last_sold_for_loss_date: l.lastSoldForLossDate,
      });
    });
  }

  assetClassSettings(accountUuid: string): AssetClassSettingRecord[] {
    const rows = this.cached(
      "SELECT * FROM account_asset_class_settings WHERE account_uuid = ? ORDER BY position",
    ).all(accountUuid) as {
      asset_class_uuid: string;
      direct_indexing_enabled: number;
      implementation_sleeve_uuid: string | null;
    }[];
    return rows.map((r) => ({
      assetClassUuid: r.asset_class_uuid,
      directIndexingEnabled: r.direct_indexing_enabled === 1,
      implementationSleeveUuid: r.implementation_sleeve_uuid,
    }));
  }

  replaceAssetClassSettings(accountUuid: string, settings: readonly AssetClassSettingRecord[]): void {
    this.db.prepare("DELETE FROM account_asset_class_settings WHERE account_uuid = ?").run(accountUuid);
    const insert = this.db.prepare(
      `INSERT INTO account_asset_class_settings (account_uuid, position, asset_class_uuid, direct_indexing_enabled, implementation_sleeve_uuid)
       VALUES (?, ?, ?, ?, ?)`,
    );
    settings.forEach((s, i) => {
      insert.run(
        accountUuid,
        i,
        s.assetClassUuid,
        s.directIndexingEnabled ? 1 : 0,
        s.implementationSleeveUuid,
      );
    });
  }
}
