/**
 * A counting semaphore for work that must not run too many times at once in one process (uploads being read,
 * data exports being streamed): at most `size` holders; the others wait in order, each for at most its own time
 * limit, and are then refused (the caller answers 503 with Retry-After).
 */
export class Slots {
  private used = 0;
  private readonly waiting: { grant: () => void }[] = [];
  constructor(private readonly size: number) {}

  /** Slots taken now. */
  get busy(): number {
    return this.used;
  }

  /** Takes a slot, waiting at most `waitMs` for one; false when none came free in time. */
  async take(waitMs: number): Promise<boolean> {
    if (this.used < this.size) {
      this.used++;
      return true;
    }
    if (waitMs <= 0) return false;
    return new Promise<boolean>((resolve) => {
      const entry = {
        grant: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(entry), 1);
        resolve(false);
      }, waitMs);
      this.waiting.push(entry);
    });
  }

  give(): void {
    // The slot passes straight to the next waiter, if any.
    const next = this.waiting.shift();
    if (next) next.grant();
    else this.used = Math.max(0, this.used - 1);
  }
}
