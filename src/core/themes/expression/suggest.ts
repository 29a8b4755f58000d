/**
 * @module core/themes/expression/suggest
 * "Did you mean ...?" for unknown field and function names, by edit distance.
 */

/**
 * Optimal-string-alignment distance: the fewest single-character insertions, deletions, substitutions and
 * transpositions of adjacent characters that turn `a` into `b` (Damerau 1964; restricted form, each
 * substring edited once). `dividend_yeild` is 1 away from `dividend_yield`.
 * @example editDistance("pe", "pb") // 1
 */
export function editDistance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  // Three rolling rows of the (m+1) x (n+1) dynamic-programming table.
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  let cur = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= m; i++) {
    cur[0] = i;
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, prev2[j - 2]! + 1);
      cur[j] = d;
    }
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[n]!;
}

/**
 * The candidate closest to `name`, if close enough to be a plausible typo: at most 1 edit for names of
 * up to 3 characters, 2 up to 6, and 3 beyond. Ties go to the alphabetically first candidate.
 * @example closestName("dividend_yeild", ["dividend_yield", "pe"]) // "dividend_yield"
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const limit = name.length <= 3 ? 1 : name.length <= 6 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    // Length difference is a lower bound on the distance: skip hopeless candidates cheaply.
    if (Math.abs(candidate.length - name.length) > limit) continue;
    const d = editDistance(name, candidate);
    if (d > limit) continue;
    if (d < bestDistance || (d === bestDistance && best !== undefined && candidate < best)) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
