/** @module store/pg/repositories/clients Clients, their accounts, tax lots and asset-class settings (PostgreSQL). */
import { randomUUID } from "node:crypto";
import { NotFoundError } from "../../../core/errors.js";
import type { AsyncAccountRepository, Promised } from "../../lotwise-store.js";
import type {
  AccountRecord,
  AssetClassSettingRecord,
  ClientRecord,
  TaxLotInput,
  TaxLotRecord,
  TaxLotRow,
} from "../../records.js";
// Row shapes, the lot column list and the mapping to records are the SQLite repository's: both engines return the
// same columns (is_read_only comes back as a boolean here, which the shared row type allows).
import {
  type AccountCreate,
  type AccountPatch,
  type AccountRow,
  type ClientCreate,
  type ClientPatch,
  type ClientRepository,
  type ClientRow,
  LOT_ROW_COLUMNS,
  type LotRow,
  toAccount,
  toClient,
  toLot,
} from "../../repositories/clients.js";
import { BULK_CHUNK, inChunks, type PgDb, toJson } from "../pg-db.js";

const CLIENT_COLUMNS = "uuid, organization_uuid, external_id, metadata, created, modified";
const ACCOUNT_COLUMNS = `uuid, organization_uuid, client_uuid, external_id, name, cash_value_usd, non_tradable_assets_value,
  liabilities_value, portfolio_config_uuid, customization_config, metadata, is_read_only, created, modified`;

export class PgClientRepository implements Promised<ClientRepository> {
  constructor(
    private readonly db: PgDb,
    private readonly now: () => string,
  ) {}

  async create(organizationUuid: string, input: ClientCreate = {}): Promise<ClientRecord> {
    const t = this.now();
    const row: ClientRow = {
      uuid: randomUUID(),
      organization_uuid: organizationUuid,
      external_id: input.externalId ?? null,
      metadata: toJson(input.metadata),
      created: t,
      modified: t,
    };
    await this.db.run(`INSERT INTO clients (${CLIENT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)`, [
      row.uuid,
      row.organization_uuid,
      row.external_id,
      row.metadata,
      row.created,
      row.modified,
    ]);
    return toClient(row);
  }

  async get(organizationUuid: string, uuid: string): Promise<ClientRecord | undefined> {
    const r = await this.db.row<ClientRow>(
      `SELECT ${CLIENT_COLUMNS} FROM clients WHERE uuid = $1 AND organization_uuid = $2`,
      [uuid, organizationUuid],
    );
    return r && toClient(r);
  }

  async require(organizationUuid: string, uuid: string): Promise<ClientRecord> {
    const c = await this.get(organizationUuid, uuid);
    if (!c) throw new NotFoundError(`Client ${uuid} not found.`, "client_not_found");
    return c;
  }

  async list(
    organizationUuid: string,
    options: { limit?: number; offset?: number } = {},
  ): Promise<ClientRecord[]> {
    const rows = await this.db.rows<ClientRow>(
      `SELECT ${CLIENT_COLUMNS} FROM clients WHERE organization_uuid = $1 ORDER BY created, uuid LIMIT $2 OFFSET $3`,
      [
        organizationUuid,
        options.limit === undefined || options.limit < 0 ? null : options.limit,
        options.offset ?? 0,
      ],
    );
    return rows.map(toClient);
  }

  async update(organizationUuid: string, uuid: string, patch: ClientPatch): Promise<ClientRecord> {
    const cur = await this.require(organizationUuid, uuid);
    await this.db.run("UPDATE clients SET external_id = $1, metadata = $2, modified = $3 WHERE uuid = $4", [
      patch.externalId !== undefined ? patch.externalId : cur.externalId,
      patch.metadata !== undefined ? toJson(patch.metadata) : toJson(cur.metadata),
      this.now(),
      uuid,
    ]);
    return this.require(organizationUuid, uuid);
  }

  async delete(organizationUuid: string, uuid: string): Promise<void> {
    const n = await this.db.run("DELETE FROM clients WHERE uuid = $1 AND organization_uuid = $2", [
      uuid,
      organizationUuid,
    ]);
    if (n === 0) throw new NotFoundError(`Client ${uuid} not found.`, "client_not_found");
  }
}

/**
 * Insert `lots` into the account at positions `start`, `start + 1`, ... in chunks, one UNNEST statement per chunk.
 * Runs inside the caller's transaction.
 */
export async function insertLots(
  db: PgDb,
  accountUuid: string,
  start: number,
  lots: readonly TaxLotInput[],
  uuids?: readonly string[],
): Promise<void> {
  let offset = 0;
  await inChunks(lots, BULK_CHUNK, async (slice) => {
    await db.run(
      `INSERT INTO tax_lots (uuid, account_uuid, position, theme_asset_id, quantity, cost_basis, cost_basis_unit,
         cost_basis_currency, fx_rate, trade_date, holding_period_start, wash_sale_date, last_sold_for_loss_date)
       SELECT u, $1, $2 + o - 1, t, q, c, cu, cc, f, d, h, w, l
       FROM unnest($3::text[], $4::text[], $5::numeric[], $6::numeric[], $7::text[], $8::text[], $9::numeric[],
         $10::text[], $11::text[], $12::text[], $13::text[])
         WITH ORDINALITY AS x(u, t, q, c, cu, cc, f, d, h, w, l, o)
       ORDER BY o`,
      [
        accountUuid,
        start + offset,
        slice.map((_, i) => uuids?.[offset + i] ?? randomUUID()),
        slice.map((l) => l.themeAssetId),
        slice.map((l) => l.quantity),
        slice.map((l) => l.costBasis),
        slice.map((l) => l.costBasisUnit),
        slice.map((l) => l.costBasisCurrency),
        slice.map((l) => l.fxRate),
        slice.map((l) => l.tradeDate),
        slice.map((l) => l.holdingPeriodStart),
        slice.map((l) => l.washSaleDate),
        slice.map((l) => l.lastSoldForLossDate),
      ],
    );
    offset += slice.length;
  });
}

/**
 * Lock the account's row until the end of the transaction and return the position after its last lot: two
 * appenders to one account (any processes) take turns, so their lots get distinct positions. `FOR NO KEY UPDATE`
 * (the lock of an update of non-key columns, which the lots-token trigger takes anyway) does not block the foreign-key
 * checks of rows inserted meanwhile for the account (proposals, jobs), as `FOR UPDATE` would.
 */
export async function nextLotPosition(db: PgDb, accountUuid: string): Promise<number> {
  await db.run("SELECT 1 FROM accounts WHERE uuid = $1 FOR NO KEY UPDATE", [accountUuid]);
  return (
    (await db.value<number>("SELECT coalesce(max(position), -1) + 1 FROM tax_lots WHERE account_uuid = $1", [
      accountUuid,
    ])) ?? 0
  );
}

export class PgAccountRepository implements AsyncAccountRepository {
  constructor(
    private readonly db: PgDb,
    private readonly now: () => string,
  ) {}

  async create(
    organizationUuid: string,
    clientUuid: string,
    input: AccountCreate = {},
  ): Promise<AccountRecord> {
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
      is_read_only: input.isReadOnly ?? false,
      created: t,
      modified: t,
    };
    const stored = await this.db.row<AccountRow>(
      `INSERT INTO accounts (${ACCOUNT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
       RETURNING ${ACCOUNT_COLUMNS}`,
      [
        row.uuid,
        row.organization_uuid,
        row.client_uuid,
        row.external_id,
        row.name,
        row.cash_value_usd,
        row.non_tradable_assets_value,
        row.liabilities_value,
        row.portfolio_config_uuid,
        row.customization_config,
        row.metadata,
        row.is_read_only,
        row.created,
        row.modified,
      ],
    );
    return toAccount(stored!);
  }

  async get(organizationUuid: string, clientUuid: string, uuid: string): Promise<AccountRecord | undefined> {
    const r = await this.db.row<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE uuid = $1 AND client_uuid = $2 AND organization_uuid = $3`,
      [uuid, clientUuid, organizationUuid],
    );
    return r && toAccount(r);
  }

  async getInOrganization(organizationUuid: string, uuid: string): Promise<AccountRecord | undefined> {
    const r = await this.db.row<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE uuid = $1 AND organization_uuid = $2`,
      [uuid, organizationUuid],
    );
    return r && toAccount(r);
  }

  async require(organizationUuid: string, clientUuid: string, uuid: string): Promise<AccountRecord> {
    const a = await this.get(organizationUuid, clientUuid, uuid);
    if (!a)
      throw new NotFoundError(`Account ${uuid} not found for client ${clientUuid}.`, "account_not_found");
    return a;
  }

  async listByClient(organizationUuid: string, clientUuid: string): Promise<AccountRecord[]> {
    const rows = await this.db.rows<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE client_uuid = $1 AND organization_uuid = $2 ORDER BY created, uuid`,
      [clientUuid, organizationUuid],
    );
    return rows.map(toAccount);
  }

  async listByOrganization(organizationUuid: string): Promise<AccountRecord[]> {
    const rows = await this.db.rows<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE organization_uuid = $1 ORDER BY created, uuid`,
      [organizationUuid],
    );
    return rows.map(toAccount);
  }

  async update(
    organizationUuid: string,
    clientUuid: string,
    uuid: string,
    patch: AccountPatch,
  ): Promise<AccountRecord> {
    const cur = await this.require(organizationUuid, clientUuid, uuid);
    const pick = <T>(v: T | undefined, old: T): T => (v !== undefined ? v : old);
    await this.db.run(
      `UPDATE accounts SET external_id = $1, name = $2, cash_value_usd = $3, non_tradable_assets_value = $4,
         liabilities_value = $5, portfolio_config_uuid = $6, customization_config = $7, metadata = $8,
         is_read_only = $9, modified = $10 WHERE uuid = $11`,
      [
        pick(patch.externalId, cur.externalId),
        pick(patch.name, cur.name),
        pick(patch.cashValueUsd, cur.cashValueUsd),
        pick(patch.nonTradableAssetsValue, cur.nonTradableAssetsValue),
        pick(patch.liabilitiesValue, cur.liabilitiesValue),
        pick(patch.portfolioConfigUuid, cur.portfolioConfigUuid),
        toJson(pick(patch.customizationConfig, cur.customizationConfig)),
        toJson(pick(patch.metadata, cur.metadata)),
        pick(patch.isReadOnly, cur.isReadOnly),
        this.now(),
        uuid,
      ],
    );
    return this.require(organizationUuid, clientUuid, uuid);
  }

  async heldListings(): Promise<{ themeAssetId: string; lots: number; accounts: number }[]> {
    return this.db.rows(
      `SELECT theme_asset_id AS "themeAssetId", count(*)::int AS lots, count(DISTINCT account_uuid)::int AS accounts
       FROM tax_lots GROUP BY theme_asset_id ORDER BY theme_asset_id`,
    );
  }

  async lots(accountUuid: string): Promise<TaxLotRecord[]> {
    const rows = await this.db.rows<LotRow>(
      `SELECT account_uuid, ${LOT_ROW_COLUMNS} FROM tax_lots WHERE account_uuid = $1 AND side = 'long' ORDER BY position`,
      [accountUuid],
    );
    return rows.map(toLot);
  }

  async lotRows(accountUuid: string): Promise<TaxLotRow[]> {
    return this.db.arrays<TaxLotRow & unknown[]>(
      `SELECT ${LOT_ROW_COLUMNS} FROM tax_lots WHERE account_uuid = $1 AND side = 'long' ORDER BY position`,
      [accountUuid],
    );
  }

  async lotsToken(accountUuid: string): Promise<string | null> {
    const token = await this.db.value<string>(
      "SELECT upper(encode(lots_token, 'hex')) FROM accounts WHERE uuid = $1 AND lots_token IS NOT NULL",
      [accountUuid],
    );
    return token ?? null;
  }

  /**
   * See the SQLite repository: rows whose content is a key of `previous` reuse its value. As there, each row comes
   * back as ONE string of its fields joined by U+001F (NULL as an empty string; no field can be empty or hold
   * U+001F), which is also the memo key: a row already converted is neither split nor converted again.
   */
  async lotValues<T>(
    accountUuid: string,
    convert: (row: TaxLotRow) => T,
    previous?: ReadonlyMap<string, T>,
  ): Promise<{ values: T[]; memo: Map<string, T> }> {
    const joined = await this.db.column<string>(
      `SELECT concat_ws(chr(31), uuid, theme_asset_id, quantity, cost_basis, cost_basis_unit, cost_basis_currency,
         fx_rate, trade_date, coalesce(holding_period_start, ''), coalesce(wash_sale_date, ''),
         coalesce(last_sold_for_loss_date, ''))
       FROM tax_lots WHERE account_uuid = $1 AND side = 'long' ORDER BY position`,
      [accountUuid],
    );
    const values = new Array<T>(joined.length);
    const memo = new Map<string, T>();
    for (let i = 0; i < joined.length; i++) {
      const text = joined[i]!;
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

  /** {@link lotValues} from plain columns, without a memo (a field held U+001F). */
  private async lotColumnValues<T>(
    accountUuid: string,
    convert: (row: TaxLotRow) => T,
  ): Promise<{ values: T[]; memo: Map<string, T> }> {
    return { values: (await this.lotRows(accountUuid)).map(convert), memo: new Map() };
  }

  async replaceLots(accountUuid: string, lots: readonly TaxLotInput[]): Promise<TaxLotRecord[]> {
    return this.db.transaction(async () => {
      await this.db.run("SELECT 1 FROM accounts WHERE uuid = $1 FOR NO KEY UPDATE", [accountUuid]);
      await this.db.run("DELETE FROM tax_lots WHERE account_uuid = $1 AND side = 'long'", [accountUuid]);
      await insertLots(this.db, accountUuid, 0, lots);
      return this.lots(accountUuid);
    });
  }

  async appendLots(accountUuid: string, lots: readonly TaxLotInput[]): Promise<void> {
    await this.db.transaction(async () => {
      const start = await nextLotPosition(this.db, accountUuid);
      await insertLots(this.db, accountUuid, start, lots);
    });
  }

  async assetClassSettings(accountUuid: string): Promise<AssetClassSettingRecord[]> {
    const rows = await this.db.rows<{
      asset_class_uuid: string;
      direct_indexing_enabled: boolean;
      implementation_sleeve_uuid: string | null;
    }>(
      `SELECT asset_class_uuid, direct_indexing_enabled, implementation_sleeve_uuid FROM account_asset_class_settings
       WHERE account_uuid = $1 ORDER BY position`,
      [accountUuid],
    );
    return rows.map((r) => ({
      assetClassUuid: r.asset_class_uuid,
      directIndexingEnabled: r.direct_indexing_enabled,
      implementationSleeveUuid: r.implementation_sleeve_uuid,
    }));
  }

  async replaceAssetClassSettings(
    accountUuid: string,
    settings: readonly AssetClassSettingRecord[],
  ): Promise<void> {
    await this.db.transaction(async () => {
      await this.db.run("DELETE FROM account_asset_class_settings WHERE account_uuid = $1", [accountUuid]);
      if (settings.length === 0) return;
      await this.db.run(
        `INSERT INTO account_asset_class_settings (account_uuid, position, asset_class_uuid, direct_indexing_enabled,
           implementation_sleeve_uuid)
         SELECT $1, o - 1, a, d, s FROM unnest($2::text[], $3::boolean[], $4::text[]) WITH ORDINALITY AS x(a, d, s, o)`,
        [
          accountUuid,
          settings.map((s) => s.assetClassUuid),
          settings.map((s) => s.directIndexingEnabled),
          settings.map((s) => s.implementationSleeveUuid),
        ],
      );
    });
  }
}
