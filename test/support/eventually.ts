/**
 * Polls `read` until `done` holds or `ms` passes, and returns the last value for the caller's
 * assertion to check and show. Plain TypeScript: the Workers tests and the Node tests share it.
 */
export async function eventually<T>(read: () => T | Promise<T>, done: (value: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    value = await read();
  }
  return value;
}
