/**
 * @module cli/errors
 * The one place that turns errors into what a terminal user sees and into exit codes:
 * 0 ok, 1 failure, 2 usage (bad command line).
 */
import { CommanderError } from "commander";
import { PortfolioError, ValidationError } from "../core/errors.js";
import type { Output } from "./output.js";

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** Print `err` for a person (or as the JSON envelope with --json) and return the exit code. */
export function reportError(err: unknown, out: Output): number {
  if (err instanceof CommanderError) {
    // commander has already printed its message (or the help text).
    return err.exitCode === 0 || err.code === "commander.helpDisplayed" || err.code === "commander.version"
      ? EXIT_OK
      : EXIT_USAGE;
  }
  const usage = err instanceof ValidationError && err.code === "usage";
  if (out.json) {
    const e = err instanceof PortfolioError ? err : undefined;
    out.printJson({
      error: {
        code: e?.code ?? "internal_error",
        message: err instanceof Error ? err.message : String(err),
        ...(err instanceof ValidationError && err.issues.length > 0 ? { details: err.issues } : {}),
      },
    });
  } else if (err instanceof ValidationError) {
    out.note(`lotwise: ${err.message}`);
    for (const i of err.issues.slice(0, 50)) out.note(`  - ${i.path ? `${i.path}: ` : ""}${i.message}`);
    if (err.issues.length > 50) out.note(`  ... and ${err.issues.length - 50} more`);
  } else if (err instanceof PortfolioError) {
    out.note(`lotwise: ${err.message} [${err.code}]`);
  } else {
    out.note(`lotwise: unexpected error: ${err instanceof Error ? err.message : String(err)}`);
    if (process.env.LOTWISE_DEBUG && err instanceof Error && err.stack) out.note(err.stack);
    else out.note("  (set LOTWISE_DEBUG=1 to print the stack trace)");
  }
  return usage ? EXIT_USAGE : EXIT_FAILURE;
}

/** A usage error (exit code 2) with a message that says how to fix the command line. */
export function usageError(message: string, path = ""): ValidationError {
  return new ValidationError(message, path ? [{ path, message }] : [], "usage");
}
