/**
 * @module test/helpers/caught
 * The PortfolioError a call throws (anything else is rethrown; no error at all fails the test).
 */
import { PortfolioError } from "../../src/core/errors.js";

export function caught(f: () => unknown): PortfolioError {
  try {
    f();
  } catch (e) {
    if (e instanceof PortfolioError) return e;
    throw e;
  }
  throw new Error("expected an error");
}
