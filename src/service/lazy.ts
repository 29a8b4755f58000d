/**
 * @module service/lazy
 * A function of a module imported on its first call: the operation table names every service function, and a
 * process that runs one operation (`lotwise clients list`) loads only that operation's module and what it imports.
 */

/** `F` called through a loader: same arguments, always a promise of F's result. */
export type LazyFunction<F> = F extends (...args: infer A) => infer R
  ? (...args: A) => Promise<Awaited<R>>
  : never;

/** The function `name` of the module `load` imports, imported on the first call and kept. */
export function lazyFunction<M, K extends keyof M>(load: () => Promise<M>, name: K): LazyFunction<M[K]> {
  let fn: ((...args: unknown[]) => unknown) | undefined;
  const call = async (...args: unknown[]) => {
    if (fn === undefined) {
      const loaded = (await load())[name];
      if (typeof loaded !== "function") throw new Error(`internal error: ${String(name)} is not a function`);
      fn = loaded as (...args: unknown[]) => unknown;
    }
    return fn(...args);
  };
  return call as LazyFunction<M[K]>;
}
