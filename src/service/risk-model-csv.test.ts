import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import {
  readAssetCovarianceCsv,
  readExposuresCsv,
  readFactorCovarianceCsv,
  readSpecificRiskCsv,
  riskModelImportFromCsv,
} from "./risk-model-csv.js";

/** A file's text with its name. */
const csv = (name: string, text: string) => ({ name, text });

function issuesOf(read: () => unknown): { message: string; issues: unknown[]; code: string } {
  let err: unknown;
  try {
    read();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ValidationError);
  const v = err as ValidationError;
  return { message: v.message, issues: v.issues, code: v.code };
}

describe("risk-model CSV files", () => {
  it("reads a square factor covariance as the long file's numbers, keeping the names' case", () => {
    const long = readFactorCovarianceCsv(
      csv("long.csv", "Factor1,Factor2,Covariance\nMarket,Market,0.04\nMarket,Size,0.01\nSize,Size,0.02\n"),
    );
    expect(long).toEqual({ Market: { Market: 0.04, Size: 0.01 }, Size: { Size: 0.02 } });
    const square = readFactorCovarianceCsv(
      csv("square.csv", "factor,Market,Size\nMarket,0.04,0.01\nSize,0.01,2e-2\n"),
    );
    expect(square).toEqual({ Market: { Market: 0.04, Size: 0.01 }, Size: { Market: 0.01, Size: 0.02 } });
  });

  it("reads specific variances as such, and wide exposures with empty cells as no exposure", () => {
    expect(readSpecificRiskCsv(csv("sv.csv", "asset,specific_variance\nA:XNYS,0.01\n"))).toEqual({
      values: { "A:XNYS": 0.01 },
      kind: "variance",
    });
    expect(readExposuresCsv(csv("wide.csv", "asset,market,size\nA:XNYS,1,\nB:XNYS,1.1,-0.5\n"))).toEqual({
      "A:XNYS": { market: 1 },
      "B:XNYS": { market: 1.1, size: -0.5 },
    });
  });

  it("reports every bad cell and duplicate at once, with file, line and column", () => {
    const e = issuesOf(() =>
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
    const s = issuesOf(() =>
      readSpecificRiskCsv(csv("s.csv", "asset,specific_risk\nA:XNYS,0.2\nA:XNYS,0.3\n")),
    );
    expect(s.issues).toEqual([{ path: "s.csv: line 3, asset", message: "A:XNYS appears twice" }]);
    const h = issuesOf(() => readSpecificRiskCsv(csv("h.csv", "ticker,vol\nA:XNYS,0.2\n")));
    expect(h.message).toBe(
      'h.csv: unrecognized header "ticker,vol"; expected asset,specific_risk or asset,specific_variance.',
    );
  });

  it("answers a file the parser cannot read with the file and line", () => {
    const e = issuesOf(() => readExposuresCsv(csv("q.csv", 'asset,market\nA:XNYS,1\n"B:XNYS,1\n')));
    expect(e.message).toMatch(/^q\.csv is not a readable CSV file: Quote Not Closed/);
    expect(e.issues).toEqual([
      { path: "q.csv: line 3", message: expect.stringMatching(/^Quote Not Closed/) },
    ]);
  });

  it("checks that an asset covariance is square with the same names across and down", () => {
    expect(
      readAssetCovarianceCsv(csv("cov.csv", ",A:XNYS,B:XNYS\nA:XNYS,0.04,0.01\nB:XNYS,0.01,0.09\n")),
    ).toEqual({
      assets: ["A:XNYS", "B:XNYS"],
      covariance: [
        [0.04, 0.01],
        [0.01, 0.09],
      ],
    });
    const e = issuesOf(() =>
      readAssetCovarianceCsv(csv("swapped.csv", ",A:XNYS,B:XNYS\nB:XNYS,0.09,0.01\nA:XNYS,0.01\n")),
    );
    expect(e.issues).toEqual([
      { path: "swapped.csv: line 2, first column", message: 'row 1 is "B:XNYS" but column 1 is "A:XNYS"' },
      { path: "swapped.csv: line 3, first column", message: 'row 2 is "A:XNYS" but column 2 is "B:XNYS"' },
      { path: "swapped.csv: line 3, cells", message: "1 values for 2 columns" },
      { path: "swapped.csv: line 3, B:XNYS", message: 'expected a number, got ""' },
    ]);
    const long = issuesOf(() =>
      readAssetCovarianceCsv(csv("long2.csv", "factor1,factor2,covariance\nm,m,1\n")),
    );
    expect(long.code).toBe("validation_error");
    expect(long.message).toMatch(
      /^long2\.csv looks like a factor covariance .*alone, the covariance file of a custom model is a square asset covariance/,
    );
  });
});

describe("the import body from a model's files", () => {
  const fields = { kind: "vendor", name: "V", as_of_date: "2025-12-31", frequency: "daily" };
  const exposures = csv("exp.csv", "asset,market,size\nA:XNYS,1,0.5\nB:XNYS,1,-0.5\n");
  const covariance = csv(
    "fcov.csv",
    "factor1,factor2,covariance\nmarket,market,1.5\nmarket,size,0.3\nsize,size,0.5\n",
  );
  const specific = csv("srisk.csv", "asset,specific_risk\nA:XNYS,2\nB:XNYS,1.5\n");

  it("fills a vendor body from the three files, specific risk read as volatilities", () => {
    expect(riskModelImportFromCsv(fields, { exposures, covariance, specific_risk: specific })).toEqual({
      ...fields,
      exposures: { "A:XNYS": { market: 1, size: 0.5 }, "B:XNYS": { market: 1, size: -0.5 } },
      factor_covariance: { market: { market: 1.5, size: 0.3 }, size: { size: 0.5 } },
      specific_risk: { "A:XNYS": 2, "B:XNYS": 1.5 },
      specific_risk_kind: "volatility",
    });
  });

  it("reads a custom model's covariance file alone as a square asset covariance", () => {
    const cov = csv("cov.csv", ",A:XNYS,B:XNYS\nA:XNYS,0.04,0.01\nB:XNYS,0.01,0.09\n");
    expect(riskModelImportFromCsv({ ...fields, kind: "custom" }, { covariance: cov })).toMatchObject({
      assets: ["A:XNYS", "B:XNYS"],
      covariance: [
        [0.04, 0.01],
        [0.01, 0.09],
      ],
    });
  });

  it("lists the problems of every bad file in one error", () => {
    const e = issuesOf(() =>
      riskModelImportFromCsv(fields, {
        exposures: csv("exp.csv", "asset,factor,exposure\nA:XNYS,market,x\n"),
        covariance,
        specific_risk: csv("srisk.csv", "asset,specific_risk\nA:XNYS,\n"),
      }),
    );
    expect(e.code).toBe("validation_error");
    expect(e.message).toMatch(/^2 files have problems; nothing was imported\. exp\.csv: 1 problem/);
    expect(e.issues).toEqual([
      { path: "exp.csv: line 2, exposure", message: 'expected a number, got "x"' },
      { path: "srisk.csv: line 2, specific_risk", message: 'expected a number, got ""' },
    ]);
  });

  it("names the missing files, by part or by flag, and refuses numbers given twice or of the wrong kind", () => {
    const upload = issuesOf(() => riskModelImportFromCsv(fields, { exposures }));
    expect(upload.message).toBe(
      "A factor model needs the exposures file, the covariance file and the specific_risk file.",
    );
    expect(upload.issues).toEqual([
      { path: "covariance", message: "file missing" },
      { path: "specific_risk", message: "file missing" },
    ]);
    const flags = issuesOf(() =>
      riskModelImportFromCsv(
        { ...fields, kind: "custom" },
        { exposures },
        {
          exposures: "--exposures",
          covariance: "--covariance",
          specific_risk: "--specific-risk",
          kind: "--kind",
          code: "usage",
        },
      ),
    );
    expect(flags.code).toBe("usage");
    expect(flags.message).toBe(
      "A factor model needs --exposures, --covariance and --specific-risk (or --covariance alone: a square asset covariance).",
    );
    const twice = issuesOf(() =>
      riskModelImportFromCsv(
        { ...fields, exposures: {} },
        { exposures, covariance, specific_risk: specific },
      ),
    );
    expect(twice.issues).toEqual([{ path: "exposures", message: "given as a field besides the files" }]);
    const vol = issuesOf(() =>
      riskModelImportFromCsv(
        { ...fields, kind: "custom" },
        { exposures, covariance, specific_risk: specific },
      ),
    );
    expect(vol.message).toMatch(/^A custom factor model takes specific variances/);
    expect(issuesOf(() => riskModelImportFromCsv({}, { exposures })).issues).toEqual([
      { path: "kind", message: 'expected "vendor" or "custom"' },
    ]);
  });

  it("leaves a body without files unchanged", () => {
    expect(riskModelImportFromCsv(fields, {})).toEqual(fields);
  });
});
