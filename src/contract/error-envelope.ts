/**
 * @module contract/error-envelope
 * The error body of every endpoint: `{"error": {"code", "message", "details"?}}`; `details` lists the
 * offending fields of a validation error.
 */
import * as z from "zod";
import type { PortfolioError } from "../core/errors.js";
import { ValidationError } from "../core/errors.js";
import { named } from "./registry.js";

/** One offending field of a validation error. */
export const errorDetailSchema = named(
  z.strictObject({ path: z.string(), message: z.string() }),
  "ErrorDetail",
  "One offending field: its path (e.g. optimized_weights[2].weight) and what is wrong.",
);
/** One offending field. */
export type ErrorDetail = z.infer<typeof errorDetailSchema>;

/** The error envelope. */
export const errorEnvelopeSchema = named(
  z.strictObject({
    error: z.strictObject({
      code: z.string().min(1),
      message: z.string(),
      details: z.array(errorDetailSchema).optional(),
    }),
  }),
  "ErrorEnvelope",
  "Error body: a stable code, a message and, for validation errors, the offending fields.",
);
/** The error envelope. */
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

/**
 * The envelope of a lotwise error: its `code` and message, plus `details` for a {@link ValidationError}.
 * @example toErrorEnvelope(new NotFoundError("No client 123.")) // { error: { code: "not_found", message: "No client 123." } }
 */
export function toErrorEnvelope(error: PortfolioError): ErrorEnvelope {
  const body: ErrorEnvelope["error"] = { code: error.code, message: error.message };
  if (error instanceof ValidationError && error.issues.length > 0)
    body.details = error.issues.map((i) => ({ path: i.path, message: i.message }));
  return { error: body };
}
