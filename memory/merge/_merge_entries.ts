/**
 * Internal: the note-by-note merge of three versions of a notes file (base, ours, theirs), on
 * notes paired with the exact text of their section, so that a note no side changed keeps its
 * bytes. Every choice is symmetric in ours and theirs: merging either way gives the same entries
 * in the same order.
 *
 * @module
 */

import { contentHash, type Note, noteIdentity, sameNote } from "../notes/note.ts";
import { serializeNote } from "../store/codec.ts";
import { endedCopy, resolveConflict, winsOver } from "./conflict.ts";

/** A note and the text of its section. */
export interface Entry {
  note: Note;
  raw: string;
}

/** What {@linkcode mergeEntries} returns. */
export interface MergedEntries {
  entries: Entry[];
  /** Conflict copies made. */
  conflicts: number;
  /** Notes added on both sides under two ids and kept once. */
  twins: number;
}

function entryOf(note: Note): Entry {
  return { note, raw: serializeNote(note) };
}

function timeMs(value: string): number {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? -Infinity : ms;
}

/** The smaller section text: the symmetric choice between two texts of one note. */
function smaller(a: Entry, b: Entry): Entry {
  return a.raw <= b.raw ? a : b;
}

function byId(entries: readonly Entry[]): Map<string, Entry> {
  return new Map(entries.map((e) => [e.note.id, e]));
}

/**
 * Merges three lists of notes by the shared rule (see `merge_notes.ts`). `base` is empty for a
 * two-way merge.
 */
export function mergeEntries(
  base: readonly Entry[],
  ours: readonly Entry[],
  theirs: readonly Entry[],
): MergedEntries {
  const B = byId(base), O = byId(ours), T = byId(theirs);
  const kept = new Map<string, Entry>();
  const copies: { copy: Note; of: string }[] = [];
  let twins = 0;

  /** Two versions of one id, both changed (or both added). */
  const reconcile = (o: Entry, t: Entry, b?: Entry): Entry => {
    if (o.raw === t.raw) return o;
    if (b) {
      if (o.raw === b.raw) return t;
      if (t.raw === b.raw) return o;
    }
    if (sameNote(o.note, t.note)) return smaller(o, t);
    if (b) {
      if (sameNote(o.note, b.note)) return t; // ours only reformatted
      if (sameNote(t.note, b.note)) return o;
    }
    if (contentHash(o.note) === contentHash(t.note) && o.note.source === t.note.source) {
      // The same edit on both sides, at two times: one note, the later, and no conflict copy (a
      // replication, which compares content hashes, makes none either).
      if (timeMs(o.note.updated) === timeMs(t.note.updated)) return smaller(o, t);
      return winsOver(o.note, t.note) ? o : t;
    }
    if (!b && noteIdentity(o.note) === noteIdentity(t.note)) {
      // One note added on both sides: the later version, no conflict copy.
      return winsOver(o.note, t.note) ? o : t;
    }
    const { winner, copy } = resolveConflict(o.note, t.note);
    if (copy) copies.push({ copy, of: o.note.id });
    return winner === o.note ? o : t;
  };

  for (const b of base) {
    const id = b.note.id;
    const o = O.get(id), t = T.get(id);
    if (!o && !t) continue; // forgotten on both sides
    if (!o || !t) {
      // Forgotten on one side: gone, unless the other side edited it (an edit beats a forget).
      const other = (o ?? t)!;
      if (!sameNote(other.note, b.note)) kept.set(id, other);
      continue;
    }
    kept.set(id, reconcile(o, t, b));
  }

  // Added notes: the same id on both sides, then twins by identity, then one side's adds.
  const onlyO = new Map<string, Entry[]>();
  const onlyT = new Map<string, Entry[]>();
  const group = (into: Map<string, Entry[]>, e: Entry) => {
    const key = noteIdentity(e.note);
    const list = into.get(key);
    if (list) list.push(e);
    else into.set(key, [e]);
  };
  for (const o of ours) {
    const id = o.note.id;
    if (B.has(id)) continue;
    const t = T.get(id);
    if (t) kept.set(id, reconcile(o, t));
    else group(onlyO, o);
  }
  for (const t of theirs) {
    if (!B.has(t.note.id) && !O.has(t.note.id)) group(onlyT, t);
  }
  const added: Entry[] = [];
  for (const [key, list] of onlyO) {
    const others = onlyT.get(key);
    if (!others) {
      added.push(...list);
      continue;
    }
    list.sort((x, y) => x.note.id < y.note.id ? -1 : 1);
    others.sort((x, y) => x.note.id < y.note.id ? -1 : 1);
    const [o, ...restO] = list;
    const [t, ...restT] = others;
    added.push(...restO, ...restT, twin(o, t));
    onlyT.delete(key);
    twins++;
  }
  for (const list of onlyT.values()) added.push(...list);
  for (const e of added) kept.set(e.note.id, e);

  // Conflict copies: each once, never over a note that holds its id already, and never a live
  // note for a fact that either side superseded.
  const superseded = new Set<string>();
  for (const side of [ours, theirs, [...kept.values()]]) {
    for (const e of side) for (const s of e.note.supersedes ?? []) superseded.add(s);
  }
  let conflicts = 0;
  for (const { copy, of } of copies) {
    if (kept.has(copy.id)) continue;
    const note = superseded.has(of) && copy.validUntil === undefined
      ? endedCopy(copy, copy.updated)
      : copy;
    kept.set(note.id, entryOf(note));
    conflicts++;
  }

  // Order: the base's notes that remain, in the base's order, then the others by created and id.
  const entries: Entry[] = [];
  for (const b of base) {
    const e = kept.get(b.note.id);
    if (e) {
      entries.push(e);
      kept.delete(b.note.id);
    }
  }
  const rest = [...kept.values()].sort((x, y) => {
    const dt = timeMs(x.note.created) - timeMs(y.note.created);
    if (dt) return dt;
    if (x.note.created !== y.note.created) return x.note.created < y.note.created ? -1 : 1;
    return x.note.id < y.note.id ? -1 : x.note.id > y.note.id ? 1 : 0;
  });
  entries.push(...rest);
  return { entries, conflicts, twins };
}

/**
 * One note added on both sides under two ids: the smaller id, the earlier `created`, and the
 * content of the later `updated` (tie: the larger content hash, then the smaller id).
 */
function twin(o: Entry, t: Entry): Entry {
  const [first, second] = o.note.id < t.note.id ? [o, t] : [t, o];
  const content = winsOver(second.note, first.note) ? second : first;
  const created = timeMs(second.note.created) < timeMs(first.note.created)
    ? second.note.created
    : first.note.created;
  if (content === first && created === first.note.created) return first;
  const { supersededBy: _derived, ...stored } = content.note;
  const note: Note = { ...stored, id: first.note.id, created };
  note.hash = contentHash(note);
  return entryOf(note);
}
