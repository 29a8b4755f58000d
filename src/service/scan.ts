/**
 * @module service/scan
 * The morning scan (issue 14, item 6; docs/scan.md): one row per selected account of an organization with its drift
 * status and total drift (as {@link accountDrift} computes them), its harvestable losses and their tax value (the
 * totals of {@link harvestScan}), its cash to invest and its NAV. One failing account never stops the scan: each
 * part of a row (account, drift, harvest, cash) that cannot be computed leaves its fields null and says why in
 * `errors`, with the code the single-account operation answers.
 *
 * Cash to invest = max(0, cash - buffers), rounded down to the cent, where the buffers are those of a proposal
 * (docs/proposals.md section 3): `cash_buffer_usd_amount`, else `cash_buffer_usd` x NAV, plus the CAD buffer
 * (`cash_buffer_cad_amount`, else `cash_buffer_cad` x NAV x fx_CAD) in USD. It is the cash a rebalance could put to
 * work without going under the configured reserve.
 *
 * Bulk loading: the market data of the date (closes, FX rates, splits, securities, index weights) are read once per
 * scan through a read-through memo of the market repository (the data do not change during a scan), every account
 * is valued once for drift, harvest and cash, and its effective configuration is resolved once. Substitutes are not
 * searched (`lotwise accounts harvest` gives them for one account).
 */
import { Decimal } from "decimal.js";
import {
  type AccountSelection,
  formatDecimal,
  NUMERIC_STRING_WIDTH,
  SCAN_PAGE_MAX,
  type ScanResult,
  type ScanRow,
  summarizeScan,
} from "../contract/index.js";
import { DataError, PortfolioError } from "../core/errors.js";
import { cashBuffers } from "../core/proposal/cash-buffers.js";
import { TaxDecimal } from "../core/tax/index.js";
import type { AccountRecord, LotwiseStore } from "../store/index.js";
import { selectAccounts, statusSelected } from "./account-selection.js";
import { holdingsAt } from "./backtest-run.js";
import { checkedAsOf, type ServiceContext } from "./context.js";
import { type Holdings, holdingsConfig, measureDrift, type PreparedTarget } from "./drift.js";
import type { EffectiveConfig } from "./effective-config.js";
import { evaluateRulesOnFacts } from "./evaluation.js";
import { measureHarvest } from "./harvest.js";
import { accountLots } from "./proposals.js";

/** Options of {@link scanAccounts}. */
export interface ScanOptions {
  /** Date of the scan (default: the market's latest date on or before today). */
  asOf?: string | undefined;
  /** Harvest threshold in USD (decimal string), as in the harvest scan. */
  minLossUsd?: string | undefined;
  /** Harvest threshold as a fraction of basis (decimal string), as in the harvest scan. */
  minLossFraction?: string | undefined;
  /** Selected accounts to skip (oldest first). @default 0 */
  offset?: number | undefined;
  /** Most selected accounts to scan after the offset. @default all of them */
  limit?: number | undefined;
  /** Called after each account with the accounts done and the accounts this call scans. */
  onProgress?: ((done: number, total: number) => void) | undefined;
  /** Called with each row kept by the status filter, as soon as it is computed. */
  onRow?: ((row: ScanRow) => void) | undefined;
}

type Market = LotwiseStore["market"];

/**
 * A read-through memo of the market repository's point reads for one scan: the closes, FX rates, securities,
 * splits and index weights the per-account operations read are read once. The memo returns the same arrays and
 * objects to every caller; the operations only read them.
 */
function memoizedMarket(market: Market): Market {
  // By date, then by listing (null: no price on or before the date).
  const prices = new Map<
    string,
    Map<string, { date: string; close: number; volume: number | null } | null>
  >();
  const securities = new Map<string, ReturnType<Market["security"]>>();
  const fx = new Map<string, ReturnType<Market["fxRateAsOf"]>>();
  const splits = new Map<string, ReturnType<Market["splits"]>>();
  const weights = new Map<string, ReturnType<Market["indexWeightsAsOf"]>>();
  // The promise of the read is kept, so that concurrent callers share it; a failed read is forgotten.
  const once = <K, V>(map: Map<K, Promise<V>>, key: K, read: () => Promise<V>): Promise<V> => {
    const known = map.get(key);
    if (known !== undefined) return known;
    const value = read();
    map.set(key, value);
    value.catch(() => map.delete(key));
    return value;
  };
  const memo: Partial<Market> = {
    async latestPrices(ids, asOf) {
      let known = prices.get(asOf);
      if (known === undefined) {
        known = new Map();
        prices.set(asOf, known);
      }
      const missing = ids.filter((id) => !known.has(id));
      if (missing.length > 0) {
        const read = await market.latestPrices(missing, asOf);
        for (const id of missing) known.set(id, read.get(id) ?? null);
      }
      const out = new Map<string, { date: string; close: number; volume: number | null }>();
      for (const id of ids) {
        const p = known.get(id);
        if (p) out.set(id, p);
      }
      return out;
    },
    security: (id) => once(securities, id, () => market.security(id)),
    fxRateAsOf: (currency, asOf) => once(fx, `${currency}|${asOf}`, () => market.fxRateAsOf(currency, asOf)),
    splits: (from, to) => once(splits, `${from}|${to}`, () => market.splits(from, to)),
    indexWeightsAsOf: (identifier, asOf) =>
      once(weights, `${identifier}|${asOf}`, () => market.indexWeightsAsOf(identifier, asOf)),
  };
  const props: PropertyDescriptorMap = {};
  for (const [name, value] of Object.entries(memo)) props[name] = { value };
  return Object.create(market, props) as Market;
}

/**
 * The context of one scan: the caller's, with the market reads memoized (see {@link memoizedMarket}), and the
 * accounts of each client (the households of the harvest part) and each portfolio configuration read once (nothing
 * is written during a scan).
 */
function scanContext(ctx: ServiceContext): ServiceContext {
  const households = new Map<string, ReturnType<LotwiseStore["accounts"]["listByClient"]>>();
  const accounts = ctx.store.accounts;
  const configs = ctx.store.portfolioConfigs;
  const configMemo = new Map<string, ReturnType<LotwiseStore["portfolioConfigs"]["get"]>>();
  const store = Object.create(ctx.store, {
    market: { value: memoizedMarket(ctx.store.market) },
    portfolioConfigs: {
      value: Object.create(configs, {
        get: {
          value: (org: string, uuid: string) => {
            const key = `${org}|${uuid}`;
            let config = configMemo.get(key);
            if (config === undefined) {
              config = configs.get(org, uuid);
              configMemo.set(key, config);
              config.catch(() => configMemo.delete(key));
            }
            return config;
          },
        },
      }),
    },
    accounts: {
      value: Object.create(accounts, {
        listByClient: {
          value: (org: string, client: string) => {
            const key = `${org}|${client}`;
            let list = households.get(key);
            if (list === undefined) {
              list = accounts.listByClient(org, client);
              households.set(key, list);
              list.catch(() => households.delete(key));
            }
            return list;
          },
        },
      }),
    },
  }) as LotwiseStore;
  return { ...ctx, store };
}

const decimal = (v: Decimal, places: number, field: string) =>
  formatDecimal(
    v.toDecimalPlaces(places),
    NUMERIC_STRING_WIDTH.integerDigits,
    NUMERIC_STRING_WIDTH.fractionDigits,
    field,
  );
const money = (v: Decimal, field: string) => decimal(v, 2, field);

/** The code and message of an error for a row: the operation's own for expected errors, a generic one otherwise. */
function rowError(part: ScanRow["errors"][number]["part"], err: unknown): ScanRow["errors"][number] {
  if (err instanceof PortfolioError) return { part, code: err.code, message: err.message };
  return {
    part,
    code: "internal_error",
    message: `Unexpected error while computing the ${part} of this account; please report it with the account uuid.`,
  };
}

/** Cash above the configuration's buffers, rounded down to the cent (see the module doc). */
async function cashToInvest(
  ctx: ServiceContext,
  eff: EffectiveConfig,
  held: Holdings,
  asOf: string,
): Promise<Decimal> {
  const read = eff.read;
  const dec = (v: string | null) => (v === null ? null : new TaxDecimal(v));
  const cadFraction = dec(read.cash_buffer_cad);
  const cadAmount = dec(read.cash_buffer_cad_amount);
  let cadPerUsd: Decimal | null = null;
  if (cadAmount !== null || (cadFraction !== null && !cadFraction.isZero())) {
    const rate = await ctx.store.market.fxRateAsOf("CAD", asOf);
    if (!rate)
      throw new DataError(
        `The configuration sets a CAD cash buffer but the store has no CAD rate on or before ${asOf}.`,
        {
          code: "missing_fx",
        },
      );
    cadPerUsd = new TaxDecimal(rate.perUsd);
  }
  const buffers = cashBuffers(
    {
      usdFraction: dec(read.cash_buffer_usd),
      usdAmount: dec(read.cash_buffer_usd_amount),
      cadFraction,
      cadAmount,
    },
    held.valueUsd,
    cadPerUsd,
  );
  return Decimal.max(0, held.cashUsd.minus(buffers.reservedUsd)).toDecimalPlaces(2, Decimal.ROUND_DOWN);
}

/**
 * The evaluation rules that fire for the row's account, over the facts the row measured (the same facts as the
 * evaluation extension); null with an error entry when the harvest facts are missing or the rules fail.
 */
async function rulesFired(
  ctx: ServiceContext,
  account: AccountRecord,
  asOf: string,
  held: Holdings,
  row: ScanRow,
): Promise<ScanRow["rules_fired"]> {
  if (row.harvestable_loss_usd === null || row.estimated_tax_value_usd === null) {
    row.errors.push({
      part: "rules",
      code: "harvest_unavailable",
      message: "The evaluation rules were not evaluated: they need the harvest facts, which failed.",
    });
    return null;
  }
  try {
    const nav = new Decimal(held.valueUsd.toString());
    const cash = new Decimal(account.cashValueUsd);
    const e = await evaluateRulesOnFacts(ctx, account, asOf, {
      total_drift: row.total_drift,
      max_asset_drift: row.max_asset_drift,
      drift_status: row.drift_status,
      harvestable_loss_usd: row.harvestable_loss_usd,
      harvest_value_usd: row.estimated_tax_value_usd,
      cash_usd: decimal(cash, 2, "cash_usd"),
      cash_weight: nav.gt(0) ? decimal(cash.dividedBy(nav), 10, "cash_weight") : null,
      nav: decimal(nav, 2, "nav"),
      positions: new Set(held.lots.filter((l) => !l.quantity.isZero()).map((l) => l.themeAssetId)).size,
      year: Number(asOf.slice(0, 4)),
      month: Number(asOf.slice(5, 7)),
      day: Number(asOf.slice(8, 10)),
    });
    return e.fired.map((f) => ({
      rule: `evaluation_rules[${f.index}].rules[${f.rule_index}]`,
      value: f.value,
      priority: f.priority,
    }));
  } catch (err) {
    row.errors.push(rowError("rules", err));
    return null;
  }
}

/** One row of the scan (never throws: every failure is an entry of `errors`). */
async function scanRow(
  ctx: ServiceContext,
  org: string,
  account: AccountRecord,
  asOf: string,
  options: ScanOptions,
  targets: Map<string, PreparedTarget>,
): Promise<ScanRow> {
  const row: ScanRow = {
    account_uuid: account.uuid,
    client_uuid: account.clientUuid,
    account_name: account.name,
    portfolio_config_uuid: account.portfolioConfigUuid,
    nav_usd: null,
    cash_usd: null,
    cash_to_invest_usd: null,
    drift_status: null,
    total_drift: null,
    max_asset_drift: null,
    target: null,
    harvestable_lots: null,
    harvestable_loss_usd: null,
    estimated_tax_value_usd: null,
    errors: [],
    rules_fired: null,
  };
  let held: Holdings;
  let eff: EffectiveConfig;
  try {
    held = await holdingsAt(ctx, account, asOf, { lots: await accountLots(ctx, account.uuid) });
    row.nav_usd = money(new Decimal(held.valueUsd.toString()), "nav_usd");
    row.cash_usd = money(new Decimal(held.cashUsd.toString()), "cash_usd");
    eff = await holdingsConfig(ctx, account, asOf, held);
  } catch (err) {
    row.errors.push(rowError("account", err));
    return row;
  }
  try {
    const d = await measureDrift(ctx, account, asOf, held, async () => eff, targets);
    row.drift_status = d.status;
    row.total_drift = decimal(d.total, 10, "total_drift");
    row.max_asset_drift = decimal(d.maxAbs, 10, "max_asset_drift");
    row.target = d.source.name;
  } catch (err) {
    row.errors.push(rowError("drift", err));
  }
  try {
    const h = await measureHarvest(ctx, org, account, asOf, held, eff, options);
    row.harvestable_lots = h.rows.filter((r) => r.reasons.length === 0).length;
    row.harvestable_loss_usd = money(h.st.plus(h.lt), "harvestable_loss_usd");
    row.estimated_tax_value_usd = money(h.taxValue, "estimated_tax_value_usd");
  } catch (err) {
    row.errors.push(rowError("harvest", err));
  }
  try {
    row.cash_to_invest_usd = money(await cashToInvest(ctx, eff, held, asOf), "cash_to_invest_usd");
  } catch (err) {
    row.errors.push(rowError("cash", err));
  }
  row.rules_fired = await rulesFired(ctx, account, asOf, held, row);
  return row;
}

/**
 * The morning scan of the selected accounts of an organization on a date: one row per account (oldest first) with
 * drift status, total drift, harvestable losses and their tax value, cash to invest and NAV, and the summary of the
 * rows. `offset` / `limit` scan a page of the selection (the HTTP extension scans at most {@link SCAN_PAGE_MAX}
 * accounts per request); the status filter applies after the page is taken.
 * @throws {NotFoundError} for a selection naming a client, configuration or account that is not the organization's;
 *   {@link ValidationError} a date outside the market data. Errors of one account are in its row.
 * @example (await scanAccounts(ctx, org, { status: ["breach"] })).rows.map((r) => r.account_uuid)
 */
export async function scanAccounts(
  ctx: ServiceContext,
  org: string,
  selection: AccountSelection = {},
  options: ScanOptions = {},
): Promise<ScanResult> {
  const asOf = await checkedAsOf(ctx, options.asOf);
  const selected = await selectAccounts(ctx, org, selection);
  const offset = options.offset ?? 0;
  const end =
    options.limit === undefined ? selected.length : Math.min(selected.length, offset + options.limit);
  const page = selected.slice(offset, end);
  const scan = scanContext(ctx);
  const rows: ScanRow[] = [];
  const targets = new Map<string, PreparedTarget>();
  for (const [i, account] of page.entries()) {
    const row = await scanRow(scan, org, account, asOf, options, targets);
    if (statusSelected(selection, row.drift_status)) {
      rows.push(row);
      options.onRow?.(row);
    }
    options.onProgress?.(i + 1, page.length);
  }
  return {
    as_of_date: asOf,
    selected_accounts: selected.length,
    offset,
    next_offset: end < selected.length ? end : null,
    rows,
    summary: summarizeScan(rows),
  };
}
