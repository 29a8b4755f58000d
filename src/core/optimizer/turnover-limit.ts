/**
 * @module core/optimizer/turnover-limit
 * The one-way turnover cap (`use_turnover_constraint`, `max_turnover_pct`) as one constraint component
 * (component.ts; docs/optimizer.md "Constraints" and "Stages and components"). Lifecycle:
 * 1. `initialize` once per rebalance, on the period model: null when the cap is off;
 * 2. `precheck`: the turnover the weight bounds force (each asset outside its bounds must trade to them), against
 *    the cap, named by the constraints that force it;
 * 3. `rows`: the switch row sum_i |t_i| / 2 <= cap (coefficient +-1/2 by the sign of the trade on each segment);
 * 4. `relaxation`: how the diagnosis by solving names it.
 * The turnover of a result is reported by `solution-report.ts`, whatever the configuration.
 */

import { breakdown } from "./breakdown.js";
import type { ConstraintPeriod, OptimizerComponent, SwitchRow } from "./component.js";
import type { OptimizerConfig } from "./optimizer-config.js";

/**
 * What the turnover cap reads of the period model (period-model.ts `PeriodModelData` has these fields; a type of
 * its own so that the component does not import the model that lists it).
 */
export interface TurnoverContext {
  readonly config: Pick<OptimizerConfig, "useTurnoverConstraint" | "maxTurnoverPct">;
  readonly n: number;
  readonly w0: Float64Array;
  readonly lower: Float64Array;
  readonly upper: Float64Array;
  readonly lowerSource: readonly string[];
  readonly upperSource: readonly string[];
}

const pct = (v: number) => `${Number((v * 100).toPrecision(6))}%`;

/** The turnover cap of the period. */
export const turnoverLimit: OptimizerComponent<TurnoverContext, ConstraintPeriod> = {
  name: "turnover",
  fields: ["use_turnover_constraint", "max_turnover_pct"],
  initialize(m) {
    const config = m.config;
    if (!config.useTurnoverConstraint) return null;
    const cap = config.maxTurnoverPct / 100;
    const row: SwitchRow = {
      name: "turnover",
      coefficient: (t) => (t > 0 ? 0.5 : t < 0 ? -0.5 : 0),
      // The row's value c t = c (x - shift).
      constant: (c, shift) => -c * shift,
      lower: Number.NEGATIVE_INFINITY,
      upper: cap,
    };
    return {
      name: "turnover",
      rows: [row],
      relaxation: { name: "max_turnover_pct", detail: `${config.maxTurnoverPct}` },
      precheck() {
        const { n, lower, upper } = m;
        const forced = new Float64Array(n);
        const source: string[] = new Array(n).fill("");
        let total = 0;
        for (let i = 0; i < n; i++) {
          const w = m.w0[i]!;
          if (w < lower[i]!) {
            forced[i] = 0.5 * (lower[i]! - w);
            source[i] = m.lowerSource[i]!;
          } else if (w > upper[i]!) {
            forced[i] = 0.5 * (w - upper[i]!);
            source[i] = m.upperSource[i]!;
          }
          total += forced[i]!;
        }
        if (total > cap + 1e-9)
          return [
            `The weight bounds force at least ${pct(total)} one-way turnover, above max_turnover_pct ${config.maxTurnoverPct}: ${breakdown(forced, source, (i) => forced[i]! > 0)}.`,
          ];
        return [];
      },
    };
  },
};
