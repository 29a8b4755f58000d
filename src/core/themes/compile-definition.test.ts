import { describe, expect, it } from "vitest";
import { ValidationError } from "../errors.js";
import { compileThemeDefinition } from "./compile-definition.js";
import type { ThemeDefinition } from "./definition.js";
import { ExpressionError, fieldCatalog } from "./expression/index.js";

const fields = fieldCatalog(["market_cap", "dividend_yield", "momentum"]);
const presets = new Map([
  ["us_all", "country = 'US'"],
  ["canada", "country = 'CA'"],
]);
const base: ThemeDefinition = {
  universe: { preset: "us_all" },
  filters: ["dividend_yield > 1%"],
  score: "zscore(momentum)",
  selection: { mode: "top_n", value: 10, min_count: 5 },
  weighting: { scheme: "score", max_weight: 0.2 },
  rules: { rebalancing_period: "QUARTERLY" },
};
const compile = (d: ThemeDefinition) => compileThemeDefinition(d, { fields, presets });

function thrown(f: () => unknown): ValidationError {
  try {
    f();
  } catch (e) {
    if (e instanceof ValidationError) return e;
    throw e;
  }
  throw new Error("expected a ValidationError");
}

describe("compileThemeDefinition", () => {
  it("resolves the preset and lists every field the evaluation reads", () => {
    const c = compile(base);
    expect(c.universe.source).toBe("country = 'US'");
    expect(c.preset).toBe("us_all");
    expect(c.fields).toEqual(["country", "dividend_yield", "momentum", "theme_asset_id"]);
    expect(c.selection).toEqual({ mode: "top_n", value: 10, minCount: 5 });
    expect(c.weighting).toEqual({ scheme: "score", maxWeight: 0.2 });
    expect(c.rebalancingPeriod).toBe("QUARTERLY");
  });

  it("defaults the score to market_cap, filters to none, the cap to 1, and adds market_cap for cap weighting", () => {
    const c = compile({
      universe: { expression: "sector = 45" },
      selection: { mode: "all" },
      weighting: { scheme: "market_cap" },
    });
    expect(c.score.source).toBe("market_cap");
    expect(c.filters).toEqual([]);
    expect(c.weighting.maxWeight).toBe(1);
    expect(c.fields).toContain("market_cap");
    expect(c.rebalancingPeriod).toBeUndefined();
  });

  it("throws the expression's own error, with its path, when one expression is invalid", () => {
    const e = thrown(() => compile({ ...base, filters: ["sector = 45", "dividend_yeild > 1%"] }));
    expect(e).toBeInstanceOf(ExpressionError);
    expect(e.code).toBe("invalid_expression");
    expect(e.issues).toEqual([
      {
        path: "filters[1]",
        message: "Unknown field 'dividend_yeild' at position 0; did you mean 'dividend_yield'?",
      },
    ]);
    expect((e as ExpressionError).position).toBe(0);
  });

  it("reports every invalid expression at once", () => {
    const e = thrown(() => compile({ ...base, universe: { expression: "sector = " }, score: "country" }));
    expect(e.code).toBe("invalid_expression");
    expect(e.issues.map((i) => i.path)).toEqual(["universe.expression", "score"]);
    expect(e.message).toMatch(/^The theme methodology has 2 problems: universe.expression: Expected/);
  });

  it("names the known presets for an unknown one", () => {
    const e = thrown(() => compile({ ...base, universe: { preset: "us_tech" } }));
    expect(e.code).toBe("invalid_methodology");
    expect(e.issues).toEqual([
      {
        path: "universe.preset",
        message: "unknown universe preset 'us_tech'; known presets: us_all, canada",
      },
    ]);
  });

  it("rejects out-of-range rules together with expression problems", () => {
    const e = thrown(() =>
      compile({
        ...base,
        universe: { preset: "us_all", expression: "sector = 45" },
        score: "pe +",
        selection: { mode: "top_percent", value: 150, min_count: -1 },
        weighting: { scheme: "score", max_weight: 0 },
      }),
    );
    expect(e.code).toBe("invalid_methodology");
    expect(e.issues.map((i) => i.path)).toEqual([
      "universe",
      "selection.value",
      "selection.min_count",
      "weighting.max_weight",
      "score",
    ]);
  });

  it("rejects a top_n that is not a whole number and a value given to mode all", () => {
    expect(thrown(() => compile({ ...base, selection: { mode: "top_n", value: 2.5 } })).issues[0]).toEqual({
      path: "selection.value",
      message: "mode top_n needs an integer value >= 1",
    });
    expect(thrown(() => compile({ ...base, selection: { mode: "all", value: 3 } })).issues[0]!.message).toBe(
      "mode all takes no value",
    );
  });

  it("rejects an unknown rebalancing period and weighting scheme", () => {
    const e = thrown(() =>
      compile({
        ...base,
        weighting: { scheme: "inverse_vol" as "equal" },
        rules: { rebalancing_period: "WEEKLY" as "MONTHLY" },
      }),
    );
    expect(e.issues.map((i) => i.path)).toEqual(["weighting.scheme", "rules.rebalancing_period"]);
  });
});
