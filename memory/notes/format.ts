/**
 * A note as markdown for people, the one rendering that the `memo` command,
 * the note resources and the prompts all print.
 *
 * @module
 */

import type { Note } from "./_types.ts";

/** Options of {@linkcode formatNote}. */
export interface FormatNoteOptions {
  /**
   * How a note that this one supersedes, or is superseded by, is named.
   * @default {the id}
   */
  link?: (id: string) => string;
}

/**
 * The note as markdown: its title, its facts (id, labels, source, updated,
 * validity), its history both ways (`supersedes`, `superseded by`), then its body.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatNote } from "./format.ts";
 *
 * const note = {
 *   id: "01jq3v7k9x0000000000",
 *   title: "Deploys",
 *   body: "Run make deploy.",
 *   labels: ["infra"],
 *   hash: "0123abcd",
 *   created: "2025-01-01T00:00:00.000Z",
 *   updated: "2025-01-02T00:00:00.000Z",
 * };
 * assert.equal(
 *   formatNote(note),
 *   "# Deploys\n\nid: 01jq3v7k9x0000000000 · labels: infra · updated: 2025-01-02T00:00:00.000Z\n\n" +
 *     "Run make deploy.\n",
 * );
 * const corrected = { ...note, supersededBy: ["n2"], validUntil: "2026-03-01" };
 * assert.ok(formatNote(corrected).includes("valid: … to 2026-03-01\n\nsuperseded by: n2\n\n"));
 * assert.ok(
 *   formatNote(corrected, { link: (id) => `memo://notes/${id}` })
 *     .includes("superseded by: memo://notes/n2\n"),
 * );
 * ```
 */
export function formatNote(note: Note, options: FormatNoteOptions = {}): string {
  const link = options.link ?? ((id: string) => id);
  const facts = [`id: ${note.id}`];
  if (note.labels.length) facts.push(`labels: ${note.labels.join(", ")}`);
  if (note.source) facts.push(`source: ${note.source}`);
  facts.push(`updated: ${note.updated}`);
  if (note.validFrom !== undefined || note.validUntil !== undefined) {
    facts.push(`valid: ${note.validFrom ?? "…"} to ${note.validUntil ?? "…"}`);
  }
  const links = (ids: readonly string[]) => ids.map(link).join(", ");
  const chain = [];
  if (note.supersedes?.length) chain.push(`supersedes: ${links(note.supersedes)}`);
  if (note.supersededBy?.length) chain.push(`superseded by: ${links(note.supersededBy)}`);
  const history = chain.length ? `${chain.join("\n")}\n\n` : "";
  const body = note.body.endsWith("\n") ? note.body : note.body + "\n";
  return `# ${note.title}\n\n${facts.join(" · ")}\n\n${history}${body}`;
}
