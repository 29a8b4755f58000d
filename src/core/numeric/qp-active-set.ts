/**
 * @module core/numeric/qp-active-set
 * The exact ("active-set") method: drives the dual Newton engine ({@link DualNewtonEngine}) on a
 * {@link QpModel}, adding what the engine itself does not do:
 *
 * - variables without curvature (d_i = 0): proximal-point outer loop x^{j+1} = argmin f(x) +
 *   eps/2 ||x - x^j||^2 on those variables (Rockafellar, "Monotone operators and the proximal point
 *   algorithm", SIAM J. Control Optim. 1976), whose fixed points are the solutions of the original QP;
 * - one factor-risk ball (x - c)'Sigma(x - c) <= r^2: Lagrangian relaxation with multiplier eta >= 0,
 *   each eta giving a QP of the same structure (P + 2 eta Sigma stays diagonal plus low rank), and a
 *   safeguarded Newton iteration on phi(eta) = 1/sqrt(risk(x(eta))) - 1/r, whose derivative comes from the
 *   engine's sensitivity solve (implicit function theorem on the fixed active set);
 * - the bound multipliers, recovered from the stationarity residual on the clipped variables.
 */
import { DualNewtonEngine } from "./qp-dual-newton.js";
import { modelPx } from "./qp-kkt.js";
import type { BallCone, QpModel } from "./qp-model.js";

/** Largest kd + (general rows) for which the active-set method is used by `method: "auto"`. */
export const ACTIVE_SET_MAX_CAPACITY = 400;

/** True when the active-set method applies: at most one factor-risk ball and no general cone. */
export function activeSetSupports(model: QpModel): boolean {
  let balls = 0;
  for (const c of model.cones) {
    if (c.kind !== "factor-risk-ball") return false;
    balls++;
  }
  return balls <= 1;
}

/** Reusable state of the active-set method for one model structure. */
export interface ActiveSetContext {
  readonly model: QpModel;
  readonly ball: BallCone | undefined;
  readonly engine: DualNewtonEngine;
  readonly kd: number;
  readonly U: Float64Array;
  /** Effective engine parameters (written per eta / prox pass). */
  readonly dEff: Float64Array;
  readonly qEff: Float64Array;
  readonly w: Float64Array;
  /** Sigma c for the ball (n). */
  readonly sigmaC: Float64Array;
  /** Largest diagonal entry of P (and 1e-3 of Sigma's), deciding which variables lack curvature. */
  readonly diagScale: number;
  /** Traces of P and of the ball's Sigma, for the first guess of the risk multiplier. */
  readonly traceP: number;
  readonly traceS: number;
  /** Proximal-point flags and centers of the variables without curvature. */
  readonly prox: Uint8Array;
  readonly xBar: Float64Array;
  eta: number;
  solved: boolean;
}

/** Outcome of {@link runActiveSet}. */
export interface ActiveSetOutcome {
  /** `optimal`: converged (the caller still runs the KKT check); `failed`: no convergence; `diverged`: dual unbounded. */
  readonly status: "optimal" | "failed" | "diverged" | "time_limit";
  readonly x: Float64Array;
  /** Multipliers of the general rows. */
  readonly yGeneral: Float64Array;
  /** Multipliers of the merged bounds on x. */
  readonly z: Float64Array;
  /** Risk multiplier eta of the ball (0 without a ball or when the cap is not binding). */
  readonly eta: number;
  readonly iterations: number;
}

/** Builds the engine for a model (U = [V, W] when there is a ball). */
export function createActiveSetContext(model: QpModel): ActiveSetContext {
  const { n, k } = model;
  const ball = model.cones.find((c): c is BallCone => c.kind === "factor-risk-ball");
  const kW = ball ? ball.kW : 0;
  const kd = k + kW;
  let U = model.V;
  if (kW > 0 && ball) {
    U = new Float64Array(n * kd);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < k; j++) U[i * kd + j] = model.V[i * k + j]!;
      for (let j = 0; j < kW; j++) U[i * kd + k + j] = ball.W[i * kW + j]!;
    }
  }
  const dEff = new Float64Array(n);
  const qEff = new Float64Array(n);
  const w = new Float64Array(kd);
  const sigmaC = new Float64Array(n);
  if (ball) {
    const t = new Float64Array(kW);
    for (let i = 0; i < n; i++) for (let j = 0; j < kW; j++) t[j]! += ball.W[i * kW + j]! * ball.center[i]!;
    for (let i = 0; i < n; i++) {
      let s = ball.e[i]! * ball.center[i]!;
      for (let j = 0; j < kW; j++) s += ball.W[i * kW + j]! * t[j]!;
      sigmaC[i] = s;
    }
  }
  let diagScale = 0;
  let traceP = 0;
  let traceS = 0;
  let sMax = 0;
  for (let i = 0; i < n; i++) {
    let p = model.d[i]!;
    for (let j = 0; j < k; j++) p += model.s[j]! * model.V[i * k + j]! ** 2;
    if (p > diagScale) diagScale = p;
    traceP += p;
    if (ball) {
      let e = ball.e[i]!;
      for (let j = 0; j < kW; j++) e += ball.W[i * kW + j]! ** 2;
      if (e > sMax) sMax = e;
      traceS += e;
    }
  }
  diagScale = Math.max(diagScale, 1e-3 * sMax);
  if (!(diagScale > 0)) diagScale = 1;
  if (!(traceP > 0)) traceP = n * diagScale;
  const engine = new DualNewtonEngine(
    { n, kd, U, A: model.Ag, At: model.AgT },
    { d: dEff, q: qEff, xl: model.xl, xu: model.xu, w, l: model.lg, u: model.ug },
  );
  return {
    model,
    ball,
    engine,
    kd,
    U,
    dEff,
    qEff,
    w,
    sigmaC,
    diagScale,
    traceP,
    traceS,
    prox: new Uint8Array(n),
    xBar: new Float64Array(n),
    eta: 0,
    solved: false,
  };
}

/** Options of {@link runActiveSet}. */
export interface ActiveSetRunOptions {
  readonly maxNewtonIter: number;
  readonly tolerance: number;
  readonly deadline?: () => boolean;
  /** Keep the engine's current multipliers (and eta) as the starting point. */
  readonly warm: boolean;
  /** Starting point from elsewhere (ADMM): primal x, general-row multipliers, risk multiplier. */
  readonly start?: { x?: Float64Array; yGeneral?: Float64Array; eta?: number };
}

/** Risk (x - c)'Sigma(x - c) of the ball at x. */
function ballRisk(ball: BallCone, x: Float64Array): number {
  const { e, W, kW, center } = ball;
  const n = x.length;
  const t = new Float64Array(kW);
  let r = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i]! - center[i]!;
    r += e[i]! * dx * dx;
    const o = i * kW;
    for (let j = 0; j < kW; j++) t[j]! += W[o + j]! * dx;
  }
  for (let j = 0; j < kW; j++) r += t[j]! * t[j]!;
  return r;
}

/** out = Sigma (x - c) for the ball. */
function ballGradientHalf(ball: BallCone, x: Float64Array, out: Float64Array): void {
  const { e, W, kW, center } = ball;
  const n = x.length;
  const t = new Float64Array(kW);
  for (let i = 0; i < n; i++) {
    const dx = x[i]! - center[i]!;
    const o = i * kW;
    for (let j = 0; j < kW; j++) t[j]! += W[o + j]! * dx;
  }
  for (let i = 0; i < n; i++) {
    let s = e[i]! * (x[i]! - center[i]!);
    const o = i * kW;
    for (let j = 0; j < kW; j++) s += W[o + j]! * t[j]!;
    out[i] = s;
  }
}

/**
 * Solves the model with the active-set method from a cold or warm start. The caller checks the KKT
 * conditions of the returned point (with {@link kktReport}) before calling it optimal.
 */
export function runActiveSet(ctx: ActiveSetContext, options: ActiveSetRunOptions): ActiveSetOutcome {
  const { model, engine, ball, dEff, qEff, w, kd, U, sigmaC } = ctx;
  const { n, k } = model;
  let iterations = 0;
  let failed: ActiveSetOutcome["status"] | undefined;

  const { diagScale, traceP, traceS, prox, xBar } = ctx;
  let qScale = 1;
  for (let i = 0; i < n; i++) qScale = Math.max(qScale, Math.abs(model.q[i]!));
  const proxEps = 1e-6 * diagScale;

  // Starting point.
  if (options.start?.x !== undefined || options.start?.yGeneral !== undefined) {
    const eta0 = ball ? Math.max(0, options.start.eta ?? 0) : 0;
    ctx.eta = eta0;
    const lam = new Float64Array(kd);
    const xs = options.start.x;
    if (xs) {
      for (let j = 0; j < kd; j++) {
        const wj = j < k ? model.s[j]! : 2 * eta0;
        let t = 0;
        for (let i = 0; i < n; i++) t += U[i * kd + j]! * xs[i]!;
        lam[j] = wj * t;
      }
    }
    engine.setDual(lam, options.start.yGeneral);
  } else if (!options.warm || !ctx.solved) {
    // Cold start from zero multipliers: x = clip(-q ./ d). (Starting lambda at the factor exposure of a
    // central point of the box was tried: fewer steps on some instances, more on most random problems.)
    engine.setDual();
    ctx.eta = 0;
  }

  let proxCenter: Float64Array | undefined = options.start?.x;
  const setEta = (eta: number): void => {
    for (let j = 0; j < k; j++) w[j] = model.s[j]!;
    for (let j = k; j < kd; j++) w[j] = 2 * eta;
    if (kd > k) {
      // Warm multipliers of the risk factors: lambda_W = 2 eta W'x at the current x.
      const lam = engine.lambda;
      const x = engine.x;
      for (let j = k; j < kd; j++) lam[j] = 0;
      for (let i = 0; i < n; i++) {
        const xi = x[i]!;
        if (xi === 0) continue;
        for (let j = k; j < kd; j++) lam[j]! += U[i * kd + j]! * xi;
      }
      for (let j = k; j < kd; j++) lam[j]! *= 2 * eta;
    }
    let anyProx = false;
    let changed = false;
    for (let i = 0; i < n; i++) {
      const di = model.d[i]! + (ball ? 2 * eta * ball.e[i]! : 0);
      prox[i] = di <= 1e-9 * diagScale ? 1 : 0;
      if (prox[i] === 1) anyProx = true;
      const de = prox[i] === 1 ? di + proxEps : di;
      if (de !== dEff[i]) {
        dEff[i] = de;
        changed = true;
      }
    }
    const center = proxCenter ?? engine.x;
    proxCenter = undefined;
    if (anyProx) for (let i = 0; i < n; i++) xBar[i] = prox[i] === 1 ? center[i]! : 0;
    // The capacity matrix depends on d only: keep it (and its rank-1 history) when d is unchanged.
    if (changed) engine.invalidateFactor();
  };

  const solveFixedEta = (eta: number): boolean => {
    let anyProx = false;
    for (let i = 0; i < n; i++) if (prox[i] === 1) anyProx = true;
    let bestChange = Number.POSITIVE_INFINITY;
    let sinceBest = 0;
    for (let outer = 0; outer < (anyProx ? 300 : 1); outer++) {
      for (let i = 0; i < n; i++) {
        let qi = model.q[i]!;
        if (ball) qi -= 2 * eta * sigmaC[i]!;
        if (prox[i] === 1) qi -= proxEps * xBar[i]!;
        qEff[i] = qi;
      }
      const out = engine.solve({
        maxIter: Math.max(1, options.maxNewtonIter - iterations),
        tolerance: options.tolerance * 1e-3,
        ...(options.deadline ? { deadline: options.deadline } : {}),
      });
      iterations += out.iterations;
      if (out.status === "diverged" || out.status === "time_limit") {
        failed = out.status;
        return false;
      }
      if (
        out.status === "max_iter" ||
        (out.status === "stalled" && out.primalResidual > 1e3 * options.tolerance)
      ) {
        failed = "failed";
        return false;
      }
      if (!anyProx) return true;
      let change = 0;
      for (let i = 0; i < n; i++) {
        if (prox[i] !== 1) continue;
        change = Math.max(change, proxEps * Math.abs(engine.x[i]! - xBar[i]!));
        xBar[i] = engine.x[i]!;
      }
      if (change <= 1e-3 * options.tolerance * qScale) return true;
      // A prox sequence that stops contracting means an unbounded direction: leave it to ADMM.
      if (change < 0.5 * bestChange) {
        bestChange = change;
        sinceBest = 0;
      } else if (++sinceBest >= 20) break;
    }
    failed = "failed";
    return false;
  };

  const finish = (status: ActiveSetOutcome["status"]): ActiveSetOutcome => {
    const x = Float64Array.from(engine.x);
    const yGeneral = Float64Array.from(engine.y);
    // z = -(P x + q + A'y + 2 eta Sigma (x - c)) on the variables at a bound.
    const r = modelPx(model, x, new Float64Array(n));
    const At = model.AgT;
    const g = new Float64Array(n);
    if (ball && ctx.eta > 0) ballGradientHalf(ball, x, g);
    const z = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      if (x[i]! > model.xl[i]! && x[i]! < model.xu[i]!) continue;
      let s = r[i]! + model.q[i]! + 2 * ctx.eta * g[i]!;
      for (let e = At.rowStart[i]!; e < At.rowStart[i + 1]!; e++)
        s += At.values[e]! * yGeneral[At.columnIndex[e]!]!;
      z[i] = -s;
    }
    ctx.solved = status === "optimal";
    return { status, x, yGeneral, z, eta: ctx.eta, iterations };
  };

  if (!ball) {
    setEta(0);
    return finish(solveFixedEta(0) ? "optimal" : failed!);
  }

  // Risk cap: find eta >= 0 with risk(x(eta)) = r^2, or eta = 0 when the cap is not binding.
  const r = ball.radius;
  const tolRisk = 1e-11;
  const dx = new Float64Array(n);
  const grad = new Float64Array(n);
  const evaluate = (eta: number): { phi: number; dphi: number } | undefined => {
    setEta(eta);
    ctx.eta = eta;
    if (!solveFixedEta(eta)) return undefined;
    const risk = ballRisk(ball, engine.x);
    if (risk <= 0) return { phi: Number.POSITIVE_INFINITY, dphi: 0 };
    ballGradientHalf(ball, engine.x, grad);
    for (let i = 0; i < n; i++) grad[i]! *= 2;
    let dRisk = 0;
    if (engine.sensitivity(grad, dx)) {
      // d risk / d eta = 2 (x - c)'Sigma dx/deta = grad'dx.
      for (let i = 0; i < n; i++) dRisk += grad[i]! * dx[i]!;
    }
    const phi = 1 / Math.sqrt(risk) - 1 / r;
    const dphi = -0.5 * risk ** -1.5 * dRisk;
    return { phi, dphi };
  };
  const done = (phi: number): boolean =>
    Math.abs(phi) * r <= tolRisk * (1 + Math.abs(phi) * r) && phi >= -tolRisk / r;

  let eta = options.warm && ctx.solved ? ctx.eta : Math.max(0, options.start?.eta ?? 0);
  if (r === 0) {
    // The cap forces G(x - c) = 0; treat as a very large eta is not exact, so let ADMM handle it.
    return finish("failed");
  }
  let lo = 0;
  let hi = Number.POSITIVE_INFINITY;
  let phiLo = Number.NaN;
  let phiHi = Number.NaN;
  for (let round = 0; round < 60; round++) {
    const v = evaluate(eta);
    if (v === undefined) return finish(failed!);
    if (eta === 0 && v.phi >= 0) return finish("optimal");
    if (done(v.phi)) return finish("optimal");
    if (v.phi < 0) {
      lo = eta;
      phiLo = v.phi;
    } else {
      hi = eta;
      phiHi = v.phi;
    }
    let next = v.dphi > 0 ? eta - v.phi / v.dphi : Number.NaN;
    if (!Number.isFinite(hi)) {
      // Before an upper bracket exists, limit how far a (possibly degenerate) Newton step may jump.
      const guess = ((0.5 * traceP) / Math.max(traceS, 1e-300)) * Math.max(0.1, -v.phi * r);
      next = Math.min(next, lo > 0 ? 10 * lo : 100 * guess);
    }
    if (!(next > lo && next < hi)) {
      if (Number.isFinite(hi)) {
        // Secant on the bracket when both ends are known, else bisection.
        next =
          Number.isFinite(phiLo) && Number.isFinite(phiHi)
            ? lo + (hi - lo) * (-phiLo / (phiHi - phiLo))
            : 0.5 * (lo + hi);
        if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
      } else {
        // No upper bracket yet: grow eta geometrically, starting from the ratio of the traces of P and
        // Sigma scaled by how far the risk is above the cap.
        next = lo > 0 ? 4 * lo : ((0.5 * traceP) / Math.max(traceS, 1e-300)) * Math.max(0.1, -v.phi * r);
      }
    }
    if (Number.isFinite(hi) && hi - lo <= 1e-15 * hi) return finish(v.phi >= 0 ? "optimal" : "failed");
    if (lo > 1e15 * (1 + qScale)) return finish("failed");
    eta = next;
  }
  return finish("failed");
}
