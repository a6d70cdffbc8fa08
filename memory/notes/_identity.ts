/**
 * When two notes are one: the content hash ({@linkcode contentHash}), the field-by-field comparison
 * of a replica ({@linkcode sameNote}) and the identity of duplicate detection
 * ({@linkcode noteIdentity}, {@linkcode normalizeNoteText}). `note.ts` re-exports them.
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { Note } from "./_types.ts";

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
 * ends). A `-` right before a digit that does not follow a letter or digit is kept as a minus sign
 * (`-5` is not `5`); symbols such as `+`, `$` or `%`… other than punctuation are kept. Two notes
 * without a source key whose bodies normalise to the same text are the same note.
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
