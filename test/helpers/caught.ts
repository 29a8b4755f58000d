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

/** {@link caught} for a call that may answer a promise: the PortfolioError it throws or rejects with. */
export async function caughtAsync(f: () => unknown): Promise<PortfolioError> {
  try {
    await f();
  } catch (e) {
    if (e instanceof PortfolioError) return e;
    throw e;
  }
  throw new Error("expected an error");
}
