/**
 * @module contract/validation
 * From zod issues to the project's {@link ValidationError}: one {@link FieldIssue} per offending field with a
 * readable path (`optimized_weights[2].weight`, `capital_gains_reductions["BRK.B:XNYS"]`).
 */
import type * as z from "zod";
import { type FieldIssue, ValidationError } from "../core/errors.js";

/** Path of the whole value (an issue on the body itself, e.g. a cross-field rule at the top level). */
export const ROOT_PATH = "(root)";

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Formats a zod path with dots and brackets; keys that are not identifiers are quoted in brackets.
 * @example formatIssuePath(["orders", 2, "amount"]) // "orders[2].amount"
 */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "symbol") out += `[${String(key)}]`;
    else if (IDENTIFIER.test(key)) out += out === "" ? key : `.${key}`;
    else out += `[${JSON.stringify(key)}]`;
  }
  return out === "" ? ROOT_PATH : out;
}

/** The most specific issue of a union failure: the branch with the fewest issues, paths made absolute. */
function flattenUnion(issue: z.core.$ZodIssueInvalidUnion): z.core.$ZodIssue[] {
  const branches = issue.errors.filter((b) => b.length > 0);
  if (branches.length === 0) return [issue];
  // A branch that failed only on its type (e.g. "expected string") is less telling than one that got deeper.
  const typed = branches.filter(
    (b) => !(b.length === 1 && b[0]!.code === "invalid_type" && b[0]!.path.length === 0),
  );
  if (typed.length !== 1) return [issue];
  return typed[0]!.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }));
}

/** True when the issue only says that a required key is absent. */
function isMissing(issue: z.core.$ZodIssue): boolean {
  if (issue.code !== "invalid_type" && issue.code !== "invalid_union") return false;
  if ("input" in issue) return issue.input === undefined;
  if (issue.code === "invalid_type") return /received undefined$/.test(issue.message);
  // Without the input at hand: every branch of the union rejected `undefined` at its root.
  return issue.errors.every(
    (b) => b.length > 0 && b.every((i) => i.path.length === 0 && /received undefined$/.test(i.message)),
  );
}

/**
 * One {@link FieldIssue} per problem. An unknown key becomes an issue at that key's own path
 * ("unknown field; ..."); a missing key reads "Required".
 * @example toFieldIssues(error) // [{ path: "optimized_weights[2].weight", message: "..." }]
 */
export function toFieldIssues(error: z.ZodError): FieldIssue[] {
  const out: FieldIssue[] = [];
  const visit = (issue: z.core.$ZodIssue): void => {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys)
        out.push({
          path: formatIssuePath([...issue.path, key]),
          message: "unknown field; remove it or check its spelling",
        });
      return;
    }
    if (issue.code === "invalid_union") {
      const flat = flattenUnion(issue);
      if (flat.length !== 1 || flat[0] !== issue) {
        flat.forEach(visit);
        return;
      }
    }
    // A record key that fails its schema: say why (zod's own message is only "Invalid key in record").
    const inner = issue.code === "invalid_key" ? issue.issues[0]?.message : undefined;
    out.push({
      path: formatIssuePath(issue.path),
      message: isMissing(issue) ? "Required" : (inner ?? issue.message),
    });
  };
  error.issues.forEach(visit);
  return out;
}

/** One-line summary of issues for an error message: first issue, then how many more. */
export function summarizeIssues(issues: readonly FieldIssue[]): string {
  if (issues.length === 0) return "invalid input";
  const first = `${issues[0]!.path}: ${issues[0]!.message}`;
  return issues.length === 1
    ? first
    : `${first} (and ${issues.length - 1} more issue${issues.length === 2 ? "" : "s"})`;
}

/**
 * Parses `value` with `schema`, returning the output; on failure throws a {@link ValidationError} whose
 * `issues` name each offending field.
 * @param where what was parsed, for the message (e.g. `"proposal request"`). @default "input"
 * @throws {ValidationError} when `value` does not match `schema`.
 * @example parseOrThrow(proposalRequest, body, "proposal request")
 */
export function parseOrThrow<T extends z.ZodType>(schema: T, value: unknown, where = "input"): z.output<T> {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  const issues = toFieldIssues(result.error);
  throw new ValidationError(`Invalid ${where}: ${summarizeIssues(issues)}`, issues);
}
