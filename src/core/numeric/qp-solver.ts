/**
 * @module core/numeric/qp-solver
 * Public entry points of the QP solver: {@link solveQp} (one shot, never throws on an infeasible or
 * unbounded problem), {@link solveQpOrThrow} (maps statuses to the error hierarchy) and
 * {@link createQpSolver} (reusable: keeps the factorizations and the last solution so that solves after
 * {@link QpSolver.update} of q, l, u or the bounds start warm).
 *
 * Method selection (see docs/solver.md): `auto` runs the exact active-set method (dual semismooth
 * Newton on the factor structure) when the problem has at most one factor-risk ball, no general cone and a
 * low-rank size kd + (general rows) <= 400; an answer is accepted only after the KKT check in
 * problem units. Otherwise, or when that method cannot certify an answer (an infeasible or unbounded
 * problem, a breakdown), OSQP-style ADMM runs, warm-started from the best point, followed by the
 * active-set polish of its solution.
 */
import { InfeasibleError, SolverError, UnboundedError } from "../errors.js";
import {
  ACTIVE_SET_MAX_CAPACITY,
  type ActiveSetContext,
  type ActiveSetOutcome,
  activeSetSupports,
  createActiveSetContext,
  runActiveSet,
} from "./qp-active-set.js";
import {
  type AdmmContext,
  type AdmmOptions,
  type AdmmOutcome,
  admmStructureMatches,
  boundRowVariable,
  createAdmmContext,
  refreshAdmmData,
  runAdmm,
  setAdmmStart,
} from "./qp-admm.js";
import { type KktReport, kktPasses, kktReport } from "./qp-kkt.js";
import { buildModel, mapBoundMultipliers, type QpModel, refreshBounds } from "./qp-model.js";
import type { QpMethod, QpOptions, QpProblem, QpResult, QpStatus } from "./qp-types.js";

/** Options with every default filled in (see {@link QpOptions} for meanings). */
interface ResolvedOptions extends AdmmOptions {
  readonly method: "auto" | QpMethod;
  readonly maxNewtonIter: number;
  readonly polish: boolean;
  readonly kktTolerance: number;
  readonly warmStart: boolean;
  readonly timeLimitMs: number;
  readonly now: (() => number) | undefined;
}

function positive(
  value: number | undefined,
  fallback: number,
  name: string,
  caller: string,
  integer = false,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !(value > 0) || (integer && !Number.isInteger(value)))
    throw new RangeError(
      `${caller}: options.${name} is ${value}; it must be a positive ${integer ? "integer" : "number"}.`,
    );
  return value;
}

function resolveOptions(options: QpOptions | undefined, caller: string): ResolvedOptions {
  const o = options ?? {};
  const method = o.method ?? "auto";
  if (method !== "auto" && method !== "active-set" && method !== "admm")
    throw new RangeError(
      `${caller}: options.method is ${String(method)}; expected "auto", "active-set" or "admm".`,
    );
  const alpha = o.alpha ?? 1.6;
  if (!(alpha > 0 && alpha < 2))
    throw new RangeError(`${caller}: options.alpha is ${alpha}; it must lie in (0, 2).`);
  const scalingIterations = o.scalingIterations ?? 10;
  if (!Number.isInteger(scalingIterations) || scalingIterations < 0)
    throw new RangeError(
      `${caller}: options.scalingIterations is ${scalingIterations}; it must be an integer >= 0.`,
    );
  if (o.now !== undefined && typeof o.now !== "function")
    throw new TypeError(`${caller}: options.now must be a function.`);
  return {
    method,
    maxIter: positive(o.maxIter, 10000, "maxIter", caller, true),
    maxNewtonIter: positive(o.maxNewtonIter, 500, "maxNewtonIter", caller, true),
    epsAbs: positive(o.epsAbs, 1e-4, "epsAbs", caller),
    epsRel: positive(o.epsRel, 1e-4, "epsRel", caller),
    epsPrimalInfeasible: positive(o.epsPrimalInfeasible, 1e-5, "epsPrimalInfeasible", caller),
    epsDualInfeasible: positive(o.epsDualInfeasible, 1e-5, "epsDualInfeasible", caller),
    rho: positive(o.rho, 0.1, "rho", caller),
    sigma: positive(o.sigma, 1e-6, "sigma", caller),
    alpha,
    adaptiveRho: o.adaptiveRho ?? true,
    adaptiveRhoInterval: positive(o.adaptiveRhoInterval, 25, "adaptiveRhoInterval", caller, true),
    adaptiveRhoTolerance: positive(o.adaptiveRhoTolerance, 5, "adaptiveRhoTolerance", caller),
    scalingIterations,
    polish: o.polish ?? true,
    kktTolerance: positive(o.kktTolerance, 1e-9, "kktTolerance", caller),
    warmStart: o.warmStart ?? true,
    timeLimitMs:
      o.timeLimitMs === undefined
        ? Number.POSITIVE_INFINITY
        : positive(o.timeLimitMs, 0, "timeLimitMs", caller),
    now: o.now,
  };
}

/** A reusable solver for one problem structure (P, A's pattern, cones). */
export interface QpSolver {
  /** Number of variables. */
  readonly n: number;
  /** Number of rows of A. */
  readonly m: number;
  /**
   * Replaces q, l, u and/or the bounds (arrays are copied; lengths as in the problem). The factorizations
   * are kept; the next solve starts from the previous solution when `warmStart` is on.
   *
   * @throws {RangeError} / {@link TypeError} on a wrong length or a NaN, naming `QpSolver.update`.
   */
  update(changes: {
    readonly q?: Float64Array;
    readonly l?: Float64Array;
    readonly u?: Float64Array;
    readonly bounds?: { readonly lower: Float64Array; readonly upper: Float64Array };
  }): void;
  /** Solves the current problem; `warmStart` overrides the option for this call. */
  solve(options?: { readonly warmStart?: boolean }): QpResult;
}

interface Candidate {
  x: Float64Array;
  y: Float64Array;
  yBounds: Float64Array;
  coneDuals: Float64Array[];
  report: KktReport;
}

function merit(r: KktReport): number {
  return Math.max(
    r.primalResidual / r.primalScale,
    r.dualResidual / r.dualScale,
    r.complementarity / (r.primalScale * r.dualScale),
  );
}

/** Assembles full multipliers and the KKT report from a point in internal form. */
function candidateFrom(
  model: QpModel,
  x: Float64Array,
  yGeneral: Float64Array,
  z: Float64Array,
  coneDuals: Float64Array[],
): Candidate {
  const y = new Float64Array(model.m);
  for (let r = 0; r < yGeneral.length; r++) y[model.generalRows[r]!] = yGeneral[r]!;
  const yBounds = new Float64Array(model.n);
  mapBoundMultipliers(model, z, y, yBounds);
  return { x, y, yBounds, coneDuals, report: kktReport(model, x, y, yBounds, coneDuals) };
}

/** Cone duals of an active-set answer: mu v / ||v|| for the ball, mu = 2 eta r, v = G(x - c). */
function activeSetConeDuals(model: QpModel, out: ActiveSetOutcome): Float64Array[] {
  return model.cones.map((cone) => {
    if (cone.kind !== "factor-risk-ball") return new Float64Array(1 + cone.G.rows);
    const { n } = model;
    const { e, W, kW, center, radius } = cone;
    const v = new Float64Array(n + kW);
    for (let i = 0; i < n; i++) {
      const dx = out.x[i]! - center[i]!;
      v[i] = Math.sqrt(e[i]!) * dx;
      for (let j = 0; j < kW; j++) v[n + j]! += W[i * kW + j]! * dx;
    }
    if (out.eta <= 0) return new Float64Array(n + kW);
    let sq = 0;
    for (let i = 0; i < v.length; i++) sq += v[i]! * v[i]!;
    const nrm = Math.sqrt(sq);
    const mu = 2 * out.eta * radius;
    for (let i = 0; i < v.length; i++) v[i] = nrm > 0 ? (mu * v[i]!) / nrm : 0;
    return v;
  });
}

function result(
  status: QpStatus,
  c: Candidate,
  extra: {
    iterations: number;
    polished: boolean;
    method: QpMethod;
    rho?: number;
    certificate?: Float64Array;
    diagnosis?: string[];
  },
): QpResult {
  return {
    status,
    x: c.x,
    y: c.y,
    yBounds: c.yBounds,
    coneDuals: c.coneDuals,
    objective: c.report.objective,
    iterations: extra.iterations,
    primalResidual: c.report.primalResidual,
    dualResidual: c.report.dualResidual,
    polished: extra.polished,
    method: extra.method,
    ...(extra.rho === undefined ? {} : { rho: extra.rho }),
    ...(extra.certificate === undefined ? {} : { certificate: extra.certificate }),
    diagnosis: extra.diagnosis ?? [],
  };
}

/** Maps a C-row certificate of ADMM to [rows of A, bounds, cone rows]. */
function primalCertificate(model: QpModel, admm: AdmmContext, dy: Float64Array): Float64Array {
  let coneRows = 0;
  for (const b of admm.blocks) coneRows += b.size;
  const cert = new Float64Array(model.m + model.n + coneRows);
  for (let r = 0; r < admm.mg; r++) cert[model.generalRows[r]!] = dy[r]!;
  for (let r = admm.mg; r < admm.mg + admm.boundVars.length; r++) {
    const j = boundRowVariable(admm, r);
    const d = dy[r]!;
    if (d === 0) continue;
    const src = d > 0 ? model.upSource[j]! : model.lowSource[j]!;
    if (src >= 0) cert[model.singletonRow[src]!]! += d / model.singletonCoef[src]!;
    else cert[model.m + j]! += d;
  }
  let o = model.m + model.n;
  for (const b of admm.blocks) {
    for (let r = 0; r < b.size; r++) cert[o + r] = dy[b.start + r]!;
    o += b.size;
  }
  return cert;
}

class Solver implements QpSolver {
  readonly n: number;
  readonly m: number;
  private readonly model: QpModel;
  private readonly options: ResolvedOptions;
  private activeSet: ActiveSetContext | undefined;
  private admm: AdmmContext | undefined;
  private readonly useActiveSet: boolean;

  constructor(problem: QpProblem, options: QpOptions | undefined, caller: string) {
    this.options = resolveOptions(options, caller);
    this.model = buildModel(problem, caller);
    this.n = this.model.n;
    this.m = this.model.m;
    const capacity =
      this.model.k +
      this.model.generalRows.length +
      this.model.cones.reduce((s, c) => s + (c.kind === "factor-risk-ball" ? c.kW : 0), 0);
    this.useActiveSet =
      activeSetSupports(this.model) &&
      (this.options.method === "active-set" ||
        (this.options.method === "auto" && capacity <= ACTIVE_SET_MAX_CAPACITY));
  }

  update(changes: Parameters<QpSolver["update"]>[0]): void {
    const caller = "QpSolver.update";
    const { model } = this;
    const check = (v: Float64Array, len: number, name: string, allowInf: boolean): void => {
      if (!(v instanceof Float64Array))
        throw new TypeError(`${caller}: ${name} must be a Float64Array of length ${len}.`);
      if (v.length !== len)
        throw new RangeError(`${caller}: ${name} has length ${v.length}, expected ${len}.`);
      for (let i = 0; i < len; i++) {
        if (Number.isNaN(v[i]!)) throw new TypeError(`${caller}: ${name}[${i}] is NaN.`);
        if (!allowInf && !Number.isFinite(v[i]!))
          throw new TypeError(`${caller}: ${name}[${i}] is ${v[i]}; it must be finite.`);
      }
    };
    if (changes.q) check(changes.q, model.n, "q", false);
    if (changes.l) check(changes.l, model.m, "l", true);
    if (changes.u) check(changes.u, model.m, "u", true);
    if (changes.bounds) {
      if (!model.hasExplicitBounds)
        throw new RangeError(
          `${caller}: the problem was created without bounds; bounds cannot be added by update.`,
        );
      check(changes.bounds.lower, model.n, "bounds.lower", true);
      check(changes.bounds.upper, model.n, "bounds.upper", true);
    }
    if (changes.q) model.q.set(changes.q);
    if (changes.l) model.l.set(changes.l);
    if (changes.u) model.u.set(changes.u);
    if (changes.bounds) {
      model.lowerBound!.set(changes.bounds.lower);
      model.upperBound!.set(changes.bounds.upper);
    }
    refreshBounds(model);
    if (this.admm) {
      if (admmStructureMatches(this.admm)) refreshAdmmData(this.admm);
      else this.admm = undefined;
    }
  }

  solve(call?: { readonly warmStart?: boolean }): QpResult {
    const o = this.options;
    const warm = call?.warmStart ?? o.warmStart;
    const { model } = this;
    const t0 = o.now?.();
    const deadline =
      o.now !== undefined && Number.isFinite(o.timeLimitMs)
        ? () => o.now!() - t0! > o.timeLimitMs
        : undefined;
    if (model.diagnosis.length > 0) {
      // Crossed bounds: infeasible before any iteration; report the clipped origin.
      const x = new Float64Array(model.n);
      for (let j = 0; j < model.n; j++) x[j] = Math.min(Math.max(0, model.xl[j]!), model.xu[j]!);
      const c = candidateFrom(
        model,
        x,
        new Float64Array(model.generalRows.length),
        new Float64Array(model.n),
        model.cones.map(
          (k) => new Float64Array(k.kind === "factor-risk-ball" ? model.n + k.kW : 1 + k.G.rows),
        ),
      );
      return result("primal_infeasible", c, {
        iterations: 0,
        polished: false,
        method: "active-set",
        diagnosis: [...model.diagnosis],
      });
    }
    let iterations = 0;
    if (this.useActiveSet) {
      this.activeSet ??= createActiveSetContext(model);
      const out = runActiveSet(this.activeSet, {
        maxNewtonIter: o.maxNewtonIter,
        tolerance: o.kktTolerance,
        warm,
        ...(deadline ? { deadline } : {}),
      });
      iterations += out.iterations;
      const c = candidateFrom(model, out.x, out.yGeneral, out.z, activeSetConeDuals(model, out));
      if (out.status === "optimal" && kktPasses(c.report, o.kktTolerance))
        return result("optimal", c, { iterations, polished: true, method: "active-set" });
      if (out.status === "time_limit")
        return result("time_limit", c, { iterations, polished: false, method: "active-set" });
    }
    // ADMM starts from its own previous state (warm) or from zero, not from a failed active-set point,
    // whose multipliers may have run off towards an infeasibility ray.
    return this.solveAdmm(warm, undefined, iterations, deadline);
  }

  private solveAdmm(
    warm: boolean,
    start: { x: Float64Array; yGeneral: Float64Array; z: Float64Array } | undefined,
    iterationsBefore: number,
    deadline: (() => boolean) | undefined,
  ): QpResult {
    const { model, options: o } = this;
    if (this.admm === undefined) this.admm = createAdmmContext(model, o);
    const admm = this.admm;
    if (start) setAdmmStart(admm, start.x, start.yGeneral, start.z);
    else if (!warm) admm.hasState = false;
    const out: AdmmOutcome = runAdmm(admm, { ...o, ...(deadline ? { deadline } : {}) });
    let iterations = iterationsBefore + out.iterations;
    const base = candidateFrom(model, out.x, out.yGeneral, out.z, out.coneDuals);
    if (out.status === "primal_infeasible" && out.certificate?.kind === "primal") {
      return result("primal_infeasible", base, {
        iterations,
        polished: false,
        method: "admm",
        rho: out.rho,
        certificate: primalCertificate(model, admm, out.certificate.dy),
        diagnosis: ["ADMM found a certificate of primal infeasibility (Farkas vector delta-y)."],
      });
    }
    if (out.status === "dual_infeasible" && out.certificate?.kind === "dual") {
      return result("dual_infeasible", base, {
        iterations,
        polished: false,
        method: "admm",
        rho: out.rho,
        certificate: out.certificate.dx,
        diagnosis: ["ADMM found a direction of unbounded descent (delta-x)."],
      });
    }
    let best = base;
    let polished = false;
    if (o.polish && activeSetSupports(model) && out.status !== "time_limit") {
      this.activeSet ??= createActiveSetContext(model);
      const ball = model.cones.findIndex((c) => c.kind === "factor-risk-ball");
      let eta = 0;
      if (ball >= 0) {
        const cone = model.cones[ball]!;
        const yc = out.coneDuals[ball]!;
        let sq = 0;
        for (let i = 0; i < yc.length; i++) sq += yc[i]! * yc[i]!;
        eta = cone.kind === "factor-risk-ball" && cone.radius > 0 ? Math.sqrt(sq) / (2 * cone.radius) : 0;
      }
      const pol = runActiveSet(this.activeSet, {
        maxNewtonIter: o.maxNewtonIter,
        tolerance: o.kktTolerance,
        warm: false,
        start: { x: out.x, yGeneral: out.yGeneral, eta },
        ...(deadline ? { deadline } : {}),
      });
      iterations += pol.iterations;
      const c = candidateFrom(model, pol.x, pol.yGeneral, pol.z, activeSetConeDuals(model, pol));
      // Never report a polished point that is worse than the ADMM one.
      if (pol.status === "optimal" && merit(c.report) <= merit(base.report)) {
        best = c;
        polished = kktPasses(c.report, o.kktTolerance);
      }
    }
    let status: QpStatus;
    if (polished || out.status === "solved") status = "optimal";
    else if (out.status === "time_limit") status = "time_limit";
    else status = out.nearlySolved ? "optimal_inaccurate" : "max_iter";
    return result(status, best, { iterations, polished, method: "admm", rho: out.rho });
  }
}

/**
 * Creates a reusable QP solver (see {@link QpSolver}): the problem is checked and normalized once, and
 * factorizations plus the last primal-dual point are kept between solves.
 *
 * @throws {TypeError} on a wrong type or NaN in the problem, naming `createQpSolver` and the field.
 * @throws {RangeError} on a shape mismatch or a non-PSD P.
 * @example
 * const solver = createQpSolver(problem);
 * const first = solver.solve();
 * solver.update({ q: newQ });
 * const second = solver.solve(); // warm: usually a few Newton steps
 */
export function createQpSolver(problem: QpProblem, options?: QpOptions): QpSolver {
  return new Solver(problem, options, "createQpSolver");
}

/**
 * Solves the convex QP  min 1/2 x'Px + q'x  s.t.  l <= Ax <= u, bounds, cones  (see {@link QpProblem}).
 * Infeasible or unbounded problems are reported through `status` (with a certificate when ADMM found
 * one), never thrown.
 *
 * @throws {TypeError} on a wrong type or NaN in the problem, naming `solveQp` and the field.
 * @throws {RangeError} on a shape mismatch, a non-PSD P, or an invalid option.
 * @example
 * // minimize x^2 + y^2 - x  s.t.  x + y = 1  ->  x = 0.75, y = 0.25
 * const r = solveQp({
 *   P: { diagonal: Float64Array.of(2, 2) },
 *   q: Float64Array.of(-1, 0),
 *   A: new SparseMatrixBuilder(1, 2).add(0, 0, 1).add(0, 1, 1).build(),
 *   l: Float64Array.of(1),
 *   u: Float64Array.of(1),
 * });
 */
export function solveQp(problem: QpProblem, options?: QpOptions): QpResult {
  return new Solver(problem, options, "solveQp").solve({ warmStart: false });
}

/**
 * {@link solveQp} that throws on failure: `primal_infeasible` -> {@link InfeasibleError} (with the
 * diagnosis), `dual_infeasible` -> {@link UnboundedError}, `max_iter` / `time_limit` ->
 * {@link SolverError}. `optimal` and `optimal_inaccurate` results are returned.
 *
 * @throws {InfeasibleError} when the constraints admit no point.
 * @throws {UnboundedError} when the objective is unbounded below.
 * @throws {SolverError} when the iteration or time limit stopped the solver.
 * @example
 * const { x } = solveQpOrThrow(problem);
 */
export function solveQpOrThrow(problem: QpProblem, options?: QpOptions): QpResult {
  const r = solveQp(problem, options);
  if (r.status === "optimal" || r.status === "optimal_inaccurate") return r;
  if (r.status === "primal_infeasible")
    throw new InfeasibleError(
      `The QP is infeasible: ${r.diagnosis.join("; ") || "no point satisfies all constraints"}. Relax the conflicting bounds or rows.`,
      r.diagnosis,
    );
  if (r.status === "dual_infeasible")
    throw new UnboundedError(
      "The QP is unbounded below: the objective decreases without limit along a feasible direction. Add bounds or curvature (risk) on the free variables.",
    );
  throw new SolverError(
    `The QP solver stopped without converging (status ${r.status} after ${r.iterations} iterations; primal residual ${r.primalResidual.toExponential(2)}, dual residual ${r.dualResidual.toExponential(2)}). Raise maxIter or timeLimitMs, or loosen epsAbs/epsRel.`,
  );
}
