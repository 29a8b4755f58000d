/**
 * @module contract/evaluation
 * Extension shapes of the evaluation of an account's rules (`GET .../accounts/{account}/evaluation/`, `lotwise
 * accounts evaluate`): which `model_drift` evaluation rules of its configuration are in force on a date, which of
 * them fire (highest priority first) and why, over the account's facts (drift, harvestable losses, cash, NAV).
 * docs/evaluation-rules.md.
 */
import * as z from "zod";
import { DRIFT_STATUSES } from "./drift.js";
import { isoDate, jsonValueSchema, numericString, uuid } from "./primitives.js";
import { describe, named } from "./registry.js";

/** Query of the evaluation extension. */
export const evaluationQuerySchema = named(
  z.strictObject({
    as_of_date: describe(
      isoDate(),
      "date of the evaluation (default: the market's latest date on or before today)",
    ).optional(),
  }),
  "EvaluationQuery",
  "Query of the evaluation extension; every parameter optional.",
);
/** Query of the evaluation extension. */
export type EvaluationQuery = z.infer<typeof evaluationQuerySchema>;

/** The facts of an account that evaluation-rule conditions test (decimal strings; null when not defined). */
export const evaluationFactsSchema = named(
  z.strictObject({
    total_drift: describe(numericString().nullable(), "null when the account has no target or is empty"),
    max_asset_drift: numericString().nullable(),
    drift_status: z.enum(DRIFT_STATUSES).nullable(),
    harvestable_loss_usd: numericString(),
    harvest_value_usd: numericString(),
    cash_usd: numericString(),
    cash_weight: describe(numericString().nullable(), "null when the NAV is 0"),
    nav: numericString(),
    positions: z.number().int(),
    year: z.number().int(),
    month: z.number().int(),
    day: z.number().int(),
  }),
  "EvaluationFacts",
  "The account's facts on the date, as the conditions see them.",
);
/** The facts of an account on a date. */
export type EvaluationFacts = z.infer<typeof evaluationFactsSchema>;

/** One rule of the evaluation, fired or not. */
export const ruleOutcomeSchema = named(
  z.strictObject({
    rule_type: describe(z.string(), "kind of policy (model_drift)"),
    index: describe(z.number().int(), "position of the policy in evaluation_rules"),
    rule_index: describe(z.number().int(), "position of the rule in the policy's rules"),
    value: jsonValueSchema,
    priority: describe(z.number().int(), "the rule's priority (0 when not set)"),
    reason: describe(z.string(), "why it fired or not, in words, with the fact values the condition used"),
    facts_used: describe(
      z.record(z.string(), z.union([z.string(), z.number(), z.null()])),
      "the facts the condition reads and their values (empty without a condition)",
    ),
  }),
  "RuleOutcome",
  "One evaluation rule and the outcome of its evaluation.",
);
/** One rule of the evaluation. */
export type RuleOutcome = z.infer<typeof ruleOutcomeSchema>;

/** The evaluation of an account's rules (extension). */
export const accountEvaluationSchema = named(
  z.strictObject({
    account_uuid: uuid(),
    as_of_date: isoDate(),
    facts: evaluationFactsSchema,
    evaluated: describe(z.number().int(), "number of rules looked at (every rule of every policy)"),
    fired: describe(
      z.array(ruleOutcomeSchema),
      "rules in force whose condition holds: highest priority first (ties: configuration order)",
    ),
    not_fired: describe(
      z.array(ruleOutcomeSchema),
      "the other rules, each with why (disabled, outside its dates, cron not firing, condition false)",
    ),
    warnings: z.array(z.string()),
  }),
  "AccountEvaluation",
  "Which evaluation rules of the account fire on the date and why (extension).",
);
/** The evaluation of an account's rules (extension). */
export type AccountEvaluation = z.infer<typeof accountEvaluationSchema>;
