/**
 * The tidy of a `Memo`: `Memo.tidy` plans the merges of near-duplicate notes over every note, and
 * `Memo.applyTidy` writes a plan's merges in one atomic write, refused when `notes.md` changed
 * since the plan was made.
 *
 * @module
 */

import { MemoryValidationError } from "./errors.ts";
import type { Note } from "./notes/note.ts";
import type { ReplicaApplyResult } from "./store/store.ts";
import { mergedKeepers, planTidy, tidyMerges } from "./tidy.ts";
import type { TidyApplyResult, TidyPlan } from "./history/types.ts";
import type { HistoryParts } from "./history_writes.ts";
import { checkChain, expectOf } from "./history_checks.ts";

/**
 * `Memo.tidy`: the plan over the notes as stored now, with the SHA-256 of `notes.md` when the
 * store can give it in the same read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * await memo.remember({ text: "Canary deploys hold at 5% of traffic for 30 minutes." });
 * await memo.remember({ text: "FYI: canary deploys hold at 5% of traffic for 30 minutes." });
 * const plan = await memo.tidy();
 * assert.equal(plan.proposals[0].kind, "merge");
 * assert.match(plan.sha256 ?? "", /^[0-9a-f]{64}$/);
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function tidyNotes(parts: HistoryParts): Promise<TidyPlan> {
  const snapshot = (parts.store as {
    snapshot?: () => Promise<{ sha256: string; notes: Note[] }>;
  }).snapshot;
  if (snapshot) {
    const { sha256, notes } = await snapshot.call(parts.store);
    return planTidy(notes, { now: parts.clock(), sha256 });
  }
  await parts.mirror.sync();
  return planTidy([...parts.mirror.notes.values()], { now: parts.clock() });
}

/**
 * `Memo.applyTidy`: the merges of a plan, in one atomic write; refused, with nothing written,
 * when `notes.md` changed since the plan was made.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * await memo.remember({ text: "Canary deploys hold at 5% of traffic for 30 minutes." });
 * await memo.remember({ text: "FYI: canary deploys hold at 5% of traffic for 30 minutes." });
 * const plan = await memo.tidy();
 * await memo.remember({ text: "Something else" }); // the plan is stale now
 * await assert.rejects(memo.applyTidy(plan), /changed since/);
 * const result = await memo.applyTidy(await memo.tidy());
 * assert.equal(result.merged, 1);
 * assert.equal((await memo.list()).total, 2);
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function applyTidyPlan(parts: HistoryParts, plan: TidyPlan): Promise<TidyApplyResult> {
  const action = "apply the tidy plan";
  const merges = tidyMerges(plan, action);
  const stale = () =>
    new MemoryValidationError(
      `Cannot ${action}: notes.md changed since the plan was made; make a new plan (memo tidy)`,
    );
  if (!merges.length) return { merged: 0, superseded: [], notes: [] };
  const { mirror } = parts;
  await mirror.sync();
  const { keepers, superseded, missing } = mergedKeepers(
    merges,
    (id) => mirror.get(id),
    parts.clock().toISOString(),
  );
  if (missing !== undefined) throw stale();
  if (!keepers.length) return { merged: 0, superseded: [], notes: [] };
  const read = new Set(merges.flatMap((m) => [m.keep, ...m.supersede]));
  for (const note of keepers) {
    for (const id of checkChain(mirror, note, keepers, action)) read.add(id);
  }
  let applied: ReplicaApplyResult;
  try {
    applied = await parts.apply({
      put: keepers,
      remove: [],
      expect: expectOf(mirror, read),
      ...(plan.sha256 !== undefined ? { expectSha256: plan.sha256 } : {}),
    });
  } catch (e) {
    if (e instanceof MemoryValidationError && /SHA-256/.test(e.message)) throw stale();
    throw e;
  }
  if (applied.stale !== undefined) throw stale();
  await mirror.sync();
  return {
    merged: keepers.length,
    superseded,
    notes: keepers.map((n) => mirror.withLinks(mirror.get(n.id) ?? n)),
  };
}
