/**
 * @module cli/limits
 * The service limits (queued jobs per organization, proposal retention, the scan job threshold) from the environment, so that local
 * commands and `lotwise serve` apply the same ones; `serve` flags override them. Unset variables leave the
 * service defaults (DEFAULT_SERVICE_LIMITS). A value that is not a non-negative integer is a usage error naming it.
 */
import type { ServiceLimits } from "../service/index.js";
import { usageError } from "./errors.js";

/** Environment variable of each limit. */
export const LIMIT_ENV = {
  maxQueuedJobsPerOrganization: "LOTWISE_MAX_QUEUED_JOBS",
  proposalsKeptPerAccount: "LOTWISE_KEEP_PROPOSALS",
  proposalMaxAgeDays: "LOTWISE_PROPOSAL_MAX_AGE_DAYS",
  scanJobThreshold: "LOTWISE_SCAN_JOB_THRESHOLD",
} as const satisfies Record<keyof ServiceLimits, string>;

/**
 * A non-negative integer option or variable, up to `max`.
 * @throws {ValidationError} `usage` naming `what`
 */
export function nonNegativeInteger(value: string, what: string, max = 1_000_000_000): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n) || n > max)
    throw usageError(`${what} must be an integer from 0 to ${max}, got ${JSON.stringify(value)}`, what);
  return n;
}

/**
 * The limits set in `env` (only those set).
 * @throws {ValidationError} `usage` for a value that is not a non-negative integer
 * @example limitsFromEnv({ LOTWISE_KEEP_PROPOSALS: "50" }) // { proposalsKeptPerAccount: 50 }
 */
export function limitsFromEnv(env: NodeJS.ProcessEnv = process.env): ServiceLimits {
  const out: { -readonly [K in keyof ServiceLimits]: number } = {};
  for (const [name, variable] of Object.entries(LIMIT_ENV) as [keyof ServiceLimits, string][]) {
    const raw = env[variable];
    if (raw !== undefined && raw !== "") out[name] = nonNegativeInteger(raw, variable);
  }
  return out;
}
