/**
 * The `notes.md` codec: how notes are written to and read from
 * `.memo/memory/notes.md`, a file meant to be read, edited and diffed by people.
 *
 * ## Format
 *
 * The file is UTF-8 markdown. Each note is one section of three parts:
 *
 * ```md
 * <!-- memo:note {"id":"01j9…","source":"github:o/r/discussions/42","hash":"…","labels":["ops"],"created":"2025-01-02T03:04:05.000Z","updated":"2025-01-02T03:04:05.000Z"} -->
 * ## Deploys run with make deploy
 * The body: any markdown, any number of lines.
 *
 * ```
 *
 * 1. **The marker line** starts with `<!-- memo:note `, holds one JSON object and ends with
 *    ` -->`. Keys, in this order: `id` (required, `[0-9a-z][0-9a-z_-]*`), `source` (only when the
 *    note has a source key), `hash` (content hash of title, body and labels, and of the history
 *    keys when present), `labels`, `created` and `updated` (ISO 8601), then, only when set,
 *    `supersedes` (ids of the notes this one replaces), `validFrom` and `validUntil` (ISO date or
 *    date-time: when the fact holds, `[validFrom, validUntil)`). A malformed history key makes
 *    the note damaged, as a malformed label list does. In the JSON text every `-->` (and `--!>`) is written with `>` as
 *    `\u003e`, so a label or a source key can never close the comment.
 * 2. **The title line**: `## ` and the title. Blank lines between the marker and the title
 *    (left by a hand edit) are skipped; memo itself never writes them.
 * 3. **The body**, then one blank line. The body runs until the next marker line (or the end of
 *    the file); the final line break and one blank line after it are not part of the body.
 *
 * **Escaping.** A body line that itself starts with `<!-- memo:` (after any number of
 * backslashes) is written with one extra leading backslash, and read back with one removed, so
 * a body can quote a marker without starting a new note.
 *
 * **What is kept.** Text before the first marker (the preamble, `# Memory` and a short note when
 * memo creates the file) is kept byte for byte; so is every section the parser does not change:
 * hand edits, CRLF line ends and damaged sections. A damaged section (a marker that is not valid
 * JSON, has no valid id, or is not followed by a `## ` title line) and a second section with an
 * id already seen are reported as `StoreIssue`s with their line number and kept
 * verbatim; the notes around them load. A marker line ending in CRLF marks a CRLF section, whose
 * trailing `\r\n\r\n` is stripped instead of `\n\n`.
 *
 * **Hashes.** The `hash` in a marker is the one memo computed when it last wrote the note; a
 * hand edit of the body does not need to change it (a marker without `hash` gets one computed).
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
 * Escapes a body: each line starting with optional backslashes and `<!-- memo:` gets one more
 * leading backslash.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { escapeBody } from "@memo/memory";
 * assert.equal(escapeBody("a\n<!-- memo:note {} -->"), "a\n\\<!-- memo:note {} -->");
 * assert.equal(escapeBody("plain text"), "plain text");
 * ```
 */
export function escapeBody(body: string): string {
  if (!body.includes(ESCAPABLE)) return body;
  return body.replace(/^(\\*<!-- memo:)/gm, "\\$1");
}

/**
 * Reverses {@linkcode escapeBody}: removes one leading backslash from each line that starts with
 * backslashes and `<!-- memo:`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { escapeBody, unescapeBody } from "@memo/memory";
 * assert.equal(unescapeBody("\\\\<!-- memo:x"), "\\<!-- memo:x");
 * const body = "a\n\\<!-- memo:note {} -->";
 * assert.equal(unescapeBody(escapeBody(body)), body);
 * ```
 */
export function unescapeBody(text: string): string {
  if (!text.includes(ESCAPABLE)) return text;
  return text.replace(/^\\(\\*<!-- memo:)/gm, "$1");
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
