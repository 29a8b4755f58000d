/**
 * @module market/synthetic/fx
 * Daily FX rates of the synthetic market: units of CAD, EUR, GBP and JPY per 1 USD (FRED H.10 convention).
 * Each log rate is a discretized Ornstein-Uhlenbeck process around a fixed long-run level:
 *
 *   x_t = x_{t-1} + kappa * (log(level) - x_{t-1}) * dt + sigma * sqrt(dt) * z_t,   dt = 1/252,
 *
 * started from its stationary law N(log(level), sigma^2 / (2 kappa)). The CAD shock is correlated (rho = -0.5)
 * with the Canadian equity factor: when Canadian stocks rise, the loonie tends to strengthen (fewer CAD per USD).
 */

import type { SeededRandom } from "../../core/random.js";

/** Parameters of one currency's rate process. */
export interface FxProcess {
  currency: "CAD" | "EUR" | "GBP" | "JPY";
  /** Long-run level, units per USD. */
  level: number;
  /** Annualized volatility of the log rate. */
  volatility: number;
  /** Mean-reversion speed per year (half-life ln 2 / kappa years). */
  kappa: number;
}

/** The four processes: levels and volatilities are stylized recent-decade magnitudes. */
export const FX_PROCESSES: readonly FxProcess[] = Object.freeze([
  { currency: "CAD", level: 1.3, volatility: 0.065, kappa: 0.6 },
  { currency: "EUR", level: 0.88, volatility: 0.08, kappa: 0.3 },
  { currency: "GBP", level: 0.76, volatility: 0.085, kappa: 0.3 },
  { currency: "JPY", level: 125, volatility: 0.1, kappa: 0.25 },
]);

/** Correlation of the CAD-per-USD shock with the Canadian equity factor shock. */
export const CAD_EQUITY_CORRELATION = -0.5;

/** Rate paths of the four currencies over `rows` trading days. */
export interface FxPaths {
  CAD: Float64Array;
  EUR: Float64Array;
  GBP: Float64Array;
  JPY: Float64Array;
}

/** Stateful generator of the four rate paths, stepped once per trading day by the market simulation. */
export class FxSimulator {
  readonly paths: FxPaths;
  private readonly x = new Float64Array(4);
  private row = 0;

  constructor(
    private readonly rng: SeededRandom,
    rows: number,
  ) {
    this.paths = {
      CAD: new Float64Array(rows),
      EUR: new Float64Array(rows),
      GBP: new Float64Array(rows),
      JPY: new Float64Array(rows),
    };
    FX_PROCESSES.forEach((p, k) => {
      this.x[k] = Math.log(p.level) + rng.normal() * (p.volatility / Math.sqrt(2 * p.kappa));
    });
  }

  /** The CAD rate the market starts from (before the first step). */
  initialCadPerUsd(): number {
    return Math.exp(this.x[0]!);
  }

  /**
   * Advance one trading day and record the rates. `cadEquityShock` is the standardized shock of the Canadian
   * equity factor on that day (0 on the first row, which records the starting values).
   */
  step(cadEquityShock: number): void {
    const dt = 1 / 252;
    const first = this.row === 0;
    FX_PROCESSES.forEach((p, k) => {
      if (!first) {
        let z = this.rng.normal();
        if (k === 0)
          z = CAD_EQUITY_CORRELATION * cadEquityShock + Math.sqrt(1 - CAD_EQUITY_CORRELATION ** 2) * z;
        const x = this.x[k]!;
        this.x[k] = x + p.kappa * (Math.log(p.level) - x) * dt + p.volatility * Math.sqrt(dt) * z;
      }
      this.paths[p.currency][this.row] = Math.exp(this.x[k]!);
    });
    this.row++;
  }
}
