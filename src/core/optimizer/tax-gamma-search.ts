/**
 * @module core/optimizer/tax-gamma-search
 * The tax_gamma search: find gamma in [tax_gamma_min, tax_gamma_max] such that the rebalance realizes a net tax
 * within its budget (the smallest such gamma: the least tax-averse portfolio that meets the budget) or a net
 * realized gain within tolerance of a target. Both quantities are continuous, non-increasing functions of gamma
 * (the solution of a strongly convex problem moves continuously with gamma and a larger gamma never realizes more
 * tax), so a bracketing root finder converges: the Illinois variant of regula falsi (Dowell & Jarratt 1971,
 * "A modified regula falsi method for computing the root of an equation", BIT 11) or bisection.
 */

/** One evaluation: the value of the monitored quantity at gamma (net tax or net realized gain, USD). */
export type GammaEvaluation = (gamma: number) => number;

/** Result of {@link searchTaxGamma}. */
export interface GammaSearchResult {
  readonly gamma: number;
  /** Quantity at `gamma`. */
  readonly value: number;
  readonly evaluations: number;
  readonly withinTolerance: boolean;
  /** Why the search stopped short, when it did. */
  readonly note: string | null;
}

/** Options of {@link searchTaxGamma}. */
export interface GammaSearchOptions {
  readonly min: number;
  readonly max: number;
  /** "budget": value <= target, as close as `tolerance`; "target": |value - target| <= tolerance. */
  readonly goal: "budget" | "target";
  readonly target: number;
  readonly tolerance: number;
  readonly method: "regula_falsi" | "bisection";
  /** @default 40 */
  readonly maxEvaluations?: number;
}

/**
 * Search gamma (see the module comment). `evaluate` is called at most `maxEvaluations` times; the last call is
 * always at the returned gamma, so the caller's solver state matches the result. An evaluation that returns NaN
 * (its solve failed) stops the search at once: the result is that gamma, value NaN, with a note.
 * @example searchTaxGamma((g) => 1000 / (1 + g), { min: 0, max: 100, goal: "budget", target: 200, tolerance: 1,
 *   method: "regula_falsi" }).gamma // ~4
 */
export function searchTaxGamma(evaluate: GammaEvaluation, o: GammaSearchOptions): GammaSearchResult {
  let evaluations = 0;
  try {
    return search(evaluate, o, () => ++evaluations);
  } catch (err) {
    if (!(err instanceof FailedEvaluation)) throw err;
    return {
      gamma: err.gamma,
      value: Number.NaN,
      evaluations,
      withinTolerance: false,
      note: `the evaluation at tax_gamma ${err.gamma} failed`,
    };
  }
}

/** Thrown by an evaluation that returned NaN (a failed solve): the search stops there. */
class FailedEvaluation {
  constructor(readonly gamma: number) {}
}

function search(evaluate: GammaEvaluation, o: GammaSearchOptions, count: () => number): GammaSearchResult {
  const maxEval = o.maxEvaluations ?? 40;
  let evaluations = 0;
  let lastGamma = Number.NaN;
  const f = (g: number): number => {
    evaluations = count();
    lastGamma = g;
    const v = evaluate(g);
    if (Number.isNaN(v)) throw new FailedEvaluation(g);
    // h > 0: gamma too small (too much tax / gain); h <= 0 acceptable side for the budget.
    return v - o.target;
  };
  const ok = (h: number) => (o.goal === "budget" ? h <= 0 && h >= -o.tolerance : Math.abs(h) <= o.tolerance);
  const done = (gamma: number, h: number, within: boolean, note: string | null): GammaSearchResult => {
    if (lastGamma !== gamma) {
      h = f(gamma); // leave the solver at the answer
    }
    return { gamma, value: h + o.target, evaluations, withinTolerance: within, note };
  };
  let a = o.min;
  let ha = f(a);
  if (ok(ha) || (o.goal === "budget" && ha <= 0))
    return done(
      a,
      ha,
      true,
      o.goal === "budget" && ha < -o.tolerance ? "the budget does not bind at tax_gamma_min" : null,
    );
  if (o.goal === "target" && ha < -o.tolerance)
    return done(
      a,
      ha,
      false,
      `even tax_gamma_min = ${o.min} realizes ${fmt(ha + o.target)} USD, below the target`,
    );
  let b = o.max;
  let hb = f(b);
  if (ok(hb)) return done(b, hb, true, null);
  if (hb > 0)
    return done(
      b,
      hb,
      false,
      `even tax_gamma_max = ${o.max} realizes ${fmt(hb + o.target)} USD, above the ${o.goal === "budget" ? "budget" : "target"} ${fmt(o.target)}`,
    );
  // Bracket: ha > 0 (gamma too small) and hb < 0. Keep the best acceptable point for budgets.
  let bestBudget = o.goal === "budget" ? { g: b, h: hb } : null;
  let side = 0;
  while (evaluations < maxEval) {
    let c: number;
    if (o.method === "bisection") c = 0.5 * (a + b);
    else {
      c = b - (hb * (b - a)) / (hb - ha);
      if (!(c > Math.min(a, b) && c < Math.max(a, b))) c = 0.5 * (a + b);
    }
    const hc = f(c);
    if (ok(hc)) return done(c, hc, true, null);
    if (o.goal === "budget" && hc <= 0 && (bestBudget === null || hc > bestBudget.h))
      bestBudget = { g: c, h: hc };
    if (hc > 0) {
      a = c;
      ha = hc;
      if (side === -1) hb /= 2; // Illinois: halve the stale end
      side = -1;
    } else {
      b = c;
      hb = hc;
      if (side === 1) ha /= 2;
      side = 1;
    }
    if (Math.abs(b - a) <= 1e-12 * Math.max(1, Math.abs(b))) break;
  }
  if (bestBudget !== null)
    return done(
      bestBudget.g,
      bestBudget.h,
      false,
      `stopped after ${evaluations} evaluations; the closest gamma under the budget is kept`,
    );
  return done(b, hb, false, `stopped after ${evaluations} evaluations`);
}

const fmt = (v: number) => Number(v.toPrecision(8)).toString();
