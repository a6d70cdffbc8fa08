/**
 * What a history write checks and reads before it lands: the `supersedes` links it adds (each
 * names a stored note, and none closes a cycle) and the hashes of the notes it read, which the
 * write expects unchanged.
 *
 * @module
 */

import { MemoryValidationError } from "./errors.ts";
import type { Note } from "./notes/note.ts";
import { checkSupersedes } from "./history/history.ts";
import type { NoteMirror } from "./_note_mirror.ts";
import type { HistoryView } from "./history_view.ts";

/** Looks notes up by id (a view, or a mirror). */
export type NoteLookup = Pick<HistoryView, "get">;

/**
 * Checks the links a write adds: every id it adds to a note's `supersedes` must name a stored
 * note, and none may close a cycle (or name the note itself). Ids the note named already are
 * left alone (a link may name a note forgotten since). Throws `MemoryValidationError`.
 */
function checkAdded(
  mirror: NoteLookup,
  id: string,
  before: readonly string[],
  after: readonly string[],
  action: string,
): void {
  for (const target of after) {
    if (before.includes(target) || target === id) continue;
    if (!mirror.get(target)) {
      throw new MemoryValidationError(`Cannot ${action}: supersedes names unknown note ${target}`, {
        details: { id, supersedes: target },
      });
    }
  }
  const known = after.filter((t) => t === id || mirror.get(t));
  checkSupersedes(id, known, {
    supersedesOf: (other) => {
      const n = mirror.get(other);
      return other === id ? [...after] : n ? n.supersedes ?? [] : undefined;
    },
  }, action);
}

/**
 * The checks of `Memo.remember` for a draft that names `supersedes`, before anything is written:
 * the ids it adds must be stored notes, and the note the draft becomes (a new one, or the stored
 * note with the same source key or text) must not supersede itself or close a cycle.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * const { note } = await memo.remember({ text: "Deploys run on Fridays" });
 * await assert.rejects(memo.remember({ text: "Deploys run on Fridays", supersedes: [note.id] }), /itself/);
 * await assert.rejects(memo.remember({ text: "Mondays", supersedes: ["nope"] }), /unknown note nope/);
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function checkDraftLinks(
  parts: { view: HistoryView },
  draft: { text: string; source?: string; supersedes?: readonly string[] },
): Promise<void> {
  if (!draft.supersedes?.length) return;
  const { view } = parts;
  const list = [...new Set(draft.supersedes)];
  const source = typeof draft.source === "string" && draft.source.trim() !== ""
    ? draft.source.trim()
    : undefined;
  const text = source === undefined && typeof draft.text === "string" ? draft.text : undefined;
  await view.sync({ ids: list, text, source });
  let twin: Note | undefined;
  if (source !== undefined) twin = view.bySource(source);
  else if (text !== undefined) twin = view.sameText(text, true);
  const id = twin?.id ?? "\u0000new";
  const before = twin?.supersedes ?? [];
  checkAdded(
    view,
    id,
    before,
    [...before, ...list.filter((t) => !before.includes(t))],
    "store note",
  );
}

/**
 * The checks of `Memo.update` for a patch that sets `supersedes` (see `checkDraftLinks`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * const { note: a } = await memo.remember({ text: "Deploys run on Fridays" });
 * const { note: b } = await memo.remember({ text: "Deploys run on Mondays", supersedes: [a.id] });
 * await assert.rejects(memo.update(a.id, { supersedes: [b.id] }), /cycle/);
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function checkPatchLinks(
  parts: { mirror: NoteMirror },
  id: string,
  supersedes: readonly string[] | undefined,
): Promise<void> {
  if (!Array.isArray(supersedes) || !supersedes.length) return;
  const { mirror } = parts;
  await mirror.sync();
  const note = mirror.get(id);
  if (!note) return; // the update reports the unknown id
  checkAdded(mirror, id, note.supersedes ?? [], [...new Set(supersedes)], "update note");
}

/** The chain check over the notes, with `changed` notes in place of theirs. */
export function checkChain(
  mirror: NoteLookup,
  note: Note,
  changed: readonly Note[],
  action: string,
) {
  const byId = new Map(changed.map((n) => [n.id, n]));
  return checkSupersedes(note.id, note.supersedes ?? [], {
    supersedesOf: (id) => {
      const n = byId.get(id) ?? mirror.get(id);
      return n ? n.supersedes ?? [] : undefined;
    },
  }, action);
}

/** `expect` for the notes a write read: their hashes now (null for a note to be created). */
export function expectOf(mirror: NoteLookup, ids: Iterable<string>): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const id of ids) out[id] = mirror.get(id)?.hash ?? null;
  return out;
}
