/**
 * Waiting in tests for what happens, not for a while: the machine running the suite is shared and slow at times,
 * so a fixed sleep is either too short (a false failure) or proves nothing (a check made before the event could
 * have happened). `until` waits for the event itself, for as long as the test's own timeout allows; `turns` lets
 * the event loop go round a number of times, a count that does not depend on how busy the machine is.
 */

/** Resolves once `check()` is true, trying again every `everyMs`; the test's timeout is the only limit. */
export async function until(check: () => boolean | Promise<boolean>, everyMs = 10): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, everyMs));
}

/**
 * Lets the event loop go round `n` times (each a macrotask after pending I/O callbacks): whatever work was ready to
 * run, such as sending an answer that nothing holds back, has run by then.
 */
export async function turns(n = 20): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}
