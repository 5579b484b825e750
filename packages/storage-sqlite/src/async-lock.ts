import { clockMs } from './deadline.js';

/** A first-come, first-served mutex for async code, whose waiters may give up at a deadline. */
export class AsyncLock {
  #held = false;
  readonly #waiting: Array<() => void> = [];

  /** How many wait for the lock now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * Takes the lock, waiting in turn: true once held. With a `deadline` (`clockMs()` time), a
   * waiter still waiting then leaves the queue and gets false.
   */
  acquire(deadline?: number): Promise<boolean> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const grant = () => {
        if (timer !== undefined) clearTimeout(timer);
        resolve(true);
      };
      this.#waiting.push(grant);
      if (deadline !== undefined) {
        timer = setTimeout(() => {
          const index = this.#waiting.indexOf(grant);
          if (index < 0) return;
          this.#waiting.splice(index, 1);
          resolve(false);
        }, Math.max(0, deadline - clockMs()));
      }
    });
  }

  /** Takes the lock if it is free, at once; false when someone holds it. */
  tryAcquire(): boolean {
    if (this.#held) return false;
    this.#held = true;
    return true;
  }

  /** Hands the lock to the next waiter, or frees it. */
  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#held = false;
  }
}
