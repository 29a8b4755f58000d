/**
 * @module contract/rules
 * Rules of a configuration: the `rule` element, `dynamic_rules` items (time-varying overrides of one scalar
 * field) and `evaluation_rules` items (advisor attention policies: when an account needs attention,
 * docs/evaluation-rules.md). A rule's `cron` and `condition` are checked when written: a cron that does not parse or
 * a condition that is not a filter expression over the facts of its kind of rule is refused with its path and the
 * position of the error in the text. Stored rules are not re-checked on read (older configurations still load).
 */
import * as z from "zod";
import { CronError, parseCron } from "../core/cron.js";
import { type FieldType, safeCompileExpression } from "../core/themes/expression/index.js";
import { dynamicRuleFieldSchemas } from "./config-fields.js";
import { bool, expectedMessage, isoDate, jsonValueSchema } from "./primitives.js";
import { describe, named } from "./registry.js";

/**
 * One rule: `value` (any JSON value) applies from `starts_from` to `expires_at` (dates, inclusive), optionally
 * on a `cron` schedule and a `condition`; higher `priority` wins when rules overlap. Only `value` is required.
 */
export const ruleSchema = named(
  z
    .strictObject({
      value: jsonValueSchema,
      cron: describe(z.string({ error: expectedMessage("a cron expression") }), "cron schedule").optional(),
      condition: describe(
        z.string({ error: expectedMessage("a string") }),
        "condition expression",
      ).optional(),
      starts_from: describe(isoDate(), "first day the rule applies").optional(),
      expires_at: describe(isoDate(), "last day the rule applies").optional(),
      priority: describe(
        z.int({ error: expectedMessage("an integer") }),
        "higher wins when rules overlap",
      ).optional(),
    })
    .refine(
      (r) => r.starts_from === undefined || r.expires_at === undefined || r.starts_from <= r.expires_at,
      {
        error: "expires_at is before starts_from",
        path: ["expires_at"],
      },
    ),
  "Rule",
  "Element of `rules` in dynamic_rules and evaluation_rules.",
);
/** A rule (element of dynamic_rules[].rules and evaluation_rules[].rules). */
export type Rule = z.infer<typeof ruleSchema>;

/**
 * Facts a dynamic rule's `condition` can test (the account on the date: NAV and cash in USD, cash / NAV, number of
 * assets held, and the date's year, month and day of month).
 */
export const DYNAMIC_RULE_FACTS: ReadonlyMap<string, FieldType> = new Map<string, FieldType>([
  ["nav", "number"],
  ["cash_usd", "number"],
  ["cash_weight", "number"],
  ["positions", "number"],
  ["year", "number"],
  ["month", "number"],
  ["day", "number"],
]);

/**
 * Facts an evaluation rule's `condition` can test, with what each means (docs/evaluation-rules.md). Fractions are
 * of the NAV (0.05 = 5%); money in USD. Drift facts are missing (null: every comparison with them is false, test
 * them with `is null`) when the account has no target or is worth nothing.
 */
export const EVALUATION_RULE_FACTS: ReadonlyMap<string, { type: FieldType; description: string }> = new Map([
  [
    "total_drift",
    { type: "number", description: "half the sum of |current - target| weights, cash included" },
  ],
  ["max_asset_drift", { type: "number", description: "largest |current - target| weight of one asset" }],
  ["drift_status", { type: "string", description: "'ok', 'warning' or 'breach' from the drift thresholds" }],
  [
    "harvestable_loss_usd",
    { type: "number", description: "unrealized loss of the lots harvestable now, USD" },
  ],
  [
    "harvest_value_usd",
    { type: "number", description: "estimated tax value of those losses at the configuration's rates, USD" },
  ],
  ["cash_usd", { type: "number", description: "cash of the account, USD" }],
  ["cash_weight", { type: "number", description: "cash / NAV" }],
  ["nav", { type: "number", description: "holdings at the closes of the date plus cash, USD" }],
  ["positions", { type: "number", description: "number of assets held" }],
  ["year", { type: "number", description: "year of the date" }],
  ["month", { type: "number", description: "month of the date, 1-12" }],
  ["day", { type: "number", description: "day of month of the date, 1-31" }],
]);

const EVALUATION_FACT_TYPES: ReadonlyMap<string, FieldType> = new Map(
  [...EVALUATION_RULE_FACTS].map(([name, f]) => [name, f.type]),
);

/**
 * Check the `cron` and `condition` of each rule of an item: a cron must parse, a condition must be a filter
 * expression over `facts`. Issues carry the path (`rules[i].cron`) and the position of the error in the text.
 */
function checkRuleTexts(
  rules: readonly Rule[],
  facts: ReadonlyMap<string, FieldType>,
  ctx: z.RefinementCtx,
): void {
  const names = [...facts.keys()].join(", ");
  rules.forEach((r, i) => {
    if (r.cron !== undefined) {
      try {
        parseCron(r.cron);
      } catch (err) {
        if (!(err instanceof CronError)) throw err;
        ctx.addIssue({
          code: "custom",
          path: ["rules", i, "cron"],
          message: `invalid cron "${r.cron}": ${err.issues[0]!.message}`,
        });
      }
    }
    if (r.condition !== undefined) {
      const compiled = safeCompileExpression(r.condition, { fields: facts, kind: "filter" });
      if (!compiled.success) {
        const e = compiled.error;
        let message = e.message;
        if (!message.includes("position")) message += ` (at position ${e.position})`;
        if (message.startsWith("Unknown field")) message += `; the facts are ${names}`;
        ctx.addIssue({
          code: "custom",
          path: ["rules", i, "condition"],
          message: `invalid condition "${r.condition}": ${message}`,
        });
      }
    }
  });
}

const DYNAMIC_FIELDS = dynamicRuleFieldSchemas();

/** Names of the scalar configuration fields a dynamic rule may override. */
export const DYNAMIC_RULE_FIELD_NAMES: readonly string[] = [...DYNAMIC_FIELDS.keys()];

/**
 * A dynamic rule: `rules` override the configuration field `field_name` over time. The field must be a scalar
 * field of the configuration and every rule's `value` must be valid for that field.
 */
export const dynamicRuleSchema = named(
  z
    .strictObject({
      field_name: describe(
        z.string({ error: expectedMessage("a field name") }),
        "scalar configuration field",
      ),
      rules: z.array(ruleSchema, { error: expectedMessage("an array of rules") }),
    })
    .superRefine((item, ctx) => {
      const schema = DYNAMIC_FIELDS.get(item.field_name);
      if (schema === undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["field_name"],
          message: `"${item.field_name}" is not a scalar field of the configuration; use one of ${DYNAMIC_RULE_FIELD_NAMES.join(", ")}`,
        });
        return;
      }
      item.rules.forEach((r, i) => {
        const result = schema.safeParse(r.value);
        if (!result.success)
          for (const issue of result.error.issues)
            ctx.addIssue({
              code: "custom",
              path: ["rules", i, "value", ...issue.path],
              message: `invalid value for ${item.field_name}: ${issue.message}`,
            });
      });
      checkRuleTexts(item.rules, DYNAMIC_RULE_FACTS, ctx);
    }),
  "DynamicRule",
  "Time-varying override of one configuration field.",
);
/** A dynamic rule item. */
export type DynamicRule = z.infer<typeof dynamicRuleSchema>;

/** Rule type given to evaluation rules written through the configuration endpoint. */
export const DEFAULT_EVALUATION_RULE_TYPE = "model_drift";
/** Version given to evaluation rules written through the configuration endpoint. */
export const DEFAULT_EVALUATION_RULE_VERSION = "1";

/** Evaluation rule, write item: rules and enabled. */
export const evaluationRuleWriteSchema = named(
  z
    .strictObject({
      rules: z.array(ruleSchema, { error: expectedMessage("an array of rules") }),
      enabled: describe(bool(), "whether the policy is active"),
    })
    .superRefine((item, ctx) => checkRuleTexts(item.rules, EVALUATION_FACT_TYPES, ctx)),
  "EvaluationRuleWrite",
  "Advisor attention policy as written with a configuration.",
);
/** Evaluation rule, write item. */
export type EvaluationRuleWrite = z.infer<typeof evaluationRuleWriteSchema>;

/** Evaluation rule, read item: rule_type (e.g. model_drift), rules, version, enabled. */
export const evaluationRuleReadSchema = named(
  z.strictObject({
    rule_type: describe(z.string(), "kind of policy, e.g. model_drift"),
    rules: z.array(ruleSchema),
    version: describe(z.string(), "policy version"),
    enabled: bool(),
  }),
  "EvaluationRuleRead",
  "Advisor attention policy as returned with a configuration.",
);
/** Evaluation rule, read item. */
export type EvaluationRuleRead = z.infer<typeof evaluationRuleReadSchema>;
