/**
 * @module contract/theme
 * Themes: the methodology (create body, revision body), the theme read shape, the constituent snapshot
 * (endpoint 7), the evaluate request, and the theme backtest query and result (endpoint 8).
 */
import * as z from "zod";
import {
  displayName,
  expectedMessage,
  finiteNumber,
  isoDate,
  isoDatetime,
  nonEmptyString,
  numericString,
  themeAssetId,
  uuid,
} from "./primitives.js";
import { describe, named } from "./registry.js";

/** Selection modes of a methodology. */
export const THEME_SELECTION_MODES = ["all", "top_n", "top_percent"] as const;
/** Weighting schemes of a methodology. */
export const THEME_WEIGHTING_SCHEMES = ["equal", "market_cap", "score"] as const;
/** Rebalancing periods of a theme. */
export const THEME_REBALANCING_PERIODS = ["MONTHLY", "QUARTERLY", "SEMI_ANNUALLY", "ANNUALLY"] as const;
/** Score used when a methodology gives none. */
export const DEFAULT_THEME_SCORE = "market_cap";
/** Longest filter or score expression accepted. */
export const MAX_EXPRESSION_LENGTH = 4000;

const expression = () => nonEmptyString(MAX_EXPRESSION_LENGTH);

/** Candidate universe: exactly one of a preset id or a filter expression. */
export const themeUniverseSchema = named(
  z
    .strictObject(
      {
        preset: describe(nonEmptyString(255), "universe preset id (see the catalog)").optional(),
        expression: describe(expression(), "filter expression selecting the candidate universe").optional(),
      },
      { error: expectedMessage("an object with preset or expression") },
    )
    .refine((u) => (u.preset === undefined) !== (u.expression === undefined), {
      error: "give exactly one of preset or expression",
    }),
  "ThemeUniverse",
  "Candidate universe of a theme: a preset or a filter expression.",
);
/** Candidate universe of a theme. */
export type ThemeUniverse = z.infer<typeof themeUniverseSchema>;

/**
 * Selection: `all` candidates, the `top_n` by score (value = integer n >= 1) or the `top_percent` by score
 * (value in (0, 100]); `min_count` keeps at least that many when the rule selects fewer.
 */
export const themeSelectionSchema = named(
  z
    .strictObject({
      mode: z.enum(THEME_SELECTION_MODES),
      value: finiteNumber().optional(),
      min_count: describe(z.int().min(0), "minimum number of constituents").optional(),
    })
    .superRefine((s, ctx) => {
      if (s.mode === "all" && s.value !== undefined)
        ctx.addIssue({ code: "custom", path: ["value"], message: "mode all takes no value" });
      if (s.mode === "top_n" && (s.value === undefined || !Number.isInteger(s.value) || s.value < 1))
        ctx.addIssue({ code: "custom", path: ["value"], message: "mode top_n needs an integer value >= 1" });
      if (s.mode === "top_percent" && (s.value === undefined || s.value <= 0 || s.value > 100))
        ctx.addIssue({
          code: "custom",
          path: ["value"],
          message: "mode top_percent needs a value in (0, 100]",
        });
    }),
  "ThemeSelection",
  "How constituents are selected from the filtered universe.",
);
/** Selection rule of a theme. */
export type ThemeSelection = z.infer<typeof themeSelectionSchema>;

/** Weighting: equal, market-cap or score weights, each capped at `max_weight` (a fraction in (0, 1]). */
export const themeWeightingSchema = named(
  z.strictObject({
    scheme: z.enum(THEME_WEIGHTING_SCHEMES),
    max_weight: describe(
      finiteNumber()
        .gt(0, { error: "max_weight must be greater than 0" })
        .max(1, { error: "max_weight is at most 1" }),
      "cap on any constituent weight, fraction in (0, 1]",
    ).optional(),
  }),
  "ThemeWeighting",
  "How selected constituents are weighted.",
);
/** Weighting rule of a theme. */
export type ThemeWeighting = z.infer<typeof themeWeightingSchema>;

/** Rules of a theme: the rebalancing cadence used by its backtest. */
export const themeRulesSchema = named(
  z.strictObject({ rebalancing_period: z.enum(THEME_REBALANCING_PERIODS) }),
  "ThemeRules",
  "Rebalancing cadence of a theme.",
);
/** Rules of a theme. */
export type ThemeRules = z.infer<typeof themeRulesSchema>;

function methodologyFields() {
  return {
    name: displayName(),
    description: z.string().max(10_000).optional(),
    universe: themeUniverseSchema,
    filters: describe(z.array(expression()), "filter expressions, ANDed"),
    score: describe(expression(), "numeric expression ranking candidates"),
    selection: themeSelectionSchema,
    weighting: themeWeightingSchema,
    rules: themeRulesSchema,
  };
}

/** Theme methodology (body of theme creation); `filters` defaults to [] and `score` to market_cap. */
export const themeMethodologySchema = named(
  z.strictObject(
    (() => {
      const f = methodologyFields();
      return { ...f, filters: f.filters.default([]), score: f.score.default(DEFAULT_THEME_SCORE) };
    })(),
    { error: expectedMessage("a theme methodology object") },
  ),
  "ThemeMethodology",
  "A theme's saved selection methodology (body of theme creation).",
);
/** Theme methodology after defaults. */
export type ThemeMethodology = z.infer<typeof themeMethodologySchema>;
/** Theme methodology as sent (filters and score optional). */
export type ThemeMethodologyInput = z.input<typeof themeMethodologySchema>;

/** Body of a theme revision (PATCH): any top-level methodology fields; each given field replaces the stored one. */
export const themeRevisionSchema = named(
  z
    .strictObject(
      (() => {
        const f = methodologyFields();
        return {
          name: f.name.optional(),
          description: f.description,
          universe: f.universe.optional(),
          filters: f.filters.optional(),
          score: f.score.optional(),
          selection: f.selection.optional(),
          weighting: f.weighting.optional(),
          rules: f.rules.optional(),
        };
      })(),
      { error: expectedMessage("an object of methodology fields") },
    )
    .refine((r) => Object.keys(r).length > 0, { error: "a revision changes at least one field" }),
  "ThemeRevision",
  "Body of a new theme revision: top-level methodology fields to replace.",
);
/** Body of a theme revision. */
export type ThemeRevision = z.infer<typeof themeRevisionSchema>;

/** Theme, read shape (extension). `revision` is the datetime of the latest revision. */
export const themeSchema = named(
  z.strictObject({
    uuid: uuid(),
    name: z.string(),
    description: z.string().nullable(),
    revision: describe(isoDatetime(), "datetime of the latest revision"),
    methodology: themeMethodologySchema,
    created: isoDatetime(),
    modified: isoDatetime(),
  }),
  "Theme",
  "A saved theme with its latest methodology.",
);
/** Theme, read shape. */
export type Theme = z.infer<typeof themeSchema>;

/** Response of the theme list extension. */
export const themeListSchema = named(z.array(themeSchema), "ThemeList", "Themes of an organization.");
/** Response of the theme list extension. */
export type ThemeList = z.infer<typeof themeListSchema>;

/** Body of the evaluate extension: the as-of date (default: latest date with prices). */
export const themeEvaluateRequestSchema = named(
  z.strictObject({ as_of_date: describe(isoDate(), "evaluate with data up to this date").optional() }),
  "ThemeEvaluateRequest",
  "Body of theme evaluation (extension).",
);
/** Body of the evaluate extension. */
export type ThemeEvaluateRequest = z.infer<typeof themeEvaluateRequestSchema>;

/** A constituent of a snapshot. */
export const themeConstituentSchema = named(
  z.strictObject({
    theme_asset_id: themeAssetId(),
    symbol: z.string(),
    name: z.string(),
    exchange: z.string(),
    score: finiteNumber(),
    weight: describe(finiteNumber().min(0).max(1), "fractional weight"),
  }),
  "ThemeConstituent",
  "One constituent of an evaluated theme.",
);
/** A constituent of a snapshot. */
export type ThemeConstituent = z.infer<typeof themeConstituentSchema>;

/** Theme constituent snapshot (endpoint 7): the complete saved result, by weight descending. */
export const themeConstituentSnapshotSchema = named(
  z
    .strictObject({
      theme_uuid: uuid(),
      revision: describe(isoDatetime(), "revision that was evaluated"),
      as_of_date: isoDate(),
      total_constituents: z.int().min(0),
      total_weight: describe(finiteNumber(), "sum of weights; about 1 for a nonempty result"),
      constituents: z.array(themeConstituentSchema),
    })
    .superRefine((s, ctx) => {
      if (s.total_constituents !== s.constituents.length)
        ctx.addIssue({
          code: "custom",
          path: ["total_constituents"],
          message: `total_constituents is ${s.total_constituents} but ${s.constituents.length} constituents are listed`,
        });
      for (let i = 1; i < s.constituents.length; i++)
        if (s.constituents[i]!.weight > s.constituents[i - 1]!.weight) {
          ctx.addIssue({
            code: "custom",
            path: ["constituents", i, "weight"],
            message: "constituents must be ordered by weight descending",
          });
          break;
        }
    }),
  "ThemeConstituentSnapshot",
  "Evaluated constituents of a theme revision.",
);
/** Theme constituent snapshot. */
export type ThemeConstituentSnapshot = z.infer<typeof themeConstituentSnapshotSchema>;

/** Query of the theme backtest (endpoint 8); default window: 365 days before today to today. */
export const themeBacktestQuerySchema = named(
  z
    .strictObject({
      start_date: describe(isoDate(), "first day of the window; default 365 days before end_date").optional(),
      end_date: describe(isoDate(), "last day of the window; default today").optional(),
      benchmark: describe(
        z.string({ error: expectedMessage("a benchmark ticker or identifier") }).min(1, {
          error: "benchmark must not be empty",
        }),
        "benchmark ticker or canonical identifier",
      ).optional(),
    })
    .refine((q) => q.start_date === undefined || q.end_date === undefined || q.start_date < q.end_date, {
      error: "end_date must be after start_date",
      path: ["end_date"],
    }),
  "ThemeBacktestQuery",
  "Query parameters of a theme backtest.",
);
/** Query of the theme backtest. */
export type ThemeBacktestQuery = z.infer<typeof themeBacktestQuerySchema>;

const dateSeries = (what: string) => describe(z.record(isoDate(), finiteNumber()), what);

const assetRef = z.strictObject({ symbol: z.string(), theme_asset_id: themeAssetId() });

/** A scheduled membership change of a theme backtest. */
export const themeRebalanceEventSchema = named(
  z.strictObject({
    date: isoDate(),
    added: z.array(assetRef),
    removed: z.array(assetRef),
    constituent_count: z.int().min(0),
  }),
  "ThemeRebalanceEvent",
  "Scheduled membership change at one rebalance date (not a realized transaction history).",
);
/** A rebalance event. */
export type ThemeRebalanceEvent = z.infer<typeof themeRebalanceEventSchema>;

/** Theme backtest result (endpoint 8). `benchmark` and `summary` are present only when a benchmark was asked. */
export const themeBacktestResultSchema = named(
  z
    .strictObject({
      theme: z.strictObject({
        backtest_returns: dateSeries("period return by period end date, fraction"),
        backtest_values: dateSeries("portfolio value by date, starting at 1"),
        since_inception_returns: describe(numericString(), "cumulative return over the window, fraction"),
        cumulative_backtest_returns: dateSeries("cumulative return by period end date, fraction"),
      }),
      benchmark: z
        .strictObject({
          identifier: z.string(),
          backtest_returns: dateSeries("benchmark period return by period end date, fraction"),
          backtest_values: dateSeries(
            "extension: benchmark value on each trading date of the theme's series that it covers, 1 on the first (the theme's backtest_values at the same frequency)",
          ).optional(),
        })
        .optional(),
      summary: z
        .strictObject({
          portfolio_return: finiteNumber(),
          benchmark_return: finiteNumber(),
          relative_return: finiteNumber(),
          risk_metrics: z.strictObject({
            beta: finiteNumber().nullable(),
            sharpe: finiteNumber().nullable(),
            volatility: finiteNumber().nullable(),
            max_drawdown: finiteNumber().nullable(),
          }),
          benchmark_coverage_note: describe(
            z.string().nullable(),
            "set when the benchmark does not cover the whole window",
          ),
        })
        .optional(),
      rebalance_events: z.array(themeRebalanceEventSchema),
    })
    .refine((r) => (r.benchmark === undefined) === (r.summary === undefined), {
      error: "benchmark and summary come together",
      path: ["summary"],
    }),
  "ThemeBacktestResult",
  "Backtest of a theme over a window, optionally against a benchmark.",
);
/** Theme backtest result. */
export type ThemeBacktestResult = z.infer<typeof themeBacktestResultSchema>;
