/**
 * The runtime side of history (corrections, supersede links, as-of reads): the history filters
 * of recall and list, and the inputs and answers of {@linkcode MemoMcpRuntime.correct}, {@linkcode MemoMcpRuntime.supersede},
 * {@linkcode MemoMcpRuntime.tidy} and {@linkcode MemoMcpRuntime.applyTidy}. The answers are the
 * memory package's types.
 *
 * @module
 */

export type {
  CorrectResult,
  SimilarNote,
  SupersedeResult,
  TidyApplyResult,
  TidyNoteRef,
  TidyPlan,
  TidyProposal,
} from "@memo/memory";

/**
 * The history filters of {@linkcode MemoMcpRuntime.recall} and {@linkcode MemoMcpRuntime.list}.
 * Superseded notes are hidden unless `includeSuperseded`; an invalid time throws
 * `MemoRuntimeError` `INVALID_INPUT`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeHistoryFilter } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const { note } = await runtime.remember({ text: "Deploys run on Fridays" });
 * await runtime.correct!({ id: note.id, text: "Deploys run on Mondays" });
 * const history: RuntimeHistoryFilter = { includeSuperseded: true };
 * const page = await runtime.list({ limit: 10, ...history });
 * assert.equal(page.notes.length, 2);
 * assert.deepEqual(page.notes[0].supersededBy, [page.notes[1].id]);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeHistoryFilter {
  /**
   * Also answer with superseded notes (each flagged with `supersededBy`).
   * @default false
   */
  includeSuperseded?: boolean;
  /**
   * ISO date or date-time: what memo had recorded by then and what held then (notes created at
   * or before it, not superseded by a note created at or before it, valid at it).
   */
  asOf?: string;
  /** Only notes created at or after this ISO date or date-time. */
  since?: string;
  /** Only notes created before this ISO date or date-time. */
  until?: string;
}

/**
 * Input of {@linkcode MemoMcpRuntime.correct}: the note whose fact changed, and the new fact.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeCorrectInput } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const { note } = await runtime.remember({ text: "Deploys run on Fridays" });
 * const input: RuntimeCorrectInput = { id: note.id, text: "Deploys run on Mondays" };
 * const { note: fixed, superseded } = await runtime.correct!(input);
 * assert.deepEqual([fixed.supersedes, superseded], [[note.id], [note.id]]);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeCorrectInput {
  /** Id of the note to correct; unknown: `MemoRuntimeError` `NOTE_NOT_FOUND`. */
  id: string;
  /** The new fact. */
  text: string;
  /** Title of the new note; derived from the text when missing. */
  title?: string;
  /**
   * Labels of the new note.
   * @default the old note's labels
   */
  labels?: string[];
  /**
   * When the new fact starts to hold; the old note's `validUntil` becomes this.
   * @default none (the old note's `validUntil` becomes now)
   */
  validFrom?: string;
}

/**
 * Input of {@linkcode MemoMcpRuntime.supersede}: notes that say the same as `by`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeSupersedeInput } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const { note: a } = await runtime.remember({ text: "Staging lives in eu-west-1" });
 * const { note: b } = await runtime.remember({ text: "The staging environment is in eu-west-1" });
 * const input: RuntimeSupersedeInput = { ids: [a.id], by: b.id };
 * assert.deepEqual((await runtime.supersede!(input)).superseded, [a.id]);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeSupersedeInput {
  /** Ids of the notes to mark as superseded; an unknown one: `INVALID_INPUT`. */
  ids: string[];
  /** Id of the note that supersedes them; unknown: `NOTE_NOT_FOUND`. */
  by: string;
}
