/**
 * @module contract/rules
 * Rules of a configuration: the `rule` element, `dynamic_rules` items (time-varying overrides of one scalar
 * field) and `evaluation_rules` items (advisor attention policies, stored and returned unchanged).
 */
import * as z from "zod";
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
  z.strictObject({
    rules: z.array(ruleSchema, { error: expectedMessage("an array of rules") }),
    enabled: describe(bool(), "whether the policy is active"),
  }),
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
