/**
 * Internal: {@linkcode PgHistoryView}, the notes a correction, a supersede link or a draft's link
 * check plans over on the PostgreSQL store, read by target rather than the whole project: the notes
 * named and every note their `supersedes` lead to (one recursive query), the notes with the same
 * text (by the stored identity) and the note of a source key. Planning and the write are
 * `@memo/memory`'s own (`correctNote`, `supersedeNotes`, `checkDraftLinks`): one `applyReplica`
 * guarded by the hashes of the notes read, planned again from the new state when another writer got
 * there first.
 *
 * @module
 */

import type { Sql } from "postgres";
import {
  type HistoryNeeds,
  type HistoryView,
  normalizeNoteText,
  type Note,
  noteIdentity,
} from "@memo/memory";
import { type NoteRow, plainNote, rowToNote } from "./_notes.ts";

/** The note columns of `memo_notes`, named as `NoteRow`, of table alias `n`. */
const COLUMNS = "n.id, n.title, n.body, n.labels, n.source, n.hash, n.created, n.updated, " +
  'n.revision, n.supersedes, n.valid_from AS "validFrom", n.valid_until AS "validUntil"';

/**
 * The {@linkcode HistoryView} of one project in PostgreSQL: each `sync` reads now what its needs
 * name, and nothing else (see the module doc).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PostgresCloudStore, PostgresMemoryStore } from "./store.ts";
 * import { PgHistoryView } from "./_history.ts";
 * import { startPostgres } from "../../tests/_postgres.ts";
 *
 * const pg = await startPostgres();
 * const cloud = await PostgresCloudStore.open({ url: pg.url, max: 2 });
 * try {
 *   const store = new PostgresMemoryStore({ sql: cloud.sql, workspaceId: "team", projectId: "p" });
 *   const [a] = await store.upsert([{ text: "Deploys run on Fridays" }]);
 *   const [b] = await store.upsert([{ text: "Deploys run on Mondays", supersedes: [a.note.id] }]);
 *   await store.upsert([{ text: "Unrelated" }]);
 *   const view = new PgHistoryView(cloud.sql, () => store.pid());
 *   await view.sync({ ids: [b.note.id], text: "deploys run on fridays!" });
 *   assert.equal(view.get(a.note.id)?.body, "Deploys run on Fridays"); // b's chain
 *   assert.equal(view.sameText("deploys run on fridays!", true)?.id, a.note.id);
 *   assert.equal(view.sameText("deploys run on fridays!"), undefined); // superseded
 *   assert.equal(view.size, 2);
 * } finally {
 *   await cloud.close();
 *   await pg.stop();
 * }
 * ```
 */
export class PgHistoryView implements HistoryView {
  readonly #sql: Sql;
  readonly #pid: () => Promise<number | undefined>;
  /** The notes read, by id (one object per id: planning compares them by identity). */
  #notes = new Map<string, Note>();
  /** The notes of the same text as `#text`, in store order, and which are superseded. */
  #twins: { text: string; notes: Note[]; superseded: Set<string> } | undefined;
  #source: { source: string; note: Note | undefined } | undefined;

  /** A view over pool `sql` of the project `pid()` names (undefined: nothing written yet). */
  constructor(sql: Sql, pid: () => Promise<number | undefined>) {
    this.#sql = sql;
    this.#pid = pid;
  }

  /** How many notes the last `sync` read. */
  get size(): number {
    return this.#notes.size;
  }

  /** {@linkcode HistoryView.sync}: reads what `needs` names; without it, forgets what it read. */
  async sync(needs?: HistoryNeeds): Promise<void> {
    this.#notes = new Map();
    this.#twins = undefined;
    this.#source = undefined;
    if (!needs) return;
    const pid = await this.#pid();
    const sql = this.#sql;
    const ids = new Set(needs.ids);
    let twins: NoteRow[] = [];
    if (needs.text !== undefined && pid !== undefined) {
      twins = await sql<NoteRow[]>`
        SELECT ${sql.unsafe(COLUMNS)} FROM memo_notes n
        WHERE n.pid = ${pid} AND n.identity = ${noteIdentity({ body: needs.text })}
          AND n.source IS NULL
        ORDER BY n.ord`;
      const text = normalizeNoteText(needs.text);
      twins = twins.filter((row) => normalizeNoteText(row.body) === text);
      for (const row of twins) ids.add(row.id);
    }
    let sourced: NoteRow | undefined;
    if (needs.source !== undefined && pid !== undefined) {
      [sourced] = await sql<NoteRow[]>`
        SELECT ${sql.unsafe(COLUMNS)} FROM memo_notes n
        WHERE n.pid = ${pid} AND n.identity = ${noteIdentity({ source: needs.source, body: "" })}
          AND n.source = ${needs.source}
        ORDER BY n.ord DESC LIMIT 1`;
      if (sourced) ids.add(sourced.id);
    }
    if (pid !== undefined && ids.size) {
      // The notes named and every note their supersedes lead to (UNION: a cycle ends the walk).
      const rows = await sql<NoteRow[]>`
        WITH RECURSIVE chain (id) AS (
          SELECT unnest(${[...ids]}::text[])
          UNION
          SELECT s.id FROM chain c
          CROSS JOIN LATERAL (
            SELECT supersedes FROM memo_notes WHERE pid = ${pid} AND id = c.id OFFSET 0
          ) l
          CROSS JOIN LATERAL jsonb_array_elements_text(coalesce(l.supersedes, '[]'::jsonb)) s (id)
        )
        SELECT n.* FROM chain c
        CROSS JOIN LATERAL (
          SELECT ${sql.unsafe(COLUMNS)} FROM memo_notes n WHERE n.pid = ${pid} AND n.id = c.id
          OFFSET 0
        ) n`;
      for (const row of rows) this.#notes.set(row.id, plainNote(rowToNote(row)));
    }
    if (needs.text !== undefined) {
      const notes = twins.flatMap((row) => this.#notes.get(row.id) ?? []);
      const superseded = new Set<string>();
      if (notes.length) {
        const rows = await sql<{ id: string }[]>`
          SELECT DISTINCT t.id FROM memo_notes n
          CROSS JOIN LATERAL jsonb_array_elements_text(n.supersedes) t (id)
          WHERE n.pid = ${pid!} AND jsonb_exists_any(n.supersedes, ${notes.map((n) => n.id)})`;
        for (const row of rows) superseded.add(row.id);
      }
      this.#twins = { text: needs.text, notes, superseded };
    }
    if (needs.source !== undefined) {
      this.#source = {
        source: needs.source,
        note: sourced && this.#notes.get(sourced.id),
      };
    }
  }

  /** {@linkcode HistoryView.get}: a note the last `sync` read. */
  get(id: string): Note | undefined {
    return this.#notes.get(id);
  }

  /** {@linkcode HistoryView.sameText}, for the text the last `sync` was given. */
  sameText(body: string, any = false): Note | undefined {
    const twins = this.#twins;
    if (twins?.text !== body) throw new Error(`Cannot look up a text the view did not read`);
    return twins.notes.find((note) => any || !twins.superseded.has(note.id));
  }

  /** {@linkcode HistoryView.bySource}, for the source key the last `sync` was given. */
  bySource(source: string): Note | undefined {
    if (this.#source?.source !== source) {
      throw new Error(`Cannot look up a source key the view did not read`);
    }
    return this.#source.note;
  }

  /** {@linkcode HistoryView.withLinks}: the note as read (its answer is read again after). */
  withLinks(note: Note): Note {
    return note;
  }
}
