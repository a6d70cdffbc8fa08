/**
 * {@linkcode PostgresMemoryStore}, the `MemoryStore` of one project in PostgreSQL, with revisions
 * and the change feed (`store.ts` re-exports it).
 *
 * How writes stay ordered: every write of a project runs in one transaction that first locks the
 * project's row in `memo_projects` (`SELECT … FOR UPDATE`), so the writers of a project take turns,
 * and the change numbers (`seq`) they take from that row are in commit order. A reader that follows
 * the feed with `seq > token` therefore never skips a change.
 *
 * @module
 */

import type { Sql, TransactionSql } from "postgres";
import {
  type CommitBatch,
  type CommitResult,
  decodeCursor,
  encodeCursor,
  MemoryValidationError,
  type Note,
  noteIdentity,
  type NotePage,
  type ReplicaApplyResult,
  type ReplicaChanges,
  sameNote,
  type StoreChanges,
  type StoreLoadReport,
} from "@memo/memory";
import { changesAfter } from "./_index_reads.ts";
import { answerDrafts, dedupeDrafts, prepareCloudDrafts } from "../projects/drafts.ts";
import {
  type NoteRow,
  patchCloudNote,
  plainNote,
  planDrafts,
  replicaChanges,
  rowToNote,
} from "./_notes.ts";
import { BATCH_DELETE_LIMIT, checkIfMatch } from "../store.ts";
import type * as C from "../store.ts";

/** Largest page of `list` (as the file store). */
const MAX_PAGE = 1000;
/** Largest page of `changes`. */
const MAX_CHANGES = 1000;

/**
 * Options of {@linkcode PostgresMemoryStore}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { PostgresMemoryStoreOptions } from "./store.ts";
 *
 * const options: Omit<PostgresMemoryStoreOptions, "sql"> = { workspaceId: "team", projectId: "p" };
 * assert.equal(options.projectId, "p");
 * ```
 */
export interface PostgresMemoryStoreOptions {
  /** The connection pool, migrated ({@linkcode PostgresCloudStore} does both). */
  sql: Sql;
  /** The workspace. */
  workspaceId: string;
  /** The project. */
  projectId: string;
  /**
   * The clock (times of new and changed notes).
   * @default () => new Date()
   */
  clock?: () => Date;
}

/**
 * The notes of one project in PostgreSQL: a `MemoryStore` (a `Memo` client opened over it reads and
 * ranks them) that also keeps revisions and the change feed. Every call reads the database now, so
 * writes made by other server instances are seen at once.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * import { PostgresCloudStore, PostgresMemoryStore } from "./store.ts";
 * import { startPostgres } from "../../tests/_postgres.ts";
 *
 * const pg = await startPostgres();
 * const cloud = await PostgresCloudStore.open({ url: pg.url, max: 2 });
 * try {
 *   const store = new PostgresMemoryStore({ sql: cloud.sql, workspaceId: "team", projectId: "p" });
 *   const [first] = await store.upsert([{ text: "Deploys run with make deploy" }]);
 *   assert.equal(first.status, "written");
 *   const [again] = await store.upsert([{ text: "Deploys run with make deploy" }]);
 *   assert.equal(again.status, "unchanged"); // same content: same note
 *   assert.equal(again.note.id, first.note.id);
 *   const memo = await openMemo({ store, indexCache: false });
 *   const [hit] = await memo.recall("deploy");
 *   assert.equal(hit.note.id, first.note.id);
 *   assert.equal(store.revisionOf(first.note.id), first.note.revision);
 * } finally {
 *   await cloud.close();
 *   await pg.stop();
 * }
 * ```
 */
export class PostgresMemoryStore implements C.RevisionedStore {
  /** The workspace. */
  readonly workspaceId: string;
  /** The project. */
  readonly projectId: string;
  readonly #sql: Sql;
  readonly #clock: () => Date;
  /** The project's `pid`, once its row is known to exist (rows are never deleted). */
  #pid: number | undefined;
  #revisions = new Map<string, number>();

  /** Creates the store of one project over a migrated pool. */
  constructor(options: PostgresMemoryStoreOptions) {
    this.#sql = options.sql;
    this.workspaceId = options.workspaceId;
    this.projectId = options.projectId;
    this.#clock = options.clock ?? (() => new Date());
  }

  /** Counts the notes; PostgreSQL reports no damaged notes. */
  async load(): Promise<StoreLoadReport> {
    const pid = await this.#project();
    if (pid === undefined) return { notes: 0, issues: [] };
    const [row] = await this.#sql<{ count: string }[]>`
      SELECT count(*)::int8 AS count FROM memo_notes WHERE pid = ${pid}`;
    return { notes: Number(row.count), issues: [] };
  }

  /**
   * Stores drafts all-or-nothing in one transaction, deduplicating by identity against the stored
   * notes and within the batch (the last draft of an identity gives the content, a new note gets
   * the first `id` given among them); result `i` answers draft `i`, and only the first draft of an
   * identity carries its note's status (later ones are `unchanged`).
   */
  async upsert(
    drafts: readonly C.CloudDraft[],
    options: { signal?: AbortSignal } = {},
  ): Promise<C.CloudWriteResult[]> {
    const prepared = prepareCloudDrafts(drafts);
    options.signal?.throwIfAborted();
    if (!prepared.length) return [];
    const { unique, slotOf } = dedupeDrafts(prepared);
    const results = await this.#sql.begin(async (tx) => {
      const { pid, seq } = (await this.#lock(tx, true))!;
      const existing = new Map<string, C.CloudNote>();
      // One index probe per key (LATERAL, not flattened: OFFSET 0), whatever the planner
      // estimates (a fresh, fast-growing table has no statistics yet).
      const found = await tx<(NoteRow & { identity: string; ord: string })[]>`
        SELECT n.identity, n.ord, ${noteColumns(tx, "n")}
        FROM unnest(${unique.map((d) => d.identity)}::text[]) AS q (identity)
        CROSS JOIN LATERAL (
          SELECT * FROM memo_notes WHERE pid = ${pid} AND identity = q.identity OFFSET 0
        ) n`;
      // Two notes can share an identity after a patch (as in notes.md): the first one counts.
      found.sort((a, b) => Number(a.ord) - Number(b.ord));
      for (const row of found) {
        if (!existing.has(row.identity)) existing.set(row.identity, rowToNote(row));
      }
      const asked = unique.filter((d) => d.id !== undefined && !existing.has(d.identity))
        .map((d) => d.id!);
      const taken = new Set<string>();
      if (asked.length) {
        const rows = await tx<{ id: string }[]>`
          SELECT n.id FROM unnest(${asked}::text[]) AS q (id)
          CROSS JOIN LATERAL (
            SELECT id FROM memo_notes WHERE pid = ${pid} AND id = q.id OFFSET 0
          ) n`;
        for (const row of rows) taken.add(row.id);
      }
      const plan = planDrafts(unique, existing, taken, this.#clock());
      const writes = plan.filter((p) => p.status !== "unchanged");
      if (!writes.length) return plan;
      options.signal?.throwIfAborted();
      writes.forEach((p, i) => p.note.revision = seq + i + 1);
      const rows = writes.map((p) => ({ seq: p.note.revision, identity: p.identity, ...p.note }));
      // New notes are inserted; updated ones (their id exists, same identity) take the new
      // content, keeping `created` and `ord`. The primary key decides, row by row: no join to
      // plan. A new note whose (fresh, random) id were taken would be neither: counted, refused.
      const [{ stored }] = await tx<{ stored: string }[]>`
        WITH r AS (${writeRecords(tx, rows)}), notes AS (
          ${insertRecords(tx, pid)}
          WHERE memo_notes.identity = EXCLUDED.identity
          RETURNING 1
        ), ch AS (
          INSERT INTO memo_changes (pid, seq, op, id, note)
          SELECT ${pid}, seq, 'upsert', id, ${noteJson(tx)} FROM r
        ), head AS (
          UPDATE memo_projects SET seq = ${seq + writes.length} WHERE pid = ${pid}
        )
        SELECT count(*) AS stored FROM notes`;
      if (Number(stored) !== writes.length) {
        throw new Error("Cannot store notes: a new note's id is taken; try again");
      }
      return plan;
    });
    return answerDrafts(slotOf, results);
  }

  /** `MemoryStore.commit`: {@linkcode upsert}, reported per unique note. */
  async commit(batch: CommitBatch, options: { signal?: AbortSignal } = {}): Promise<CommitResult> {
    const drafts = (batch as { notes?: unknown } | null | undefined)?.notes;
    if (!Array.isArray(drafts)) {
      throw new MemoryValidationError("Cannot store notes: the batch's notes must be a list");
    }
    const results = await this.upsert(drafts as C.CloudDraft[], options);
    const out: CommitResult = { written: [], updated: [], unchanged: [], bytesWritten: 0 };
    const seen = new Set<string>();
    const encoder = new TextEncoder();
    for (const { status, note } of results) {
      if (seen.has(note.id)) continue;
      seen.add(note.id);
      const plain = plainNote(note);
      out[status].push(plain);
      if (status !== "unchanged") out.bytesWritten += encoder.encode(JSON.stringify(plain)).length;
    }
    return out;
  }

  /**
   * Writes whole notes as given (ids, hashes and times kept) and removes ids, in one transaction:
   * what a `Memo` client's corrections, supersede links and tidy merges write
   * (`MemoryStore.applyReplica`). When a hash of `expect` is not the stored one (another writer, on
   * any instance, got there first) nothing is written and `stale` names it. A SHA-256 of a notes
   * file (`expectSha256`) cannot hold for this store: refused.
   */
  async applyReplica(changes: ReplicaChanges): Promise<ReplicaApplyResult> {
    const { put, remove } = replicaChanges(changes);
    const none: ReplicaApplyResult = { written: [], updated: [], removed: [], bytesWritten: 0 };
    if (!put.length && !remove.length) return none;
    return await this.#sql.begin(async (tx) => {
      const { pid, seq } = (await this.#lock(tx, true))!;
      const ids = [
        ...new Set([...put.map((n) => n.id), ...remove, ...Object.keys(changes.expect ?? {})]),
      ];
      const rows = await tx<NoteRow[]>`
        SELECT ${noteColumns(tx, "n")} FROM unnest(${ids}::text[]) AS q (id)
        CROSS JOIN LATERAL (
          SELECT * FROM memo_notes WHERE pid = ${pid} AND id = q.id OFFSET 0
        ) n`;
      const current = new Map(rows.map((row) => [row.id, plainNote(rowToNote(row))]));
      const stale = Object.entries(changes.expect ?? {})
        .filter(([id, hash]) => (current.get(id)?.hash ?? null) !== hash)
        .map(([id]) => id);
      if (stale.length) return { ...none, stale };
      const writes = put.filter((n) => !current.has(n.id) || !sameNote(current.get(n.id)!, n));
      const drops = remove.filter((id) => current.has(id));
      if (!writes.length && !drops.length) return none;
      let next = seq;
      const records = writes.map((n) => ({ ...n, seq: ++next, identity: noteIdentity(n) }));
      if (records.length) {
        await tx`
          WITH r AS (${writeRecords(tx, records)}), notes AS (
            ${insertRecords(tx, pid)}, created = EXCLUDED.created
          )
          INSERT INTO memo_changes (pid, seq, op, id, note)
          SELECT ${pid}, seq, 'upsert', id, ${noteJson(tx)} FROM r`;
      }
      if (drops.length) {
        const seqs = drops.map(() => ++next);
        await tx`
          WITH del AS (
            DELETE FROM memo_notes WHERE pid = ${pid} AND id = ANY(${drops}::text[])
          )
          INSERT INTO memo_changes (pid, seq, op, id, note)
          SELECT ${pid}, s, 'delete', id, NULL
          FROM unnest(${seqs}::int8[], ${drops}::text[]) AS t (s, id)`;
      }
      await tx`UPDATE memo_projects SET seq = ${next} WHERE pid = ${pid}`;
      const encoder = new TextEncoder();
      return {
        written: writes.filter((n) => !current.has(n.id)).map((n) => n.id),
        updated: writes.filter((n) => current.has(n.id)).map((n) => n.id),
        removed: drops,
        bytesWritten: writes.reduce((sum, n) => sum + encoder.encode(JSON.stringify(n)).length, 0),
      };
    });
  }

  /** One note with its revision, read now; `undefined` when unknown. */
  async get(id: string): Promise<C.CloudNote | undefined> {
    if (typeof id !== "string") return undefined;
    const pid = await this.#project();
    if (pid === undefined) return undefined;
    return await this.#current(this.#sql, pid, id);
  }

  /**
   * The ids of the notes whose `supersedes` names `id` (its derived `supersededBy`), in id order,
   * read now; empty when none.
   */
  async supersededBy(id: string): Promise<string[]> {
    const pid = await this.#project();
    if (pid === undefined) return [];
    const rows = await this.#sql<{ id: string }[]>`
      SELECT id FROM memo_notes
      WHERE pid = ${pid} AND supersedes @> ${JSON.stringify([id])}::text::jsonb
      ORDER BY id COLLATE "C"`;
    return rows.map((row) => row.id);
  }

  /**
   * Changes a note; `undefined` for an unknown id; {@linkcode CloudConflictError} when `ifMatch` is
   * not its revision. A patch that changes nothing keeps the revision (and writes nothing).
   */
  async updateIf(
    id: string,
    patch: C.NotePatch,
    ifMatch?: number,
  ): Promise<C.CloudNote | undefined> {
    return await this.#matching(id, ifMatch, async (tx, { pid, seq }, current) => {
      const next = patchCloudNote(current, patch, this.#clock());
      if (next === current) return current;
      next.revision = seq + 1;
      await tx`
        WITH upd AS (
          UPDATE memo_notes SET identity = ${noteIdentity(next)}, title = ${next.title},
            body = ${next.body}, labels = ${JSON.stringify(next.labels)}::text::jsonb,
            hash = ${next.hash}, updated = ${next.updated}, revision = ${next.revision},
            supersedes = ${next.supersedes ? JSON.stringify(next.supersedes) : null}::text::jsonb,
            valid_from = ${next.validFrom ?? null}, valid_until = ${next.validUntil ?? null}
          WHERE pid = ${pid} AND id = ${id}
        ), ch AS (
          INSERT INTO memo_changes (pid, seq, op, id, note)
          VALUES (${pid}, ${next.revision}, 'upsert', ${id}, ${JSON.stringify(next)}::text::jsonb)
        )
        UPDATE memo_projects SET seq = ${next.revision} WHERE pid = ${pid}`;
      return next;
    });
  }

  /**
   * Deletes a note (a tombstone joins the feed) and returns it as it was; `undefined` for an
   * unknown id; same `ifMatch` rule as {@linkcode updateIf}.
   */
  async removeIf(id: string, ifMatch?: number): Promise<C.CloudNote | undefined> {
    return await this.#matching(id, ifMatch, async (tx, { pid, seq }, current) => {
      await tx`
        WITH del AS (
          DELETE FROM memo_notes WHERE pid = ${pid} AND id = ${id}
        ), ch AS (
          INSERT INTO memo_changes (pid, seq, op, id, note)
          VALUES (${pid}, ${seq + 1}, 'delete', ${id}, NULL)
        )
        UPDATE memo_projects SET seq = ${seq + 1} WHERE pid = ${pid}`;
      return current;
    });
  }

  /**
   * {@linkcode RevisionedStore.removeMany}: deletes the notes named by id, or every note whose
   * source key starts with a prefix, in one transaction (a tombstone each, in order: ids as given,
   * a prefix's notes in store order). A prefix that matches more than `limit` notes deletes nothing
   * and throws `MemoryValidationError` with `details: { limit, matched }`.
   */
  async removeMany(
    selector: C.CloudDeleteSelector,
    limit: number = BATCH_DELETE_LIMIT,
  ): Promise<C.CloudDeleteResult> {
    const ids = "ids" in selector ? [...new Set(selector.ids)] : undefined;
    const prefix = "sourcePrefix" in selector ? selector.sourcePrefix : undefined;
    return await this.#sql.begin(async (tx) => {
      const locked = await this.#lock(tx, false);
      if (!locked) return { deleted: [], notFound: ids ?? [] };
      const { pid, seq } = locked;
      let rows: NoteRow[];
      if (ids) {
        rows = await tx<NoteRow[]>`
          SELECT n.* FROM unnest(${ids}::text[]) WITH ORDINALITY AS q (id, i)
          CROSS JOIN LATERAL (
            SELECT ${noteColumns(tx)} FROM memo_notes WHERE pid = ${pid} AND id = q.id OFFSET 0
          ) n
          ORDER BY q.i`;
      } else {
        const [{ matched }] = await tx<{ matched: string }[]>`
          SELECT count(*) AS matched FROM memo_notes
          WHERE pid = ${pid} AND left(source, char_length(${prefix!})) = ${prefix!}`;
        if (Number(matched) > limit) {
          throw new MemoryValidationError(
            `Cannot delete the notes: ${matched} notes have a source starting with the prefix, ` +
              `more than the limit of ${limit}; delete them by id, ${limit} at a time`,
            { details: { limit, matched: Number(matched) } },
          );
        }
        rows = await tx<NoteRow[]>`
          SELECT ${noteColumns(tx)} FROM memo_notes
          WHERE pid = ${pid} AND left(source, char_length(${prefix!})) = ${prefix!}
          ORDER BY ord`;
      }
      const deleted = rows.map(rowToNote);
      const gone = new Set(deleted.map((n) => n.id));
      const notFound = ids ? ids.filter((id) => !gone.has(id)) : [];
      if (!deleted.length) return { deleted, notFound };
      const seqs = deleted.map((_, i) => seq + i + 1);
      await tx`
        WITH del AS (
          DELETE FROM memo_notes WHERE pid = ${pid} AND id = ANY(${[...gone]}::text[])
        ), ch AS (
          INSERT INTO memo_changes (pid, seq, op, id, note)
          SELECT ${pid}, t.seq, 'delete', t.id, NULL
          FROM unnest(${seqs}::int8[], ${deleted.map((n) => n.id)}::text[]) AS t (seq, id)
        )
        UPDATE memo_projects SET seq = ${seq + deleted.length} WHERE pid = ${pid}`;
      return { deleted, notFound };
    });
  }

  /** `MemoryStore.update`: {@linkcode updateIf} without a revision check. */
  async update(id: string, patch: C.NotePatch): Promise<Note | undefined> {
    const note = await this.updateIf(id, patch);
    return note && plainNote(note);
  }

  /** `MemoryStore.remove`: {@linkcode removeIf} without a revision check. */
  async remove(id: string): Promise<boolean> {
    return (await this.removeIf(id)) !== undefined;
  }

  /** Notes in store order (creation), `limit` (1 to 1000, default 25) at a time. */
  async list(cursor?: string, limit = 25): Promise<NotePage> {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
      throw new MemoryValidationError(
        `Cannot list notes: limit must be an integer from 1 to ${MAX_PAGE}`,
      );
    }
    // The cursor's position is the `ord` of the last note returned.
    const after = cursor === undefined ? -1 : decodeCursor(cursor, "list notes").position;
    const pid = await this.#project();
    if (pid === undefined) return { notes: [] };
    const rows = await this.#sql<(NoteRow & { ord: string })[]>`
      SELECT ${noteColumns(this.#sql)}, ord FROM memo_notes
      WHERE pid = ${pid} AND ord > ${after}
      ORDER BY ord LIMIT ${limit + 1}`;
    const notes = rows.slice(0, limit).map((row) => plainNote(rowToNote(row)));
    const page: NotePage = { notes };
    if (rows.length > limit) {
      const last = rows[limit - 1];
      page.nextCursor = encodeCursor({ id: last.id, position: Number(last.ord) });
    }
    return page;
  }

  /**
   * Changes since `token` (the last `seq` seen): the current notes changed since and the ids
   * deleted since, or every note (`reset`) without a token or with one this project never gave. One
   * indexed query when nothing changed. Keeps {@linkcode revisionOf} in step with what it answers.
   */
  async changesSince(token?: string): Promise<StoreChanges> {
    const since = token !== undefined && /^(0|[1-9][0-9]{0,15})$/.test(token)
      ? Number(token)
      : undefined;
    const pid = await this.#project();
    if (pid === undefined) {
      // Nothing was ever written to this project.
      this.#revisions = new Map();
      return { token: "0", reset: since !== 0, upserted: [], removed: [] };
    }
    const changes = since === undefined ? undefined : await changesAfter(this.#sql, pid, since);
    if (changes) {
      for (const id of changes.removed) this.#revisions.delete(id);
      const upserted = changes.upserted.map(({ ord: _, ...note }) => {
        this.#revisions.set(note.id, note.revision);
        return plainNote(note);
      });
      return { token: String(changes.head), reset: false, upserted, removed: changes.removed };
    }
    const [rows, head] = await this.#sql.begin(
      "isolation level repeatable read read only",
      async (tx) => {
        const notes = await tx<NoteRow[]>`
          SELECT ${noteColumns(tx)} FROM memo_notes WHERE pid = ${pid} ORDER BY ord`;
        const [project] = await tx<{ seq: string }[]>`
          SELECT seq FROM memo_projects WHERE pid = ${pid}`;
        return [notes, Number(project.seq)] as const;
      },
    );
    const revisions = new Map<string, number>();
    const upserted = rows.map((row) => {
      const note = rowToNote(row);
      revisions.set(note.id, note.revision);
      return plainNote(note);
    });
    this.#revisions = revisions;
    return { token: String(head), reset: true, upserted, removed: [] };
  }

  /** The revision of a note as of the latest {@linkcode changesSince} answer. */
  revisionOf(id: string): number | undefined {
    return this.#revisions.get(id);
  }

  /** Feed entries with `seq > since`, oldest first, at most `limit` (1 to 1000). */
  async changes(
    since: number,
    limit: number,
  ): Promise<{ changes: C.CloudChange[]; hasMore: boolean }> {
    if (!Number.isSafeInteger(since) || since < 0) {
      throw new MemoryValidationError("Cannot read changes: since must be a non-negative integer");
    }
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_CHANGES) {
      throw new MemoryValidationError(
        `Cannot read changes: limit must be an integer from 1 to ${MAX_CHANGES}`,
      );
    }
    const pid = await this.#project();
    if (pid === undefined) return { changes: [], hasMore: false };
    const rows = await this.#sql<
      { seq: string; op: "upsert" | "delete"; id: string; note: NoteRow | null }[]
    >`
      SELECT seq, op, id, note FROM memo_changes
      WHERE pid = ${pid} AND seq > ${since}
      ORDER BY seq LIMIT ${limit + 1}`;
    const changes = rows.slice(0, limit).map((row): C.CloudChange => {
      const seq = Number(row.seq);
      return row.op === "delete" || row.note === null
        ? { seq, op: "delete", id: row.id, revision: seq }
        : { seq, op: "upsert", id: row.id, revision: seq, note: rowToNote(row.note) };
    });
    return { changes, hasMore: rows.length > limit };
  }

  /** The project's latest change number now (0 when nothing was ever written). */
  async lastRevision(): Promise<number> {
    const [row] = await this.#sql<{ seq: string }[]>`
      SELECT seq FROM memo_projects
      WHERE workspace = ${this.workspaceId} AND project = ${this.projectId}`;
    return row ? Number(row.seq) : 0;
  }

  /** Forgets the revisions held; the pool belongs to {@linkcode PostgresCloudStore}. */
  close(): Promise<void> {
    this.#revisions = new Map();
    return Promise.resolve();
  }

  /**
   * The project's number in the database (`memo_projects.pid`), or `undefined` while nothing was
   * ever written to it.
   */
  pid(): Promise<number | undefined> {
    return this.#project();
  }

  /** The project's `pid`, or `undefined` while nothing was ever written to it. */
  async #project(): Promise<number | undefined> {
    if (this.#pid !== undefined) return this.#pid;
    const [row] = await this.#sql<{ pid: string }[]>`
      SELECT pid FROM memo_projects
      WHERE workspace = ${this.workspaceId} AND project = ${this.projectId}`;
    if (row) this.#pid = Number(row.pid);
    return this.#pid;
  }

  /**
   * Locks the project's row for this transaction and returns its `pid` and seq; with `create`,
   * makes the row first when the project is new, else answers `undefined` for a project never
   * written.
   */
  async #lock(
    tx: TransactionSql,
    create: boolean,
  ): Promise<{ pid: number; seq: number } | undefined> {
    const select = () =>
      tx<{ pid: string; seq: string }[]>`
        SELECT pid, seq FROM memo_projects
        WHERE workspace = ${this.workspaceId} AND project = ${this.projectId}
        FOR UPDATE`;
    let [row] = await select();
    if (!row && create) {
      await tx`
        INSERT INTO memo_projects (workspace, project) VALUES (${this.workspaceId}, ${this.projectId})
        ON CONFLICT (workspace, project) DO NOTHING`;
      [row] = await select();
    }
    if (!row) return undefined;
    this.#pid = Number(row.pid);
    return { pid: this.#pid, seq: Number(row.seq) };
  }

  /** `write` under the project's lock, on note `id` checked against `ifMatch` (else `undefined`). */
  async #matching(id: string, ifMatch: number | undefined, write: MatchedWrite) {
    if (typeof id !== "string") return undefined;
    return await this.#sql.begin(async (tx) => {
      const locked = await this.#lock(tx, false);
      const current = locked && await this.#current(tx, locked.pid, id);
      return current && await write(tx, locked, checkIfMatch(current, ifMatch));
    });
  }

  async #current(
    sql: Sql | TransactionSql,
    pid: number,
    id: string,
  ): Promise<C.CloudNote | undefined> {
    const [row] = await sql<NoteRow[]>`
      SELECT ${noteColumns(sql)} FROM memo_notes WHERE pid = ${pid} AND id = ${id}`;
    return row ? rowToNote(row) : undefined;
  }
}

type MatchedWrite = (
  tx: TransactionSql,
  locked: { pid: number; seq: number },
  current: C.CloudNote,
) => Promise<C.CloudNote>;

/** The note columns of `memo_notes` (of table alias `alias`, when given), named as `NoteRow`. */
function noteColumns(sql: Sql | TransactionSql, alias?: string) {
  const p = alias ? `${alias}.` : "";
  return sql.unsafe(
    `${p}id, ${p}title, ${p}body, ${p}labels, ${p}source, ${p}hash, ${p}created, ${p}updated, ` +
      `${p}revision, ${p}supersedes, ${p}valid_from AS "validFrom", ` +
      `${p}valid_until AS "validUntil"`,
  );
}

/** A CloudNote as JSON, built from the columns of the write recordset `r`. */
function noteJson(sql: Sql | TransactionSql) {
  return sql.unsafe(
    `jsonb_strip_nulls(jsonb_build_object('id', id, 'title', title, 'body', body, ` +
      `'labels', labels, 'source', source, 'hash', hash, 'created', created, ` +
      `'updated', updated, 'supersedes', supersedes, 'validFrom', "validFrom", ` +
      `'validUntil', "validUntil", 'revision', seq))`,
  );
}

/** The write recordset `r`: `rows`, notes with their `seq` and `identity`, sent as one JSON list. */
function writeRecords(tx: TransactionSql, rows: readonly object[]) {
  return tx`SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::text::jsonb) AS r (
    ${tx.unsafe(WRITE.record)})`;
}

/**
 * The insert of the write recordset `r` into project `pid`'s notes; for an id stored already, the
 * row takes the new content (its `created` and `ord` kept; a caller may add to the SET list or a
 * WHERE).
 */
function insertRecords(tx: TransactionSql, pid: number) {
  return tx`INSERT INTO memo_notes (${tx.unsafe(WRITE.insert)})
    SELECT ${pid}, ${tx.unsafe(WRITE.values)} FROM r
    ON CONFLICT (pid, id) DO UPDATE SET ${tx.unsafe(WRITE.set)}`;
}

/** The columns of the write recordset `r`, and of its insert ({@linkcode insertRecords}). */
const WRITE = {
  record: `seq int8, id text, identity text, title text, body text, labels jsonb, source text,
    hash text, created text, updated text, supersedes jsonb, "validFrom" text, "validUntil" text`,
  insert: `pid, id, identity, title, body, labels, source, hash, created, updated, supersedes,
    valid_from, valid_until, revision, ord`,
  values: `id, identity, title, body, labels, source, hash, created, updated, supersedes,
    "validFrom", "validUntil", seq, seq`,
  set: `identity = EXCLUDED.identity, title = EXCLUDED.title, body = EXCLUDED.body,
    labels = EXCLUDED.labels, source = EXCLUDED.source, hash = EXCLUDED.hash,
    updated = EXCLUDED.updated, supersedes = EXCLUDED.supersedes,
    valid_from = EXCLUDED.valid_from, valid_until = EXCLUDED.valid_until,
    revision = EXCLUDED.revision`,
};
