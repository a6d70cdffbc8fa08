/**
 * Internal: the checks of the `Memo` client's options and arguments (limits, list order, recall
 * engine, fusion weights), the note filter of `labels` and `source`, and the prefix an
 * `EmbedderUnavailableError` gets from the call that met it.
 *
 * @module
 */

import { EmbedderUnavailableError, MemoryValidationError } from "./errors.ts";
import { type Note, noteFilter } from "./notes/note.ts";
import { type NoteFilter, RECALL_ENGINES, type RecallEngine } from "./recall/types.ts";
import type { FusionOptions } from "./recall/fusion.ts";
import { MAX_MEMO_LIMIT } from "./memo_types.ts";
import {
  historyFilter,
  type HistoryLookup,
  type ResolvedHistoryFilter,
} from "./history/history.ts";

/**
 * `limit` when it is an integer from 1 to `MAX_MEMO_LIMIT`; else throws `MemoryValidationError`
 * ("Cannot <action>: …").
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkLimit } from "./_memo_checks.ts";
 * assert.equal(checkLimit(10, "recall"), 10);
 * assert.throws(() => checkLimit(0, "list notes"), /^MemoryValidationError: Cannot list notes: limit must be an integer from 1 to/);
 * ```
 */
export function checkLimit(limit: number, action: string): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_MEMO_LIMIT) {
    throw new MemoryValidationError(
      `Cannot ${action}: limit must be an integer from 1 to ${MAX_MEMO_LIMIT}`,
    );
  }
  return limit;
}

/**
 * The list order (`"oldest"` when none is given); throws `MemoryValidationError` for another value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkOrder } from "./_memo_checks.ts";
 * assert.equal(checkOrder(undefined), "oldest");
 * assert.equal(checkOrder("newest"), "newest");
 * assert.throws(() => checkOrder("random"), /order must be "oldest" or "newest"/);
 * ```
 */
export function checkOrder(order: unknown): "oldest" | "newest" {
  if (order === undefined || order === "oldest" || order === "newest") return order ?? "oldest";
  throw new MemoryValidationError('Cannot list notes: order must be "oldest" or "newest"');
}

/**
 * The error with `action` in front of its message ("Cannot recall with the vector engine: …"),
 * when it is an `EmbedderUnavailableError`; any other error as it is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EmbedderUnavailableError } from "./errors.ts";
 * import { withAction } from "./_memo_checks.ts";
 * const e = withAction(new EmbedderUnavailableError("the model failed"), "Cannot embed the notes");
 * assert.equal((e as Error).message, "Cannot embed the notes: the model failed");
 * const other = new Error("disk full");
 * assert.equal(withAction(other, "Cannot embed the notes"), other);
 * ```
 */
export function withAction(e: unknown, action: string): unknown {
  if (!(e instanceof EmbedderUnavailableError)) return e;
  return new EmbedderUnavailableError(`${action}: ${e.message}`, { cause: e });
}

/**
 * `fusion` when its three numbers are finite and at least 0; else throws `MemoryValidationError`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_FUSION } from "./recall/fusion.ts";
 * import { checkFusion } from "./_memo_checks.ts";
 * assert.equal(checkFusion(DEFAULT_FUSION), DEFAULT_FUSION);
 * assert.throws(() => checkFusion({ ...DEFAULT_FUSION, k: -1 }), /fusion\.k/);
 * ```
 */
export function checkFusion(fusion: FusionOptions): FusionOptions {
  const ok = (n: number) => typeof n === "number" && Number.isFinite(n) && n >= 0;
  if (!ok(fusion.k) || !ok(fusion.lexicalWeight) || !ok(fusion.vectorWeight)) {
    throw new MemoryValidationError(
      "Cannot open memory: fusion.k, fusion.lexicalWeight and fusion.vectorWeight must be numbers of at least 0",
    );
  }
  return fusion;
}

/**
 * `engine` when it is one of `RECALL_ENGINES`; else throws `MemoryValidationError`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkEngine } from "./_memo_checks.ts";
 * assert.equal(checkEngine("hybrid"), "hybrid");
 * assert.throws(() => checkEngine("fuzzy"), /^MemoryValidationError: Cannot recall: engine must be one of/);
 * ```
 */
export function checkEngine(engine: string): RecallEngine {
  if (!(RECALL_ENGINES as readonly string[]).includes(engine)) {
    throw new MemoryValidationError(
      `Cannot recall: engine must be one of ${RECALL_ENGINES.join(", ")}`,
    );
  }
  return engine as RecallEngine;
}

/**
 * The test of a recall's or a list's filters: labels and source ({@linkcode noteFilter}) and the
 * history filter (`history.ts`), or undefined when it keeps every note.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkHistoryFilter } from "./history/history.ts";
 * import { notesFilter } from "./_memo_checks.ts";
 * const note = { id: "a", title: "t", body: "b", labels: ["ops"], hash: "", created: "2026-01-01", updated: "" };
 * const lookup = { get: () => undefined, supersededBy: () => undefined, anySuperseded: false };
 * assert.equal(notesFilter({}, checkHistoryFilter({}, "recall"), lookup), undefined);
 * const since = notesFilter({ labels: ["ops"] }, checkHistoryFilter({ since: "2026-02-01" }, "recall"), lookup)!;
 * assert.equal(since(note), false);
 * ```
 */
export function notesFilter(
  filter: NoteFilter,
  history: ResolvedHistoryFilter,
  lookup: HistoryLookup & { readonly anySuperseded?: boolean },
): ((note: Note) => boolean) | undefined {
  const byLabels = noteFilter(filter);
  const byHistory = historyFilter(history, lookup);
  if (!byLabels || !byHistory) return byLabels ?? byHistory;
  return (note) => byLabels(note) && byHistory(note);
}

/**
 * Whether a recall's filters come down to hiding the superseded notes (no labels, source or
 * time, and some note superseded): the test then needs only the id.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkHistoryFilter } from "./history/history.ts";
 * import { onlyHidesSuperseded } from "./_memo_checks.ts";
 * const some = { anySuperseded: true };
 * assert.equal(onlyHidesSuperseded({}, checkHistoryFilter({}, "recall"), some), true);
 * assert.equal(onlyHidesSuperseded({ labels: ["ops"] }, checkHistoryFilter({}, "recall"), some), false);
 * assert.equal(onlyHidesSuperseded({}, checkHistoryFilter({ asOf: "2026-01-01" }, "recall"), some), false);
 * ```
 */
export function onlyHidesSuperseded(
  filter: NoteFilter,
  history: ResolvedHistoryFilter,
  lookup: { readonly anySuperseded: boolean },
): boolean {
  return lookup.anySuperseded && !history.includeSuperseded && history.asOf === undefined &&
    history.since === undefined && history.until === undefined && noteFilter(filter) === undefined;
}
