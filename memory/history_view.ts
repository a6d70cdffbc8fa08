/**
 * {@linkcode HistoryView}, the notes the history writes of `history_writes.ts` plan over, and
 * {@linkcode mirrorView}, a `Memo` client's (its mirror of every note).
 *
 * @module
 */

import { normalizeNoteText, type Note } from "./notes/note.ts";
import type { NoteMirror } from "./_note_mirror.ts";
import { textKey } from "./notes/text_key.ts";

/**
 * What a correction, a supersede link or a draft's link check must read, besides the notes the
 * view holds already: the notes of `ids` (and every note their `supersedes` lead to), the notes
 * with the same text as `text` (no source key), and the last note with source key `source`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { HistoryNeeds } from "@memo/memory";
 * const needs: HistoryNeeds = { ids: ["a1"], text: "Deploys run on Mondays" };
 * assert.equal(needs.ids.length, 1);
 * ```
 */
export interface HistoryNeeds {
  /** Notes named (their `supersedes` chains are read with them). */
  ids: readonly string[];
  /** A text whose stored twins are looked up (the notes without a source key). */
  text?: string;
  /** A source key whose note is looked up. */
  source?: string;
}

/**
 * The notes the write operations plan over (internal to memo's runtimes): a `Memo` client's
 * mirror of every note, or a store's targeted reads of only the notes a write needs (the cloud
 * on PostgreSQL). Planning reads it synchronously after {@linkcode HistoryView.sync}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Note, HistoryView } from "@memo/memory";
 * const notes = new Map<string, Note>();
 * const view: HistoryView = {
 *   sync: () => Promise.resolve(),
 *   get: (id) => notes.get(id),
 *   sameText: () => undefined,
 *   bySource: () => undefined,
 *   withLinks: (note) => note,
 * };
 * assert.equal(view.get("a1"), undefined);
 * ```
 */
export interface HistoryView {
  /**
   * Brings the view up to the store now, holding at least what `needs` names (a view of every
   * note ignores it); without `needs`, after a write, only catches up.
   */
  sync(needs?: HistoryNeeds): Promise<void>;
  /** A note as stored (`undefined`: unknown, or not among the notes read). */
  get(id: string): Note | undefined;
  /**
   * The note without a source key whose text normalises as `body` does (a `sync` need): the
   * first current one (not superseded), or with `any` the first one, in store order.
   */
  sameText(body: string, any?: boolean): Note | undefined;
  /** The last note with source key `source`, in store order (a `sync` need). */
  bySource(source: string): Note | undefined;
  /** The note with its derived `supersededBy`, as far as the view knows it. */
  withLinks(note: Note): Note;
}

/**
 * The {@linkcode HistoryView} of a `Memo` client: its mirror of every note.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mirrorView } from "./history_view.ts";
 * assert.equal(typeof mirrorView, "function");
 * ```
 */
export function mirrorView(mirror: NoteMirror): HistoryView {
  return {
    sync: () => mirror.sync(),
    get: (id) => mirror.get(id),
    sameText: (body, any) => sameText(mirror, body, any),
    bySource: (source) => {
      let found: Note | undefined;
      for (const n of mirror.notes.values()) if (n.source === source) found = n;
      return found;
    },
    withLinks: (note) => mirror.withLinks(note),
  };
}

const textKeys = new WeakMap<Note, number>();

/**
 * A note without a source key whose text normalises as `body` does: a current one (not
 * superseded: that is history), or with `any` the first one, as the store's identity finds it.
 */
function sameText(mirror: NoteMirror, body: string, any = false): Note | undefined {
  const key = textKey(body);
  let text: string | undefined;
  for (const note of mirror.notes.values()) {
    if (note.source !== undefined || (!any && mirror.supersededBy(note.id))) continue;
    let k = textKeys.get(note);
    if (k === undefined) textKeys.set(note, k = textKey(note.body));
    if (k !== key) continue;
    text ??= normalizeNoteText(body);
    if (normalizeNoteText(note.body) === text) return note;
  }
  return undefined;
}
