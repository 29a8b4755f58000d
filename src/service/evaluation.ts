/**
 * @module service/evaluation
 * Evaluation rules (issue 14, item 2; docs/evaluation-rules.md): the `model_drift` policies of an account's
 * configuration decide when the account needs attention. A rule is in force on a date when its policy is enabled,
 * `starts_from <= date <= expires_at` (each bound optional, both inclusive), its cron (if any) fires on the date
 * (day-level, core/cron.ts) and its condition (if any) holds over the account's facts (a filter expression,
 * core/themes/expression). The rules in force fire, highest priority first; every rule says why it fired or not.
 *
 * The facts come from the account's drift (service/drift.ts) and harvest scan (service/harvest.ts) on the date;
 * {@link evaluateAccountRulesWith} takes both already computed, so a batch scan computes them once per account.
 */
import { Decimal } from "decimal.js";
import {
  type AccountDrift,
  type AccountEvaluation,
  DEFAULT_EVALUATION_RULE_TYPE,
  EVALUATION_RULE_FACTS,
  type EvaluationFacts,
  formatDecimal,
  type HarvestScan,
  NUMERIC_STRING_WIDTH,
  type PortfolioConfigWrite,
  type RuleOutcome,
} from "../contract/index.js";
import { CronError, type CronSchedule, cronMatchesDate, parseCron } from "../core/cron.js";
import { dayOfWeek } from "../core/dates.js";
import { DataError } from "../core/errors.js";
import {
  type Column,
  createTable,
  evaluateFilter,
  type FieldType,
  safeCompileExpression,
} from "../core/themes/expression/index.js";
import type { AccountRecord } from "../store/index.js";
import { holdingsAt } from "./backtest-run.js";
import { findAccount } from "./clients.js";
import { checkedAsOf, type ServiceContext } from "./context.js";
import { accountDrift } from "./drift.js";
import { mergedConfigWrite } from "./effective-config.js";
import { harvestScan } from "./harvest.js";

/** Options of {@link evaluateAccountRules}. */
export interface EvaluateAccountRulesOptions {
  /** The client the account must belong to (HTTP paths name it). */
  clientUuid?: string | undefined;
  /** Date of the evaluation (default: the market's latest date on or before today). */
  asOf?: string | undefined;
}

/** What {@link evaluateAccountRulesWith} reads the facts from (computed once per account by the caller). */
export interface RuleFactSources {
  /** The account's drift on the date; null when it has none (no target, or worth nothing). */
  drift: AccountDrift | null;
  /** The account's harvest scan on the date. */
  harvest: HarvestScan;
  /** Warnings of the caller to report with the evaluation (e.g. why the drift is null). */
  warnings?: readonly string[];
}

const FACT_TYPES: ReadonlyMap<string, FieldType> = new Map(
  [...EVALUATION_RULE_FACTS].map(([name, f]) => [name, f.type]),
);
/** Compiled conditions and parsed crons by source text: a batch scan evaluates the same few rules many times. */
const compiledConditions = new Map<string, ReturnType<typeof safeCompileExpression>>();
const parsedCrons = new Map<string, CronSchedule | CronError>();
const MAX_CACHED = 1024;

function cached<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let v = cache.get(key);
  if (v === undefined) {
    if (cache.size >= MAX_CACHED) cache.clear();
    v = make();
    cache.set(key, v);
  }
  return v;
}

function conditionOf(source: string) {
  return cached(compiledConditions, source, () =>
    safeCompileExpression(source, { fields: FACT_TYPES, kind: "filter" }),
  );
}

function cronOf(source: string): CronSchedule | CronError {
  return cached(parsedCrons, source, () => {
    try {
      return parseCron(source);
    } catch (err) {
      if (err instanceof CronError) return err;
      throw err;
    }
  });
}

const DAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

const decimalText = (v: Decimal, places: number, field: string) =>
  formatDecimal(
    v.toDecimalPlaces(places),
    NUMERIC_STRING_WIDTH.integerDigits,
    NUMERIC_STRING_WIDTH.fractionDigits,
    field,
  );

/**
 * Evaluate the evaluation rules of an account on a date: computes its drift (null with a warning when it has no
 * target or is empty) and its harvest scan, then {@link evaluateAccountRulesWith}.
 * @throws {NotFoundError} unknown account; {@link ValidationError} a date outside the market data;
 *   {@link DataError} a held asset without a price or FX rate on the date.
 * @example (await evaluateAccountRules(ctx, org, accountUuid, { asOf: "2026-03-02" })).fired[0]?.value // "rebalance"
 */
export async function evaluateAccountRules(
  ctx: ServiceContext,
  org: string,
  accountUuid: string,
  options: EvaluateAccountRulesOptions = {},
): Promise<AccountEvaluation> {
  const account =
    options.clientUuid !== undefined
      ? await ctx.store.accounts.require(org, options.clientUuid, accountUuid)
      : (await findAccount(ctx, org, accountUuid)).account;
  const asOf = await checkedAsOf(ctx, options.asOf);
  const scoped = { clientUuid: account.clientUuid, asOf };
  const warnings: string[] = [];
  let drift: AccountDrift | null = null;
  try {
    drift = await accountDrift(ctx, org, account.uuid, scoped);
  } catch (err) {
    if (!(err instanceof DataError) || (err.code !== "no_target" && err.code !== "empty_account")) throw err;
    warnings.push(`Drift facts are null: ${err.message}`);
  }
  const harvest = await harvestScan(ctx, org, account.uuid, scoped);
  return evaluateAccountRulesWith(ctx, account, asOf, { drift, harvest, warnings });
}

/** The facts of the account on `asOf`, from its drift and harvest scan (holdings read only when drift is null). */
async function factsOf(
  ctx: ServiceContext,
  account: AccountRecord,
  asOf: string,
  s: RuleFactSources,
): Promise<EvaluationFacts> {
  const cash = new Decimal(account.cashValueUsd);
  let nav: Decimal;
  let positions: number;
  let cashWeight: string | null;
  if (s.drift !== null) {
    nav = new Decimal(s.drift.nav_usd);
    // Weights are formatted decimals: a zero weight prints as "0".
    positions = s.drift.assets.filter((a) => a.current_weight !== "0").length;
    cashWeight = s.drift.cash.current_weight;
  } else {
    const held = await holdingsAt(ctx, account, asOf);
    nav = new Decimal(held.valueUsd.toString());
    positions = new Set(held.lots.map((l) => l.themeAssetId)).size;
    cashWeight = nav.gt(0) ? decimalText(cash.dividedBy(nav), 10, "cash_weight") : null;
  }
  return {
    total_drift: s.drift?.total_drift ?? null,
    max_asset_drift: s.drift?.max_asset_drift ?? null,
    drift_status: s.drift?.status ?? null,
    harvestable_loss_usd: s.harvest.totals.harvestable_loss_usd,
    harvest_value_usd: s.harvest.totals.estimated_tax_value_usd,
    cash_usd: decimalText(cash, 2, "cash_usd"),
    cash_weight: cashWeight,
    nav: decimalText(nav, 2, "nav"),
    positions,
    year: Number(asOf.slice(0, 4)),
    month: Number(asOf.slice(5, 7)),
    day: Number(asOf.slice(8, 10)),
  };
}

/** A one-row table of the facts for the expression evaluator (missing numbers are NaN, a missing string null). */
function factTable(facts: EvaluationFacts) {
  const columns = new Map<string, Column>();
  for (const [name, type] of FACT_TYPES) {
    const v = facts[name as keyof EvaluationFacts];
    columns.set(
      name,
      type === "string" ? [v as string | null] : Float64Array.of(v === null ? Number.NaN : Number(v)),
    );
  }
  return createTable(1, columns);
}

/**
 * Evaluate an account's evaluation rules on `asOf` from its drift and harvest scan computed by the caller (the
 * batch scan computes them once per account and reuses them here). Rules stored before write-time checking whose
 * cron or condition does not parse never fire; a warning names them.
 */
export async function evaluateAccountRulesWith(
  ctx: ServiceContext,
  account: AccountRecord,
  asOf: string,
  sources: RuleFactSources,
): Promise<AccountEvaluation> {
  return evaluateRulesOnFacts(
    ctx,
    account,
    asOf,
    await factsOf(ctx, account, asOf, sources),
    sources.warnings,
  );
}

/**
 * Evaluate an account's evaluation rules on `asOf` over facts the caller computed (the batch scan measures drift,
 * harvest and NAV once per account and builds the facts from them).
 */
export async function evaluateRulesOnFacts(
  ctx: ServiceContext,
  account: AccountRecord,
  asOf: string,
  facts: EvaluationFacts,
  callerWarnings: readonly string[] = [],
): Promise<AccountEvaluation> {
  const warnings = [...callerWarnings];
  const table = factTable(facts);
  const policies = ((await mergedConfigWrite(ctx, account)).write.evaluation_rules ?? []) as NonNullable<
    PortfolioConfigWrite["evaluation_rules"]
  >;
  const fired: RuleOutcome[] = [];
  const notFired: RuleOutcome[] = [];
  let evaluated = 0;
  const weekday = DAY_NAMES[dayOfWeek(asOf)];
  for (const [index, policy] of policies.entries()) {
    for (const [ruleIndex, rule] of policy.rules.entries()) {
      evaluated++;
      const path = `evaluation_rules[${index}].rules[${ruleIndex}]`;
      const outcome = (reason: string, factsUsed: RuleOutcome["facts_used"] = {}): RuleOutcome => ({
        rule_type: DEFAULT_EVALUATION_RULE_TYPE,
        index,
        rule_index: ruleIndex,
        value: rule.value,
        priority: rule.priority ?? 0,
        reason,
        facts_used: factsUsed,
      });
      if (!policy.enabled) {
        notFired.push(outcome("its policy is disabled (enabled: false)"));
        continue;
      }
      if (rule.starts_from !== undefined && asOf < rule.starts_from) {
        notFired.push(outcome(`not in force yet: it starts on ${rule.starts_from}`));
        continue;
      }
      if (rule.expires_at !== undefined && asOf > rule.expires_at) {
        notFired.push(outcome(`expired: its last day was ${rule.expires_at}`));
        continue;
      }
      const why: string[] = [];
      if (rule.starts_from !== undefined || rule.expires_at !== undefined)
        why.push(`in force ${rule.starts_from ?? "…"} to ${rule.expires_at ?? "…"}`);
      if (rule.cron !== undefined) {
        const schedule = cronOf(rule.cron);
        if (schedule instanceof CronError) {
          warnings.push(`${path}.cron is not valid (${schedule.issues[0]!.message}); the rule never fires`);
          notFired.push(outcome(`cron "${rule.cron}" is not valid`));
          continue;
        }
        if (!cronMatchesDate(schedule, asOf)) {
          notFired.push(outcome(`cron "${rule.cron}" does not fire on ${asOf} (${weekday})`));
          continue;
        }
        why.push(`cron "${rule.cron}" fires on ${asOf} (${weekday})`);
      }
      let used: RuleOutcome["facts_used"] = {};
      if (rule.condition !== undefined) {
        const compiled = conditionOf(rule.condition);
        if (!compiled.success) {
          warnings.push(`${path}.condition is not valid (${compiled.error.message}); the rule never fires`);
          notFired.push(outcome(`condition "${rule.condition}" is not valid`));
          continue;
        }
        used = Object.fromEntries(
          compiled.expression.fields.map((f) => [f, facts[f as keyof EvaluationFacts]] as const),
        );
        const shown = Object.entries(used)
          .map(
            ([f, v]) =>
              `${f} = ${v === null ? "null" : typeof v === "string" && FACT_TYPES.get(f) === "string" ? `'${v}'` : v}`,
          )
          .join(", ");
        const holds = evaluateFilter(compiled.expression, table)[0] === 1;
        if (!holds) {
          notFired.push(outcome(`condition "${rule.condition}" is false (${shown})`, used));
          continue;
        }
        why.push(`condition "${rule.condition}" holds (${shown})`);
      }
      if (why.length === 0) why.push(`no dates, cron or condition: in force every day`);
      fired.push(outcome(why.join("; "), used));
    }
  }
  fired.sort((a, b) => b.priority - a.priority || a.index - b.index || a.rule_index - b.rule_index);
  if (policies.length === 0) warnings.push("The configuration has no evaluation_rules: nothing can fire.");
  return {
    account_uuid: account.uuid,
    as_of_date: asOf,
    facts,
    evaluated,
    fired,
    not_fired: notFired,
    warnings,
  };
}
