/**
 * @module core/optimizer/solve-session
 * Solving one rebalance's problem, for the stages of `optimize-portfolio.ts` (docs/optimizer.md, "Stages and
 * components"): the {@link Workspace} kept between rebalances (engines with their factorizations and last
 * solutions, the period-model cache), and the {@link SolveSession} of one rebalance, which holds what varies
 * between its solves (tax_gamma, the cost reserve, the risk radius, sides, extra bounds) in one explicit
 * {@link SolveSession.state} record. The solves:
 * - {@link solveOnce}: one engine solve of a state (problem builds cached per run, engines per structure);
 * - {@link solvePlain}: the same with the trading-cost reserve of the budget row;
 * - {@link solveWithSides}: two-sided assets locked on one side each, sides chosen and flipped
 *   (docs/optimizer.md, "Wash sales and sides");
 * - {@link diagnoseBySolving}: one group of constraints relaxed at a time, to name the conflict.
 */
import {
  type BuiltProblem,
  buildProblem,
  convexifyKinks,
  type SolveState,
  WEIGHT_SUM_ROWS,
} from "./build-problem.js";
import type { OptimizationInput, OptimizeOptions } from "./optimization-types.js";
import { createModelCache, type ModelCache, type PeriodModel, WEIGHT_EPSILON } from "./period-model.js";
import { createPwlQpSolver, type PwlQpSolver, predictVariable } from "./pwl-qp.js";
import type { PwlQpProblem, PwlQpResult } from "./pwl-qp-types.js";
import { impactOf } from "./solution-report.js";

/** Engines kept per problem structure (risk model, universe, risk aversion, rows, cone, impact curvature). */
const MAX_ENGINES = 8;

/** What a reusable optimizer keeps between rebalances. Not safe for concurrent use. */
export interface Workspace {
  readonly cache: ModelCache;
  readonly engines: Map<string, PwlQpSolver>;
  readonly objectIds: WeakMap<object, number>;
  nextId: number;
  /** Universes seen (assets joined), numbered: an engine is only reused for exactly the same asset list. */
  readonly universeIds: Map<string, number>;
}

/** An empty workspace. */
export function createWorkspace(): Workspace {
  return {
    cache: createModelCache(),
    engines: new Map(),
    objectIds: new WeakMap(),
    nextId: 1,
    universeIds: new Map(),
  };
}

function objectId(ws: Workspace, o: object): number {
  let id = ws.objectIds.get(o);
  if (id === undefined) {
    id = ws.nextId++;
    ws.objectIds.set(o, id);
  }
  return id;
}

/** Engine work summed over the solves of one rebalance. */
export interface Counters {
  rounds: number;
  solves: number;
  rebuilds: number;
  qpIterations: number;
}

/** One solve: the problem as solved (domain after extra bounds and side locks), the engine result, weights. */
export interface Solved {
  readonly built: BuiltProblem;
  readonly res: PwlQpResult;
  readonly w: Float64Array;
}

/** A solve that found a point (certified or stopped at the round limit). */
export const ok = (r: PwlQpResult): boolean => r.status === "optimal" || r.status === "max_rounds";

/** The solve state, writable: the stages set its fields between solves. */
export type MutableSolveState = { -readonly [K in keyof SolveState]: SolveState[K] };

/** The solving side of one rebalance (see the module comment). */
export interface SolveSession {
  readonly ws: Workspace;
  readonly m: PeriodModel;
  readonly input: OptimizationInput;
  readonly options: OptimizeOptions;
  readonly counters: Counters;
  /** What the next solve uses; stages change it (gamma, reserve, radius, sides, extra bounds). */
  readonly state: MutableSolveState;
  readonly universeId: number;
  /** Builds per (gamma, objective, convexified kinks, radius, relaxations); see {@link buildFor}. */
  readonly builds: Map<string, BuiltProblem>;
  /** The problem each engine was last given in this rebalance (an unchanged one only needs its budget row). */
  readonly lastProblem: WeakMap<PwlQpSolver, PwlQpProblem>;
  /** LONG_SHORT with both sums set: the net weight is fixed, no room to reserve the trading costs. */
  readonly fixedNet: boolean;
}

/**
 * The session of one rebalance on a workspace. Next month's rebalance of the same universe runs the same stages
 * as a cold one (sides from the relaxed solve, the cost reserve from 0), on the engines that solved last month:
 * their QP factorizations, multipliers and last solutions are the warm start. Last month's sides or reserve are
 * not reused: the side choice is non-convex and the reserve check keeps any reserve that fits, so either would
 * make the answer depend on the history (docs/optimizer.md, "Warm start across rebalances").
 */
export function openSession(
  ws: Workspace,
  m: PeriodModel,
  input: OptimizationInput,
  options: OptimizeOptions,
  counters: Counters,
): SolveSession {
  const config = m.config;
  const universe = m.assets.join("\u0000");
  let universeId = ws.universeIds.get(universe);
  if (universeId === undefined) {
    if (ws.universeIds.size >= 64) ws.universeIds.clear();
    universeId = ws.nextId++;
    ws.universeIds.set(universe, universeId);
  }
  return {
    ws,
    m,
    input,
    options,
    counters,
    state: { gamma: config.tax.taxGamma, reserve: 0, radius: null, objective: "full" },
    universeId,
    builds: new Map(),
    lastProblem: new WeakMap(),
    fixedNet:
      config.optimizationMode === "LONG_SHORT" &&
      config.longWeightSum !== null &&
      config.shortWeightSum !== null,
  };
}

/**
 * The problem of a state. Builds depend on gamma, the objective, convexified kinks, the impact curvature and
 * relaxations; side locks, extra bounds and the cost reserve are applied to a build without rebuilding it
 * (engine bounds, budget row).
 */
export function buildFor(s: SolveSession, st: SolveState): BuiltProblem {
  const buildKey = `${st.gamma}|${st.objective}|${st.convexifyKinks === true}|${st.radius}|${JSON.stringify(st.relax ?? {})}`;
  let built = s.builds.get(buildKey);
  if (built === undefined) {
    built =
      st.convexifyKinks === true
        ? convexifyKinks(buildFor(s, { ...st, convexifyKinks: undefined }))
        : buildProblem(s.m, {
            ...st,
            side: undefined,
            extraLower: undefined,
            extraUpper: undefined,
            reserve: 0,
          });
    if (s.builds.size > 24) s.builds.clear();
    s.builds.set(buildKey, built);
  }
  return built;
}

/** One engine solve of `st` (the workspace's engine for its structure, updated in place). */
export function solveOnce(s: SolveSession, st: SolveState, initialX?: Float64Array): Solved {
  const { ws, m, options, counters } = s;
  const config = m.config;
  const built = buildFor(s, st);
  const p = built.problem;
  const key = [
    objectId(ws, s.input.riskModel),
    config.spectralShift,
    s.universeId,
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
  } else if (s.lastProblem.get(engine) === p) engine.update({ u });
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
  s.lastProblem.set(engine, p);
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
}

/** Solve the session's state, with the trading-cost reserve of the budget. */
export function solvePlain(s: SolveSession, initialX?: Float64Array): Solved {
  const { m, state } = s;
  let solved = solveOnce(s, state, initialX);
  for (let pass = 0; pass < 6 && ok(solved.res); pass++) {
    // Cash after trades and their costs must cover the buffers: reserve the costs in the budget row.
    // LONG_SHORT with both sums set fixes the net weight (long + short): no room to reserve, the costs come out
    // of the buffer and a warning says so (the final stage).
    if (s.fixedNet) break;
    let sum = 0;
    for (let i = 0; i < m.n; i++) sum += solved.w[i]!;
    const costs = tradingCosts(m, solved.w);
    if (sum + costs <= 1 + 1e-12) break;
    state.reserve = costs * (1 + 1e-9) + 1e-15;
    solved = solveOnce(s, state);
  }
  return solved;
}

/**
 * Solve with the two-sided assets on one side each (docs/optimizer.md, "Wash sales and sides"): sides come from
 * a relaxed solve whose concave kinks are convexified (first call) or from the previous solve; then each
 * two-sided asset whose other side the one-dimensional model (with the solution's multipliers) finds better is
 * flipped, all at once and, if that does not lower the objective, the best one alone.
 */
export function solveWithSides(s: SolveSession, initialX?: Float64Array): Solved {
  const { m, state } = s;
  // The problem with both sides open: which assets are two-sided, and their other side's model below.
  const full = buildFor(s, state);
  const two = full.twoSided;
  if (!two.some((v) => v === 1)) {
    state.side = undefined;
    return solvePlain(s, initialX);
  }
  let start = initialX;
  const sides = new Int8Array(m.n);
  const previous = state.side;
  if (previous === undefined) {
    state.side = undefined;
    state.convexifyKinks = true;
    const relaxed = solvePlain(s, initialX);
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
  let best = solvePlain(s, start);
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
      if (p.decrease > 1e-14 && (sides[i]! < 0 ? p.x > kink : p.x < kink)) cands.push({ i, dec: p.decrease });
    }
    if (cands.length === 0) break;
    const trial = Int8Array.from(sides);
    for (const c of cands) trial[c.i] = -trial[c.i]!;
    state.side = trial;
    let next = solvePlain(s, best.res.x);
    if (!(ok(next.res) && next.res.objective < best.res.objective - 1e-15)) {
      cands.sort((u, v) => v.dec - u.dec);
      const one = Int8Array.from(sides);
      one[cands[0]!.i] = -one[cands[0]!.i]!;
      state.side = one;
      next = solvePlain(s, best.res.x);
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
}

/**
 * Linear costs plus impact of the trades to `w`, as a fraction of I: the same sums and rounding as
 * `solutionStats`, without its risk and tax figures (the cost-reserve check runs after every solve).
 */
export function tradingCosts(m: PeriodModel, w: Float64Array): number {
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

const pct = (v: number) => `${Number((v * 100).toPrecision(6))}%`;

/** Relax one group of constraints at a time to name the ones in conflict with the failed solve's state. */
export function diagnoseBySolving(s: SolveSession, failed: Solved): string[] {
  const c = s.m.config;
  const state = s.state;
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
  for (const k of s.m.constraints)
    if (k.relaxation !== undefined && k.rows !== undefined)
      groups.push({ ...k.relaxation, relax: { rows: k.rows.map((r) => r.name) } });
  if (c.optimizationMode !== "LONG_ONLY" && (c.longWeightSum !== null || c.shortWeightSum !== null))
    groups.push({
      name: "long_weight_sum / short_weight_sum",
      detail: `${c.longWeightSum} / ${c.shortWeightSum}`,
      relax: { rows: WEIGHT_SUM_ROWS },
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
    const r = solveOnce(s, { ...state, relax: g.relax });
    if (ok(r.res)) culprits.push(g.detail === "" ? g.name : `${g.name} (${g.detail})`);
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
