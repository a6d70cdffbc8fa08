/**
 * The memory side of the runner: the drafts it commits and what it needs of the client that takes
 * them (`Memo` from `@memo/memory` fits).
 *
 * @module
 */

import type { NoteDraft } from "@memo/memory";

/**
 * A note as the runner hands it to the memory client: the fields of `NoteDraft` (`@memo/memory`)
 * that an upstream record fills.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ConnectorDraft, runConnectors } from "@memo/connectors";
 * const drafts: ConnectorDraft[] = [];
 * const record = {
 *   source: "static:1",
 *   title: "Deploy",
 *   text: "Run make deploy.",
 *   url: "https://example.com/1",
 *   createdAt: "2024-05-01T00:00:00Z",
 *   updatedAt: "2024-05-02T00:00:00Z",
 *   metadata: { labels: ["ops"] },
 * };
 * await runConnectors([{ id: "one", type: "static", pull: () => Promise.resolve([record]) }], {
 *   rememberMany: (list) => {
 *     drafts.push(...list);
 *     return Promise.resolve({ written: [...list], updated: [], unchanged: [], bytesWritten: 1 });
 *   },
 * });
 * assert.deepEqual(drafts, [{
 *   text: "Run make deploy.",
 *   title: "Deploy",
 *   labels: ["ops"],
 *   source: "static:1",
 *   created: "2024-05-01T00:00:00Z",
 *   updated: "2024-05-02T00:00:00Z",
 * }]);
 * ```
 */
export type ConnectorDraft = Pick<
  NoteDraft,
  "text" | "title" | "labels" | "source" | "created" | "updated"
>;

/**
 * What the memory client reports for a commit (`CommitResult` of `@memo/memory`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ConnectorCommit } from "@memo/connectors";
 * const nothingNew: ConnectorCommit = {
 *   written: [],
 *   updated: [],
 *   unchanged: [{ id: "note-1" }],
 *   bytesWritten: 0,
 * };
 * assert.equal(nothingNew.written.length + nothingNew.updated.length, 0);
 * ```
 */
export interface ConnectorCommit {
  /** Notes added. */
  written: readonly unknown[];
  /** Notes changed in place. */
  updated: readonly unknown[];
  /** Drafts already stored unchanged. */
  unchanged: readonly unknown[];
  /** Bytes written (0 when nothing changed). */
  bytesWritten: number;
}

/**
 * What the runner needs of the memory client: `Memo` from `@memo/memory` fits.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ConnectorMemo } from "@memo/connectors";
 * import { openMemo } from "@memo/memory";
 * const rootDir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir });
 * const target: ConnectorMemo = memo;
 * const commit = await target.rememberMany([{ text: "Run make deploy.", source: "static:1" }]);
 * assert.equal(commit.written.length, 1);
 * await memo.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface ConnectorMemo {
  /** Stores drafts in one all-or-nothing commit, deduplicating by source key. */
  rememberMany(
    drafts: readonly ConnectorDraft[],
    options?: { signal?: AbortSignal },
  ): Promise<ConnectorCommit>;
}
