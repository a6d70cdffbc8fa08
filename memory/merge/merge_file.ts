/**
 * The merge of three versions of a `notes.md` file: what the git merge driver (`memo merge-file`)
 * writes. The notes merge by {@linkcode mergeNotes}'s rule; a note that neither side changed keeps
 * its bytes; the free text above the first note merges as text, as `git merge-file` would, and
 * where both sides changed it differently, the side that sorts first bytewise is kept. Merging A
 * into B and B into A give byte-identical files.
 *
 * @module
 */

import { type ParsedNotes, parseNotes } from "../store/parse.ts";
import { type Entry, mergeEntries } from "./_merge_entries.ts";
import { mergeText } from "./_text_merge.ts";
import type { NotesMergeResult } from "./merge_notes.ts";

/**
 * The three texts {@linkcode mergeNotesFiles} merges.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeNotesFiles, type NotesFileSides } from "@memo/memory";
 * const sides: NotesFileSides = { base: "", ours: "# Memory\n", theirs: "# Memory\n" };
 * assert.deepEqual(mergeNotesFiles(sides), { ok: true, text: "# Memory\n", conflicts: 0, twins: 0 });
 * ```
 */
export interface NotesFileSides {
  /** The common ancestor's text; empty when there is none (a two-way merge). */
  base: string;
  /** One side's text. */
  ours: string;
  /** The other side's text. */
  theirs: string;
}

/**
 * What {@linkcode mergeNotesFiles} returns: the merged text, or the side that cannot be read as
 * notes (a damaged note or an id used twice), so that the caller can fall back to a text merge.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeNotesFiles, type NotesFileMerge } from "@memo/memory";
 * const result: NotesFileMerge = mergeNotesFiles({
 *   base: "", ours: "<!-- memo:note {broken -->\n", theirs: "",
 * });
 * assert.equal(result.ok, false);
 * if (!result.ok) assert.equal(result.side, "ours");
 * ```
 */
export type NotesFileMerge =
  | ({ ok: true; text: string } & Pick<NotesMergeResult, "conflicts" | "twins">)
  | { ok: false; side: "base" | "ours" | "theirs"; reason: string };

/** A side as the merge sees it: its header and its notes with their section texts. */
function read(
  text: string,
  reuse?: ParsedNotes["byId"],
): { header: string; entries: Entry[]; byId: ParsedNotes["byId"] } | string {
  const { sections, issues, byId } = parseNotes(text, { reuse });
  if (issues.length) return `line ${issues[0].line}: ${issues[0].message}`;
  const header = sections.length && !sections[0].note ? sections[0].raw : "";
  const entries: Entry[] = [];
  for (const s of sections) if (s.note) entries.push({ note: s.note, raw: s.raw });
  return { header, entries, byId };
}

/**
 * What {@linkcode mergeNotesFileParts} returns: the merged text as consecutive pieces (joined,
 * they are {@linkcode mergeNotesFiles}'s `text`), so that a caller writing 100 MB need not build
 * one string of it first.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeNotesFileParts, type NotesFileMergeParts } from "@memo/memory";
 * const result: NotesFileMergeParts = mergeNotesFileParts({ base: "", ours: "# A\n", theirs: "# A\n" });
 * assert.ok(result.ok);
 * if (result.ok) assert.equal(result.parts.join(""), "# A\n");
 * ```
 */
export type NotesFileMergeParts =
  | ({ ok: true; parts: string[] } & Pick<NotesMergeResult, "conflicts" | "twins">)
  | { ok: false; side: "base" | "ours" | "theirs"; reason: string };

/**
 * {@linkcode mergeNotesFiles}, its text given as pieces to write one after the other.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeNotesFileParts, mergeNotesFiles, NOTES_PREAMBLE, serializeNote } from "@memo/memory";
 * const note = (id: string) => serializeNote({
 *   id, title: id, body: id, labels: [], hash: "0123abcd",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z",
 * });
 * const sides = { base: NOTES_PREAMBLE, ours: NOTES_PREAMBLE + note("n1"), theirs: NOTES_PREAMBLE + note("n2") };
 * const merged = mergeNotesFileParts(sides);
 * assert.ok(merged.ok);
 * const whole = mergeNotesFiles(sides);
 * assert.ok(whole.ok);
 * assert.equal(merged.parts.join(""), whole.text);
 * ```
 */
export function mergeNotesFileParts(sides: NotesFileSides): NotesFileMergeParts {
  // A note unchanged on a side is parsed once: the sides reuse the base's notes (and theirs,
  // ours' new ones); a damaged section is never reused, so each side reports its own.
  const base0 = read(sides.base);
  const known = typeof base0 === "string" ? undefined : base0.byId;
  const ours0 = read(sides.ours, known);
  const parsed = {
    base: base0,
    ours: ours0,
    theirs: read(sides.theirs, typeof ours0 === "string" ? known : ours0.byId),
  };
  for (const side of ["base", "ours", "theirs"] as const) {
    const p = parsed[side];
    if (typeof p === "string") return { ok: false, side, reason: p };
  }
  const base = parsed.base as Exclude<typeof parsed.base, string>;
  const ours = parsed.ours as Exclude<typeof parsed.ours, string>;
  const theirs = parsed.theirs as Exclude<typeof parsed.theirs, string>;
  const merged = mergeEntries(base.entries, ours.entries, theirs.entries);
  let text = mergeText(base.header, ours.header, theirs.header);
  if (text !== "" && !text.endsWith("\n") && merged.entries.length) text += "\n";
  const parts = [text];
  for (const e of merged.entries) parts.push(e.raw.endsWith("\n") ? e.raw : e.raw + "\n");
  return { ok: true, parts, conflicts: merged.conflicts, twins: merged.twins };
}

/**
 * Merges three versions of a `notes.md` text (see the module doc). Pure; `ok: false` names the
 * first side that cannot be parsed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeNotesFiles, NOTES_PREAMBLE, serializeNote } from "@memo/memory";
 * const note = (id: string, body: string) => serializeNote({
 *   id, title: body, body, labels: [], hash: "0123abcd",
 *   created: `2026-01-0${id.slice(1)}T00:00:00.000Z`, updated: `2026-01-0${id.slice(1)}T00:00:00.000Z`,
 * });
 * const base = NOTES_PREAMBLE + note("n1", "Deploys run on Fridays");
 * const ours = base + note("n2", "bob says the queue is kafka");
 * const theirs = base + note("n3", "alice says the cache is redis");
 * const merged = mergeNotesFiles({ base, ours, theirs });
 * assert.ok(merged.ok);
 * assert.equal(merged.text, base + note("n2", "bob says the queue is kafka") +
 *   note("n3", "alice says the cache is redis"));
 * assert.deepEqual(mergeNotesFiles({ base, ours: theirs, theirs: ours }), merged); // both ways
 * ```
 */
export function mergeNotesFiles(sides: NotesFileSides): NotesFileMerge {
  const merged = mergeNotesFileParts(sides);
  if (!merged.ok) return merged;
  const { parts, conflicts, twins } = merged;
  return { ok: true, text: parts.join(""), conflicts, twins };
}
