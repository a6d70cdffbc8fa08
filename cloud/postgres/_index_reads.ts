/**
 * Internal: the PostgreSQL reads that keep a {@linkcode ProjectIndex} in step with a project: every
 * note (a build, page by page, in one snapshot of the database), the notes changed after a sequence
 * number (a catch-up), and notes as of given revisions from the change feed (the text a note was
 * indexed with, and the notes of a page of hits).
 *
 * @module
 */

import type { Sql } from "postgres";
import { type NoteRow, rowToNote } from "./_notes.ts";
import type { IndexableNote, IndexedText } from "../projects/project_index.ts";
import type { CloudNote } from "../store.ts";

/** Notes read per page of a build. */
const BUILD_PAGE = 2000;

/** The note columns of `memo_notes` (named as `NoteRow`), and `ord`. */
const COLUMNS =
  'id, title, body, labels, source, hash, created, updated, revision, ord, supersedes, valid_from AS "validFrom", valid_until AS "validUntil"';

/** {@linkcode COLUMNS} of table alias `n`. */
const N_COLUMNS = COLUMNS.replace(/(^|, )(\w+)/g, "$1n.$2");

function indexable(row: NoteRow & { ord: string | number }): IndexableNote {
  return { ...rowToNote(row), ord: Number(row.ord) };
}

/**
 * Reads every note of project `pid` in store order, `onPage` taking each page of up to 2000, all in
 * one repeatable-read transaction; returns the change sequence the notes are at.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readAllNotes } from "./_index_reads.ts";
 *
 * assert.equal(typeof readAllNotes, "function"); // see tests/cloud_scale_test.ts
 * ```
 */
export async function readAllNotes(
  sql: Sql,
  pid: number,
  onPage: (notes: IndexableNote[]) => void,
): Promise<number> {
  return await sql.begin("isolation level repeatable read read only", async (tx) => {
    const [project] = await tx<{ seq: string }[]>`SELECT seq FROM memo_projects WHERE pid = ${pid}`;
    let after = -1;
    for (;;) {
      const rows = await tx<(NoteRow & { ord: string })[]>`
        SELECT ${tx.unsafe(COLUMNS)} FROM memo_notes
        WHERE pid = ${pid} AND ord > ${after} ORDER BY ord LIMIT ${BUILD_PAGE}`;
      if (rows.length) onPage(rows.map(indexable));
      if (rows.length < BUILD_PAGE) break;
      after = Number(rows[rows.length - 1].ord);
    }
    return project ? Number(project.seq) : 0;
  });
}

/**
 * The changes of project `pid` after `since`: its change sequence now, the current notes changed
 * since (in store order) and the ids deleted since; or undefined when the project's sequence is
 * below `since` (the index is of something else: rebuild). One statement when nothing changed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { changesAfter } from "./_index_reads.ts";
 *
 * assert.equal(typeof changesAfter, "function"); // see tests/cloud_scale_test.ts
 * ```
 */
export async function changesAfter(
  sql: Sql,
  pid: number,
  since: number,
): Promise<{ head: number; upserted: IndexableNote[]; removed: string[] } | undefined> {
  // One statement, so one snapshot: the head and the changes up to it agree. `seq <= p.seq` holds
  // of every change the statement sees; it is there for the planner: a range of two bounds
  // (one unknown when the plan is made) makes it walk the (pid, seq) key. With `seq > since`
  // alone, on a database of a few projects, it read every change of every project (a
  // sequential scan: 26 ms of 40,000 changes, on every catch-up and every cold load).
  const rows = await sql<
    (Partial<NoteRow> & { ord: string | null; head: string; changed: string | null })[]
  >`
    SELECT p.seq AS head, c.id AS changed, ${sql.unsafe(N_COLUMNS)}
    FROM memo_projects p
    LEFT JOIN LATERAL (
      SELECT DISTINCT id FROM memo_changes WHERE pid = p.pid AND seq > ${since} AND seq <= p.seq
    ) c ON true
    LEFT JOIN LATERAL (
      SELECT * FROM memo_notes WHERE pid = p.pid AND id = c.id OFFSET 0
    ) n ON true
    WHERE p.pid = ${pid}
    ORDER BY n.ord`;
  if (!rows.length) return since === 0 ? { head: 0, upserted: [], removed: [] } : undefined;
  const head = Number(rows[0].head);
  if (head < since) return undefined;
  const upserted: IndexableNote[] = [];
  const removed: string[] = [];
  for (const row of rows) {
    if (row.changed === null) continue;
    if (row.id === null || row.id === undefined) removed.push(row.changed);
    else upserted.push(indexable(row as NoteRow & { ord: string }));
  }
  return { head, upserted, removed };
}

/**
 * The notes of project `pid` as of the given revisions, from the change feed (each upsert keeps the
 * note as it was), by revision. A revision the feed does not hold is missing from the answer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { notesAtRevisions } from "./_index_reads.ts";
 *
 * assert.equal(typeof notesAtRevisions, "function"); // see tests/cloud_scale_test.ts
 * ```
 */
export async function notesAtRevisions(
  sql: Sql,
  pid: number,
  revisions: readonly number[],
): Promise<Map<number, CloudNote>> {
  const out = new Map<number, CloudNote>();
  if (!revisions.length) return out;
  const rows = await sql<{ seq: string; note: NoteRow }[]>`
    SELECT c.seq, c.note FROM unnest(${revisions as number[]}::int8[]) AS q (seq)
    CROSS JOIN LATERAL (
      SELECT seq, note FROM memo_changes
      WHERE pid = ${pid} AND seq = q.seq AND op = 'upsert' OFFSET 0
    ) c`;
  for (const row of rows) out.set(Number(row.seq), rowToNote(row.note));
  return out;
}

/**
 * The text of the notes of project `pid` as of the given revisions (what the index read when it
 * added them), by revision.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { textsAtRevisions } from "./_index_reads.ts";
 *
 * assert.equal(typeof textsAtRevisions, "function"); // see tests/cloud_scale_test.ts
 * ```
 */
export async function textsAtRevisions(
  sql: Sql,
  pid: number,
  revisions: readonly number[],
): Promise<Map<number, IndexedText>> {
  const out = new Map<number, IndexedText>();
  for (const [seq, note] of await notesAtRevisions(sql, pid, revisions)) {
    out.set(seq, { title: note.title, body: note.body, labels: note.labels });
  }
  return out;
}

/**
 * The current notes of project `pid` with these ids, by id (a fallback for a revision the feed no
 * longer holds).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { currentNotes } from "./_index_reads.ts";
 *
 * assert.equal(typeof currentNotes, "function"); // see tests/cloud_scale_test.ts
 * ```
 */
export async function currentNotes(
  sql: Sql,
  pid: number,
  ids: readonly string[],
): Promise<Map<string, CloudNote>> {
  const out = new Map<string, CloudNote>();
  if (!ids.length) return out;
  const rows = await sql<NoteRow[]>`
    SELECT n.* FROM unnest(${ids as string[]}::text[]) AS q (id)
    CROSS JOIN LATERAL (
      SELECT ${sql.unsafe(COLUMNS)} FROM memo_notes WHERE pid = ${pid} AND id = q.id OFFSET 0
    ) n`;
  for (const row of rows) out.set(row.id, rowToNote(row));
  return out;
}
