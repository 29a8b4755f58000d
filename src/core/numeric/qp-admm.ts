/**
 * @module core/numeric/qp-admm
 * OSQP's ADMM (Stellato, Banjac, Goulart, Bemporad, Boyd, "OSQP: an operator splitting solver for
 * quadratic programs", Math. Prog. Comp. 2020, Algorithm 1) on the stacked constraint operator
 * C = [general rows of A; identity rows of the bounded variables; rows of each cone], with the
 * projection onto boxes and cones (second-order cones as in COSMO, Garstka, Cannon, Goulart, JOTA 2021):
 *
 *     x~ = (P + sigma I + C' diag(rho) C)^{-1} (sigma x - q + C'(rho z - y))
 *     x  = alpha x~ + (1 - alpha) x,         v = alpha C x~ + (1 - alpha) z
 *     z  = Proj(v + y ./ rho),               y = y + rho (v - z)
 *
 * on Ruiz-equilibrated data (section 5.1), with per-row rho (equality rows 1e3 rho, free rows 1e-6),
 * adaptive rho from the ratio of relative residuals (section 5.2), termination on eps_abs / eps_rel
 * (section 3.4) and the infeasibility certificates of Banjac et al. ("Infeasibility detection in the
 * alternating direction method of multipliers for convex optimization", JOTA 2019): delta-y for primal
 * infeasibility, delta-x for dual infeasibility. The linear system is solved by
 * {@link LowRankSystemSolver}: rows with one nonzero (bounds, the diagonal part of a factor-risk ball)
 * only change the diagonal, the others join the factor columns of P in a Woodbury capacity matrix.
 */
import { LowRankSystemSolver } from "./low-rank-system.js";
import { BOUND_NONE, type QpModel } from "./qp-model.js";
import type { SparseMatrix } from "./sparse-matrix.js";

const RHO_MIN = 1e-6;
const RHO_MAX = 1e6;
const RHO_EQ_FACTOR = 1e3;
const SCALING_MIN = 1e-4;
const SCALING_MAX = 1e4;

/** A cone block of C: rows [start, start + size). */
interface ConeBlock {
  readonly kind: "ball" | "soc";
  readonly start: number;
  readonly size: number;
  /** Unscaled center g (ball: G c; soc: g, after the h row). */
  readonly g: Float64Array;
  /** Ball radius or SOC offset t (unscaled). */
  readonly r: number;
}

/** ADMM data and state for one model structure. */
export interface AdmmContext {
  readonly model: QpModel;
  readonly n: number;
  readonly mC: number;
  readonly mg: number;
  /** Variables with a bound row, in row order after the general rows. */
  readonly boundVars: Int32Array;
  readonly blocks: readonly ConeBlock[];
  /** Scaled C (CSR). */
  readonly C: SparseMatrix;
  readonly Dsc: Float64Array;
  readonly Esc: Float64Array;
  cScale: number;
  readonly dHat: Float64Array;
  readonly vHat: Float64Array;
  readonly sHat: Float64Array;
  readonly qHat: Float64Array;
  /** Scaled box bounds per row (cone rows: unused). */
  readonly lo: Float64Array;
  readonly hi: Float64Array;
  readonly isSingleton: Uint8Array;
  readonly nsRows: Int32Array;
  readonly solver: LowRankSystemSolver;
  readonly rho: Float64Array;
  rhoBar: number;
  readonly kktDiag: Float64Array;
  readonly rhoNs: Float64Array;
  factored: boolean;
  // Iterates (scaled).
  readonly x: Float64Array;
  readonly z: Float64Array;
  readonly y: Float64Array;
  hasState: boolean;
  /** Finite-ness pattern of the bounds the structure was built for. */
  readonly boundPattern: string;
  /** Row kinds the current factorization was built for (see rowKinds). */
  rowKindSignature: string;
}

/** Options of {@link runAdmm} (all resolved). */
export interface AdmmOptions {
  readonly maxIter: number;
  readonly epsAbs: number;
  readonly epsRel: number;
  readonly epsPrimalInfeasible: number;
  readonly epsDualInfeasible: number;
  readonly rho: number;
  readonly sigma: number;
  readonly alpha: number;
  readonly adaptiveRho: boolean;
  readonly adaptiveRhoInterval: number;
  readonly adaptiveRhoTolerance: number;
  readonly scalingIterations: number;
  readonly deadline?: () => boolean;
}

/** Outcome of {@link runAdmm}, in the problem's units. */
export interface AdmmOutcome {
  readonly status: "solved" | "primal_infeasible" | "dual_infeasible" | "max_iter" | "time_limit";
  /** Residuals within 10 x the tolerances (for `optimal_inaccurate`). */
  readonly nearlySolved: boolean;
  readonly x: Float64Array;
  /** Multipliers of the general rows. */
  readonly yGeneral: Float64Array;
  /** Multipliers of the merged bounds. */
  readonly z: Float64Array;
  readonly coneDuals: Float64Array[];
  readonly iterations: number;
  readonly rho: number;
  /** Certificate in C-row order (primal) or x space (dual), unscaled. */
  readonly certificate?:
    | { readonly kind: "primal"; readonly dy: Float64Array }
    | { readonly kind: "dual"; readonly dx: Float64Array };
}

/** Pattern string of which merged bounds are finite, to detect structural changes. */
export function boundPatternOf(model: QpModel): string {
  let s = "";
  for (let j = 0; j < model.n; j++)
    s += Number.isFinite(model.xl[j]!) || Number.isFinite(model.xu[j]!) ? "1" : "0";
  return s;
}

/** Builds C, the scaling and the linear solver for a model. */
export function createAdmmContext(model: QpModel, options: AdmmOptions): AdmmContext {
  const { n, k } = model;
  const boundVarsList: number[] = [];
  for (let j = 0; j < n; j++)
    if (Number.isFinite(model.xl[j]!) || Number.isFinite(model.xu[j]!)) boundVarsList.push(j);
  const boundVars = Int32Array.from(boundVarsList);
  const mg = model.generalRows.length;
  // Assemble C row by row.
  const starts: number[] = [0];
  const cols: number[] = [];
  const vals: number[] = [];
  const pushRow = (c: ArrayLike<number>, v: ArrayLike<number>): void => {
    for (let p = 0; p < c.length; p++) {
      if (v[p] === 0) continue;
      cols.push(c[p]!);
      vals.push(v[p]!);
    }
    starts.push(cols.length);
  };
  const Ag = model.Ag;
  for (let r = 0; r < mg; r++)
    pushRow(
      Ag.columnIndex.subarray(Ag.rowStart[r]!, Ag.rowStart[r + 1]!),
      Ag.values.subarray(Ag.rowStart[r]!, Ag.rowStart[r + 1]!),
    );
  for (const j of boundVars) pushRow([j], [1]);
  const blocks: ConeBlock[] = [];
  for (const cone of model.cones) {
    const start = starts.length - 1;
    if (cone.kind === "factor-risk-ball") {
      const { e, W, kW, center, radius } = cone;
      const g = new Float64Array(n + kW);
      for (let i = 0; i < n; i++) {
        const se = Math.sqrt(e[i]!);
        pushRow([i], [se]);
        g[i] = se * center[i]!;
      }
      const idx = Array.from({ length: n }, (_, i) => i);
      for (let j = 0; j < kW; j++) {
        const row = new Float64Array(n);
        let gc = 0;
        for (let i = 0; i < n; i++) {
          row[i] = W[i * kW + j]!;
          gc += row[i]! * center[i]!;
        }
        pushRow(idx, row);
        g[n + j] = gc;
      }
      blocks.push({ kind: "ball", start, size: n + kW, g, r: radius });
    } else {
      const { G, g, h, t } = cone;
      const idx: number[] = [];
      const hv: number[] = [];
      for (let i = 0; i < n; i++)
        if (h[i] !== 0) {
          idx.push(i);
          hv.push(h[i]!);
        }
      pushRow(idx, hv);
      for (let r = 0; r < G.rows; r++)
        pushRow(
          G.columnIndex.subarray(G.rowStart[r]!, G.rowStart[r + 1]!),
          G.values.subarray(G.rowStart[r]!, G.rowStart[r + 1]!),
        );
      const gg = new Float64Array(1 + G.rows);
      gg.set(g, 1);
      blocks.push({ kind: "soc", start, size: 1 + G.rows, g: gg, r: t });
    }
  }
  const mC = starts.length - 1;
  const rowStart = Int32Array.from(starts);
  const columnIndex = Int32Array.from(cols);
  const baseValues = Float64Array.from(vals);

  // Ruiz equilibration: D scales columns of [P; C], E rows of C (uniform within a cone block).
  const Dsc = new Float64Array(n).fill(1);
  const Esc = new Float64Array(mC).fill(1);
  const values = Float64Array.from(baseValues);
  const dHat = Float64Array.from(model.d);
  const vHat = Float64Array.from(model.V);
  const sHat = Float64Array.from(model.s);
  const colNorm = new Float64Array(n);
  const rowNorm = new Float64Array(mC);
  for (let pass = 0; pass < options.scalingIterations; pass++) {
    // Column norms: the diagonal of P stands in for its column infinity-norm (exact norms cost O(n^2 k)).
    for (let i = 0; i < n; i++) {
      let p = dHat[i]!;
      for (let j = 0; j < k; j++) p += sHat[j]! * vHat[i * k + j]! ** 2;
      colNorm[i] = p;
    }
    rowNorm.fill(0);
    for (let r = 0; r < mC; r++) {
      for (let a = rowStart[r]!; a < rowStart[r + 1]!; a++) {
        const v = Math.abs(values[a]!);
        if (v > rowNorm[r]!) rowNorm[r] = v;
        const c = columnIndex[a]!;
        if (v > colNorm[c]!) colNorm[c] = v;
      }
    }
    for (const b of blocks) {
      let mx = 0;
      for (let r = b.start; r < b.start + b.size; r++) mx = Math.max(mx, rowNorm[r]!);
      for (let r = b.start; r < b.start + b.size; r++) rowNorm[r] = mx;
    }
    for (let i = 0; i < n; i++) {
      const f = colNorm[i]! < SCALING_MIN ? 1 : 1 / Math.sqrt(colNorm[i]!);
      const nd = Math.min(SCALING_MAX, Math.max(SCALING_MIN, Dsc[i]! * f));
      colNorm[i] = nd / Dsc[i]!;
      Dsc[i] = nd;
    }
    for (let r = 0; r < mC; r++) {
      const f = rowNorm[r]! < SCALING_MIN ? 1 : 1 / Math.sqrt(rowNorm[r]!);
      const ne = Math.min(SCALING_MAX, Math.max(SCALING_MIN, Esc[r]! * f));
      rowNorm[r] = ne / Esc[r]!;
      Esc[r] = ne;
    }
    for (let i = 0; i < n; i++) {
      const f = colNorm[i]!;
      dHat[i]! *= f * f;
      for (let j = 0; j < k; j++) vHat[i * k + j]! *= f;
    }
    for (let r = 0; r < mC; r++)
      for (let a = rowStart[r]!; a < rowStart[r + 1]!; a++)
        values[a]! *= rowNorm[r]! * colNorm[columnIndex[a]!]!;
  }
  const C: SparseMatrix = { rows: mC, cols: n, rowStart, columnIndex, values };
  const isSingleton = new Uint8Array(mC);
  const ns: number[] = [];
  for (let r = 0; r < mC; r++) {
    const cnt = rowStart[r + 1]! - rowStart[r]!;
    if (cnt <= 1) isSingleton[r] = 1;
    else ns.push(r);
  }
  const nsRows = Int32Array.from(ns);
  const nsStart = new Int32Array(nsRows.length + 1);
  const nsCols: number[] = [];
  const nsVals: number[] = [];
  for (let t = 0; t < nsRows.length; t++) {
    const r = nsRows[t]!;
    for (let a = rowStart[r]!; a < rowStart[r + 1]!; a++) {
      nsCols.push(columnIndex[a]!);
      nsVals.push(values[a]!);
    }
    nsStart[t + 1] = nsCols.length;
  }
  const Cns: SparseMatrix = {
    rows: nsRows.length,
    cols: n,
    rowStart: nsStart,
    columnIndex: Int32Array.from(nsCols),
    values: Float64Array.from(nsVals),
  };
  const ctx: AdmmContext = {
    model,
    n,
    mC,
    mg,
    boundVars,
    blocks,
    C,
    Dsc,
    Esc,
    cScale: 1,
    dHat,
    vHat,
    sHat,
    qHat: new Float64Array(n),
    lo: new Float64Array(mC),
    hi: new Float64Array(mC),
    isSingleton,
    nsRows,
    solver: new LowRankSystemSolver(n, k, vHat, Cns),
    rho: new Float64Array(mC),
    rhoBar: options.rho,
    kktDiag: new Float64Array(n),
    rhoNs: new Float64Array(nsRows.length),
    factored: false,
    x: new Float64Array(n),
    z: new Float64Array(mC),
    y: new Float64Array(mC),
    hasState: false,
    boundPattern: boundPatternOf(model),
    rowKindSignature: "",
  };
  // Cost scaling c = 1 / max(mean column norm of P, ||q||_inf) (OSQP section 5.1).
  let mean = 0;
  for (let i = 0; i < n; i++) {
    let p = dHat[i]!;
    for (let j = 0; j < k; j++) p += sHat[j]! * vHat[i * k + j]! ** 2;
    mean += p;
  }
  mean /= n;
  let qMax = 0;
  for (let i = 0; i < n; i++) qMax = Math.max(qMax, Math.abs(model.q[i]! * Dsc[i]!));
  let cs = 1 / Math.max(mean, qMax, 1e-300);
  cs = Math.min(SCALING_MAX, Math.max(SCALING_MIN, cs));
  if (options.scalingIterations === 0) cs = 1;
  ctx.cScale = cs;
  for (let i = 0; i < n; i++) dHat[i]! *= cs;
  for (let j = 0; j < k; j++) sHat[j]! *= cs;
  refreshAdmmData(ctx);
  return ctx;
}

/** Recomputes the scaled q and row bounds from the model (after an update of q, l, u or bounds). */
export function refreshAdmmData(ctx: AdmmContext): void {
  const { model, n, mg, boundVars, Dsc, Esc, qHat, lo, hi } = ctx;
  for (let i = 0; i < n; i++) qHat[i] = ctx.cScale * Dsc[i]! * model.q[i]!;
  for (let r = 0; r < mg; r++) {
    lo[r] = model.lg[r]! * Esc[r]!;
    hi[r] = model.ug[r]! * Esc[r]!;
  }
  for (let b = 0; b < boundVars.length; b++) {
    const r = mg + b;
    const j = boundVars[b]!;
    // Row value is E_r D_j x^_j = E_r x_j.
    lo[r] = model.xl[j]! * Esc[r]!;
    hi[r] = model.xu[j]! * Esc[r]!;
  }
  // The KKT matrix depends on l and u only through each row's kind (equality, free, inequality).
  const kinds = rowKinds(ctx);
  if (kinds !== ctx.rowKindSignature) {
    ctx.rowKindSignature = kinds;
    ctx.factored = false;
  }
}

/** One character per box row: e(quality), f(ree) or i(nequality), which fixes its rho. */
function rowKinds(ctx: AdmmContext): string {
  const boxRows = ctx.mg + ctx.boundVars.length;
  let s = "";
  for (let r = 0; r < boxRows; r++) {
    const lo = ctx.lo[r]!;
    const hi = ctx.hi[r]!;
    s += lo === hi ? "e" : lo === Number.NEGATIVE_INFINITY && hi === Number.POSITIVE_INFINITY ? "f" : "i";
  }
  return s;
}

function setRho(ctx: AdmmContext, rhoBar: number, sigma: number): boolean {
  const { mC, rho, lo, hi, isSingleton, C, kktDiag, nsRows, rhoNs, dHat, n } = ctx;
  ctx.rhoBar = rhoBar;
  const boxRows = ctx.mg + ctx.boundVars.length;
  for (let r = 0; r < mC; r++) {
    if (r < boxRows) {
      if (lo[r] === Number.NEGATIVE_INFINITY && hi[r] === Number.POSITIVE_INFINITY) rho[r] = RHO_MIN;
      else if (lo[r] === hi[r]) rho[r] = RHO_EQ_FACTOR * rhoBar;
      else rho[r] = rhoBar;
    } else rho[r] = rhoBar;
  }
  for (let i = 0; i < n; i++) kktDiag[i] = dHat[i]! + sigma;
  for (let r = 0; r < mC; r++) {
    if (isSingleton[r] !== 1) continue;
    for (let a = C.rowStart[r]!; a < C.rowStart[r + 1]!; a++)
      kktDiag[C.columnIndex[a]!]! += rho[r]! * C.values[a]! ** 2;
  }
  for (let t = 0; t < nsRows.length; t++) rhoNs[t] = rho[nsRows[t]!]!;
  ctx.factored = ctx.solver.factor(kktDiag, ctx.sHat, rhoNs);
  return ctx.factored;
}

/** z = Proj(v) onto the row sets (boxes and cone blocks), in scaled units. */
function project(ctx: AdmmContext, v: Float64Array, out: Float64Array): void {
  const { lo, hi, blocks, Esc } = ctx;
  const boxRows = ctx.mg + ctx.boundVars.length;
  for (let r = 0; r < boxRows; r++) {
    out[r] = Math.max(lo[r]!, Math.min(v[r]!, hi[r]!));
  }
  for (const b of blocks) {
    const e = Esc[b.start]!;
    if (b.kind === "ball") {
      let sq = 0;
      for (let r = 0; r < b.size; r++) sq += (v[b.start + r]! - e * b.g[r]!) ** 2;
      const nrm = Math.sqrt(sq);
      const rad = e * b.r;
      const f = nrm <= rad ? 1 : rad / nrm;
      for (let r = 0; r < b.size; r++) {
        const gc = e * b.g[r]!;
        out[b.start + r] = gc + f * (v[b.start + r]! - gc);
      }
    } else {
      // (s, w) with s' = s + e t, w' = w - e g: projection onto the second-order cone ||w'|| <= s'.
      const s = v[b.start]! + e * b.r;
      let sq = 0;
      for (let r = 1; r < b.size; r++) sq += (v[b.start + r]! - e * b.g[r]!) ** 2;
      const nrm = Math.sqrt(sq);
      let ns: number;
      let f: number;
      if (nrm <= s) {
        ns = s;
        f = 1;
      } else if (nrm <= -s) {
        ns = 0;
        f = 0;
      } else {
        ns = 0.5 * (s + nrm);
        f = ns / nrm;
      }
      out[b.start] = ns - e * b.r;
      for (let r = 1; r < b.size; r++) {
        const gc = e * b.g[r]!;
        out[b.start + r] = gc + f * (v[b.start + r]! - gc);
      }
    }
  }
}

function matvecC(C: SparseMatrix, x: Float64Array, out: Float64Array): void {
  const { rowStart, columnIndex, values } = C;
  for (let r = 0; r < C.rows; r++) {
    let s = 0;
    for (let a = rowStart[r]!; a < rowStart[r + 1]!; a++) s += values[a]! * x[columnIndex[a]!]!;
    out[r] = s;
  }
}

function matvecCt(C: SparseMatrix, y: Float64Array, out: Float64Array): void {
  out.fill(0);
  const { rowStart, columnIndex, values } = C;
  for (let r = 0; r < C.rows; r++) {
    const yr = y[r]!;
    if (yr === 0) continue;
    for (let a = rowStart[r]!; a < rowStart[r + 1]!; a++) out[columnIndex[a]!]! += values[a]! * yr;
  }
}

/** Scaled P x = dHat x + vHat (sHat (vHat' x)). */
function matvecP(ctx: AdmmContext, x: Float64Array, out: Float64Array, t: Float64Array): void {
  const { n, dHat, vHat, sHat } = ctx;
  const k = sHat.length;
  t.fill(0);
  for (let i = 0; i < n; i++) {
    const xi = x[i]!;
    if (xi === 0) continue;
    const o = i * k;
    for (let j = 0; j < k; j++) t[j]! += vHat[o + j]! * xi;
  }
  for (let j = 0; j < k; j++) t[j]! *= sHat[j]!;
  for (let i = 0; i < n; i++) {
    const o = i * k;
    let s = dHat[i]! * x[i]!;
    for (let j = 0; j < k; j++) s += vHat[o + j]! * t[j]!;
    out[i] = s;
  }
}

/** Sets the scaled iterate from an unscaled start (x; multipliers of general rows, bounds, cones). */
export function setAdmmStart(
  ctx: AdmmContext,
  x: Float64Array,
  yGeneral?: Float64Array,
  z?: Float64Array,
  coneDuals?: readonly Float64Array[],
): void {
  const { n, mg, boundVars, Dsc, Esc, cScale, blocks } = ctx;
  for (let i = 0; i < n; i++) ctx.x[i] = x[i]! / Dsc[i]!;
  ctx.y.fill(0);
  if (yGeneral) for (let r = 0; r < mg; r++) ctx.y[r] = (cScale * yGeneral[r]!) / Esc[r]!;
  if (z)
    for (let b = 0; b < boundVars.length; b++) ctx.y[mg + b] = (cScale * z[boundVars[b]!]!) / Esc[mg + b]!;
  if (coneDuals)
    blocks.forEach((b, c) => {
      const yc = coneDuals[c];
      if (yc) for (let r = 0; r < b.size; r++) ctx.y[b.start + r] = (cScale * yc[r]!) / Esc[b.start + r]!;
    });
  const cx = new Float64Array(ctx.mC);
  matvecC(ctx.C, ctx.x, cx);
  project(ctx, cx, ctx.z);
  ctx.hasState = true;
}

/** Runs ADMM from the context's current iterate (zeros unless warm). */
export function runAdmm(ctx: AdmmContext, options: AdmmOptions): AdmmOutcome {
  const { n, mC, C, rho, Dsc, Esc, qHat } = ctx;
  const k = ctx.sHat.length;
  if (!ctx.hasState) {
    ctx.x.fill(0);
    ctx.z.fill(0);
    ctx.y.fill(0);
    ctx.hasState = true;
  }
  if (!ctx.factored) setRho(ctx, ctx.rhoBar, options.sigma);
  const { x, z, y } = ctx;
  const sigma = options.sigma;
  const alpha = options.alpha;
  const rhs = new Float64Array(n);
  const xt = new Float64Array(n);
  const zt = new Float64Array(mC);
  const v = new Float64Array(mC);
  const work = new Float64Array(mC);
  const cty = new Float64Array(n);
  const xPrev = new Float64Array(n);
  const yPrev = new Float64Array(mC);
  const px = new Float64Array(n);
  const cx = new Float64Array(mC);
  const tk = new Float64Array(k);
  const checkEvery = 5;
  let status: AdmmOutcome["status"] = "max_iter";
  let nearly = false;
  let certificate: AdmmOutcome["certificate"];
  let iter = 0;
  for (; iter < options.maxIter; iter++) {
    xPrev.set(x);
    yPrev.set(y);
    // rhs = sigma x - q + C'(rho z - y)
    for (let r = 0; r < mC; r++) work[r] = rho[r]! * z[r]! - y[r]!;
    matvecCt(C, work, rhs);
    for (let i = 0; i < n; i++) rhs[i] = sigma * x[i]! - qHat[i]! + rhs[i]!;
    xt.set(x);
    ctx.solver.solve(rhs, xt);
    matvecC(C, xt, zt);
    for (let i = 0; i < n; i++) x[i] = alpha * xt[i]! + (1 - alpha) * x[i]!;
    for (let r = 0; r < mC; r++) {
      v[r] = alpha * zt[r]! + (1 - alpha) * z[r]!;
      work[r] = v[r]! + y[r]! / rho[r]!;
    }
    project(ctx, work, z);
    for (let r = 0; r < mC; r++) y[r]! += rho[r]! * (v[r]! - z[r]!);

    const isCheck = (iter + 1) % checkEvery === 0 || iter + 1 === options.maxIter;
    if (!isCheck) continue;
    // Residuals in unscaled units.
    matvecC(C, x, cx);
    matvecP(ctx, x, px, tk);
    matvecCt(C, y, cty);
    let prim = 0;
    let nAx = 0;
    let nZ = 0;
    let primS = 0;
    let nAxS = 0;
    let nZS = 0;
    for (let r = 0; r < mC; r++) {
      const e = Esc[r]!;
      const d = cx[r]! - z[r]!;
      prim = Math.max(prim, Math.abs(d) / e);
      nAx = Math.max(nAx, Math.abs(cx[r]!) / e);
      nZ = Math.max(nZ, Math.abs(z[r]!) / e);
      primS = Math.max(primS, Math.abs(d));
      nAxS = Math.max(nAxS, Math.abs(cx[r]!));
      nZS = Math.max(nZS, Math.abs(z[r]!));
    }
    let dual = 0;
    let nPx = 0;
    let nCty = 0;
    let nQ = 0;
    let dualS = 0;
    let nPxS = 0;
    let nCtyS = 0;
    let nQS = 0;
    const cs = ctx.cScale;
    for (let i = 0; i < n; i++) {
      const s = px[i]! + qHat[i]! + cty[i]!;
      const f = 1 / (Dsc[i]! * cs);
      dual = Math.max(dual, Math.abs(s) * f);
      nPx = Math.max(nPx, Math.abs(px[i]!) * f);
      nCty = Math.max(nCty, Math.abs(cty[i]!) * f);
      nQ = Math.max(nQ, Math.abs(qHat[i]!) * f);
      dualS = Math.max(dualS, Math.abs(s));
      nPxS = Math.max(nPxS, Math.abs(px[i]!));
      nCtyS = Math.max(nCtyS, Math.abs(cty[i]!));
      nQS = Math.max(nQS, Math.abs(qHat[i]!));
    }
    const epsP = options.epsAbs + options.epsRel * Math.max(nAx, nZ);
    const epsD = options.epsAbs + options.epsRel * Math.max(nPx, nCty, nQ);
    if (prim <= epsP && dual <= epsD) {
      status = "solved";
      iter++;
      break;
    }
    nearly = prim <= 10 * epsP && dual <= 10 * epsD;
    const cert = checkInfeasibility(ctx, options, xPrev, yPrev, work, cty, cx, px, tk);
    if (cert) {
      certificate = cert;
      status = cert.kind === "primal" ? "primal_infeasible" : "dual_infeasible";
      iter++;
      break;
    }
    if (options.deadline?.()) {
      status = "time_limit";
      iter++;
      break;
    }
    if (options.adaptiveRho && (iter + 1) % options.adaptiveRhoInterval === 0) {
      const ratioP = primS / Math.max(nAxS, nZS, 1e-30);
      const ratioD = dualS / Math.max(nPxS, nCtyS, nQS, 1e-30);
      let next = ctx.rhoBar * Math.sqrt(ratioP / Math.max(ratioD, 1e-30));
      next = Math.min(RHO_MAX, Math.max(RHO_MIN, next));
      if (
        next > options.adaptiveRhoTolerance * ctx.rhoBar ||
        next < ctx.rhoBar / options.adaptiveRhoTolerance
      )
        setRho(ctx, next, sigma);
    }
  }
  // Unscale: x = D x^, y = E y^ / c.
  const xo = new Float64Array(n);
  for (let i = 0; i < n; i++) xo[i] = Dsc[i]! * x[i]!;
  const mg = ctx.mg;
  const yGeneral = new Float64Array(mg);
  for (let r = 0; r < mg; r++) yGeneral[r] = (Esc[r]! * y[r]!) / ctx.cScale;
  const zb = new Float64Array(n);
  ctx.boundVars.forEach((j, b) => {
    zb[j] = (Esc[mg + b]! * y[mg + b]!) / ctx.cScale;
  });
  const coneDuals = ctx.blocks.map((b) => {
    const out = new Float64Array(b.size);
    for (let r = 0; r < b.size; r++) out[r] = (Esc[b.start + r]! * y[b.start + r]!) / ctx.cScale;
    return out;
  });
  return {
    status,
    nearlySolved: nearly || status === "solved",
    x: xo,
    yGeneral,
    z: zb,
    coneDuals,
    iterations: iter,
    rho: ctx.rhoBar,
    ...(certificate ? { certificate } : {}),
  };
}

/**
 * Infeasibility tests of Banjac et al. (2019) on the last iterate differences, in unscaled units.
 * Returns the certificate or undefined. Buffers `work`, `cty`, `cx`, `px`, `tk` are scratch.
 */
function checkInfeasibility(
  ctx: AdmmContext,
  options: AdmmOptions,
  xPrev: Float64Array,
  yPrev: Float64Array,
  work: Float64Array,
  cty: Float64Array,
  cx: Float64Array,
  px: Float64Array,
  tk: Float64Array,
): AdmmOutcome["certificate"] {
  const { n, mC, C, Dsc, Esc, x, y, lo, hi, blocks } = ctx;
  const boxRows = ctx.mg + ctx.boundVars.length;
  // Primal: dy (scaled) -> unscaled dyBar = E dy, projected on the polar of the recession cone.
  let dyNorm = 0;
  for (let r = 0; r < mC; r++) {
    let d = (y[r]! - yPrev[r]!) * Esc[r]!;
    if (r < boxRows) {
      const infU = hi[r] === Number.POSITIVE_INFINITY;
      const infL = lo[r] === Number.NEGATIVE_INFINITY;
      if (infU && infL) d = 0;
      else if (infU) d = Math.min(d, 0);
      else if (infL) d = Math.max(d, 0);
    }
    work[r] = d;
    dyNorm = Math.max(dyNorm, Math.abs(d));
  }
  for (const b of blocks) {
    if (b.kind !== "soc") continue;
    // Project (a, w) onto the polar of the SOC (= -SOC).
    const a = -work[b.start]!;
    let sq = 0;
    for (let r = 1; r < b.size; r++) sq += work[b.start + r]! ** 2;
    const nrm = Math.sqrt(sq);
    if (nrm <= a) continue;
    if (nrm <= -a) {
      for (let r = 0; r < b.size; r++) work[b.start + r] = 0;
      continue;
    }
    const s = 0.5 * (a + nrm);
    work[b.start] = -s;
    for (let r = 1; r < b.size; r++) work[b.start + r]! *= s / nrm;
  }
  if (dyNorm > 1e-30) {
    // C_orig' dyBar = D^{-1} C^' E^{-1} dyBar.
    for (let r = 0; r < mC; r++) cx[r] = work[r]! / Esc[r]!;
    matvecCt(C, cx, cty);
    let ctyMax = 0;
    for (let i = 0; i < n; i++) ctyMax = Math.max(ctyMax, Math.abs(cty[i]! / Dsc[i]!));
    if (ctyMax <= options.epsPrimalInfeasible * dyNorm) {
      let support = 0;
      for (let r = 0; r < boxRows; r++) {
        const d = work[r]!;
        if (d > 0) support += (hi[r]! / Esc[r]!) * d;
        else if (d < 0) support += (lo[r]! / Esc[r]!) * d;
      }
      for (const b of blocks) {
        if (b.kind === "ball") {
          let sq = 0;
          for (let r = 0; r < b.size; r++) {
            support += b.g[r]! * work[b.start + r]!;
            sq += work[b.start + r]! ** 2;
          }
          support += b.r * Math.sqrt(sq);
        } else {
          support += -b.r * work[b.start]!;
          for (let r = 1; r < b.size; r++) support += b.g[r]! * work[b.start + r]!;
        }
      }
      if (support < -options.epsPrimalInfeasible * dyNorm)
        return { kind: "primal", dy: Float64Array.from(work) };
    }
  }
  // Dual: dx (scaled) -> unscaled dxBar = D dx.
  let dxNorm = 0;
  for (let i = 0; i < n; i++) {
    cty[i] = x[i]! - xPrev[i]!;
    dxNorm = Math.max(dxNorm, Math.abs(cty[i]! * Dsc[i]!));
  }
  if (dxNorm <= 1e-30) return undefined;
  const eps = options.epsDualInfeasible * dxNorm;
  let qdx = 0;
  for (let i = 0; i < n; i++) qdx += ctx.qHat[i]! * cty[i]!;
  if (qdx / ctx.cScale > -eps) return undefined;
  matvecP(ctx, cty, px, tk);
  for (let i = 0; i < n; i++) if (Math.abs(px[i]! / (Dsc[i]! * ctx.cScale)) > eps) return undefined;
  matvecC(C, cty, cx);
  for (let r = 0; r < boxRows; r++) {
    const a = cx[r]! / Esc[r]!;
    const infU = hi[r] === Number.POSITIVE_INFINITY;
    const infL = lo[r] === Number.NEGATIVE_INFINITY;
    if (!infU && a > eps) return undefined;
    if (!infL && a < -eps) return undefined;
  }
  for (const b of blocks) {
    const e = Esc[b.start]!;
    if (b.kind === "ball") {
      let sq = 0;
      for (let r = 0; r < b.size; r++) sq += (cx[b.start + r]! / e) ** 2;
      if (Math.sqrt(sq) > eps) return undefined;
    } else {
      let sq = 0;
      for (let r = 1; r < b.size; r++) sq += (cx[b.start + r]! / e) ** 2;
      if (Math.sqrt(sq) > cx[b.start]! / e + eps) return undefined;
    }
  }
  const dx = new Float64Array(n);
  for (let i = 0; i < n; i++) dx[i] = cty[i]! * Dsc[i]!;
  return { kind: "dual", dx };
}

/** True when the model's bound pattern still matches the context's structure. */
export function admmStructureMatches(ctx: AdmmContext): boolean {
  return ctx.boundPattern === boundPatternOf(ctx.model);
}

/** Which merged bound a C row of the bounds block refers to (for certificates). */
export function boundRowVariable(ctx: AdmmContext, row: number): number {
  const b = row - ctx.mg;
  return b >= 0 && b < ctx.boundVars.length ? ctx.boundVars[b]! : BOUND_NONE;
}
