import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import { parseWeights, proposalRequestWithWeightsFile } from "./weights-file.js";

describe("target weights from a file's text", () => {
  it("reads a CSV with percent or fraction weights and the accepted header names", () => {
    expect(parseWeights("Symbol,Target_Weight\nAAPL, 60 %\nMSFT,0.4\n", "w.csv")).toEqual([
      { ticker: "AAPL", weight: "0.6" },
      { ticker: "MSFT", weight: "0.4" },
    ]);
    expect(parseWeights("\uFEFFtheme_asset_id,weight\nRY:XTSE,12.5%\n", "bom.csv")).toEqual([
      { ticker: "RY:XTSE", weight: "0.125" },
    ]);
  });

  it("reads the endpoint's JSON body or a bare array", () => {
    const body = '{"optimized_weights": [{"ticker": "AAPL", "weight": "1"}]}';
    expect(parseWeights(body, "w.json")).toEqual([{ ticker: "AAPL", weight: "1" }]);
    expect(parseWeights('[{"ticker": "MSFT", "weight": "0.5"}]', "w.txt")).toEqual([
      { ticker: "MSFT", weight: "0.5" },
    ]);
  });

  it("names the file and the line of a row without a ticker, and bad JSON as a malformed body", () => {
    try {
      parseWeights("ticker,weight\nAAPL,0.5\n,0.5\n", "w.csv");
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).issues).toEqual([
        { path: "w.csv: line 3", message: "no ticker (columns: ticker,weight)" },
      ]);
    }
    expect(() => parseWeights("{not json", "w.json")).toThrow(/w.json is not valid JSON/);
    expect(() => parseWeights('{"weights": []}', "w.json", { json: true })).toThrow(
      /expected \{"optimized_weights"/,
    );
  });

  it("names the file, line and column of a weight that is not a number", () => {
    try {
      parseWeights("ticker,weight\nAAPL,0.5\nMSFT,abc\nIBM,5 %\n", "w.csv");
      expect.unreachable();
    } catch (err) {
      expect((err as ValidationError).issues).toEqual([
        { path: "w.csv: line 3, weight", message: '"abc" is not a weight (a fraction such as 0.05, or 5%)' },
      ]);
    }
  });

  it("puts a weights file into a proposal request's other fields, refusing weights given twice", () => {
    expect(
      proposalRequestWithWeightsFile(
        { as_of_date: "2025-06-30" },
        { name: "w.csv", text: "ticker,weight\nAAPL,5%\n" },
      ),
    ).toEqual({ as_of_date: "2025-06-30", optimized_weights: [{ ticker: "AAPL", weight: "0.05" }] });
    // A .json name is read as JSON even when the text does not start with a bracket.
    expect(() => proposalRequestWithWeightsFile({}, { name: "w.JSON", text: "ticker,weight\n" })).toThrow(
      /w\.JSON is not valid JSON/,
    );
    expect(() =>
      proposalRequestWithWeightsFile({ optimized_weights: [] }, { name: "w.csv", text: "ticker,weight\n" }),
    ).toThrow("Give optimized_weights as the weights file or as form fields, not both.");
  });

  it("answers a CSV the parser cannot read with the file and line, not the parser's exception", () => {
    let err: unknown;
    try {
      parseWeights('ticker,weight\n"AAPL"x,0.5\n', "w.csv");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).message).toMatch(
      /^w\.csv is not a readable CSV file: Invalid Closing Quote/,
    );
    expect((err as ValidationError).issues[0]!.path).toBe("w.csv: line 2");
  });

  it("names the line of a row without a ticker in the file, blank lines counted", () => {
    expect(() => parseWeights("ticker,weight\n\nAAPL,0.5\n\n,0.1\n", "w.csv")).toThrow(
      expect.objectContaining({
        issues: [{ path: "w.csv: line 5", message: "no ticker (columns: ticker,weight)" }],
      }),
    );
  });
});
