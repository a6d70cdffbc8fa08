/**
 * Statistics and goal checks shared by the benchmarks of MCP 2026-07-28
 * (`bench/http_stateless.ts`, `bench/stdio_stateless.ts`).
 *
 * @module
 */

/**
 * The value at fraction `p` of sorted numbers (nearest rank, rounding down).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { percentile } from "./_report.ts";
 *
 * assert.equal(percentile([1, 2, 3, 4, 5], 0.5), 3);
 * assert.equal(percentile([1, 2, 3, 4, 5], 0.99), 4);
 * assert.equal(percentile([1, 2, 3, 4, 5], 1), 5);
 * ```
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1)))];
}

/**
 * The median of numbers in any order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { median } from "./_report.ts";
 *
 * assert.equal(median([30, 10, 20]), 20);
 * ```
 */
export function median(xs: readonly number[]): number {
  return percentile([...xs].sort((a, b) => a - b), 0.5);
}

/** A goal: a measured value against a bound. */
export interface Goal {
  /** What the goal says. */
  goal: string;
  /** The measured value (NaN when not measured in this run). */
  value: number;
  /** The value must be at least this, */
  min?: number;
  /** at most this, */
  atMost?: number;
  /** or below this. */
  below?: number;
  /** How to show the value. */
  shown: (value: number) => string;
}

/** A goal once checked. */
export interface CheckedGoal {
  goal: string;
  value: number;
  measured: string;
  /** "yes", "MISSED", or "not measured". */
  met: string;
}

/**
 * Checks each goal: met, MISSED, or not measured (a target left out of the
 * run).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkGoals } from "./_report.ts";
 *
 * const shown = (v: number) => v.toFixed(1);
 * const [a, b, c] = checkGoals([
 *   { goal: "fast", value: 12, min: 10, shown },
 *   { goal: "short", value: 6, atMost: 5, shown },
 *   { goal: "absent", value: NaN, min: 1, shown },
 * ]);
 * assert.equal(a.met, "yes");
 * assert.equal(b.met, "MISSED");
 * assert.equal(b.measured, "6.0");
 * assert.equal(c.met, "not measured");
 * ```
 */
export function checkGoals(goals: readonly Goal[]): CheckedGoal[] {
  return goals.map((g) => {
    if (!Number.isFinite(g.value)) {
      return { goal: g.goal, value: g.value, measured: "-", met: "not measured" };
    }
    const ok = (g.min === undefined || g.value >= g.min) &&
      (g.atMost === undefined || g.value <= g.atMost) &&
      (g.below === undefined || g.value < g.below);
    return { goal: g.goal, value: g.value, measured: g.shown(g.value), met: ok ? "yes" : "MISSED" };
  });
}
