/**
 * @module core/optimizer/optimize-portfolio
 * The tax-aware optimizer: {@link optimizePortfolio} (one rebalance) and {@link createOptimizer} (a workspace
 * that keeps lot tables, the risk model's factor form, and the engines with their QP factorizations and last
 * solutions between calls, so next month's rebalance of the same universe starts warm).
 *
 * One rebalance runs these stages (docs/optimizer.md, "Algorithm"):
 * 1. checks that need no solve (conflicting bounds, sums, factor reach, forced turnover) -> a diagnosis;
 * 2. the continuous problem at tax_gamma (with the cash reserved for the trading costs);
 * 3. the active-risk cap: slack -> done; else the smallest achievable tracking error decides how many times the
 *    cap is multiplied by risk_bound_increase_factor (up to risk_bound_max_iterations), then a solve inside the ball;
 * 4. substitution groups held by two or more members: each member is tried alone, the best objective wins;
 * 5. the tax_gamma search (tax budget or gain target);
 * 6. whole shares: rounding, a continuous re-solve of the rest, and a share-by-share repair if needed;
 * 7. the report (trades, lots, exact gains and tax, costs, risk, binding constraints).
 */
import { type BuiltProblem, buildProblem, convexifyKinks, type SolveState } from "./build-problem.js";
import { precheck } from "./diagnose.js";
import type {
  OptimizationInput,
  OptimizationResult,
  OptimizationStatus,
  OptimizeOptions,
  RiskCapReport,
  TaxGammaSearchReport,
} from "./optimization-types.js";
import {
  buildPeriodModel,
  createModelCache,
  type ModelCache,
  type PeriodModel,
  WEIGHT_EPSILON,
} from "./period-model.js";
import { createPwlQpSolver, type PwlQpSolver, predictVariable } from "./pwl-qp.js";
import type { PwlQpProblem, PwlQpResult } from "./pwl-qp-types.js";
import { impactOf, lotSales, solutionStats, tradesOf } from "./solution-report.js";
import { searchTaxGamma } from "./tax-gamma-search.js";
import { enforceTradeRules, tradeRulesOf } from "./trade-rules.js";
import { repairWholeShares, roundWholeShares, violation, wholeShareMask } from "./whole-shares.js";

/** A reusable optimizer (see the module comment). */
export interface Optimizer {
  /** Optimize one rebalance; reuses what it can from previous calls. */
  optimize(input: OptimizationInput, options?: OptimizeOptions): OptimizationResult;
}

/** Engines kept per problem structure (risk model, universe, risk aversion, rows, cone, impact curvature). */
const MAX_ENGINES = 8;

interface Workspace {
  cache: ModelCache;
  engines: Map<string, PwlQpSolver>;
  objectIds: WeakMap<object, number>;
  nextId: number;
  /** Universes seen (assets joined), numbered: an engine is only reused for exactly the same asset list. */
  universeIds: Map<string, number>;
}

function objectId(ws: Workspace, o: object): number {
  let id = ws.objectIds.get(o);
  if (id === undefined) {
    id = ws.nextId++;
    ws.objectIds.set(o, id);
  }
  return id;
}

/**
 * A workspace that keeps structure between rebalances (see the module comment). Not safe for concurrent use.
 * @example
 * const optimizer = createOptimizer();
 * for (const month of months) results.push(optimizer.optimize(inputOf(month)));
 */
export function createOptimizer(): Optimizer {
  const ws: Workspace = {
    cache: createModelCache(),
    engines: new Map(),
    objectIds: new WeakMap(),
    nextId: 1,
    universeIds: new Map(),
  };
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

interface Counters {
  rounds: number;
  solves: number;
  rebuilds: number;
  qpIterations: number;
}

interface Solved {
  built: BuiltProblem;
  res: PwlQpResult;
  w: Float64Array;
}

const ok = (r: PwlQpResult) => r.status === "optimal" || r.status === "max_rounds";
const fmt = (v: number) =>
  Math.abs(v) >= 1e-4 || v === 0 ? Number(v.toPrecision(6)).toString() : v.toExponential(3);
const pct = (v: number) => `${Number((v * 100).toPrecision(6))}%`;

function runOptimization(
  ws: Workspace,
  input: OptimizationInput,
  options: OptimizeOptions,
): OptimizationResult {
  const started = options.now?.();
  const m = buildPeriodModel(input, ws.cache);
  const config = m.config;
  const warnings = [...m.warnings];
  const counters: Counters = { rounds: 0, solves: 0, rebuilds: 0, qpIterations: 0 };
  const whole = wholeShareMask(m);
  const tradeRules = tradeRulesOf(m);
  const elapsed = () => (started === undefined ? null : options.now!() - started);

  const pre = precheck(m);
  if (pre.length > 0) return infeasible(m, pre, warnings, counters, elapsed());

  const state: { -readonly [K in keyof SolveState]: SolveState[K] } = {
    gamma: config.tax.taxGamma,
    reserve: 0,
    radius: null,
    objective: "full",
  };
  // Next month's rebalance of the same universe runs the same stages as a cold one (sides from the relaxed solve,
  // the cost reserve from 0), on the engines that solved last month: their QP factorizations, multipliers and last
  // solutions are the warm start. Last month's sides or reserve are not reused: the side choice is non-convex and
  // the reserve check keeps any reserve that fits, so either would make the answer depend on the history
  // (docs/optimizer.md, "Warm start across rebalances").
  const universe = m.assets.join("\u0000");
  let universeId = ws.universeIds.get(universe);
  if (universeId === undefined) {
    if (ws.universeIds.size >= 64) ws.universeIds.clear();
    universeId = ws.nextId++;
    ws.universeIds.set(universe, universeId);
  }
  const prepared = elapsed();

  // Builds depend on gamma, the objective, convexified kinks, the impact curvature and relaxations; side locks,
  // extra bounds and the cost reserve are applied to a build without rebuilding it (engine bounds, budget row).
  const builds = new Map<string, BuiltProblem>();
  const lastProblem = new WeakMap<PwlQpSolver, PwlQpProblem>();
  const getBuild = (st: SolveState): BuiltProblem => {
    const buildKey = `${st.gamma}|${st.objective}|${st.convexifyKinks === true}|${st.radius}|${JSON.stringify(st.relax ?? {})}`;
    let built = builds.get(buildKey);
    if (built === undefined) {
      built =
        st.convexifyKinks === true
          ? convexifyKinks(getBuild({ ...st, convexifyKinks: undefined }))
          : buildProblem(m, {
              ...st,
              side: undefined,
              extraLower: undefined,
              extraUpper: undefined,
              reserve: 0,
            });
      if (builds.size > 24) builds.clear();
      builds.set(buildKey, built);
    }
    return built;
  };
  const solveOnce = (st: SolveState, initialX?: Float64Array): Solved => {
    const built = getBuild(st);
    const p = built.problem;
    const key = [
      objectId(ws, input.riskModel),
      config.spectralShift,
      universeId,
      st.objective === "risk-only" ? 1 : config.riskAversion,
      st.radius,
      built.switches.join("+"),
      built.factorRows.map((f) => f.index).join(","),
      p.power === undefined ? "none" : "power",
    ].join("|");
    // The budget row with the cost reserve.
    const u = Float64Array.from(p.u!);
    if (Number.isFinite(u[0]!)) u[0]! -= st.reserve;
    let engine = ws.engines.get(key);
    if (engine === undefined || engine.n !== m.n) {
      engine = createPwlQpSolver({ ...p, u });
      ws.engines.set(key, engine);
      if (ws.engines.size > MAX_ENGINES) ws.engines.delete(ws.engines.keys().next().value!);
    } else if (lastProblem.get(engine) === p) engine.update({ u });
    else
      engine.update({
        q: p.q,
        l: p.l!,
        u,
        segments: p.segments,
        ...(p.switchRows === undefined ? {} : { switchRows: p.switchRows }),
        ...(p.power === undefined ? {} : { power: p.power }),
        offset: p.offset ?? 0,
      });
    lastProblem.set(engine, p);
    // Domain of this solve: the model's bounds, extra bounds, side locks (in x = w - b).
    const lower = Float64Array.from(built.lower);
    const upper = Float64Array.from(built.upper);
    let restricted = false;
    for (let i = 0; i < m.n; i++) {
      const el = st.extraLower?.[i];
      const eu = st.extraUpper?.[i];
      if (el !== undefined && !Number.isNaN(el) && el > lower[i]!) {
        lower[i] = el;
        restricted = true;
      }
      if (eu !== undefined && !Number.isNaN(eu) && eu < upper[i]!) {
        upper[i] = eu;
        restricted = true;
      }
      const side = st.side?.[i] ?? 0;
      // A side lock yields to the other bounds when they exclude its side.
      if (side > 0 && upper[i]! >= m.w0[i]! && lower[i]! < m.w0[i]!) {
        lower[i] = m.w0[i]!;
        restricted = true;
      } else if (side < 0 && lower[i]! <= m.w0[i]! && upper[i]! > m.w0[i]!) {
        upper[i] = m.w0[i]!;
        restricted = true;
      }
    }
    let bounds: { lower: Float64Array; upper: Float64Array } | undefined;
    if (restricted) {
      bounds = { lower: new Float64Array(m.n), upper: new Float64Array(m.n) };
      for (let i = 0; i < m.n; i++) {
        bounds.lower[i] = lower[i]! - m.benchmark[i]!;
        bounds.upper[i] = upper[i]! - m.benchmark[i]!;
      }
    }
    const res = engine.solve({
      ...(options.maxRounds === undefined ? {} : { maxRounds: options.maxRounds }),
      ...(options.qp === undefined ? {} : { qp: options.qp }),
      ...(initialX === undefined ? {} : { initialX }),
      ...(bounds === undefined ? {} : { bounds }),
    });
    counters.rounds += res.rounds;
    counters.solves += res.solves;
    counters.rebuilds += res.rebuilds;
    counters.qpIterations += res.qpIterations;
    const w = new Float64Array(m.n);
    for (let i = 0; i < m.n; i++) w[i] = res.x[i]! + m.benchmark[i]!;
    return { built: { ...built, lower, upper, problem: { ...p, u } }, res, w };
  };

  const fixedNet =
    config.optimizationMode === "LONG_SHORT" &&
    config.longWeightSum !== null &&
    config.shortWeightSum !== null;
  /** Solve the current state, with the trading-cost reserve of the budget. */
  const solvePlain = (initialX?: Float64Array): Solved => {
    let s = solveOnce(state, initialX);
    for (let pass = 0; pass < 6 && ok(s.res); pass++) {
      // Cash after trades and their costs must cover the buffers: reserve the costs in the budget row.
      // LONG_SHORT with both sums set fixes the net weight (long + short): no room to reserve, the costs come out
      // of the buffer and a warning says so (below).
      if (fixedNet) break;
      let sum = 0;
      for (let i = 0; i < m.n; i++) sum += s.w[i]!;
      const costs = tradingCosts(m, s.w);
      if (sum + costs <= 1 + 1e-12) break;
      state.reserve = costs * (1 + 1e-9) + 1e-15;
      s = solveOnce(state);
    }
    return s;
  };

  /**
   * Solve with the two-sided assets on one side each (docs/optimizer.md, "Wash sales and sides"): sides come from
   * a relaxed solve whose concave kinks are convexified (first call) or from the previous solve; then each
   * two-sided asset whose other side the one-dimensional model (with the solution's multipliers) finds better is
   * flipped, all at once and, if that does not lower the objective, the best one alone.
   */
  const solve = (initialX?: Float64Array): Solved => {
    // The problem with both sides open: which assets are two-sided, and their other side's model below.
    const full = getBuild(state);
    const two = full.twoSided;
    if (!two.some((v) => v === 1)) {
      state.side = undefined;
      return solvePlain(initialX);
    }
    let start = initialX;
    const sides = new Int8Array(m.n);
    const previous = state.side;
    if (previous === undefined) {
      state.side = undefined;
      state.convexifyKinks = true;
      const relaxed = solvePlain(initialX);
      state.convexifyKinks = undefined;
      if (!ok(relaxed.res)) return relaxed;
      for (let i = 0; i < m.n; i++) {
        if (two[i] !== 1) continue;
        const t = relaxed.w[i]! - m.w0[i]!;
        sides[i] = t > WEIGHT_EPSILON ? 1 : t < -WEIGHT_EPSILON ? -1 : m.w0[i]! > 0 ? -1 : 1;
      }
      start = relaxed.res.x;
    } else for (let i = 0; i < m.n; i++) sides[i] = two[i] === 1 ? previous[i]! || -1 : 0;
    state.side = sides;
    let best = solvePlain(start);
    const fp = full.problem;
    for (let pass = 0; pass < 4 && ok(best.res); pass++) {
      const V = fp.P.factors!;
      const kf = V.cols;
      const cands: { i: number; dec: number }[] = [];
      for (let i = 0; i < m.n; i++) {
        if (two[i] !== 1) continue;
        let a = fp.P.diagonal[i]! + (fp.power?.curvature[i] ?? 0);
        for (let c = 0; c < kf; c++) a += V.data[i * kf + c]! ** 2 * fp.P.factorScales![c]!;
        const kink = m.w0[i]! - m.benchmark[i]!;
        const sg = fp.segments;
        let lo = sg.start[i]!;
        let hi = sg.start[i + 1]! - 1;
        if (sides[i]! < 0) while (lo <= hi && sg.lower[lo]! < kink - 1e-15) lo++;
        else while (hi >= lo && sg.upper[hi]! > kink + 1e-15) hi--;
        if (lo > hi) continue;
        const p = predictVariable(
          sg,
          fp.switchRows,
          best.res.ySwitch,
          a,
          i,
          best.res.x[i]!,
          best.res.gradient[i]!,
          lo,
          hi,
        );
        if (p.decrease > 1e-14 && (sides[i]! < 0 ? p.x > kink : p.x < kink))
          cands.push({ i, dec: p.decrease });
      }
      if (cands.length === 0) break;
      const trial = Int8Array.from(sides);
      for (const c of cands) trial[c.i] = -trial[c.i]!;
      state.side = trial;
      let next = solvePlain(best.res.x);
      if (!(ok(next.res) && next.res.objective < best.res.objective - 1e-15)) {
        cands.sort((u, v) => v.dec - u.dec);
        const one = Int8Array.from(sides);
        one[cands[0]!.i] = -one[cands[0]!.i]!;
        state.side = one;
        next = solvePlain(best.res.x);
        if (!(ok(next.res) && next.res.objective < best.res.objective - 1e-15)) {
          state.side = sides;
          break;
        }
      }
      best = next;
      sides.set(state.side!);
      state.side = sides;
    }
    return best;
  };

  let cur = solve();
  if (!ok(cur.res))
    return infeasible(m, diagnoseBySolving(m, cur, state, solveOnce), warnings, counters, elapsed());

  // Active-risk cap.
  let riskCap: RiskCapReport | null = null;
  const pctCap =
    config.useActiveRiskBounds && config.maxActiveRiskPct !== null ? config.maxActiveRiskPct / 100 : Infinity;
  const requested = Math.min(pctCap, config.tax.trackingErrorThreshold ?? Infinity);
  if (Number.isFinite(requested)) {
    const te = solutionStats(m, cur.w, state.gamma).trackingError;
    if (te <= requested * (1 + 1e-9)) {
      riskCap = { requested, used: requested, relaxations: 0, minimumAchievable: null, binding: false };
      // Not binding here, but later stages (substitution groups, the tax_gamma search, whole shares) move the
      // solution: they solve with the cap as a constraint so that none of them can leave it.
      const laterStages =
        config.substitutionGroups.length > 0 ||
        config.tax.taxBudgetUsd !== null ||
        config.tax.taxGainTarget !== null ||
        tradeRules !== null ||
        whole.some((v) => v === 1);
      if (laterStages) state.radius = requested;
    } else {
      const minimal = solveOnce({ ...state, objective: "risk-only", radius: null });
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
        return infeasible(
          m,
          [
            `${source}: the active-risk cap ${pct(requested)}${k > 0 ? `, relaxed ${k} time(s) by risk_bound_increase_factor ${factor} to ${pct(r)} (risk_bound_max_iterations ${config.riskBoundMaxIterations})` : factor <= 1 ? " (risk_bound_increase_factor 1 cannot relax it)" : " (risk_bound_max_iterations 0)"}, is still below the smallest tracking error the other constraints allow, ${pct(teMin)}.`,
          ],
          warnings,
          counters,
          elapsed(),
        );
      }
      if (k > 0)
        warnings.push(
          `The active-risk cap ${pct(requested)} was infeasible; relaxed ${k} time(s) by ${factor} to ${pct(r)}.`,
        );
      state.radius = r;
      cur = solve(minimal.res.x);
      if (!ok(cur.res))
        return infeasible(m, diagnoseBySolving(m, cur, state, solveOnce), warnings, counters, elapsed());
      riskCap = { requested, used: r, relaxations: k, minimumAchievable: teMin, binding: true };
    }
  }

  // Substitution groups: at most one member held. A group held by two or more members is resolved by trying each
  // member alone (the others at weight 0) and keeping the best objective; a group held by one member keeps it
  // (the others stay at 0 in the later stages, which would otherwise be free to buy a second member). The tax_gamma
  // search can still buy two members of a group none of whose members was held: the groups are enforced again
  // after it.
  const extraLower = new Float64Array(m.n).fill(Number.NaN);
  const extraUpper = new Float64Array(m.n).fill(Number.NaN);
  const groupMembers = (group: readonly string[]) =>
    [...new Set(group)].map((id) => m.index.get(id)).filter((i): i is number => i !== undefined);
  /** Resolves every group held by two or more members at `cur`; an infeasible result when one cannot be. */
  const enforceGroups = (): OptimizationResult | null => {
    // Resolving one group re-solves, which may make an earlier, unresolved group hold two members: passes until
    // none does (each pass resolves at least one group for good: at most one pass per group, plus one).
    for (let pass = 0; pass <= config.substitutionGroups.length; pass++) {
      let resolved = false;
      for (const [g, group] of config.substitutionGroups.entries()) {
        const members = groupMembers(group);
        const held = members.filter((i) => Math.abs(cur.w[i]!) > WEIGHT_EPSILON);
        if (held.length <= 1) continue;
        let best: { member: number; solved: Solved } | null = null;
        const tried: string[] = [];
        for (const c of members) {
          const lo = Float64Array.from(extraLower);
          const hi = Float64Array.from(extraUpper);
          let possible = true;
          for (const o of members) {
            if (o === c) continue;
            if (cur.built.lower[o]! > WEIGHT_EPSILON || cur.built.upper[o]! < -WEIGHT_EPSILON)
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
          const s = solve(cur.res.x);
          if (!ok(s.res)) {
            tried.push(`${m.assets[c]} (infeasible)`);
            continue;
          }
          if (best === null || s.res.objective < best.solved.res.objective - 1e-15)
            best = { member: c, solved: s };
        }
        if (best === null)
          return infeasible(
            m,
            [
              `substitution_pairs[${g}] (${group.join(", ")}): no member can be the only one held: ${tried.join("; ")}.`,
            ],
            warnings,
            counters,
            elapsed(),
          );
        for (const o of members)
          if (o !== best.member) {
            extraLower[o] = 0;
            extraUpper[o] = 0;
          }
        resolved = true;
        state.extraLower = Float64Array.from(extraLower);
        state.extraUpper = Float64Array.from(extraUpper);
        // Leave the engine at the winner.
        cur = solve(best.solved.res.x);
        if (!ok(cur.res))
          return infeasible(m, diagnoseBySolving(m, cur, state, solveOnce), warnings, counters, elapsed());
      }
      if (!resolved) break;
    }
    return null;
  };
  const lockSingleMembers = () => {
    for (const group of config.substitutionGroups) {
      const members = groupMembers(group);
      const held = members.filter((i) => Math.abs(cur.w[i]!) > WEIGHT_EPSILON);
      if (held.length !== 1) continue;
      for (const o of members)
        if (o !== held[0]) {
          extraLower[o] = 0;
          extraUpper[o] = 0;
        }
    }
    state.extraLower = Float64Array.from(extraLower);
    state.extraUpper = Float64Array.from(extraUpper);
  };
  if (config.substitutionGroups.length > 0) {
    const failed = enforceGroups();
    if (failed !== null) return failed;
    lockSingleMembers();
  }

  // tax_gamma search.
  let search: TaxGammaSearchReport | null = null;
  const tax = config.tax;
  if (tax.taxBudgetUsd !== null || tax.taxGainTarget !== null) {
    const goal = tax.taxBudgetUsd !== null ? "budget" : "target";
    const target = goal === "budget" ? tax.taxBudgetUsd! : tax.taxGainTarget!;
    const tolerance = tax.taxGainTargetTolerance ?? Math.max(1, 0.01 * Math.abs(target));
    let failure: Solved | null = null;
    const found = searchTaxGamma(
      (gamma) => {
        state.gamma = gamma;
        const s = solve(cur.res.x);
        if (!ok(s.res)) {
          failure = s;
          return Number.NaN;
        }
        cur = s;
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
    if (failure !== null)
      return infeasible(m, diagnoseBySolving(m, failure, state, solveOnce), warnings, counters, elapsed());
    state.gamma = found.gamma;
    if (found.note !== null && !found.withinTolerance) warnings.push(`tax_gamma search: ${found.note}.`);
    search = {
      method: config.useRegulaFalsi ? "regula_falsi" : "bisection",
      goal: goal === "budget" ? "tax_budget" : "gain_target",
      target,
      tolerance,
      achieved: found.value,
      evaluations: found.evaluations,
      withinTolerance: found.withinTolerance,
    };
    if (config.substitutionGroups.length > 0) {
      const searched = cur;
      const failed = enforceGroups();
      if (failed !== null) return failed;
      if (cur !== searched) {
        const st = solutionStats(m, cur.w, state.gamma);
        const achieved = goal === "budget" ? st.taxUsd : st.netGainUsd;
        const h = achieved - target;
        const within = goal === "budget" ? h <= 0 && h >= -tolerance : Math.abs(h) <= tolerance;
        search = { ...search, achieved, withinTolerance: within };
        warnings.push(
          `The tax_gamma search bought a second member of a substitution group; enforcing the group afterwards realizes ${fmt(achieved)} USD of ${goal === "budget" ? "tax" : "net gain"}${within ? "" : `, outside the tolerance of the ${goal === "budget" ? "budget" : "target"} ${fmt(target)}`}.`,
        );
      }
    }
  }

  // Minimum trade and trade count (trade-rules.ts): dust pinned back (or up to the minimum), the rest re-solved.
  if (tradeRules !== null) {
    const conflicts = enforceTradeRules(m, tradeRules, extraLower, extraUpper, {
      current: () => ({ w: cur.w, lower: cur.built.lower, upper: cur.built.upper }),
      solve: (lo, hi) => {
        state.extraLower = lo;
        state.extraUpper = hi;
        const s = solve(cur.res.x);
        return ok(s.res) ? s : null;
      },
      accept: (s) => {
        cur = s;
      },
    });
    state.extraLower = Float64Array.from(extraLower);
    state.extraUpper = Float64Array.from(extraUpper);
    if (conflicts.length > 0) return infeasible(m, conflicts, warnings, counters, elapsed());
  }

  // Whole shares.
  let finalW = cur.w;
  if (whole.some((v) => v === 1)) {
    const preLower = cur.built.lower;
    const preUpper = cur.built.upper;
    const rounded = roundWholeShares(
      m,
      cur.w,
      whole,
      cur.built.lower,
      cur.built.upper,
      tradeRules?.minTradeUsd ?? 0,
    );
    if (rounded.conflicts.length > 0) return infeasible(m, rounded.conflicts, warnings, counters, elapsed());
    const continuous = cur.w;
    const fixLo = Float64Array.from(extraLower);
    const fixHi = Float64Array.from(extraUpper);
    for (let i = 0; i < m.n; i++)
      if (!Number.isNaN(rounded.fixed[i]!)) {
        fixLo[i] = rounded.fixed[i]!;
        fixHi[i] = rounded.fixed[i]!;
      }
    const hasContinuous = m.assets.some(
      (_, i) => whole[i] !== 1 && cur.built.lower[i]! < cur.built.upper[i]!,
    );
    let wRounded: Float64Array = Float64Array.from(cur.w);
    for (let i = 0; i < m.n; i++) if (!Number.isNaN(rounded.fixed[i]!)) wRounded[i] = rounded.fixed[i]!;
    let done = false;
    if (hasContinuous) {
      state.extraLower = fixLo;
      state.extraUpper = fixHi;
      const s = solve(cur.res.x);
      if (ok(s.res) && violation(m, s.built, s.w) <= 1e-12) {
        cur = s;
        finalW = s.w;
        done = true;
      } else if (ok(s.res)) wRounded = s.w;
    }
    if (!done) {
      const repaired = repairWholeShares(m, cur.built, wRounded, continuous, whole);
      if (repaired === null)
        return infeasible(
          m,
          [
            "Whole shares: no rounding of the whole-share trades satisfies every constraint (budget with costs, factor bounds, turnover, sums, risk cap); fractional shares or wider bounds are needed.",
          ],
          warnings,
          counters,
          elapsed(),
        );
      finalW = repaired;
      if (hasContinuous) {
        for (let i = 0; i < m.n; i++)
          if (whole[i] === 1) {
            fixLo[i] = repaired[i]!;
            fixHi[i] = repaired[i]!;
          }
        state.extraLower = fixLo;
        state.extraUpper = fixHi;
        const s = solve(cur.res.x);
        if (ok(s.res) && violation(m, s.built, s.w) <= 1e-12) {
          cur = s;
          finalW = s.w;
        }
      }
    }
    // Exact whole-share weights (the continuous solve may leave 1e-16 noise on fixed assets).
    for (let i = 0; i < m.n; i++)
      if (whole[i] === 1 && state.extraLower?.[i] !== undefined && !Number.isNaN(state.extraLower[i]!))
        finalW[i] = state.extraLower[i]!;
    // The rounding (or the continuous re-solve after it) can leave orders below the minimum: pin them too.
    if (tradeRules !== null) {
      const lo0 = Float64Array.from(state.extraLower ?? extraLower);
      const hi0 = Float64Array.from(state.extraUpper ?? extraUpper);
      let lastSolved: Solved | null = null;
      const conflicts = enforceTradeRules(
        m,
        tradeRules,
        lo0,
        hi0,
        {
          current: () => ({ w: finalW, lower: preLower, upper: preUpper }),
          solve: (lo, hi) => {
            let w: Float64Array;
            if (hasContinuous) {
              state.extraLower = lo;
              state.extraUpper = hi;
              const s = solve(cur.res.x);
              if (!ok(s.res) || violation(m, s.built, s.w) > 1e-12) return null;
              lastSolved = s;
              w = Float64Array.from(s.w);
            } else w = Float64Array.from(finalW);
            for (let i = 0; i < m.n; i++) if (!Number.isNaN(lo[i]!) && lo[i] === hi[i]) w[i] = lo[i]!;
            if (!hasContinuous && violation(m, cur.built, w) > 1e-12) return null;
            return w;
          },
          accept: (w) => {
            finalW = w;
            if (lastSolved !== null) cur = lastSolved;
          },
        },
        whole,
      );
      if (conflicts.length > 0) return infeasible(m, conflicts, warnings, counters, elapsed());
    }
  }

  if (riskCap !== null) {
    // The final weights against the cap used (whole-share repair works outside the cone; say so if it crossed).
    const te = solutionStats(m, finalW, state.gamma).trackingError;
    if (te > riskCap.used * (1 + 1e-6))
      warnings.push(
        `The final tracking error ${pct(te)} exceeds the active-risk cap ${pct(riskCap.used)} after whole-share rounding.`,
      );
    else if (!riskCap.binding && te >= riskCap.used * (1 - 1e-7)) riskCap = { ...riskCap, binding: true };
  }

  const solved = elapsed();
  const out = report(
    m,
    cur,
    finalW,
    whole,
    state,
    riskCap,
    search,
    warnings,
    counters,
    null,
    options,
    cur.res.status === "optimal" ? "optimal" : "suboptimal",
  );
  const done = elapsed();
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

/**
 * Linear costs plus impact of the trades to `w`, as a fraction of I: the same sums and rounding as
 * {@link solutionStats}, without its risk and tax figures (the cost-reserve check runs after every solve).
 */
function tradingCosts(m: PeriodModel, w: Float64Array): number {
  let linear = 0;
  let impact = 0;
  for (let i = 0; i < m.n; i++) {
    const a = Math.abs(w[i]! - m.w0[i]!);
    linear += m.costRate[i]! * a;
    impact += impactOf(m.impact[i]!, a);
  }
  const I = m.investableUsd;
  return (linear * I + impact * I) / I;
}

/** Relax one group of constraints at a time to name the ones in conflict. */
function diagnoseBySolving(
  m: PeriodModel,
  failed: Solved,
  state: SolveState,
  solveOnce: (st: SolveState, x?: Float64Array) => Solved,
): string[] {
  const c = m.config;
  const groups: { name: string; detail: string; relax: NonNullable<SolveState["relax"]> }[] = [];
  if (c.factorExposureBounds.length > 0)
    groups.push({
      name: "factor_exposure_bounds",
      detail: c.factorExposureBounds
        .map(
          (b) =>
            `${b.factor} [${b.minBound ?? "-inf"}, ${b.maxBound ?? "inf"}] active [${b.minActiveBound ?? "-inf"}, ${b.maxActiveBound ?? "inf"}]`,
        )
        .join("; "),
      relax: { factors: true },
    });
  if (c.useTurnoverConstraint)
    groups.push({ name: "max_turnover_pct", detail: `${c.maxTurnoverPct}`, relax: { turnover: true } });
  if (c.optimizationMode !== "LONG_ONLY" && (c.longWeightSum !== null || c.shortWeightSum !== null))
    groups.push({
      name: "long_weight_sum / short_weight_sum",
      detail: `${c.longWeightSum} / ${c.shortWeightSum}`,
      relax: { sums: true },
    });
  groups.push({
    name: "the budget (weights add up to at most 1 after the cash buffers and trading costs)",
    detail: "",
    relax: { budget: true },
  });
  if (state.radius !== null)
    groups.push({ name: "the active-risk cap", detail: pct(state.radius), relax: { radius: true } });
  const culprits: string[] = [];
  for (const g of groups) {
    const s = solveOnce({ ...state, relax: g.relax });
    if (ok(s.res)) culprits.push(g.detail === "" ? g.name : `${g.name} (${g.detail})`);
  }
  const base = failed.res.diagnosis.filter((d) => d.length > 0).slice(0, 3);
  if (culprits.length > 0)
    return [
      `The constraints conflict: the problem becomes feasible without ${culprits.join(", or without ")}; together with the weight bounds they admit no portfolio.`,
      ...base,
    ];
  return [
    `No single group of constraints explains the infeasibility; the combination of the weight bounds with ${groups.map((g) => g.name).join(", ")} admits no portfolio.`,
    ...base,
  ];
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
