/**
 * @module core/risk/impute-by-sector
 * Extends a factor model estimated on part of a universe (the assets with enough return history) to the whole
 * universe: an asset the model does not cover gets the average exposures of the covered assets of its sector (of
 * all covered assets when its sector has none) and that group's median specific variance.
 */
import type { FactorModel } from "./types.js";

/**
 * The model over `assets`, in that order. Covered assets keep their rows; the others are imputed from their sector
 * (see the module comment) and counted in a diagnostics note saying why they were not covered (`uncovered`, e.g.
 * "with fewer than 60 returns").
 * @example imputeBySector(pca, universe, (id) => sectorOf.get(id) ?? null, "with fewer than 60 returns")
 */
export function imputeBySector(
  model: FactorModel,
  assets: readonly string[],
  sectorOf: (themeAssetId: string) => number | null,
  uncovered: string,
): FactorModel {
  const k = model.factors.length;
  const rowOf = new Map(model.assets.map((a, r) => [a, r]));
  const bySector = new Map<number | null, number[]>();
  model.assets.forEach((a, r) => {
    const list = bySector.get(sectorOf(a)) ?? [];
    list.push(r);
    bySector.set(sectorOf(a), list);
  });
  const all = model.assets.map((_, r) => r);
  const n = assets.length;
  const exposures = new Float64Array(n * k);
  const specificVariance = new Float64Array(n);
  let imputed = 0;
  assets.forEach((id, i) => {
    const r = rowOf.get(id);
    if (r !== undefined) {
      for (let f = 0; f < k; f++) exposures[i * k + f] = model.exposures[r * k + f]!;
      specificVariance[i] = model.specificVariance[r]!;
      return;
    }
    imputed++;
    const peers = bySector.get(sectorOf(id)) ?? all;
    for (const p of peers)
      for (let f = 0; f < k; f++) exposures[i * k + f]! += model.exposures[p * k + f]! / peers.length;
    const vars = peers.map((p) => model.specificVariance[p]!).sort((a, b) => a - b);
    specificVariance[i] = vars[Math.floor(vars.length / 2)]!;
  });
  return {
    ...model,
    assets: [...assets],
    exposures,
    specificVariance,
    diagnostics: {
      ...model.diagnostics,
      notes: [
        ...model.diagnostics.notes,
        ...(imputed > 0 ? [`${imputed} asset(s) ${uncovered} imputed from their sector.`] : []),
      ],
    },
  };
}
