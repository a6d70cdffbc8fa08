/**
 * The `notes.md` codec: how a note is written as its section of `.memo/memory/notes.md` (a marker
 * line `<!-- memo:note {…} -->` holding the note's JSON, a `## title` line, the body and a blank
 * line), a file meant to be read, edited and diffed by people. The format is specified in
 * docs/notes-format.md; reading it back is `parse.ts`.
 *
 * @module
 */

import type { Note } from "../notes/note.ts";
import { writeHistoryKeys } from "./_history_marker.ts";

/**
 * What every marker line starts with.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NOTE_MARKER_START } from "@memo/memory";
 * assert.ok("<!-- memo:note {} -->".startsWith(NOTE_MARKER_START));
 * ```
 */
export const NOTE_MARKER_START = "<!-- memo:note";
/** What a marker line, or a body line that must be escaped, starts with. */
export const ESCAPABLE = "<!-- memo:";

/**
 * The text memo writes at the top of a new `notes.md`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NOTES_PREAMBLE } from "@memo/memory";
 * assert.ok(NOTES_PREAMBLE.startsWith("# Memory\n"));
 * ```
 */
export const NOTES_PREAMBLE: string = "# Memory\n\n" +
  "Notes kept by memo. Each note is a memo marker comment, a `## title` line and its body.\n" +
  "Edit the titles and bodies freely; keep each marker line above its title.\n\n";

/**
 * Escapes a body: each line starting with optional backslashes and `<!-- memo:`, or with optional
 * backslashes and one of git's conflict markers (seven `<`, `|`, `=` or `>`, then a space or the
 * line's end), gets one more leading backslash. So an unescaped conflict-marker line in
 * `notes.md` can only come from git.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { escapeBody } from "@memo/memory";
 * assert.equal(escapeBody("a\n<!-- memo:note {} -->"), "a\n\\<!-- memo:note {} -->");
 * assert.equal(escapeBody("<<<<<<< HEAD\n=======\n>>>>>>> b"), "\\<<<<<<< HEAD\n\\=======\n\\>>>>>>> b");
 * assert.equal(escapeBody("Title\n========"), "Title\n========"); // not a marker: eight
 * assert.equal(escapeBody("plain text"), "plain text");
 * ```
 */
export function escapeBody(body: string): string {
  if (body.includes(ESCAPABLE)) body = body.replace(/^(\\*<!-- memo:)/gm, "\\$1");
  if (!mayHoldConflictLine(body)) return body;
  return body.replace(CONFLICT_LINE, "\\$1");
}

/**
 * Reverses {@linkcode escapeBody}: removes one leading backslash from each line that starts with
 * backslashes and `<!-- memo:` or a conflict marker.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { escapeBody, unescapeBody } from "@memo/memory";
 * assert.equal(unescapeBody("\\\\<!-- memo:x"), "\\<!-- memo:x");
 * const body = "a\n\\<!-- memo:note {} -->\n=======";
 * assert.equal(unescapeBody(escapeBody(body)), body);
 * ```
 */
export function unescapeBody(text: string): string {
  if (!text.includes("\\")) return text;
  if (text.includes(ESCAPABLE)) text = text.replace(/^\\(\\*<!-- memo:)/gm, "$1");
  if (!mayHoldConflictLine(text)) return text;
  return text.replace(ESCAPED_CONFLICT_LINE, "$1");
}

/** A body line that reads as a git conflict marker, with the backslashes before it. */
const CONFLICT_LINE = /^(\\*(?:<{7}|\|{7}|={7}|>{7})(?![^ \r\n]))/gm;
const ESCAPED_CONFLICT_LINE = /^\\(\\*(?:<{7}|\|{7}|={7}|>{7})(?![^ \r\n]))/gm;

/** A quick test before the regular expressions: whether any marker's seven characters occur. */
function mayHoldConflictLine(text: string): boolean {
  return text.includes("<<<<<<<") || text.includes("=======") || text.includes(">>>>>>>") ||
    text.includes("|||||||");
}

/**
 * Formats a note's marker line (without the line break).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatNoteMarker } from "@memo/memory";
 * const line = formatNoteMarker({
 *   id: "a1", title: "t", body: "b", labels: ["x-->y"], hash: "0123abcd",
 *   created: "2025-01-01T00:00:00.000Z", updated: "2025-01-01T00:00:00.000Z",
 * });
 * assert.ok(line.startsWith('<!-- memo:note {"id":"a1",'));
 * assert.ok(line.includes("x--\\u003ey")); // "-->" in a label cannot end the comment
 * ```
 */
export function formatNoteMarker(note: Note): string {
  const meta: Record<string, unknown> = { id: note.id };
  if (note.source !== undefined) meta.source = note.source;
  meta.hash = note.hash;
  meta.labels = note.labels;
  meta.created = note.created;
  meta.updated = note.updated;
  writeHistoryKeys(meta, note);
  const json = JSON.stringify(meta).replace(/--(!?)>/g, "--$1\\u003e");
  return `${NOTE_MARKER_START} ${json} -->`;
}

/**
 * Serializes one note as its section: marker line, `## title` line, escaped body and a blank
 * line. {@linkcode parseNotes} reads it back as the same note.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseNotes, serializeNote } from "@memo/memory";
 * const note = {
 *   id: "a1", title: "Hello", body: "line\n<!-- memo:note fake -->", labels: [], hash: "0123abcd",
 *   created: "2025-01-01T00:00:00.000Z", updated: "2025-01-01T00:00:00.000Z",
 * };
 * const text = serializeNote(note);
 * assert.ok(text.includes("\n\\<!-- memo:note fake -->\n")); // the marker-like line is escaped
 * assert.equal(parseNotes(text).sections[0].note?.body, note.body);
 * ```
 */
export function serializeNote(note: Note): string {
  const title = note.title.replace(/[\r\n]+/g, " ");
  return `${formatNoteMarker(note)}\n## ${title}\n${escapeBody(note.body)}\n\n`;
}
