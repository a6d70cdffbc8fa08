/**
 * Internal: requests per second per API key, on this instance, in fixed
 * one-second windows of the injected clock.
 *
 * @module
 */

/** Counts requests per key; `limit` 0 lets everything through. */
export class RateLimiter {
  readonly #limit: number;
  readonly #clock: () => Date;
  readonly #windows = new Map<number, { start: number; count: number }>();

  constructor(limit: number, clock: () => Date) {
    this.#limit = limit;
    this.#clock = clock;
  }

  /**
   * Counts one request of key `keyIndex`. Returns `undefined` when it may
   * run, else the seconds to wait (`Retry-After`, at least 1).
   */
  take(keyIndex: number): number | undefined {
    if (this.#limit <= 0) return undefined;
    const now = this.#clock().getTime();
    const start = Math.floor(now / 1000) * 1000;
    let window = this.#windows.get(keyIndex);
    if (!window || window.start !== start) {
      window = { start, count: 0 };
      this.#windows.set(keyIndex, window);
    }
    if (window.count < this.#limit) {
      window.count++;
      return undefined;
    }
    return Math.max(1, Math.ceil((start + 1000 - now) / 1000));
  }
}
