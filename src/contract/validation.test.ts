import { describe, expect, it } from "vitest";
import type * as z from "zod";
import { NotFoundError, ValidationError } from "../core/errors.js";
import { errorEnvelopeSchema, toErrorEnvelope } from "./error-envelope.js";
import { portfolioConfigWriteSchema } from "./portfolio-config.js";
import { proposalRequestSchema } from "./proposal.js";
import { ruleSchema } from "./rules.js";
import { themeMethodologySchema } from "./theme.js";
import { formatIssuePath, parseOrThrow, ROOT_PATH, summarizeIssues, toFieldIssues } from "./validation.js";

function issuesOf(schema: z.ZodType, value: unknown) {
  try {
    parseOrThrow(schema, value, "body");
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).issues;
  }
  throw new Error("expected a ValidationError");
}

describe("formatIssuePath", () => {
  it("joins keys with dots and indices with brackets", () => {
    expect(formatIssuePath(["optimized_weights", 2, "weight"])).toBe("optimized_weights[2].weight");
    expect(formatIssuePath(["substitution_pairs", 0, 1])).toBe("substitution_pairs[0][1]");
  });

  it("quotes keys that are not identifiers", () => {
    expect(formatIssuePath(["capital_gains_reductions", "BRK.B:XNYS"])).toBe(
      'capital_gains_reductions["BRK.B:XNYS"]',
    );
  });

  it("names the root when the path is empty", () => {
    expect(formatIssuePath([])).toBe(ROOT_PATH);
  });
});

describe("parseOrThrow", () => {
  it("returns the parsed value on success", () => {
    const body = { optimized_weights: [{ ticker: "AAPL:XNAS", weight: "0.6" }] };
    expect(parseOrThrow(proposalRequestSchema, body)).toEqual(body);
  });

  it("throws a ValidationError whose issues name each offending field", () => {
    const issues = issuesOf(proposalRequestSchema, {
      optimized_weights: [
        { ticker: "AAPL:XNAS", weight: "0.5" },
        { ticker: "MSFT:XNAS", weight: "0.25" },
        { ticker: "NVDA:XNAS", weight: "0.123456789012" },
      ],
    });
    expect(issues).toEqual([
      {
        path: "optimized_weights[2].weight",
        message: '"0.123456789012" has 12 decimal places; decimal(1,10) allows at most 10',
      },
    ]);
  });

  it("summarizes the first issue and counts the others in the message", () => {
    expect(() =>
      parseOrThrow(
        proposalRequestSchema,
        { optimized_weights: [{ ticker: "", weight: 1 }] },
        "proposal request",
      ),
    ).toThrow(
      /^Invalid proposal request: optimized_weights\[0\]\.ticker: must not be empty \(and 1 more issue\)$/,
    );
  });

  it("reports an unknown key at its own path, nested or not", () => {
    const issues = issuesOf(portfolioConfigWriteSchema, {
      nmae: "x",
      tax_preferences: { wash_sale_days: 30 },
    });
    expect(issues.sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { path: "nmae", message: "unknown field; remove it or check its spelling" },
      { path: "tax_preferences.wash_sale_days", message: "unknown field; remove it or check its spelling" },
    ]);
  });

  it("reports a missing key as Required, including a JSON value", () => {
    expect(issuesOf(proposalRequestSchema, {})).toEqual([{ path: "optimized_weights", message: "Required" }]);
    expect(issuesOf(ruleSchema, {})).toEqual([{ path: "value", message: "Required" }]);
  });

  it("reports a body that is not an object at the root", () => {
    const issues = issuesOf(proposalRequestSchema, [1, 2]);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe(ROOT_PATH);
  });

  it("names the enum field and its allowed values", () => {
    expect(issuesOf(portfolioConfigWriteSchema, { optimization_mode: "SHORT_ONLY" })).toEqual([
      {
        path: "optimization_mode",
        message: 'Invalid option: expected one of "LONG_ONLY"|"LONG_SHORT"|"LONG_BIASED"',
      },
    ]);
  });

  it("points a cross-field rule at the field to change", () => {
    const issues = issuesOf(themeMethodologySchema, {
      name: "AI leaders",
      universe: { preset: "us_large_cap" },
      selection: { mode: "top_percent", value: 150 },
      weighting: { scheme: "equal" },
      rules: { rebalancing_period: "QUARTERLY" },
    });
    expect(issues).toEqual([
      { path: "selection.value", message: "mode top_percent needs a value in (0, 100]" },
    ]);
  });
});

describe("toFieldIssues", () => {
  it("works on an error produced without reportInput (as the server may parse)", () => {
    const result = proposalRequestSchema.safeParse({ optimized_weights: [{ weight: "0.5" }], x: 1 });
    expect(toFieldIssues(result.error!)).toEqual([
      { path: "optimized_weights[0].ticker", message: "Required" },
      { path: "x", message: "unknown field; remove it or check its spelling" },
    ]);
  });

  it("says why a record key is refused instead of zod's bare 'Invalid key in record'", () => {
    expect(issuesOf(portfolioConfigWriteSchema, { capital_gains_reductions: { aapl: "10" } })).toEqual([
      {
        path: "capital_gains_reductions.aapl",
        message:
          'expected a theme_asset_id SYMBOL:MIC in upper case (e.g. AAPL:XNAS, BRK.B:XNYS), received "aapl"',
      },
    ]);
  });

  it("reports a missing JSON value as Required without reportInput", () => {
    const result = ruleSchema.safeParse({ cron: "0 0 1 * *" });
    expect(toFieldIssues(result.error!)).toEqual([{ path: "value", message: "Required" }]);
  });
});

describe("summarizeIssues", () => {
  it("counts issues after the first", () => {
    const one = { path: "a", message: "bad" };
    expect(summarizeIssues([])).toBe("invalid input");
    expect(summarizeIssues([one])).toBe("a: bad");
    expect(summarizeIssues([one, one, one])).toBe("a: bad (and 2 more issues)");
  });
});

describe("toErrorEnvelope", () => {
  it("carries code and message, and details for a validation error", () => {
    const error = new ValidationError("Invalid body: a: bad", [{ path: "a", message: "bad" }]);
    const envelope = toErrorEnvelope(error);
    expect(envelope).toEqual({
      error: {
        code: "validation_error",
        message: "Invalid body: a: bad",
        details: [{ path: "a", message: "bad" }],
      },
    });
    expect(errorEnvelopeSchema.parse(envelope)).toEqual(envelope);
  });

  it("omits details for other errors", () => {
    const envelope = toErrorEnvelope(new NotFoundError("No theme 42.", "snapshot_not_found"));
    expect(envelope).toEqual({ error: { code: "snapshot_not_found", message: "No theme 42." } });
    expect(errorEnvelopeSchema.safeParse(envelope).success).toBe(true);
  });

  it("rejects an envelope with extra members", () => {
    expect(errorEnvelopeSchema.safeParse({ error: { code: "x", message: "y" }, status: 400 }).success).toBe(
      false,
    );
    expect(errorEnvelopeSchema.safeParse({ error: { code: "", message: "y" } }).success).toBe(false);
  });
});
