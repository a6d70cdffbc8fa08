/**
 * Secrets already stored: finding them in notes (and in `notes.md` itself, with the line of each
 * finding, for notes edited by hand), and redacting a note the way the guard redacts a write.
 *
 * @module
 */

import { countLineBreaks, parseNotes } from "../store/parse.ts";
import { contentHash, type Note } from "../notes/note.ts";
import type { SecretField } from "./guard.ts";
import { findSecrets, mayHoldSecret, redactMatches, type SecretMatch } from "./scan.ts";

/**
 * One secret found in a stored note: the note's id, the rule, the field and the line (in
 * `notes.md` when the notes were read from it, else within the field), never the value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { SecretFinding } from "@memo/memory";
 * const finding: SecretFinding = { id: "01m8698nhy5gxsgs8mdk", rule: "github-token", field: "text", line: 12 };
 * assert.equal(Object.keys(finding).length, 4); // no value, ever
 * ```
 */
export interface SecretFinding {
  /** The note's id. */
  id: string;
  /** memo's rule id. */
  rule: string;
  /** The field it is in. */
  field: SecretField;
  /** 1-based line: in `notes.md` (see {@linkcode scanNotesText}), else within the field. */
  line: number;
}

/** A note's fields as the guard sees them: the text is the body. */
function fields(note: Note): [SecretField, string][] {
  const out: [SecretField, string][] = [["title", note.title], ["text", note.body]];
  for (const label of note.labels) out.push(["labels", label]);
  if (note.source !== undefined) out.push(["source", note.source]);
  return out;
}

/**
 * Whether a note may hold a secret (the prefilter over its fields).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { noteMayHoldSecret } from "@memo/memory";
 * const note = { id: "a", title: "t", body: "make deploy", labels: [], hash: "", created: "", updated: "" };
 * assert.equal(noteMayHoldSecret(note), false);
 * ```
 */
export function noteMayHoldSecret(note: Note): boolean {
  if (mayHoldSecret(note.title) || mayHoldSecret(note.body)) return true;
  if (note.source !== undefined && mayHoldSecret(note.source)) return true;
  return note.labels.some(mayHoldSecret);
}

/** The matches in each field of a note. */
async function noteMatches(note: Note): Promise<[SecretField, string, SecretMatch[]][]> {
  const out: [SecretField, string, SecretMatch[]][] = [];
  if (!noteMayHoldSecret(note)) return out;
  for (const [field, value] of fields(note)) {
    const matches = await findSecrets(value);
    if (matches.length) out.push([field, value, matches]);
  }
  return out;
}

/**
 * The secrets in stored notes, each with its line within the field (1 for a title, label or
 * source).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { findStoredSecrets } from "@memo/memory";
 * const note = {
 *   id: "n1", title: "CI", body: "line one\nGITLAB glpat-Zr8vQ2mW4kT9xN1pLc7H", labels: [], hash: "",
 *   created: "", updated: "",
 * };
 * assert.deepEqual(await findStoredSecrets([note]), [
 *   { id: "n1", rule: "gitlab-token", field: "text", line: 2 },
 * ]);
 * ```
 */
export async function findStoredSecrets(notes: Iterable<Note>): Promise<SecretFinding[]> {
  const out: SecretFinding[] = [];
  for (const note of notes) {
    for (const [field, value, matches] of await noteMatches(note)) {
      for (const m of matches) {
        const line = field === "text" ? 1 + countLineBreaks(value, 0, m.start) : 1;
        out.push({ id: note.id, rule: m.rule, field, line });
      }
    }
  }
  return out;
}

/**
 * The secrets in the notes of a `notes.md` text, each with its line in the file: the marker line
 * for labels and source, the title line, or the body's line. Text that is not a note (the
 * preamble, a damaged section) is not scanned.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contentHash, scanNotesText, serializeNote } from "@memo/memory";
 * const note = {
 *   id: "n1", title: "CI", body: "first\nGITLAB glpat-Zr8vQ2mW4kT9xN1pLc7H", labels: [], hash: "",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z",
 * };
 * note.hash = contentHash(note);
 * const text = "# Memory\n\n" + serializeNote(note);
 * // line 3: the marker; 4: the title; 5 and 6: the body
 * assert.deepEqual(await scanNotesText(text), [{ id: "n1", rule: "gitlab-token", field: "text", line: 6 }]);
 * ```
 */
export async function scanNotesText(text: string): Promise<SecretFinding[]> {
  const out: SecretFinding[] = [];
  let line = 1;
  for (const section of parseNotes(text).sections) {
    const note = section.note;
    if (!note) {
      // A section memo does not read as a note (the preamble, a broken marker, a second note of
      // one id) is still text in notes.md: its secrets are found, with no id.
      if (mayHoldSecret(section.raw)) {
        for (const m of await findSecrets(section.raw)) {
          out.push({
            id: "",
            rule: m.rule,
            field: "text",
            line: line + countLineBreaks(section.raw, 0, m.start),
          });
        }
      }
    } else if (note) {
      for (const [field, value, matches] of await noteMatches(note)) {
        for (const m of matches) {
          const at = field === "title"
            ? line + 1
            : field === "text"
            ? line + 2 + countLineBreaks(value, 0, m.start)
            : line;
          out.push({ id: note.id, rule: m.rule, field, line: at });
        }
      }
    }
    line += countLineBreaks(section.raw);
  }
  return out;
}

/**
 * A note with every secret in its title, body, labels and source replaced by
 * `[redacted:<rule-id>]`, its hash recomputed and `updated` set to `now`; undefined when it holds
 * none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contentHash, redactStoredNote } from "@memo/memory";
 * const note = {
 *   id: "n1", title: "CI", body: "token glpat-Zr8vQ2mW4kT9xN1pLc7H", labels: [], hash: "",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z",
 * };
 * note.hash = contentHash(note);
 * const clean = await redactStoredNote(note, new Date("2026-02-01T00:00:00.000Z"));
 * assert.equal(clean?.body, "token [redacted:gitlab-token]");
 * assert.equal(clean?.hash, contentHash(clean!));
 * assert.equal(clean?.updated, "2026-02-01T00:00:00.000Z");
 * assert.equal(await redactStoredNote(clean!, new Date()), undefined);
 * ```
 */
export async function redactStoredNote(note: Note, now: Date): Promise<Note | undefined> {
  const found = await noteMatches(note);
  if (!found.length) return undefined;
  const out: Note = { ...note, labels: [...note.labels] };
  for (const [field, value, matches] of found) {
    const clean = redactMatches(value, matches);
    if (field === "title") out.title = clean;
    else if (field === "text") out.body = clean;
    else if (field === "source") out.source = clean;
    else out.labels = out.labels.map((l) => l === value ? clean : l);
  }
  out.labels = [...new Set(out.labels)];
  out.hash = contentHash(out);
  out.updated = now.toISOString();
  return out;
}
