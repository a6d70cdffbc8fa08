/**
 * The note model: what one section of `.memo/memory/notes.md` holds, and the
 * helpers that normalise input, derive titles and compute content hashes.
 *
 * @module
 */

import { createHash, randomBytes } from "node:crypto";
import { MemoryValidationError } from "./errors.ts";
import { prepareHistory } from "./validity.ts";

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
  /**
   * Ids of the notes this note replaces: a correction, or a merge of duplicates. Kept in this
   * (the newer) note's marker in `notes.md`, the one source of truth; absent when it replaces
   * none.
   */
  supersedes?: string[];
  /**
   * When the fact starts to hold: an ISO date (`2026-03-01`, meaning 00:00 UTC) or date-time.
   * Absent: it has always held. `created` and `updated` stay when memo recorded the note.
   */
  validFrom?: string;
  /** When the fact stops holding (exclusive: the range is `[validFrom, validUntil)`). */
  validUntil?: string;
  /**
   * Ids of the stored notes that supersede this one, derived from their `supersedes` when the
   * notes are read (never stored). Set by the `Memo` client on the notes it answers with; absent
   * when no note supersedes it.
   */
  supersededBy?: string[];
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
  /**
   * Ids of stored notes this note replaces. An unknown id, the note's own id or a cycle is
   * refused (`MemoryValidationError`).
   * @default none
   */
  supersedes?: readonly string[];
  /**
   * When the fact starts to hold: an ISO date (00:00 UTC) or date-time.
   * @default none (it has always held)
   */
  validFrom?: string;
  /**
   * When the fact stops holding (exclusive); after `validFrom` when both are given.
   * @default none (it still holds)
   */
  validUntil?: string;
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
  /** New list of the notes this note replaces (`[]` removes every link). */
  supersedes?: readonly string[];
  /** New start of validity (ISO date or date-time); `null` removes it. */
  validFrom?: string | null;
  /** New end of validity (exclusive); `null` removes it. */
  validUntil?: string | null;
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
 * Computes the content hash of a note: SHA-256 over its title, body and sorted labels and, when
 * the note has them, its `supersedes` (sorted), `validFrom` and `validUntil`, as 32 lower-case
 * hex characters. A note without those three fields hashes as it always did, so a change of any
 * of them is a change of the note wherever hashes are compared (replication, the change feed).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contentHash } from "@memo/memory";
 * const h = contentHash({ title: "t", body: "b", labels: ["x", "y"] });
 * assert.match(h, /^[0-9a-f]{32}$/);
 * assert.equal(contentHash({ title: "t", body: "b", labels: ["y", "x"] }), h); // labels sorted
 * assert.notEqual(contentHash({ title: "t", body: "b", labels: ["x", "y"], supersedes: ["n1"] }), h);
 * ```
 */
export function contentHash(
  note: {
    title: string;
    body: string;
    labels: readonly string[];
    supersedes?: readonly string[];
    validFrom?: string;
    validUntil?: string;
  },
): string {
  const labels = [...note.labels].sort();
  const parts: unknown[] = [note.title, note.body, labels];
  if (hasHistory(note)) {
    parts.push([...note.supersedes ?? []].sort(), note.validFrom ?? null, note.validUntil ?? null);
  }
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex").slice(0, 32);
}

/** Whether a note (or draft) carries `supersedes`, `validFrom` or `validUntil`. */
function hasHistory(
  note: { supersedes?: readonly string[]; validFrom?: string; validUntil?: string },
): boolean {
  return (note.supersedes !== undefined && note.supersedes.length > 0) ||
    note.validFrom !== undefined || note.validUntil !== undefined;
}

/**
 * Whether two notes are the same in every stored field (id, hash, title, body, labels in order,
 * source, both times, `supersedes` in order, `validFrom` and `validUntil`): what a replica
 * compares before writing a note it received. The derived `supersededBy` is not compared.
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
 * assert.equal(sameNote(note, { ...note, validUntil: "2026-02-01" }), false);
 * assert.equal(sameNote(note, { ...note, supersededBy: ["n2"] }), true); // derived, not stored
 * ```
 */
export function sameNote(a: Note, b: Note): boolean {
  return a.id === b.id && a.hash === b.hash && a.title === b.title && a.body === b.body &&
    a.source === b.source && a.created === b.created && a.updated === b.updated &&
    sameList(a.labels, b.labels) && sameList(a.supersedes ?? [], b.supersedes ?? []) &&
    a.validFrom === b.validFrom && a.validUntil === b.validUntil;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * The identity used for dedupe: the source key when there is one, else the body's text after
 * {@linkcode normalizeNoteText} (as a digest): the same text, whatever its case, white space or
 * punctuation, is one note.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { noteIdentity } from "@memo/memory";
 * assert.equal(noteIdentity({ source: "notion:page/1", body: "x" }), "source:notion:page/1");
 * assert.equal(
 *   noteIdentity({ body: "Deploys run on Fridays." }),
 *   noteIdentity({ body: "deploys  run on fridays" }),
 * );
 * assert.match(noteIdentity({ body: "x" }), /^text:[0-9a-f]{32}$/);
 * ```
 */
export function noteIdentity(note: { source?: string; body: string }): string {
  if (note.source) return `source:${note.source}`;
  let key = textIdentities.get(note.body);
  if (key === undefined) {
    key = "text:" +
      createHash("sha256").update(normalizeNoteText(note.body)).digest("hex").slice(0, 32);
    if (textIdentities.size >= 4096) textIdentities.clear();
    textIdentities.set(note.body, key);
  }
  return key;
}

/** Recent bodies' identities (a replica builds an identity map again after every change). */
const textIdentities = new Map<string, string>();

/**
 * The one normalising function of duplicate detection: Unicode NFC, lower case, and every run of
 * white space, punctuation and backticks (markdown's code marks) made one space (trimmed at both
 * ends). A `-` right before a digit
 * that does not follow a letter or digit is kept as a minus sign (`-5` is not `5`); symbols such
 * as `+`, `$` or `%`… other than punctuation are kept. Two notes without a source key whose bodies
 * normalise to the same text are the same note.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { normalizeNoteText } from "@memo/memory";
 * assert.equal(normalizeNoteText("  Deploys run on *Fridays*!\n"), "deploys run on fridays");
 * assert.equal(normalizeNoteText("Run `make deploy`."), "run make deploy");
 * assert.equal(normalizeNoteText("eu-west-1"), "eu west 1");
 * assert.equal(normalizeNoteText("It is -5 °C"), "it is -5 °c");
 * assert.notEqual(normalizeNoteText("3.5 GB"), normalizeNoteText("35 GB"));
 * ```
 */
export function normalizeNoteText(text: string): string {
  const lower = text.normalize("NFC").toLowerCase();
  return lower.replace(SEPARATORS, (run: string, at: number) => {
    const next = lower.charCodeAt(at + run.length);
    const minus = run.charCodeAt(run.length - 1) === 45 && next >= 48 && next <= 57 &&
      (run.length > 1 || at === 0 || !ALNUM.test(lower[at - 1]));
    return minus ? " -" : " ";
  }).trim();
}

const SEPARATORS = /[\p{P}\s`]+/gu;
const ALNUM = /[\p{L}\p{N}]/u;

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
 * white space, a source key must be one line without spaces, `supersedes`
 * must hold note ids, `validFrom` and `validUntil` ISO dates or date-times
 * (`validFrom` before `validUntil`). Returns the normalised title, body,
 * labels, source, history fields and hash; throws `MemoryValidationError` on
 * bad input. Whether the ids of `supersedes` exist is checked by the commit.
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
 * const dated = prepareDraft({ text: "Deploys run on Mondays", validFrom: "2026-03-01", supersedes: ["n1", "n1"] });
 * assert.deepEqual([dated.validFrom, dated.supersedes], ["2026-03-01", ["n1"]]);
 * assert.throws(() => prepareDraft({ text: "x", validFrom: "2026-03-01", validUntil: "2026-02-01" }), MemoryValidationError);
 * ```
 */
export function prepareDraft(draft: NoteDraft): PreparedNoteContent {
  if (typeof draft?.text !== "string" || draft.text.trim() === "") {
    throw new MemoryValidationError("Cannot store note: text is empty");
  }
  const body = wellFormed(draft.text);
  const title = draft.title !== undefined && normalizeTitle(draft.title) !== ""
    ? normalizeTitle(draft.title)
    : deriveTitle(body);
  const labels = normalizeLabels(draft.labels);
  const source = draft.source === undefined ? undefined : normalizeSource(draft.source);
  const out: PreparedNoteContent = source === undefined
    ? { title, body, labels, hash: "" }
    : { title, body, labels, source, hash: "" };
  const history = prepareHistory(draft, "store note");
  if (history.supersedes !== undefined) out.supersedes = history.supersedes;
  if (history.validFrom != null) out.validFrom = history.validFrom;
  if (history.validUntil != null) out.validUntil = history.validUntil;
  out.hash = contentHash(out);
  return out;
}

/**
 * What {@linkcode prepareDraft} returns: a draft's content, normalised, with its hash.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type PreparedNoteContent, prepareDraft } from "@memo/memory";
 * const content: PreparedNoteContent = prepareDraft({ text: "hello", validUntil: "2027-01-01" });
 * assert.equal(content.validUntil, "2027-01-01");
 * assert.equal(content.source, undefined);
 * ```
 */
export interface PreparedNoteContent {
  /** Title, given or derived. */
  title: string;
  /** Body (the text, well-formed). */
  body: string;
  /** Labels, normalised. */
  labels: string[];
  /** Source key, checked and trimmed. */
  source?: string;
  /** Content hash (see {@linkcode contentHash}). */
  hash: string;
  /** Ids of the notes it replaces (de-duplicated; absent when none). */
  supersedes?: string[];
  /** Start of validity, canonical (`normalizeValidTime`). */
  validFrom?: string;
  /** End of validity, canonical. */
  validUntil?: string;
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
