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
import { configResolvers } from "./portfolio-configs.js";

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
export function mergedConfigWrite(
  ctx: ServiceContext,
  account: AccountRecord,
): { record: PortfolioConfigRecord | undefined; write: PortfolioConfigWrite } {
  const record = account.portfolioConfigUuid
    ? ctx.store.portfolioConfigs.get(account.organizationUuid, account.portfolioConfigUuid)
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
 * Resolve the effective configuration of `account` on `date` (restrictions checked at the instant `at`, default
 * the end of `date`).
 */
export function effectiveConfig(
  ctx: ServiceContext,
  account: AccountRecord,
  date: string,
  options: { at?: string; account?: AccountConditionContext } = {},
): EffectiveConfig {
  const org = account.organizationUuid;
  const at = options.at ?? `${date}T23:59:59.999Z`;
  const warnings: string[] = [];
  const { record: cfg, write: mergedWrite } = mergedConfigWrite(ctx, account);
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
  const read = portfolioConfigReadFromWrite(
    { uuid: cfg?.uuid ?? account.uuid, status: cfg?.status ?? "draft", config: write },
    configResolvers(ctx, org),
  );

  const restricted = (list: PortfolioConfigWrite["no_hold_tickers"], name: string): string[] => {
    const out: string[] = [];
    for (const [i, r] of (list ?? []).entries()) {
      if (!inWindow(r.starts_from, r.expires_at, at)) continue;
      if (
        r.condition &&
        !securityCondition(ctx, r.theme_asset_id, r.condition, date, `${name}[${i}]`, warnings)
      )
        continue;
      out.push(r.theme_asset_id);
    }
    return out;
  };
  return {
    configUuid: cfg?.uuid ?? null,
    write,
    read,
    appliedRules,
    noHold: restricted(write.no_hold_tickers, "no_hold_tickers"),
    noTrade: restricted(write.no_trade_tickers, "no_trade_tickers"),
    warnings,
  };
}

/**
 * Does a restriction's (or a per-ticker target's) condition hold for the asset on `date`? Free text (not an
 * expression) holds, with a warning.
 */
export function securityCondition(
  ctx: ServiceContext,
  themeAssetId: string,
  condition: string,
  date: string,
  path: string,
  warnings: string[],
): boolean {
  const names = ctx.store.market.characteristicNames();
  const compiled = safeCompileExpression(condition, { fields: fieldCatalog(names), kind: "filter" });
  if (!compiled.success) {
    warnings.push(
      `${path}.condition "${condition}" is not a filter expression; treated as a label (the restriction applies)`,
    );
    return true;
  }
  const security = ctx.store.market.security(themeAssetId) as Security;
  const columns = new Map<string, Float64Array>();
  for (const f of compiled.expression.fields) {
    if (!names.includes(f)) continue;
    const v = ctx.store.market.characteristicsAsOf(f, date).get(themeAssetId);
    columns.set(f, Float64Array.of(v ?? Number.NaN));
  }
  return evaluateFilter(compiled.expression, securityTable([security], columns))[0] === 1;
}
