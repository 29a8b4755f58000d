/**
 * @module service/effective-config
 * The configuration that governs an account on a date: the account's `customization_config` merged over its
 * portfolio configuration (lists replace, tax preferences merge field by field), then the dynamic rules that are in
 * force on that date applied, then the no-hold / no-trade restrictions that are active resolved to asset lists.
 *
 * Dynamic rules: a rule is in force when `starts_from <= date <= expires_at` (dates, inclusive as the contract's Rule
 * says; each bound optional), its `cron` (if
 * any) fires on the date (day-level, see core/cron.ts) and its `condition` (if any) holds. Among rules in force for a
 * field, the highest `priority` wins (ties: the later rule). Conditions are expressions of the filter language over
 * the account context (`nav`, `cash_usd`, `cash_weight`, `positions`, `year`, `month`, `day`); such conditions are
 * checked when written (contract/rules.ts), but a condition stored before that check that is not such an expression
 * is kept as a label (the rule applies) and reported in `warnings`.
 *
 * Restrictions (`no_hold_tickers`, `no_trade_tickers`) are active when `starts_from <= at < expires_at` (instants);
 * their `condition`, when it is a filter expression over security fields and characteristics (e.g. `sector = 10`),
 * must hold for the asset; free text is a label.
 */
import {
  type CustomizationConfigWrite,
  DYNAMIC_RULE_FACTS,
  mergePortfolioConfigWrite,
  type PortfolioConfigRead,
  type PortfolioConfigWrite,
  portfolioConfigReadFromWrite,
} from "../contract/index.js";
import { cronMatchesDate, parseCron } from "../core/cron.js";
import type { Security } from "../core/data/types.js";
import {
  createTable,
  evaluateFilter,
  fieldCatalog,
  safeCompileExpression,
  securityTable,
} from "../core/themes/expression/index.js";
import type { AccountRecord, PortfolioConfigRecord } from "../store/index.js";
import type { ServiceContext } from "./context.js";
import { type ConfigReferences, configResolvers } from "./portfolio-configs.js";

/** Scalar facts about an account that dynamic-rule conditions can test. */
export interface AccountConditionContext {
  nav: number;
  cash_usd: number;
  positions: number;
}

export interface AppliedRule {
  field_name: string;
  value: unknown;
  priority: number;
  rule_index: number;
}

export interface EffectiveConfig {
  /** uuid of the portfolio configuration, or null when the account has none. */
  configUuid: string | null;
  /** The merged write shape with dynamic rules applied. */
  write: PortfolioConfigWrite;
  /** The same in the read shape (defaults filled, tickers resolved). */
  read: PortfolioConfigRead;
  appliedRules: AppliedRule[];
  /** theme_asset_ids that must not be held on the date (active entries whose condition holds). */
  noHold: string[];
  /** theme_asset_ids that must not be traded on the date. */
  noTrade: string[];
  warnings: string[];
}

/**
 * The configuration write that governs an account before dynamic rules: its `customization_config` merged over its
 * portfolio configuration (lists replace, tax preferences merge field by field).
 */
export async function mergedConfigWrite(
  ctx: ServiceContext,
  account: AccountRecord,
): Promise<{ record: PortfolioConfigRecord | undefined; write: PortfolioConfigWrite }> {
  const record = account.portfolioConfigUuid
    ? await ctx.store.portfolioConfigs.get(account.organizationUuid, account.portfolioConfigUuid)
    : undefined;
  const base: PortfolioConfigWrite = record
    ? { ...(record.document as PortfolioConfigWrite), name: record.name }
    : {};
  return {
    record,
    write: mergePortfolioConfigWrite(base, (account.customizationConfig ?? {}) as CustomizationConfigWrite),
  };
}

function inWindow(start: string | null | undefined, end: string | null | undefined, at: string): boolean {
  return (start == null || start <= at) && (end == null || at < end);
}

/**
 * What the security conditions of restrictions and per-ticker targets read from the store (characteristic names,
 * listings, characteristics on a date), read ahead by {@link load} so that {@link evaluate} answers synchronously
 * (the backtest engine asks for configurations from inside its synchronous loop).
 */
export class SecurityConditions {
  private names: string[] | undefined;
  private readonly securities = new Map<string, Security | undefined>();
  private readonly values = new Map<string, ReadonlyMap<string, number>>();

  constructor(private readonly ctx: ServiceContext) {}

  private compile(condition: string, names: readonly string[]) {
    return safeCompileExpression(condition, { fields: fieldCatalog(names), kind: "filter" });
  }

  /** Read what evaluating `condition` for the asset on `date` needs (nothing again that was read before). */
  async load(themeAssetId: string, condition: string, date: string): Promise<void> {
    const market = this.ctx.store.market;
    this.names ??= await market.characteristicNames();
    const compiled = this.compile(condition, this.names);
    if (!compiled.success) return;
    if (!this.securities.has(themeAssetId))
      this.securities.set(themeAssetId, await market.security(themeAssetId));
    for (const f of compiled.expression.fields) {
      if (!this.names.includes(f)) continue;
      const key = `${f}\u0000${date}`;
      if (!this.values.has(key)) this.values.set(key, await market.characteristicsAsOf(f, date));
    }
  }

  /**
   * Does the condition hold for the asset on `date` (see {@link securityCondition})? `undefined` when {@link load}
   * has not read what it needs.
   */
  evaluate(
    themeAssetId: string,
    condition: string,
    date: string,
    path: string,
    warnings: string[],
  ): boolean | undefined {
    const names = this.names;
    if (names === undefined) return undefined;
    const compiled = this.compile(condition, names);
    if (!compiled.success) {
      warnings.push(
        `${path}.condition "${condition}" is not a filter expression; treated as a label (the restriction applies)`,
      );
      return true;
    }
    if (!this.securities.has(themeAssetId)) return undefined;
    const security = this.securities.get(themeAssetId) as Security;
    const columns = new Map<string, Float64Array>();
    for (const f of compiled.expression.fields) {
      if (!names.includes(f)) continue;
      const values = this.values.get(`${f}\u0000${date}`);
      if (values === undefined) return undefined;
      columns.set(f, Float64Array.of(values.get(themeAssetId) ?? Number.NaN));
    }
    return evaluateFilter(compiled.expression, securityTable([security], columns))[0] === 1;
  }
}

/**
 * What resolving an account's effective configuration reads from the store: the merged write, the references of
 * its read shape and the security conditions. {@link effectiveConfig} reads what is missing as it goes;
 * {@link primeConfigInputs} reads ahead what any date of a list can need, for {@link effectiveConfigLoaded}.
 */
export interface ConfigInputs {
  readonly merged: { record: PortfolioConfigRecord | undefined; write: PortfolioConfigWrite };
  readonly references: ConfigReferences;
  readonly conditions: SecurityConditions;
}

/** The {@link ConfigInputs} of an account (its merged write read now; references and conditions as needed). */
export async function loadConfigInputs(ctx: ServiceContext, account: AccountRecord): Promise<ConfigInputs> {
  return {
    merged: await mergedConfigWrite(ctx, account),
    references: await configResolvers(ctx, account.organizationUuid),
    conditions: new SecurityConditions(ctx),
  };
}

/** What a resolution found missing in its inputs. */
interface MissingInputs {
  references: Parameters<ConfigReferences["resolve"]>[0][number][];
  conditions: [themeAssetId: string, condition: string, date: string][];
}

function readOf(cfg: PortfolioConfigRecord | undefined, account: AccountRecord, write: PortfolioConfigWrite) {
  return (resolvers: Parameters<typeof portfolioConfigReadFromWrite>[1]) =>
    portfolioConfigReadFromWrite(
      { uuid: cfg?.uuid ?? account.uuid, status: cfg?.status ?? "draft", config: write },
      resolvers,
    );
}

/**
 * Resolve the effective configuration of `account` on `date` (restrictions checked at the instant `at`, default
 * the end of `date`).
 */
export async function effectiveConfig(
  ctx: ServiceContext,
  account: AccountRecord,
  date: string,
  options: { at?: string; account?: AccountConditionContext } = {},
  inputs?: ConfigInputs,
): Promise<EffectiveConfig> {
  const loaded = inputs ?? (await loadConfigInputs(ctx, account));
  for (;;) {
    const missing: MissingInputs = { references: [], conditions: [] };
    const eff = resolveEffectiveConfig(loaded, account, date, options, missing);
    if (eff !== undefined) return eff;
    await loaded.references.resolve(missing.references);
    for (const [id, condition, on] of missing.conditions) await loaded.conditions.load(id, condition, on);
  }
}

/**
 * {@link effectiveConfig} from inputs read ahead by {@link primeConfigInputs} for `date`, synchronously.
 * @throws {Error} when the inputs lack something (they were not primed for the date).
 */
export function effectiveConfigLoaded(
  inputs: ConfigInputs,
  account: AccountRecord,
  date: string,
  options: { at?: string; account?: AccountConditionContext } = {},
): EffectiveConfig {
  const eff = resolveEffectiveConfig(inputs, account, date, options, { references: [], conditions: [] });
  if (eff === undefined)
    throw new Error(
      `effectiveConfigLoaded: the store data of ${date} was not read ahead (primeConfigInputs).`,
    );
  return eff;
}

/**
 * Read ahead what resolving the account's configuration on any of `dates` can need, whatever the account facts:
 * the references and security conditions of the merged write and of every dynamic rule's value (a resolution
 * combines fields of these, each field from one of them).
 */
export async function primeConfigInputs(
  inputs: ConfigInputs,
  account: AccountRecord,
  dates: readonly string[],
): Promise<void> {
  const base = inputs.merged.write;
  const variants: PortfolioConfigWrite[] = [base];
  for (const item of base.dynamic_rules ?? [])
    for (const rule of item.rules)
      variants.push({ ...base, [item.field_name]: rule.value } as PortfolioConfigWrite);
  for (const write of variants) {
    try {
      await inputs.references.read(readOf(inputs.merged.record, account, write));
    } catch {
      // A variant that cannot be read fails the same way when a date resolves to it.
    }
    const conditional = [
      ...(Array.isArray(write.no_hold_tickers) ? write.no_hold_tickers : []),
      ...(Array.isArray(write.no_trade_tickers) ? write.no_trade_tickers : []),
      ...(Array.isArray(write.target_ticker_weights) ? write.target_ticker_weights : []),
    ];
    for (const r of conditional) {
      if (typeof r?.condition !== "string" || typeof r.theme_asset_id !== "string") continue;
      for (const date of dates) await inputs.conditions.load(r.theme_asset_id, r.condition, date);
    }
  }
}

/** The resolution itself, over `inputs`; undefined (with `missing` filled) when they lack something. */
function resolveEffectiveConfig(
  inputs: ConfigInputs,
  account: AccountRecord,
  date: string,
  options: { at?: string; account?: AccountConditionContext },
  missing: MissingInputs,
): EffectiveConfig | undefined {
  const at = options.at ?? `${date}T23:59:59.999Z`;
  const warnings: string[] = [];
  const { record: cfg, write: mergedWrite } = inputs.merged;
  const merged: Record<string, unknown> = { ...mergedWrite };
  const appliedRules: AppliedRule[] = [];
  const accountFacts = options.account;
  const contextTable = accountFacts
    ? createTable(1, {
        nav: Float64Array.of(accountFacts.nav),
        cash_usd: Float64Array.of(accountFacts.cash_usd),
        cash_weight: Float64Array.of(
          accountFacts.nav > 0 ? accountFacts.cash_usd / accountFacts.nav : Number.NaN,
        ),
        positions: Float64Array.of(accountFacts.positions),
        year: Float64Array.of(Number(date.slice(0, 4))),
        month: Float64Array.of(Number(date.slice(5, 7))),
        day: Float64Array.of(Number(date.slice(8, 10))),
      })
    : undefined;
  for (const [di, item] of (
    (merged.dynamic_rules ?? []) as NonNullable<PortfolioConfigWrite["dynamic_rules"]>
  ).entries()) {
    let best: AppliedRule | undefined;
    for (const [ri, rule] of item.rules.entries()) {
      if (
        (rule.starts_from != null && date < rule.starts_from) ||
        (rule.expires_at != null && date > rule.expires_at)
      )
        continue;
      if (rule.cron && !cronMatchesDate(parseCron(rule.cron, `dynamic_rules[${di}].rules[${ri}].cron`), date))
        continue;
      if (rule.condition) {
        const compiled = safeCompileExpression(rule.condition, {
          fields: DYNAMIC_RULE_FACTS,
          kind: "filter",
        });
        if (!compiled.success)
          warnings.push(
            `dynamic_rules[${di}].rules[${ri}].condition "${rule.condition}" is not an expression over the account context; treated as a label`,
          );
        else if (!contextTable)
          warnings.push(
            `dynamic_rules[${di}].rules[${ri}].condition needs account facts; treated as holding`,
          );
        else if (evaluateFilter(compiled.expression, contextTable)[0] !== 1) continue;
      }
      const priority = rule.priority ?? 0;
      if (!best || priority >= best.priority)
        best = { field_name: item.field_name, value: rule.value, priority, rule_index: ri };
    }
    if (best) {
      merged[best.field_name] = best.value;
      appliedRules.push(best);
    }
  }
  const write = merged as PortfolioConfigWrite;
  const read = inputs.references.tryRead(readOf(cfg, account, write));
  if (!read.done) {
    missing.references.push(...read.missing);
    return undefined;
  }

  const restricted = (list: PortfolioConfigWrite["no_hold_tickers"], name: string): string[] => {
    const out: string[] = [];
    for (const [i, r] of (list ?? []).entries()) {
      if (!inWindow(r.starts_from, r.expires_at, at)) continue;
      if (r.condition) {
        const holds = inputs.conditions.evaluate(
          r.theme_asset_id,
          r.condition,
          date,
          `${name}[${i}]`,
          warnings,
        );
        if (holds === undefined) missing.conditions.push([r.theme_asset_id, r.condition, date]);
        if (!holds) continue;
      }
      out.push(r.theme_asset_id);
    }
    return out;
  };
  const noHold = restricted(write.no_hold_tickers, "no_hold_tickers");
  const noTrade = restricted(write.no_trade_tickers, "no_trade_tickers");
  if (missing.conditions.length > 0) return undefined;
  return {
    configUuid: cfg?.uuid ?? null,
    write,
    read: read.value,
    appliedRules,
    noHold,
    noTrade,
    warnings,
  };
}

/**
 * Does a restriction's (or a per-ticker target's) condition hold for the asset on `date`? Free text (not an
 * expression) holds, with a warning.
 */
export async function securityCondition(
  ctx: ServiceContext,
  themeAssetId: string,
  condition: string,
  date: string,
  path: string,
  warnings: string[],
): Promise<boolean> {
  const conditions = new SecurityConditions(ctx);
  await conditions.load(themeAssetId, condition, date);
  return conditions.evaluate(themeAssetId, condition, date, path, warnings)!;
}
