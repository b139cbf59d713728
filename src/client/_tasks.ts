// Keeping the page answering while a map is drawn: a phone's slow CPU turns one long piece of work into a long
// task (Lighthouse's Total Blocking Time, a tap that waits), so the maps work in short steps and let the browser
// paint and handle input between them.

/** Resolves in a new task, after the browser has had its turn (scheduler.yield where there is one). */
export function nextTask(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (typeof scheduler?.yield === "function") return scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Resolves after the next frame is painted: work started then does not hold up the page's first paint. */
export function afterPaint(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}

/** A task's budget (ms): work past it yields first. Long tasks are those over 50 ms; a slow phone is 4× slower. */
const BUDGET_MS = 8;

/** Runs `each` over `items`, yielding to the browser whenever a slice has taken BUDGET_MS; false if `stop()` said so. */
export async function inSlices<T>(items: readonly T[], each: (item: T) => void, stop = () => false): Promise<boolean> {
  let started = performance.now();
  for (const item of items) {
    if (performance.now() - started > BUDGET_MS) {
      await nextTask();
      if (stop()) return false;
      started = performance.now();
    }
    each(item);
  }
  return true;
}
