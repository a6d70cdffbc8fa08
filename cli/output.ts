/**
 * Output helpers of the CLI: one JSON document with `--json`, text for humans
 * otherwise, and the one-line error format `memo: <message>`.
 *
 * @module
 */

import type { Note, RecallHit } from "@memo/memory";

/**
 * Serialises a value as the single JSON document `--json` prints.
 *
 * @example
 * ```ts
 * import { jsonDocument } from "./output.ts";
 * jsonDocument({ ok: true }); // '{\n  "ok": true\n}\n'
 * ```
 */
export function jsonDocument(value: unknown): string {
  return JSON.stringify(value, null, 2) + "\n";
}

/** Formats one error line: `memo: <message>` with line breaks flattened. */
export function errorLine(message: string): string {
  return `memo: ${message.replace(/\s*\r?\n\s*/g, " ").trim()}\n`;
}

/** A note as markdown for humans. */
export function formatNote(note: Note): string {
  const meta = [`id: ${note.id}`];
  if (note.labels.length) meta.push(`labels: ${note.labels.join(", ")}`);
  if (note.source) meta.push(`source: ${note.source}`);
  meta.push(`updated: ${note.updated}`);
  return `## ${note.title}\n${meta.join("  ·  ")}\n\n${note.body}${
    note.body.endsWith("\n") ? "" : "\n"
  }`;
}

/** One line per note: id, labels and title. */
export function formatNoteLine(note: Note): string {
  const labels = note.labels.length ? ` [${note.labels.join(", ")}]` : "";
  return `${note.id}  ${note.title}${labels}`;
}

/** Recall hits for humans: rank, score, title, id, matched terms and a snippet. */
export function formatHits(hits: readonly RecallHit[]): string {
  if (!hits.length) return "No matching notes.\n";
  return hits.map((h, i) => {
    const snippet = h.note.body.replace(/\s+/g, " ").trim().slice(0, 160);
    const matched = h.matched.length ? `  matched: ${h.matched.join(", ")}` : "";
    const why = h.explain?.length
      ? "\n   why: " +
        h.explain.map((c) =>
          `${c.term}${
            c.indexTerm && c.indexTerm !== c.term ? `→${c.indexTerm}` : ""
          } in ${c.field} ${c.score.toFixed(3)}`
        ).join(", ")
      : "";
    return `${i + 1}. ${h.note.title}  (${h.note.id}, score ${
      h.score.toFixed(3)
    })${matched}\n   ${snippet}${why}`;
  }).join("\n") + "\n";
}
