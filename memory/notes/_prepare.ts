/**
 * What a draft becomes before it is stored: labels, title and source key normalised, the title
 * derived when missing, the history fields checked, and the hash computed
 * ({@linkcode prepareDraft}). `note.ts` re-exports them.
 *
 * @module
 */

import { MemoryValidationError } from "../errors.ts";
import { prepareHistory } from "../history/validity.ts";
import type { Note, NoteDraft } from "./_types.ts";
import { contentHash } from "./_identity.ts";

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
 * The test of a note filter (every label, and a source prefix), or undefined when it filters
 * nothing: `Memo`'s recall and list filter, which the cloud's project index applies alike.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { noteFilter } from "@memo/memory";
 * const note = { id: "a", title: "t", body: "b", labels: ["ops"], source: "github:x/y#1", hash: "", created: "", updated: "" };
 * assert.equal(noteFilter({}), undefined);
 * assert.equal(noteFilter({ labels: ["ops"], source: "github:" })!(note), true);
 * assert.equal(noteFilter({ labels: ["infra"] })!(note), false);
 * ```
 */
export function noteFilter(
  f: { labels?: readonly string[]; source?: string; scope?: string | readonly string[] },
): ((note: Note) => boolean) | undefined {
  const labels = normalizeLabels(f.labels);
  const source = f.source?.trim();
  const scopes = f.scope === undefined
    ? undefined
    : new Set<string>(typeof f.scope === "string" ? [f.scope] : f.scope);
  if (!labels.length && !source && !scopes) return undefined;
  return (note) =>
    labels.every((l) => note.labels.includes(l)) &&
    (!source || (note.source !== undefined && note.source.startsWith(source))) &&
    (!scopes || scopes.has(note.scope ?? "project"));
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
 * Checks and normalises a draft: the text must hold something other than white space, a source key
 * must be one line without spaces, `supersedes` must hold note ids, `validFrom` and `validUntil`
 * ISO dates or date-times (`validFrom` before `validUntil`). Returns the normalised title, body,
 * labels, source, history fields and hash; throws `MemoryValidationError` on bad input. Whether the
 * ids of `supersedes` exist is checked by the commit.
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
