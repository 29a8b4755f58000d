/**
 * @module core/optimizer/optimize-portfolio
 * The tax-aware optimizer: {@link optimizePortfolio} (one rebalance) and {@link createOptimizer} (a workspace
 * that keeps lot tables, the risk model's factor form, and the engines with their QP factorizations and last
 * solutions between calls, so next month's rebalance of the same universe starts warm).
 *
 * One rebalance runs these stage functions over one explicit {@link Run} record (docs/optimizer.md, "Algorithm"
 * and "Stages and components"); each returns null to go on or the result that ends the rebalance:
 * 1. {@link prepare}: the period model (with its components, component.ts), the trade-rules component, the checks
 *    that need no solve (conflicting bounds, sums, factor reach, the components' checks) -> a diagnosis, the solve
 *    session (`solve-session.ts`);
 * 2. {@link solveContinuous}: the continuous problem at tax_gamma (with the cash reserved for the trading costs);
 * 3. {@link capActiveRisk}: slack -> done; else the smallest achievable tracking error decides how many times the
 *    cap is multiplied by risk_bound_increase_factor (up to risk_bound_max_iterations), then a solve inside the ball;
 * 4. {@link resolveSubstitutionGroups}: groups held by two or more members: each member is tried alone, the best
 *    objective wins;
 * 5. {@link searchGamma}: the tax_gamma search (tax budget or gain target);
 * 6. {@link applyTradeRules}: minimum trade and trade count (`trade-rules.ts`);
 * 7. {@link roundShares}: whole shares: rounding, a continuous re-solve of the rest, a share-by-share repair if
 *    needed, the trade rules again;
 * 8. {@link finish}: the report (trades, lots, exact gains and tax, costs, risk, binding constraints).
 */
import type { SolveState } from "./build-problem.js";
import { precheck } from "./diagnose.js";
import type {
  OptimizationInput,
  OptimizationResult,
  OptimizationStatus,
  OptimizeOptions,
  RiskCapReport,
  TaxGammaSearchReport,
} from "./optimization-types.js";
import { buildPeriodModel, type PeriodModel, WEIGHT_EPSILON } from "./period-model.js";
import { lotSales, solutionStats, tradesOf } from "./solution-report.js";
import {
  type Counters,
  createWorkspace,
  diagnoseBySolving,
  ok,
  openSession,
  type Solved,
  type SolveSession,
  solveOnce,
  solveWithSides,
  type Workspace,
} from "./solve-session.js";
import { searchTaxGamma } from "./tax-gamma-search.js";
import { enforceTradeRules, type TradeRules, tradeRules } from "./trade-rules.js";
import { repairWholeShares, roundWholeShares, violation, wholeShareMask } from "./whole-shares.js";

/** A reusable optimizer (see the module comment). */
export interface Optimizer {
  /** Optimize one rebalance; reuses what it can from previous calls. */
  optimize(input: OptimizationInput, options?: OptimizeOptions): OptimizationResult;
}

/**
 * A workspace that keeps structure between rebalances (see the module comment). Not safe for concurrent use.
 * @example
 * const optimizer = createOptimizer();
 * for (const month of months) results.push(optimizer.optimize(inputOf(month)));
 */
export function createOptimizer(): Optimizer {
  const ws = createWorkspace();
  return { optimize: (input, options) => runOptimization(ws, input, options ?? {}) };
}

/**
 * Optimize one rebalance (a fresh {@link createOptimizer} workspace).
 * @throws {ValidationError} for bad input (prices, NAV, buffers, benchmark sums, unknown factors, config values).
 * @throws {RangeError} / {@link TypeError} for misshapen arrays; {@link NonFiniteError} for NaN/Infinity.
 * @example
 * const r = optimizePortfolio({ asOf, assets, pricesUsd, lots, cashUsd, benchmark, riskModel,
 *   config: resolveOptimizerConfig({ maxWeight: 0.05 }) });
 * if (r.status === "infeasible") report(r.diagnosis);
 */
export function optimizePortfolio(
  input: OptimizationInput,
  options: OptimizeOptions = {},
): OptimizationResult {
  return createOptimizer().optimize(input, options);
}

const fmt = (v: number) =>
  Math.abs(v) >= 1e-4 || v === 0 ? Number(v.toPrecision(6)).toString() : v.toExponential(3);
const pct = (v: number) => `${Number((v * 100).toPrecision(6))}%`;

/**
 * One rebalance in progress: everything the stages share, in one record (no closures over mutable locals).
 * Created by {@link prepare}; `cur` is set by {@link solveContinuous} and replaced by every later stage that
 * accepts a new solve.
 */
interface Run {
  readonly m: PeriodModel;
  readonly options: OptimizeOptions;
  readonly session: SolveSession;
  readonly warnings: string[];
  readonly counters: Counters;
  /** Whole-share assets (1). */
  readonly whole: Uint8Array;
  /** The trade-rules component's state for this period, or null when neither rule is set. */
  readonly tradeRules: TradeRules | null;
  /** Milliseconds since the start, or null without a clock. */
  readonly elapsed: () => number | null;
  readonly preparedMs: number | null;
  /**
   * Bounds that later stages must keep (substitution-group zeros, trade-rule pins), NaN = none. The solve state's
   * extra bounds are these plus a stage's own trial bounds.
   */
  readonly pinLower: Float64Array;
  readonly pinUpper: Float64Array;
  /** The current solution. */
  cur: Solved;
  /** The final weights (differs from `cur.w` after whole-share repair). */
  finalW: Float64Array;
  riskCap: RiskCapReport | null;
  search: TaxGammaSearchReport | null;
}

/** What a stage returns: null to go on, or the result that ends the rebalance (an infeasible diagnosis). */
type Outcome = OptimizationResult | null;

function stop(run: Pick<Run, "m" | "warnings" | "counters" | "elapsed">, diagnosis: string[]) {
  return infeasible(run.m, diagnosis, run.warnings, run.counters, run.elapsed());
}

/** The failed solve's state, diagnosed by relaxing one group of constraints at a time. */
function stopAfter(run: Run, failed: Solved): OptimizationResult {
  return stop(run, diagnoseBySolving(run.session, failed));
}

/** Solve the current state (sides, cost reserve) from `x`. */
const resolve = (run: Run, x?: Float64Array) => solveWithSides(run.session, x);

function runOptimization(
  ws: Workspace,
  input: OptimizationInput,
  options: OptimizeOptions,
): OptimizationResult {
  const run = solveContinuous(prepare(ws, input, options));
  if (!isRun(run)) return run;
  for (const stage of [capActiveRisk, resolveSubstitutionGroups, searchGamma, applyTradeRules, roundShares]) {
    const stopped = stage(run);
    if (stopped !== null) return stopped;
  }
  return finish(run);
}

const isRun = (r: Run | OptimizationResult): r is Run => "session" in r;

/** Stage 1: the period model, the components' period state, the checks that need no solve, the session. */
function prepare(
  ws: Workspace,
  input: OptimizationInput,
  options: OptimizeOptions,
): Omit<Run, "cur" | "finalW"> | OptimizationResult {
  const started = options.now?.();
  const m = buildPeriodModel(input, ws.cache);
  const warnings = [...m.warnings];
  const counters: Counters = { rounds: 0, solves: 0, rebuilds: 0, qpIterations: 0 };
  const whole = wholeShareMask(m);
  const rules = tradeRules.initialize(m);
  const elapsed = () => (started === undefined ? null : options.now!() - started);
  const pre = precheck(m);
  if (pre.length > 0) return infeasible(m, pre, warnings, counters, elapsed());
  const session = openSession(ws, m, input, options, counters);
  return {
    m,
    options,
    session,
    warnings,
    counters,
    whole,
    tradeRules: rules,
    elapsed,
    preparedMs: elapsed(),
    pinLower: new Float64Array(m.n).fill(Number.NaN),
    pinUpper: new Float64Array(m.n).fill(Number.NaN),
    riskCap: null,
    search: null,
  };
}

/** Stage 2: the continuous problem at tax_gamma, with sides and the cost reserve. */
function solveContinuous(
  prepared: Omit<Run, "cur" | "finalW"> | OptimizationResult,
): Run | OptimizationResult {
  if (!("session" in prepared)) return prepared;
  const cur = solveWithSides(prepared.session);
  const run: Run = { ...prepared, cur, finalW: cur.w };
  if (!ok(cur.res)) return stopAfter(run, cur);
  return run;
}

/**
 * Stage 3: the active-risk cap. Slack: kept as a constraint when a later stage will move the solution. Binding:
 * the smallest achievable tracking error decides how many times the cap is relaxed, then a solve in the ball.
 */
function capActiveRisk(run: Run): Outcome {
  const { m, session } = run;
  const config = m.config;
  const state = session.state;
  const pctCap =
    config.useActiveRiskBounds && config.maxActiveRiskPct !== null ? config.maxActiveRiskPct / 100 : Infinity;
  const requested = Math.min(pctCap, config.tax.trackingErrorThreshold ?? Infinity);
  if (!Number.isFinite(requested)) return null;
  const te = solutionStats(m, run.cur.w, state.gamma).trackingError;
  if (te <= requested * (1 + 1e-9)) {
    run.riskCap = { requested, used: requested, relaxations: 0, minimumAchievable: null, binding: false };
    // Not binding here, but later stages (substitution groups, the tax_gamma search, whole shares) move the
    // solution: they solve with the cap as a constraint so that none of them can leave it.
    const laterStages =
      config.substitutionGroups.length > 0 ||
      config.tax.taxBudgetUsd !== null ||
      config.tax.taxGainTarget !== null ||
      run.tradeRules !== null ||
      run.whole.some((v) => v === 1);
    if (laterStages) state.radius = requested;
    return null;
  }
  const minimal = solveOnce(session, { ...state, objective: "risk-only", radius: null });
  const teMin = ok(minimal.res) ? solutionStats(m, minimal.w, 0).trackingError : Number.NaN;
  let r = requested;
  let k = 0;
  const factor = config.riskBoundIncreaseFactor;
  while (r < teMin * (1 + 1e-9) && k < config.riskBoundMaxIterations && factor > 1) {
    r *= factor;
    k++;
  }
  if (!(r >= teMin * (1 + 1e-9)) && !(teMin === 0)) {
    const source =
      pctCap <= (config.tax.trackingErrorThreshold ?? Infinity)
        ? `max_active_risk_pct ${config.maxActiveRiskPct}`
        : `tracking_error_threshold ${config.tax.trackingErrorThreshold}`;
    return stop(run, [
      `${source}: the active-risk cap ${pct(requested)}${k > 0 ? `, relaxed ${k} time(s) by risk_bound_increase_factor ${factor} to ${pct(r)} (risk_bound_max_iterations ${config.riskBoundMaxIterations})` : factor <= 1 ? " (risk_bound_increase_factor 1 cannot relax it)" : " (risk_bound_max_iterations 0)"}, is still below the smallest tracking error the other constraints allow, ${pct(teMin)}.`,
    ]);
  }
  if (k > 0)
    run.warnings.push(
      `The active-risk cap ${pct(requested)} was infeasible; relaxed ${k} time(s) by ${factor} to ${pct(r)}.`,
    );
  state.radius = r;
  run.cur = resolve(run, minimal.res.x);
  if (!ok(run.cur.res)) return stopAfter(run, run.cur);
  run.riskCap = { requested, used: r, relaxations: k, minimumAchievable: teMin, binding: true };
  return null;
}

/** The state's extra bounds: the pins of the run (copies, so that a stage's trials cannot change them). */
function keepPins(run: Run): void {
  run.session.state.extraLower = Float64Array.from(run.pinLower);
  run.session.state.extraUpper = Float64Array.from(run.pinUpper);
}

const groupMembers = (m: PeriodModel, group: readonly string[]) =>
  [...new Set(group)].map((id) => m.index.get(id)).filter((i): i is number => i !== undefined);

/**
 * Stage 4: substitution groups, at most one member held. A group held by two or more members is resolved by
 * trying each member alone (the others at weight 0) and keeping the best objective; a group held by one member
 * keeps it (the others stay at 0 in the later stages, which would otherwise be free to buy a second member). The
 * tax_gamma search can still buy two members of a group none of whose members was held: the groups are
 * enforced again after it.
 */
function resolveSubstitutionGroups(run: Run): Outcome {
  const { m } = run;
  if (m.config.substitutionGroups.length === 0) return null;
  const failed = enforceGroups(run);
  if (failed !== null) return failed;
  for (const group of m.config.substitutionGroups) {
    const members = groupMembers(m, group);
    const held = members.filter((i) => Math.abs(run.cur.w[i]!) > WEIGHT_EPSILON);
    if (held.length !== 1) continue;
    for (const o of members)
      if (o !== held[0]) {
        run.pinLower[o] = 0;
        run.pinUpper[o] = 0;
      }
  }
  keepPins(run);
  return null;
}

/** Resolves every group held by two or more members at `run.cur`; an infeasible result when one cannot be. */
function enforceGroups(run: Run): Outcome {
  const { m } = run;
  const state = run.session.state;
  const groups = m.config.substitutionGroups;
  // Resolving one group re-solves, which may make an earlier, unresolved group hold two members: passes until
  // none does (each pass resolves at least one group for good: at most one pass per group, plus one).
  for (let pass = 0; pass <= groups.length; pass++) {
    let resolved = false;
    for (const [g, group] of groups.entries()) {
      const members = groupMembers(m, group);
      const held = members.filter((i) => Math.abs(run.cur.w[i]!) > WEIGHT_EPSILON);
      if (held.length <= 1) continue;
      let best: { member: number; solved: Solved } | null = null;
      const tried: string[] = [];
      for (const c of members) {
        const lo = Float64Array.from(run.pinLower);
        const hi = Float64Array.from(run.pinUpper);
        let possible = true;
        for (const o of members) {
          if (o === c) continue;
          if (run.cur.built.lower[o]! > WEIGHT_EPSILON || run.cur.built.upper[o]! < -WEIGHT_EPSILON)
            possible = false;
          lo[o] = 0;
          hi[o] = 0;
        }
        if (!possible) {
          tried.push(`${m.assets[c]} (another member cannot reach weight 0)`);
          continue;
        }
        state.extraLower = lo;
        state.extraUpper = hi;
        const s = resolve(run, run.cur.res.x);
        if (!ok(s.res)) {
          tried.push(`${m.assets[c]} (infeasible)`);
          continue;
        }
        if (best === null || s.res.objective < best.solved.res.objective - 1e-15)
          best = { member: c, solved: s };
      }
      if (best === null)
        return stop(run, [
          `substitution_pairs[${g}] (${group.join(", ")}): no member can be the only one held: ${tried.join("; ")}.`,
        ]);
      for (const o of members)
        if (o !== best.member) {
          run.pinLower[o] = 0;
          run.pinUpper[o] = 0;
        }
      resolved = true;
      keepPins(run);
      // Leave the engine at the winner.
      run.cur = resolve(run, best.solved.res.x);
      if (!ok(run.cur.res)) return stopAfter(run, run.cur);
    }
    if (!resolved) break;
  }
  return null;
}

/** Stage 5: the tax_gamma search (tax budget or gain target), then the substitution groups again. */
function searchGamma(run: Run): Outcome {
  const { m } = run;
  const config = m.config;
  const tax = config.tax;
  const state = run.session.state;
  if (tax.taxBudgetUsd === null && tax.taxGainTarget === null) return null;
  const goal = tax.taxBudgetUsd !== null ? "budget" : "target";
  const target = goal === "budget" ? tax.taxBudgetUsd! : tax.taxGainTarget!;
  const tolerance = tax.taxGainTargetTolerance ?? Math.max(1, 0.01 * Math.abs(target));
  let failure: Solved | null = null;
  const found = searchTaxGamma(
    (gamma) => {
      state.gamma = gamma;
      const s = resolve(run, run.cur.res.x);
      if (!ok(s.res)) {
        failure = s;
        return Number.NaN;
      }
      run.cur = s;
      const st = solutionStats(m, s.w, gamma);
      return goal === "budget" ? st.taxUsd : st.netGainUsd;
    },
    {
      min: tax.taxGammaMin,
      max: tax.taxGammaMax,
      goal,
      target,
      tolerance,
      method: config.useRegulaFalsi ? "regula_falsi" : "bisection",
    },
  );
  if (failure !== null) return stopAfter(run, failure);
  state.gamma = found.gamma;
  if (found.note !== null && !found.withinTolerance) run.warnings.push(`tax_gamma search: ${found.note}.`);
  run.search = {
    method: config.useRegulaFalsi ? "regula_falsi" : "bisection",
    goal: goal === "budget" ? "tax_budget" : "gain_target",
    target,
    tolerance,
    achieved: found.value,
    evaluations: found.evaluations,
    withinTolerance: found.withinTolerance,
  };
  if (config.substitutionGroups.length > 0) {
    const searched = run.cur;
    const failed = enforceGroups(run);
    if (failed !== null) return failed;
    if (run.cur !== searched) {
      const st = solutionStats(m, run.cur.w, state.gamma);
      const achieved = goal === "budget" ? st.taxUsd : st.netGainUsd;
      const h = achieved - target;
      const within = goal === "budget" ? h <= 0 && h >= -tolerance : Math.abs(h) <= tolerance;
      run.search = { ...run.search, achieved, withinTolerance: within };
      run.warnings.push(
        `The tax_gamma search bought a second member of a substitution group; enforcing the group afterwards realizes ${fmt(achieved)} USD of ${goal === "budget" ? "tax" : "net gain"}${within ? "" : `, outside the tolerance of the ${goal === "budget" ? "budget" : "target"} ${fmt(target)}`}.`,
      );
    }
  }
  return null;
}

/** Stage 6: minimum trade and trade count (the trade-rules component): dust pinned, the rest re-solved. */
function applyTradeRules(run: Run): Outcome {
  const rules = run.tradeRules;
  if (rules === null) return null;
  const state = run.session.state;
  const conflicts = enforceTradeRules(run.m, rules, run.pinLower, run.pinUpper, {
    current: () => ({ w: run.cur.w, lower: run.cur.built.lower, upper: run.cur.built.upper }),
    solve: (lo, hi) => {
      state.extraLower = lo;
      state.extraUpper = hi;
      const s = resolve(run, run.cur.res.x);
      return ok(s.res) ? s : null;
    },
    accept: (s) => {
      run.cur = s;
    },
  });
  keepPins(run);
  if (conflicts.length > 0) return stop(run, conflicts);
  return null;
}

/**
 * Stage 7: whole shares. Rounding, a continuous re-solve of the rest, a share-by-share repair when that breaks a
 * constraint; then the trade rules again on what the rounding left (whole-share assets fixed).
 */
function roundShares(run: Run): Outcome {
  const { m, whole } = run;
  const state = run.session.state;
  run.finalW = run.cur.w;
  if (!whole.some((v) => v === 1)) return null;
  const preLower = run.cur.built.lower;
  const preUpper = run.cur.built.upper;
  const rounded = roundWholeShares(
    m,
    run.cur.w,
    whole,
    run.cur.built.lower,
    run.cur.built.upper,
    run.tradeRules?.minTradeUsd ?? 0,
  );
  if (rounded.conflicts.length > 0) return stop(run, rounded.conflicts);
  const continuous = run.cur.w;
  const fixLo = Float64Array.from(run.pinLower);
  const fixHi = Float64Array.from(run.pinUpper);
  for (let i = 0; i < m.n; i++)
    if (!Number.isNaN(rounded.fixed[i]!)) {
      fixLo[i] = rounded.fixed[i]!;
      fixHi[i] = rounded.fixed[i]!;
    }
  const hasContinuous = m.assets.some(
    (_, i) => whole[i] !== 1 && run.cur.built.lower[i]! < run.cur.built.upper[i]!,
  );
  let wRounded: Float64Array = Float64Array.from(run.cur.w);
  for (let i = 0; i < m.n; i++) if (!Number.isNaN(rounded.fixed[i]!)) wRounded[i] = rounded.fixed[i]!;
  // Solve again with the whole-share assets fixed at fixLo = fixHi; a solution that meets every constraint is kept.
  const resolveFixed = () => {
    state.extraLower = fixLo;
    state.extraUpper = fixHi;
    const s = resolve(run, run.cur.res.x);
    const kept = ok(s.res) && violation(m, s.built, s.w) <= 1e-12;
    if (kept) {
      run.cur = s;
      run.finalW = s.w;
    }
    return { s, kept };
  };
  let done = false;
  if (hasContinuous) {
    const { s, kept } = resolveFixed();
    done = kept;
    if (!kept && ok(s.res)) wRounded = s.w;
  }
  if (!done) {
    const repaired = repairWholeShares(m, run.cur.built, wRounded, continuous, whole);
    if (repaired === null)
      return stop(run, [
        "Whole shares: no rounding of the whole-share trades satisfies every constraint (budget with costs, factor bounds, turnover, sums, risk cap); fractional shares or wider bounds are needed.",
      ]);
    run.finalW = repaired;
    if (hasContinuous) {
      for (let i = 0; i < m.n; i++)
        if (whole[i] === 1) {
          fixLo[i] = repaired[i]!;
          fixHi[i] = repaired[i]!;
        }
      resolveFixed();
    }
  }
  // Exact whole-share weights (the continuous solve may leave 1e-16 noise on fixed assets).
  for (let i = 0; i < m.n; i++)
    if (whole[i] === 1 && state.extraLower?.[i] !== undefined && !Number.isNaN(state.extraLower[i]!))
      run.finalW[i] = state.extraLower[i]!;
  return tradeRulesAfterRounding(run, preLower, preUpper, hasContinuous);
}

/** The rounding (or the continuous re-solve after it) can leave orders below the minimum: pin them too. */
function tradeRulesAfterRounding(
  run: Run,
  preLower: Float64Array,
  preUpper: Float64Array,
  hasContinuous: boolean,
): Outcome {
  const rules = run.tradeRules;
  if (rules === null) return null;
  const { m } = run;
  const state = run.session.state;
  const lo0 = Float64Array.from(state.extraLower ?? run.pinLower);
  const hi0 = Float64Array.from(state.extraUpper ?? run.pinUpper);
  let lastSolved: Solved | null = null;
  const conflicts = enforceTradeRules(
    m,
    rules,
    lo0,
    hi0,
    {
      current: () => ({ w: run.finalW, lower: preLower, upper: preUpper }),
      solve: (lo, hi) => {
        let w: Float64Array;
        if (hasContinuous) {
          state.extraLower = lo;
          state.extraUpper = hi;
          const s = resolve(run, run.cur.res.x);
          if (!ok(s.res) || violation(m, s.built, s.w) > 1e-12) return null;
          lastSolved = s;
          w = Float64Array.from(s.w);
        } else w = Float64Array.from(run.finalW);
        for (let i = 0; i < m.n; i++) if (!Number.isNaN(lo[i]!) && lo[i] === hi[i]) w[i] = lo[i]!;
        if (!hasContinuous && violation(m, run.cur.built, w) > 1e-12) return null;
        return w;
      },
      accept: (w) => {
        run.finalW = w;
        if (lastSolved !== null) run.cur = lastSolved;
      },
    },
    run.whole,
  );
  if (conflicts.length > 0) return stop(run, conflicts);
  return null;
}

/** Stage 8: the final weights against the risk cap, the report, the timings. */
function finish(run: Run): OptimizationResult {
  const { m, session } = run;
  if (run.riskCap !== null) {
    // The final weights against the cap used (whole-share repair works outside the cone; say so if it crossed).
    const te = solutionStats(m, run.finalW, session.state.gamma).trackingError;
    if (te > run.riskCap.used * (1 + 1e-6))
      run.warnings.push(
        `The final tracking error ${pct(te)} exceeds the active-risk cap ${pct(run.riskCap.used)} after whole-share rounding.`,
      );
    else if (!run.riskCap.binding && te >= run.riskCap.used * (1 - 1e-7))
      run.riskCap = { ...run.riskCap, binding: true };
  }
  const solved = run.elapsed();
  const out = report(
    m,
    run.cur,
    run.finalW,
    run.whole,
    session.state,
    run.riskCap,
    run.search,
    run.warnings,
    run.counters,
    null,
    run.options,
    run.cur.res.status === "optimal" ? "optimal" : "suboptimal",
  );
  const done = run.elapsed();
  const prepared = run.preparedMs;
  const lateWarnings: string[] = [];
  if (out.cashAfterUsd < out.cashBufferUsd - 1e-6)
    lateWarnings.push(
      `Cash after the trades, ${out.cashAfterUsd.toFixed(2)} USD, is below the buffer ${out.cashBufferUsd.toFixed(2)} USD: long_weight_sum + short_weight_sum fixes the net weight, so the trading costs come out of the buffer.`,
    );
  return {
    ...out,
    warnings: [...out.warnings, ...lateWarnings],
    solver: {
      ...out.solver,
      timeMs: done,
      prepareMs: prepared,
      solveMs: solved === null || prepared === null ? null : solved - prepared,
      reportMs: done === null || solved === null ? null : done - solved,
    },
  };
}

function emptyResultBase(m: PeriodModel) {
  return {
    asOf: m.asOf,
    assets: m.assets,
    navUsd: m.navUsd,
    investableUsd: m.investableUsd,
    cashBufferUsd: m.bufferUsd,
    currentWeights: m.w0,
    benchmarkWeights: m.benchmark,
  };
}

function infeasible(
  m: PeriodModel,
  diagnosis: string[],
  warnings: string[],
  c: Counters,
  timeMs: number | null,
): OptimizationResult {
  return {
    status: "infeasible",
    ...emptyResultBase(m),
    weights: new Float64Array(m.n),
    trades: [],
    lotsToSell: [],
    shortLotsToCover: [],
    trackingError: Number.NaN,
    totalRisk: Number.NaN,
    taxCostUsd: 0,
    realizedShortTermUsd: 0,
    realizedLongTermUsd: 0,
    capitalGainsReductionUsd: 0,
    harvestedLossesUsd: 0,
    transactionCostUsd: 0,
    marketImpactUsd: 0,
    turnover: 0,
    cashAfterUsd: m.cashUsd,
    taxGamma: m.config.tax.taxGamma,
    taxGammaSearch: null,
    riskCap: null,
    objective: {
      total: Number.NaN,
      risk: Number.NaN,
      transactionCost: Number.NaN,
      tax: Number.NaN,
      expectedReturn: Number.NaN,
    },
    solver: { status: "infeasible", ...c, timeMs, prepareMs: null, solveMs: null, reportMs: null },
    kkt: { stationarity: Number.NaN, primal: Number.NaN, powerGradientGap: Number.NaN },
    binding: [],
    diagnosis,
    warnings,
  };
}

/** Names of the constraints with a non-zero multiplier, grouped ("max_weight 0.05 (12 assets)"). */
function bindingNames(m: PeriodModel, s: Solved, radius: number | null, te: number): string[] {
  const out: string[] = [];
  const p = s.built.problem;
  const tol = 1e-10;
  s.res.y.forEach((y, r) => {
    if (Math.abs(y) > tol) out.push(`${p.rowNames?.[r] ?? `row ${r}`} (${y > 0 ? "upper" : "lower"})`);
  });
  s.res.ySwitch.forEach((y, r) => {
    if (Math.abs(y) > tol) out.push(`${p.switchRows?.names?.[r] ?? `switch ${r}`}`);
  });
  const groups = new Map<string, number>();
  for (let i = 0; i < m.n; i++) {
    const y = s.res.yBounds[i]!;
    if (Math.abs(y) <= tol) continue;
    const src = y > 0 ? m.upperSource[i]! : m.lowerSource[i]!;
    if (src === "" || src.startsWith("no_trade") || src.startsWith("no_hold")) continue;
    groups.set(src, (groups.get(src) ?? 0) + 1);
  }
  for (const [src, count] of groups) out.push(count > 1 ? `${src} (${count} assets)` : src);
  if (radius !== null && Math.abs(te - radius) <= 1e-7 * radius) out.push(`active-risk cap ${pct(radius)}`);
  return out;
}

function report(
  m: PeriodModel,
  s: Solved,
  w: Float64Array,
  whole: Uint8Array,
  state: SolveState,
  riskCap: RiskCapReport | null,
  search: TaxGammaSearchReport | null,
  warnings: string[],
  c: Counters,
  timeMs: number | null,
  options: OptimizeOptions,
  status: OptimizationStatus,
): OptimizationResult {
  const st = solutionStats(m, w, state.gamma);
  const sales = lotSales(m, w, whole);
  const trades = tradesOf(m, w);
  let bought = 0;
  for (let i = 0; i < m.n; i++) bought += (w[i]! - m.w0[i]!) * m.investableUsd;
  const cashAfter = m.cashUsd - bought - st.linearCostUsd - st.impactUsd;
  const cap =
    riskCap === null
      ? null
      : {
          ...riskCap,
          binding: riskCap.binding && Math.abs(st.trackingError - riskCap.used) <= 1e-7 * riskCap.used,
        };
  if (status === "suboptimal")
    warnings.push(
      `The engine stopped after ${c.rounds} rounds without certifying optimality (stationarity ${fmt(s.res.kkt.stationarity)}).`,
    );
  return {
    status,
    ...emptyResultBase(m),
    weights: w,
    trades,
    lotsToSell: sales.lotsToSell,
    shortLotsToCover: sales.shortLotsToCover,
    trackingError: st.trackingError,
    totalRisk: st.totalRisk,
    taxCostUsd: sales.taxCostUsd,
    realizedShortTermUsd: sales.realizedShortTermUsd,
    realizedLongTermUsd: sales.realizedLongTermUsd,
    capitalGainsReductionUsd: sales.capitalGainsReductionUsd,
    harvestedLossesUsd: sales.harvestedLossesUsd,
    transactionCostUsd: st.linearCostUsd + st.impactUsd,
    marketImpactUsd: st.impactUsd,
    turnover: st.turnover,
    cashAfterUsd: cashAfter,
    taxGamma: state.gamma,
    taxGammaSearch: search,
    riskCap: cap,
    objective: {
      total: st.objective,
      risk: st.riskTerm,
      transactionCost: st.costTerm,
      tax: st.taxTerm,
      expectedReturn: st.returnTerm,
    },
    solver: { status: s.res.status, ...c, timeMs, prepareMs: null, solveMs: null, reportMs: null },
    kkt: s.res.kkt,
    binding: bindingNames(m, s, state.radius, st.trackingError),
    diagnosis: [],
    warnings,
    ...(options.includeProblem ? { problem: s.built.problem, engine: s.res } : {}),
  };
}
