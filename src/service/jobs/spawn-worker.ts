/**
 * @module service/jobs/spawn-worker
 * Starting a job worker thread from wherever lotwise runs: from the compiled `dist/` (plain `.js` modules), or from
 * the TypeScript sources (tests, `node --import tsx`), where the worker first registers tsx's loader because
 * `--import` in a worker's execArgv does not apply to the worker's main module on Node 20.
 */
import { Worker } from "node:worker_threads";
import { type BacktestExecutorModule, DEFAULT_EXECUTOR_EXPORT } from "./executor.js";
import type { WorkerInit } from "./worker-protocol.js";

/** Extension of this module's siblings: `.ts` when running from the sources, `.js` from dist. */
const EXTENSION = import.meta.url.endsWith(".ts") ? ".ts" : ".js";

/** URL of a module of this folder, with the extension this build uses. */
function sibling(name: string): URL {
  return new URL(`./${name}${EXTENSION}`, import.meta.url);
}

/** The executor module workers load by default: the account backtester (see default-executor.ts). */
export function defaultExecutorModule(): BacktestExecutorModule {
  return { module: sibling("default-executor").href, exportName: DEFAULT_EXECUTOR_EXPORT };
}

/**
 * Starts a worker thread running worker-entry with `init` as its workerData.
 * @throws {Error} when running from TypeScript sources without tsx installed
 */
export function spawnJobWorker(init: WorkerInit): Worker {
  return spawnModuleWorker(sibling("worker-entry"), init);
}

/**
 * Starts a worker thread whose main module is `entry` (a `.js` module of dist, or a `.ts` module of the sources,
 * which the worker loads through tsx), with `workerData` as its workerData. The HTTP server's request pool uses it
 * too.
 * @throws {Error} when running from TypeScript sources without tsx installed
 */
export function spawnModuleWorker(entry: URL, workerData: unknown): Worker {
  if (!entry.pathname.endsWith(".ts")) return new Worker(entry, { workerData });
  const tsxApi = import.meta.resolve("tsx/esm/api");
  // Eval workers are scripts: register tsx's ESM loader, then import the TypeScript entry.
  const code = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(code, { eval: true, workerData });
}
