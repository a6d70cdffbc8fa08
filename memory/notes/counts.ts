/**
 * {@linkcode countNotes}: the counts of `memory_stats` (`Memo.stats`) over any notes, so that a
 * server holding its own rows (the Cloud API's held index) counts exactly as a local memo does.
 *
 * @module
 */

/**
 * Notes per label and per source kind (the part of the source key before its first `:`, or
 * `none`), and the latest `updated`, as `Memo.stats` answers them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { countNotes } from "./counts.ts";
 *
 * const counts = countNotes([
 *   { labels: ["ops"], source: "github:octo/app/discussions/1", updated: "2026-01-02T00:00:00Z" },
 *   { labels: ["ops", "db"], updated: "2026-01-03T00:00:00Z" },
 * ]);
 * assert.deepEqual(counts, {
 *   notes: 2,
 *   labels: { ops: 2, db: 1 },
 *   sources: { github: 1, none: 1 },
 *   lastUpdated: "2026-01-03T00:00:00Z",
 * });
 * assert.deepEqual(countNotes([]), { notes: 0, labels: {}, sources: {} });
 * ```
 */
export function countNotes(
  notes: Iterable<{ labels: readonly string[]; source?: string; updated: string }>,
): {
  notes: number;
  labels: Record<string, number>;
  sources: Record<string, number>;
  lastUpdated?: string;
} {
  const labels: Record<string, number> = {};
  const sources: Record<string, number> = {};
  let count = 0;
  let lastUpdated: string | undefined;
  for (const note of notes) {
    count++;
    for (const l of note.labels) labels[l] = (labels[l] ?? 0) + 1;
    const kind = note.source ? note.source.split(":", 1)[0] : "none";
    sources[kind] = (sources[kind] ?? 0) + 1;
    if (!lastUpdated || note.updated > lastUpdated) lastUpdated = note.updated;
  }
  const out: ReturnType<typeof countNotes> = { notes: count, labels, sources };
  if (lastUpdated) out.lastUpdated = lastUpdated;
  return out;
}
