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
  const file = fileError(err);
  if (file) {
    if (out.json) out.printJson({ error: { code: file.code, message: file.message } });
    else out.note(`lotwise: ${file.message}`);
    return EXIT_USAGE;
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
    // An issue the message already says (a usage error names its option in the message; a summary quotes its first
    // issues as "path: message") is not listed again.
    const line = (i: { path: string; message: string }) => `${i.path ? `${i.path}: ` : ""}${i.message}`;
    const listed = err.issues.filter((i) => i.message !== err.message && !err.message.includes(line(i)));
    for (const i of listed.slice(0, 50)) out.note(`  - ${line(i)}`);
    if (listed.length > 50) out.note(`  ... and ${listed.length - 50} more`);
  } else if (err instanceof PortfolioError) {
    out.note(`lotwise: ${err.message} [${err.code}]`);
  } else {
    out.note(`lotwise: unexpected error: ${err instanceof Error ? err.message : String(err)}`);
    if (process.env.LOTWISE_DEBUG && err instanceof Error && err.stack) out.note(err.stack);
    else out.note("  (set LOTWISE_DEBUG=1 to print the stack trace)");
  }
  return usage ? EXIT_USAGE : EXIT_FAILURE;
}

/** What the operating system said about a file a command was given, in words (ENOENT is "no such file"). */
const FILE_ERRORS: Readonly<Record<string, { code: string; words: string }>> = {
  ENOENT: { code: "file_not_found", words: "no such file or folder" },
  EACCES: { code: "file_not_readable", words: "permission denied" },
  EPERM: { code: "file_not_readable", words: "permission denied" },
  EISDIR: { code: "file_is_a_folder", words: "is a folder, not a file" },
  ENOTDIR: { code: "file_not_found", words: "a part of the path is not a folder" },
};

/**
 * A file named on the command line that cannot be opened is a usage error (exit 2) with the path and the reason,
 * not "unexpected error: ENOENT ...".
 */
function fileError(err: unknown): { code: string; message: string } | undefined {
  if (!(err instanceof Error)) return undefined;
  const e = err as NodeJS.ErrnoException;
  const known = e.code ? FILE_ERRORS[e.code] : undefined;
  if (!known || typeof e.path !== "string") return undefined;
  return { code: known.code, message: `cannot open ${e.path}: ${known.words}` };
}

/** A usage error (exit code 2) with a message that says how to fix the command line. */
export function usageError(message: string, path = ""): ValidationError {
  return new ValidationError(message, path ? [{ path, message }] : [], "usage");
}
