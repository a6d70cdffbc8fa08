/**
 * What writing notes through a runtime takes and returns: the input and results of `remember` and
 * `rememberMany`, and the patch of `update`. `types.ts` re-exports them.
 *
 * @module
 */

import type { Note, SecretRedaction } from "@memo/memory";
import type { SimilarNote } from "./history_types.ts";

/** Input of {@linkcode MemoMcpRuntime.remember}. *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeRememberInput } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const input: RuntimeRememberInput = {
 *   text: "Run `make deploy` from the release branch.",
 *   title: "How to deploy",
 *   labels: ["infra"],
 *   source: "wiki:deploy",
 * };
 * const { note } = await runtime.remember(input);
 * assert.equal(note.title, "How to deploy");
 * assert.deepEqual(note.labels, ["infra"]);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeRememberInput {
  /** The note's markdown text. */
  text: string;
  /** Title; derived from the text when missing. */
  title?: string;
  /** Labels. */
  labels?: string[];
  /** Source key (notes with the same key are the same note). */
  source?: string;
  /**
   * Ids of the notes this note replaces. An unknown id, the note itself or a cycle throws
   * `MemoRuntimeError` `INVALID_INPUT`, and nothing is written.
   */
  supersedes?: string[];
  /** When the fact starts to hold (ISO date, meaning 00:00 UTC, or date-time). */
  validFrom?: string;
  /** When it stops holding (exclusive). */
  validUntil?: string;
  /**
   * The scope to write into: `user` (about the person, for every project), `project` (about this
   * project, for the team) or `local` (private to this checkout).
   * @default the configured `defaultScope`, else `project`
   */
  scope?: "user" | "project" | "local";
}

/** What {@linkcode MemoMcpRuntime.remember} did. *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeRememberResult } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const first: RuntimeRememberResult = await runtime.remember({ text: "v1", source: "wiki:x" });
 * const again = await runtime.remember({ text: "v1", source: "wiki:x" });
 * const changed = await runtime.remember({ text: "v2", source: "wiki:x" });
 * assert.deepEqual(
 *   [first.status, again.status, changed.status],
 *   ["written", "unchanged", "updated"],
 * );
 * assert.equal(changed.note.id, first.note.id); // the same source is the same note
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeRememberResult {
  /** The stored note. */
  note: Note;
  /** `written` (new), `updated` (same source, new content) or `unchanged`. */
  status: "written" | "updated" | "unchanged";
  /**
   * What the secrets guard replaced with `[redacted:<rule-id>]`: rule ids and fields, never values;
   * absent when nothing was.
   */
  redacted?: SecretRedaction[];
  /**
   * Stored notes that resemble a written note: at most 3, most similar first (empty when none).
   * Runtimes that cannot tell leave it out.
   */
  similar?: SimilarNote[];
}

/**
 * What {@linkcode MemoMcpRuntime.rememberMany} did: each draft's note, by what happened to it (the
 * memory client's `CommitResult` without its byte count).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import type { RuntimeRememberManyResult } from "./types.ts";
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * await runtime.remember({ text: "v1", source: "wiki:a" });
 * const result: RuntimeRememberManyResult = await runtime.rememberMany!([
 *   { text: "v2", source: "wiki:a" }, // the same source key: updated in place
 *   { text: "new", source: "wiki:b" },
 * ]);
 * assert.deepEqual(
 *   [result.written.length, result.updated.length, result.unchanged.length],
 *   [1, 1, 0],
 * );
 * const forgotten = await runtime.forgetMany!(result.written.map((n) => n.id));
 * assert.deepEqual(forgotten.map((n) => n.title), ["new"]);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeRememberManyResult {
  /** Notes that did not exist and were added. */
  written: Note[];
  /** Notes whose identity existed with other content, changed in place. */
  updated: Note[];
  /** Drafts already stored as they are (nothing written). */
  unchanged: Note[];
  /** What the secrets guard replaced, with each draft's `index`; absent when nothing was. */
  redacted?: SecretRedaction[];
}

/** A change to a note. *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeNotePatch } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const { note } = await runtime.remember({ text: "Deploys run with make", labels: ["infra"] });
 * const patch: RuntimeNotePatch = { title: "Deploying", labels: ["infra", "release"] };
 * const updated = await runtime.update(note.id, patch);
 * assert.equal(updated.title, "Deploying");
 * assert.deepEqual(updated.labels, ["infra", "release"]);
 * assert.equal(updated.body, note.body); // what the patch leaves out stays
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeNotePatch {
  /** New text. */
  text?: string;
  /** New title. */
  title?: string;
  /** New labels (replace the old ones). */
  labels?: string[];
  /** New start of validity (ISO date or date-time); `null` removes it. */
  validFrom?: string | null;
  /** New end of validity (exclusive); `null` removes it. */
  validUntil?: string | null;
  /**
   * The notes this note replaces, as a whole new list (`[]` removes every link); checked as
   * `remember`'s.
   */
  supersedes?: string[];
  /** Moves the note into this scope, keeping its id. */
  scope?: "user" | "project" | "local";
}
