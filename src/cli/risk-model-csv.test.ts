import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import {
  readAssetCovarianceCsv,
  readExposuresCsv,
  readFactorCovarianceCsv,
  readSpecificRiskCsv,
} from "./risk-model-csv.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "lotwise-risk-csv-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `text` to a file of the temporary folder and returns its path. */
const csv = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

async function issuesOf(p: Promise<unknown>): Promise<{ message: string; issues: unknown[]; code: string }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ValidationError);
  const v = err as ValidationError;
  return { message: v.message, issues: v.issues, code: v.code };
}

describe("risk-model CSV files", () => {
  it("reads a square factor covariance as the long file's numbers, keeping the names' case", async () => {
    const long = await readFactorCovarianceCsv(
      csv("long.csv", "Factor1,Factor2,Covariance\nMarket,Market,0.04\nMarket,Size,0.01\nSize,Size,0.02\n"),
    );
    expect(long).toEqual({ Market: { Market: 0.04, Size: 0.01 }, Size: { Size: 0.02 } });
    const square = await readFactorCovarianceCsv(
      csv("square.csv", "factor,Market,Size\nMarket,0.04,0.01\nSize,0.01,2e-2\n"),
    );
    expect(square).toEqual({ Market: { Market: 0.04, Size: 0.01 }, Size: { Market: 0.01, Size: 0.02 } });
  });

  it("reads specific variances as such, and wide exposures with empty cells as no exposure", async () => {
    expect(await readSpecificRiskCsv(csv("sv.csv", "asset,specific_variance\nA:XNYS,0.01\n"))).toEqual({
      values: { "A:XNYS": 0.01 },
      kind: "variance",
    });
    expect(
      await readExposuresCsv(csv("wide.csv", "asset,market,size\nA:XNYS,1,\nB:XNYS,1.1,-0.5\n")),
    ).toEqual({
      "A:XNYS": { market: 1 },
      "B:XNYS": { market: 1.1, size: -0.5 },
    });
  });

  it("reports every bad cell and duplicate at once, with file, line and column", async () => {
    const e = await issuesOf(
      readExposuresCsv(
        csv(
          "bad.csv",
          "asset,factor,exposure\nA:XNYS,market,1\nA:XNYS,market,2\nB:XNYS,market,12%\nC:XNYS,,1\n",
        ),
      ),
    );
    expect(e.message).toBe("bad.csv: 3 problem(s); nothing was imported.");
    expect(e.issues).toEqual([
      { path: "bad.csv: line 3, exposure", message: "a second exposure of A:XNYS to market" },
      { path: "bad.csv: line 4, exposure", message: 'expected a number, got "12%"' },
      { path: "bad.csv: line 5, factor", message: "empty name" },
    ]);
    const s = await issuesOf(
      readSpecificRiskCsv(csv("s.csv", "asset,specific_risk\nA:XNYS,0.2\nA:XNYS,0.3\n")),
    );
    expect(s.issues).toEqual([{ path: "s.csv: line 3, asset", message: "A:XNYS appears twice" }]);
    const h = await issuesOf(readSpecificRiskCsv(csv("h.csv", "ticker,vol\nA:XNYS,0.2\n")));
    expect(h.message).toBe(
      'h.csv: unrecognized header "ticker,vol"; expected asset,specific_risk or asset,specific_variance.',
    );
  });

  it("checks that an asset covariance is square with the same names across and down", async () => {
    expect(
      await readAssetCovarianceCsv(csv("cov.csv", ",A:XNYS,B:XNYS\nA:XNYS,0.04,0.01\nB:XNYS,0.01,0.09\n")),
    ).toEqual({
      assets: ["A:XNYS", "B:XNYS"],
      covariance: [
        [0.04, 0.01],
        [0.01, 0.09],
      ],
    });
    const e = await issuesOf(
      readAssetCovarianceCsv(csv("swapped.csv", ",A:XNYS,B:XNYS\nB:XNYS,0.09,0.01\nA:XNYS,0.01\n")),
    );
    expect(e.issues).toEqual([
      { path: "swapped.csv: line 2, first column", message: 'row 1 is "B:XNYS" but column 1 is "A:XNYS"' },
      { path: "swapped.csv: line 3, first column", message: 'row 2 is "A:XNYS" but column 2 is "B:XNYS"' },
      { path: "swapped.csv: line 3, cells", message: "1 values for 2 columns" },
      { path: "swapped.csv: line 3, B:XNYS", message: 'expected a number, got ""' },
    ]);
    const long = await issuesOf(
      readAssetCovarianceCsv(csv("long2.csv", "factor1,factor2,covariance\nm,m,1\n")),
    );
    expect(long.code).toBe("usage");
    expect(long.message).toMatch(/^long2\.csv looks like a factor covariance/);
  });
});
