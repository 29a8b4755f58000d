/**
 * @module server/health
 * Liveness and readiness for `/healthz` and `/readyz` (docs/deploy.md). Liveness says the process answers;
 * readiness pings what a request needs — the store's database and, in a PostgreSQL deployment, the job queue —
 * each with a time limit, so a load balancer takes an instance out of rotation while its database or queue is
 * unreachable. The answers name no host, port, user or driver error: the raw error goes to `onError` (the server's
 * log) only.
 */

/** The answer of `/healthz`. */
export interface HealthStatus {
  status: "ok";
}

/** One dependency's check. */
export interface ReadinessCheck {
  ok: boolean;
  /** How long the check took, in milliseconds (one decimal). */
  ms: number;
  /** Why it failed, in words that name no internals. */
  error?: string;
}

/** The answer of `/readyz` (HTTP 200 when `ready`, else 503). */
export interface Readiness {
  ready: boolean;
  /** Present (true) while the instance is shutting down: not ready whatever the checks say. */
  stopping?: true;
  checks: { database: ReadinessCheck; queue?: ReadinessCheck };
}

/** Anything with a ping: the store (`LotwiseStore.ping`) or the job queue (`JobQueue.ping`). */
export interface Pingable {
  ping(): Promise<void>;
}

/** Options of {@link readiness}. */
export interface ReadinessOptions {
  store: Pingable;
  /** The job queue, in deployments that have one. */
  queue?: Pingable;
  /** Longest wait for each ping (ms). @default DEFAULT_READINESS_TIMEOUT_MS */
  timeoutMs?: number;
  /** True once the instance received SIGTERM: answer not ready so the load balancer drains it. */
  stopping?: boolean;
  /** Receives the raw error of a failed check (for the server's log; never sent to the client). */
  onError?: (component: "database" | "queue", err: unknown) => void;
}

export const DEFAULT_READINESS_TIMEOUT_MS = 2000;

/** `/healthz`: the process is up and its event loop answers. */
export function health(): HealthStatus {
  return { status: "ok" };
}

const NAMES = { database: "the database", queue: "the job queue" } as const;

async function check(
  component: "database" | "queue",
  target: Pingable,
  timeoutMs: number,
  onError: ReadinessOptions["onError"],
): Promise<ReadinessCheck> {
  const t0 = performance.now();
  const ms = () => Math.round((performance.now() - t0) * 10) / 10;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    const outcome = await Promise.race([
      Promise.resolve()
        .then(() => target.ping())
        .then(() => "ok" as const),
      timeout,
    ]);
    if (outcome === "timeout") {
      onError?.(component, new Error(`${component} ping timed out after ${timeoutMs} ms`));
      return { ok: false, ms: ms(), error: `${NAMES[component]} did not answer within ${timeoutMs} ms` };
    }
    return { ok: true, ms: ms() };
  } catch (err) {
    onError?.(component, err);
    return { ok: false, ms: ms(), error: `${NAMES[component]} is not reachable` };
  } finally {
    clearTimeout(timer);
  }
}

/** `/readyz`: ping the store and the queue (in parallel, each within `timeoutMs`). */
export async function readiness(options: ReadinessOptions): Promise<Readiness> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_READINESS_TIMEOUT_MS;
  const [database, queue] = await Promise.all([
    check("database", options.store, timeoutMs, options.onError),
    options.queue ? check("queue", options.queue, timeoutMs, options.onError) : undefined,
  ]);
  const checks: Readiness["checks"] = queue ? { database, queue } : { database };
  if (options.stopping) return { ready: false, stopping: true, checks };
  return { ready: database.ok && (queue?.ok ?? true), checks };
}
