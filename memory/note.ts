/**
 * The note model: what one section of `.memo/memory/notes.md` holds, and the
 * helpers that normalise input, derive titles and compute content hashes.
 *
 * @module
 */

import { createHash, randomBytes } from "node:crypto";
import { MemoryValidationError } from "./errors.ts";

/**
 * One stored note.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contentHash, type Note, noteIdentity } from "@memo/memory";
 * const note: Note = {
 *   id: "01jq3v7k9x0000000000",
 *   title: "Deploys",
 *   body: "Run `make deploy` from main.",
 *   labels: ["ops"],
 *   source: "github:acme/app/discussions/42",
 *   hash: "",
 *   created: "2025-01-01T00:00:00.000Z",
 *   updated: "2025-01-01T00:00:00.000Z",
 * };
 * note.hash = contentHash(note);
 * assert.equal(noteIdentity(note), "source:github:acme/app/discussions/42");
 * ```
 */
export interface Note {
  /** Stable id, unique within the store (lower-case, time-sortable). */
  id: string;
  /** One-line title (the `## title` line of the section). */
  title: string;
  /** Markdown body; any text, including lines that look like markers. */
  body: string;
  /** Labels, de-duplicated, in the order they were first given. */
  labels: string[];
  /** Source key, e.g. `github:owner/repo/discussions/42` or `notion:page/<id>`. */
  source?: string;
  /** Content hash of title, body and labels (see {@linkcode contentHash}). */
  hash: string;
  /** ISO 8601 time the note was created. */
  created: string;
  /** ISO 8601 time the note was last changed. */
  updated: string;
}

/**
 * What a caller gives to create a note (or to update the note with the same identity).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type NoteDraft, prepareDraft } from "@memo/memory";
 * const draft: NoteDraft = {
 *   text: "# Deploys\nRun `make deploy` from main.",
 *   labels: ["ops", "ops"],
 *   source: "github:acme/app/discussions/42",
 * };
 * const prepared = prepareDraft(draft);
 * assert.equal(prepared.title, "Deploys"); // derived from the first line
 * assert.deepEqual(prepared.labels, ["ops"]);
 * assert.equal(prepared.source, "github:acme/app/discussions/42");
 * ```
 */
export interface NoteDraft {
  /** The note's markdown text. Must not be empty. */
  text: string;
  /** Title; derived from the first line of `text` when missing or empty. */
  title?: string;
  /** Labels. */
  labels?: readonly string[];
  /** Source key; notes with the same key are the same note. */
  source?: string;
  /** Creation time to record (for example an upstream item's); defaults to now. */
  created?: string;
  /** Update time to record; defaults to now. */
  updated?: string;
  /**
   * Id of the note when the draft creates one (replicas keep ids across machines); must match
   * {@linkcode NOTE_ID_PATTERN}. Ignored when the draft's identity matches a stored note (that
   * note keeps its id); when another note already holds the id, the new note gets a fresh one.
   * @default a new id (see {@linkcode newNoteId})
   */
  id?: string;
}

/**
 * A partial change to an existing note.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type NotePatch, openMemo } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * const { note } = await memo.remember({ text: "Deploys run on Fridays" });
 * const patch: NotePatch = { text: "Deploys run on Mondays", labels: ["ops"] };
 * const updated = await memo.update(note.id, patch);
 * assert.equal(updated.body, "Deploys run on Mondays");
 * assert.deepEqual(updated.labels, ["ops"]);
 * assert.equal(updated.title, note.title); // not in the patch: kept
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface NotePatch {
  /** New body text. */
  text?: string;
  /** New title. */
  title?: string;
  /** New labels (replaces the old ones). */
  labels?: readonly string[];
  /**
   * Update time to record; defaults to now. An ISO 8601 time, kept canonical (`toISOString`), as
   * the `updated` of a {@linkcode NoteDraft}. A patch that changes nothing leaves the note as it
   * is, whatever this says.
   */
  updated?: string;
}

/**
 * Longest derived title, in characters.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { deriveTitle, MAX_DERIVED_TITLE_LENGTH } from "@memo/memory";
 * const title = deriveTitle("word ".repeat(40));
 * assert.ok(title.endsWith("…")); // cut at a word boundary
 * assert.ok(Array.from(title).length <= MAX_DERIVED_TITLE_LENGTH + 1);
 * ```
 */
export const MAX_DERIVED_TITLE_LENGTH = 80;

/**
 * Computes the content hash of a note: SHA-256 over its title, body and sorted
 * labels, as 32 lower-case hex characters.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contentHash } from "@memo/memory";
 * const h = contentHash({ title: "t", body: "b", labels: ["x", "y"] });
 * assert.match(h, /^[0-9a-f]{32}$/);
 * assert.equal(contentHash({ title: "t", body: "b", labels: ["y", "x"] }), h); // labels sorted
 * ```
 */
export function contentHash(
  note: { title: string; body: string; labels: readonly string[] },
): string {
  const labels = [...note.labels].sort();
  return createHash("sha256")
    .update(JSON.stringify([note.title, note.body, labels]))
    .digest("hex")
    .slice(0, 32);
}

/**
 * Whether two notes are the same in every field (id, hash, title, body,
 * labels in order, source and both times): what a replica compares before
 * writing a note it received.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Note, sameNote } from "@memo/memory";
 * const note: Note = {
 *   id: "n1", title: "Deploys", body: "Run make deploy.", labels: ["ops"], hash: "h",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z",
 * };
 * assert.equal(sameNote(note, { ...note, labels: ["ops"] }), true);
 * assert.equal(sameNote(note, { ...note, updated: "2026-01-02T00:00:00.000Z" }), false);
 * ```
 */
export function sameNote(a: Note, b: Note): boolean {
  return a.id === b.id && a.hash === b.hash && a.title === b.title && a.body === b.body &&
    a.source === b.source && a.created === b.created && a.updated === b.updated &&
    a.labels.length === b.labels.length && a.labels.every((l, i) => l === b.labels[i]);
}

/**
 * The identity used for dedupe: the source key when there is one, else the
 * content hash.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { noteIdentity } from "@memo/memory";
 * assert.equal(noteIdentity({ source: "notion:page/1", hash: "ab" }), "source:notion:page/1");
 * assert.equal(noteIdentity({ hash: "ab" }), "hash:ab");
 * ```
 */
export function noteIdentity(note: { source?: string; hash: string }): string {
  return note.source ? `source:${note.source}` : `hash:${note.hash}`;
}

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

/**
 * Creates a new note id: 10 characters of millisecond time and 10 random
 * characters, Crockford base32, lower case. Ids sort by creation time.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { newNoteId, NOTE_ID_PATTERN } from "@memo/memory";
 * const id = newNoteId(new Date());
 * assert.equal(id.length, 20);
 * assert.match(id, NOTE_ID_PATTERN);
 * assert.ok(newNoteId(new Date(0)) < id); // ids sort by creation time
 * ```
 */
export function newNoteId(now: Date = new Date()): string {
  const ms = Math.max(0, Math.floor(now.getTime()));
  if (ms !== idTime.ms || idTime.head === "") {
    let time = ms;
    let head = "";
    for (let i = 0; i < 10; i++) {
      head = CROCKFORD[time % 32] + head;
      time = Math.floor(time / 32);
    }
    idTime.ms = ms;
    idTime.head = head;
  }
  if (idRandom.at + 10 > idRandom.bytes.length) {
    idRandom.bytes = randomBytes(ID_RANDOM_POOL);
    idRandom.at = 0;
  }
  const b = idRandom.bytes;
  let tail = "";
  for (let i = idRandom.at, end = i + 10; i < end; i++) tail += CROCKFORD[b[i] % 32];
  idRandom.at += 10;
  return idTime.head + tail;
}

/** Random bytes are drawn for 400 ids at a time: one call instead of one per id. */
const ID_RANDOM_POOL = 4000;
const idRandom: { bytes: Uint8Array<ArrayBufferLike>; at: number } = {
  bytes: new Uint8Array(0),
  at: 0,
};
/** The time part of the last id made (ids made in one batch share it). */
const idTime = { ms: -1, head: "" };

/**
 * Pattern a note id must match.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { newNoteId, NOTE_ID_PATTERN } from "@memo/memory";
 * assert.match(newNoteId(), NOTE_ID_PATTERN);
 * assert.doesNotMatch("Not An Id", NOTE_ID_PATTERN);
 * ```
 */
export const NOTE_ID_PATTERN: RegExp = /^[0-9a-z][0-9a-z_-]{0,63}$/;

/**
 * Normalises a label list: trims each label, drops empty ones and duplicates,
 * keeps first-seen order. Newlines and other control characters become spaces.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { normalizeLabels } from "@memo/memory";
 * assert.deepEqual(normalizeLabels([" a ", "a", "", "b"]), ["a", "b"]);
 * ```
 */
export function normalizeLabels(labels: readonly string[] | undefined): string[] {
  if (!labels) return [];
  const out: string[] = [];
  for (const raw of labels) {
    // deno-lint-ignore no-control-regex
    const label = wellFormed(String(raw)).replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
    if (label && !out.includes(label)) out.push(label);
  }
  return out;
}

/**
 * Normalises a title to one line: control characters and line breaks become
 * spaces, runs of spaces collapse, and the result is trimmed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { normalizeTitle } from "@memo/memory";
 * assert.equal(normalizeTitle(" a\n b "), "a b");
 * ```
 */
export function normalizeTitle(title: string): string {
  // deno-lint-ignore no-control-regex
  return wellFormed(title).replace(/[\u0000-\u001f\u007f]+/g, " ").replace(/ {2,}/g, " ").trim();
}

/**
 * The text with each lone UTF-16 surrogate replaced by U+FFFD, as UTF-8 would
 * write it: a note's hash is then the hash of what `notes.md` holds.
 */
function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, "\uFFFD");
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Derives a title from a note's text: its first non-empty line, without a
 * leading markdown heading or list marker, cut at a word boundary to at most
 * {@linkcode MAX_DERIVED_TITLE_LENGTH} characters.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { deriveTitle } from "@memo/memory";
 * assert.equal(deriveTitle("# Deploys\nRun make deploy"), "Deploys");
 * assert.equal(deriveTitle("\n- first item\n- second"), "first item");
 * ```
 */
export function deriveTitle(text: string): string {
  const line = text.split(/\r?\n/).map((l) => l.trim()).find((l) => l.length > 0) ?? "";
  const stripped = normalizeTitle(line.replace(/^(#{1,6}\s+|[-*+]\s+|>\s*)/, ""));
  const chars = Array.from(stripped);
  if (chars.length <= MAX_DERIVED_TITLE_LENGTH) return stripped;
  const cut = chars.slice(0, MAX_DERIVED_TITLE_LENGTH).join("");
  const space = cut.lastIndexOf(" ");
  return (space > MAX_DERIVED_TITLE_LENGTH / 2 ? cut.slice(0, space) : cut).trimEnd() + "…";
}

/**
 * Checks and normalises a draft: the text must hold something other than
 * white space, a source key must be one line without spaces. Returns the
 * normalised title, body, labels, source and hash; throws
 * `MemoryValidationError` on bad input.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryValidationError, prepareDraft } from "@memo/memory";
 * const p = prepareDraft({ text: "# Hi\nthere", labels: ["a", "a"] });
 * assert.equal(p.title, "Hi");
 * assert.deepEqual(p.labels, ["a"]);
 * assert.throws(() => prepareDraft({ text: "  " }), MemoryValidationError);
 * // A lone surrogate becomes U+FFFD, as in the UTF-8 file, so the hash matches the file.
 * assert.equal(prepareDraft({ text: "a\uD800b" }).body, "a\uFFFDb");
 * ```
 */
export function prepareDraft(
  draft: NoteDraft,
): { title: string; body: string; labels: string[]; source?: string; hash: string } {
  if (typeof draft?.text !== "string" || draft.text.trim() === "") {
    throw new MemoryValidationError("Cannot store note: text is empty");
  }
  const body = wellFormed(draft.text);
  const title = draft.title !== undefined && normalizeTitle(draft.title) !== ""
    ? normalizeTitle(draft.title)
    : deriveTitle(body);
  const labels = normalizeLabels(draft.labels);
  const source = draft.source === undefined ? undefined : normalizeSource(draft.source);
  const hash = contentHash({ title, body, labels });
  return source === undefined
    ? { title, body, labels, hash }
    : { title, body, labels, source, hash };
}

/**
 * Checks a source key: one line, no white space, at most 512 characters.
 * Returns the trimmed key; throws `MemoryValidationError` otherwise.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryValidationError, normalizeSource } from "@memo/memory";
 * assert.equal(normalizeSource(" notion:page/abc "), "notion:page/abc");
 * assert.throws(() => normalizeSource("two words"), MemoryValidationError);
 * ```
 */
export function normalizeSource(source: string): string {
  const key = typeof source === "string" ? source.trim() : "";
  if (key === "" || /\s/.test(key) || key.length > 512) {
    throw new MemoryValidationError(
      "Cannot store note: source must be one word of 1 to 512 characters without spaces",
    );
  }
  return key;
}
