/**
 * A batch of drafts as both stores take it: each draft checked and given its identity
 * ({@linkcode prepareCloudDrafts}), the batch reduced to one draft per identity
 * ({@linkcode dedupeDrafts}) and each draft's answer from its identity's
 * ({@linkcode answerDrafts}), so that the file store and the PostgreSQL store answer a batch alike.
 * Checking comes from `@memo/memory`; the rules are those of the file store (`planCommit`).
 *
 * @module
 */

import { noteIdentity, prepareNoteDrafts } from "@memo/memory";
import type { CloudDraft, CloudNote, CloudWriteResult } from "../store.ts";

/**
 * A checked, normalised draft with its identity.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type PreparedCloudDraft, prepareCloudDrafts } from "./drafts.ts";
 *
 * const [draft]: PreparedCloudDraft[] = prepareCloudDrafts([{ text: "hi", source: "x:1" }]);
 * assert.equal(draft.identity, "source:x:1");
 * const [text] = prepareCloudDrafts([{ text: "Deploys run on Fridays." }]);
 * assert.equal(text.identity, prepareCloudDrafts([{ text: "deploys run on fridays" }])[0].identity);
 * ```
 */
export interface PreparedCloudDraft {
  /** `source:<key>`, else `text:<digest>` of the normalised text (`noteIdentity`). */
  identity: string;
  /** The id asked for a new note (checked against the note id pattern). */
  id?: string;
  /** Normalised title. */
  title: string;
  /** Body. */
  body: string;
  /** Normalised labels. */
  labels: string[];
  /** Source key. */
  source?: string;
  /** Content hash. */
  hash: string;
  /** Canonical creation time, when given. */
  created?: string;
  /** Canonical update time, when given. */
  updated?: string;
  /** Ids of the notes it replaces (absent when none). */
  supersedes?: string[];
  /** Start of validity, canonical. */
  validFrom?: string;
  /** End of validity, canonical. */
  validUntil?: string;
}

/**
 * Checks every draft before anything is touched; throws a `MemoryValidationError` with
 * `details.index` naming the first bad draft.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryValidationError } from "@memo/memory";
 * import { prepareCloudDrafts } from "./drafts.ts";
 *
 * assert.throws(
 *   () => prepareCloudDrafts([{ text: "ok" }, { text: " " }]),
 *   (e) => e instanceof MemoryValidationError && e.details?.index === 1,
 * );
 * ```
 */
export function prepareCloudDrafts(drafts: readonly CloudDraft[]): PreparedCloudDraft[] {
  return prepareNoteDrafts(drafts).map((p) => ({ identity: noteIdentity(p), ...p }));
}

/**
 * A batch reduced to one draft per identity: `unique` in the order of each identity's first draft,
 * `slotOf[i]` the place of draft `i` in `unique`, and `lastOf[slot]` the index of the slot's last
 * draft. The last draft of an identity gives the content (as `FileMemoryStore.commit` does); the id
 * a new note asks for is the first `id` given among the drafts of the identity.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { dedupeDrafts, prepareCloudDrafts } from "./drafts.ts";
 *
 * const drafts = prepareCloudDrafts([
 *   { text: "v1", source: "s:1" },
 *   { text: "other" },
 *   { text: "v2", source: "s:1", id: "first-id" },
 *   { text: "v3", source: "s:1", id: "later-id" },
 * ]);
 * const { unique, slotOf, lastOf } = dedupeDrafts(drafts);
 * assert.deepEqual(unique.map((d) => d.body), ["v3", "other"]);
 * assert.equal(unique[0].id, "first-id");
 * assert.deepEqual(slotOf, [0, 1, 0, 0]);
 * assert.deepEqual(lastOf, [3, 1]);
 * ```
 */
export function dedupeDrafts(
  drafts: readonly PreparedCloudDraft[],
): { unique: PreparedCloudDraft[]; slotOf: number[]; lastOf: number[] } {
  const unique: PreparedCloudDraft[] = [];
  const slotOf: number[] = [];
  const lastOf: number[] = [];
  const at = new Map<string, number>();
  drafts.forEach((draft, index) => {
    const slot = at.get(draft.identity);
    if (slot === undefined) {
      at.set(draft.identity, unique.length);
      slotOf.push(unique.length);
      lastOf.push(index);
      unique.push(draft);
    } else {
      const id = unique[slot].id ?? draft.id;
      unique[slot] = id === undefined ? draft : { ...draft, id };
      slotOf.push(slot);
      lastOf[slot] = index;
    }
  });
  return { unique, slotOf, lastOf };
}

/**
 * The result of each draft of a batch from the result of each identity (`bySlot`, as
 * {@linkcode dedupeDrafts} numbers them): every draft of an identity answers with the same stored
 * note; the first one carries its status, later ones are `unchanged`, so that the statuses count
 * each note once (`written` counts the notes really created).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { answerDrafts } from "./drafts.ts";
 *
 * const note = {
 *   id: "n1", title: "t", body: "b", labels: [], hash: "h",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 1,
 * };
 * const results = answerDrafts([0, 0], [{ status: "written", note }]);
 * assert.deepEqual(results.map((r) => r.status), ["written", "unchanged"]);
 * assert.equal(results[1].note, note);
 * ```
 */
export function answerDrafts(
  slotOf: readonly number[],
  bySlot: readonly { status: CloudWriteResult["status"]; note: CloudNote }[],
): CloudWriteResult[] {
  const answered = new Set<number>();
  return slotOf.map((slot) => {
    const { status, note } = bySlot[slot];
    if (answered.has(slot)) return { status: "unchanged", note };
    answered.add(slot);
    return { status, note };
  });
}
