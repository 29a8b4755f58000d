/**
 * @module service/serial
 * Helpers for asynchronous work over lists where order matters: one item at a time, in order, so that the store
 * calls, their side effects and the first error thrown are those of the synchronous loop they replace.
 */

/** `items.map(fn)` with an asynchronous `fn`, awaiting each call before the next. */
export async function mapSerial<T, R>(
  items: Iterable<T>,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = [];
  let i = 0;
  for (const item of items) out.push(await fn(item, i++));
  return out;
}
