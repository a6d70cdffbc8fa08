/**
 * Internal: the versioned schema of the PostgreSQL store, as an ordered list of migrations, and
 * {@linkcode migrate}, which applies the pending ones at start.
 *
 * Every table is prefixed `memo_` (the database may be shared with other applications). Migrations
 * run in one transaction that first takes a transaction-scoped advisory lock, so two servers
 * starting at once apply each version once: the second waits, then finds nothing left to do.
 *
 * @module
 */

import type { Sql, TransactionSql } from "postgres";
import { noteIdentity } from "@memo/memory";

/**
 * One schema version.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MIGRATIONS, type Migration } from "./_migrations.ts";
 *
 * const first: Migration = MIGRATIONS[0];
 * assert.equal(first.version, 1);
 * ```
 */
export interface Migration {
  /** Version number; versions are applied in increasing order, each once. */
  version: number;
  /** What it does, in a few words (kept in `memo_schema_migrations`). */
  name: string;
  /** The statements, run as one simple query inside the migration transaction. */
  sql: string;
  /**
   * What SQL alone cannot do (memo's own functions over the stored rows), run after `sql` in the
   * same transaction.
   */
  run?: (tx: TransactionSql) => Promise<void>;
}

/** Rows read at a time while the identities are computed again. */
const IDENTITY_PAGE = 1000;

/**
 * Computes again the identity of every stored note without a source key with memo's one normalising
 * function (`noteIdentity`: the body's text after `normalizeNoteText`), in pages, so that the same
 * text written again after the migration is the stored note.
 */
async function recomputeTextIdentities(tx: TransactionSql): Promise<void> {
  let after = { pid: "-1", id: "" };
  for (;;) {
    const rows = await tx<{ pid: string; id: string; body: string; identity: string }[]>`
      SELECT pid, id, body, identity FROM memo_notes
      WHERE source IS NULL AND (pid, id) > (${after.pid}::int8, ${after.id})
      ORDER BY pid, id LIMIT ${IDENTITY_PAGE}`;
    if (!rows.length) return;
    const changed = rows.map((row) => ({ ...row, next: noteIdentity({ body: row.body }) }))
      .filter((row) => row.next !== row.identity);
    if (changed.length) {
      await tx`
        UPDATE memo_notes n SET identity = u.identity
        FROM unnest(
          ${changed.map((r) => r.pid)}::int8[],
          ${changed.map((r) => r.id)}::text[],
          ${changed.map((r) => r.next)}::text[]
        ) AS u (pid, id, identity)
        WHERE n.pid = u.pid AND n.id = u.id`;
    }
    const last = rows[rows.length - 1];
    after = { pid: String(last.pid), id: last.id };
  }
}

/**
 * The schema, oldest version first. Never edit an applied version: add one.
 *
 * Version 1:
 * - `memo_projects (pid, workspace, project, seq)`: one row per project; `seq` is the last change
 *   number. Every write locks this row first (`FOR UPDATE`), so the writes of one project are
 *   serialised and the order of `seq` is the order of commits. The other tables key on the short
 *   `pid`.
 * - `memo_notes`: the notes, keyed by `(pid, id)`, with their `identity` (`source:<key>` or
 *   `hash:<hash>`; not unique: a patch may give a note the content of another, as in notes.md),
 *   `revision` (the seq of their latest change) and `ord` (store order: the seq that created them).
 *   Times are kept as the ISO strings the API carries.
 * - `memo_changes (pid, seq, op, id, note)`: the change feed, tombstones (`op = 'delete'`, `note`
 *   null) included; `note` is the note as of that change.
 * - `memo_idempotency`: idempotency keys per workspace.
 *
 * Version 2, "notes that stay true":
 * - `memo_notes` gains `supersedes` (jsonb list of ids, null when none), `valid_from` and
 *   `valid_until` (ISO text, null when absent);
 * - the identity of a note without a source key becomes `text:<digest>` of its normalised text (it
 *   was `hash:<content hash>`): every stored one is computed again with `noteIdentity` of
 *   `@memo/memory`, the one function every runtime uses, so the same text in another case, spacing
 *   or punctuation is the stored note.
 *
 * Version 3:
 * - `memo_index_snapshots (pid, format, seq, …)`: the recall index snapshot of a project, of one
 *   format (see `../projects/project_index.ts`), covering the changes up to `seq`; its bytes are in
 *   `memo_index_snapshot_parts`, 4 MiB a row, stored uncompressed (`STORAGE EXTERNAL`: they are
 *   read whole, at once).
 *
 * Version 4:
 * - `memo_rate_limits (key, win, count)`: requests of each API key (a hash of it, never the key) in
 *   the current one-second window, shared by every instance. `UNLOGGED`: not written to the WAL nor
 *   replicated, and emptied by a crash, which costs at most one window's count.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MIGRATIONS } from "./_migrations.ts";
 *
 * const versions = MIGRATIONS.map((m) => m.version);
 * assert.deepEqual(versions, [...versions].sort((a, b) => a - b)); // in order
 * assert.match(MIGRATIONS[0].sql, /CREATE TABLE memo_notes/);
 * ```
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "projects, notes, change feed, idempotency keys",
    sql: `
CREATE TABLE memo_projects (
  pid bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace text NOT NULL,
  project text NOT NULL,
  seq bigint NOT NULL DEFAULT 0,
  UNIQUE (workspace, project)
);

CREATE TABLE memo_notes (
  pid bigint NOT NULL,
  id text NOT NULL,
  identity text NOT NULL,
  title text NOT NULL,
  body text NOT NULL,
  labels jsonb NOT NULL,
  source text,
  hash text NOT NULL,
  created text NOT NULL,
  updated text NOT NULL,
  revision bigint NOT NULL,
  ord bigint NOT NULL,
  PRIMARY KEY (pid, id)
);
CREATE INDEX memo_notes_identity ON memo_notes (pid, identity);
CREATE UNIQUE INDEX memo_notes_ord ON memo_notes (pid, ord);

CREATE TABLE memo_changes (
  pid bigint NOT NULL,
  seq bigint NOT NULL,
  op text NOT NULL CHECK (op IN ('upsert', 'delete')),
  id text NOT NULL,
  note jsonb,
  PRIMARY KEY (pid, seq)
);

CREATE TABLE memo_idempotency (
  workspace text NOT NULL,
  key text NOT NULL,
  fingerprint text NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'done')),
  status integer,
  body text,
  claimed_at timestamptz NOT NULL,
  completed_at timestamptz,
  PRIMARY KEY (workspace, key)
);
CREATE INDEX memo_idempotency_age ON memo_idempotency ((coalesce(completed_at, claimed_at)));
`,
  },
  {
    version: 2,
    name: "notes that stay true: supersedes, validity, normalised text identities",
    sql: `
ALTER TABLE memo_notes ADD COLUMN supersedes jsonb, ADD COLUMN valid_from text,
  ADD COLUMN valid_until text;
`,
    run: recomputeTextIdentities,
  },
  {
    version: 3,
    name: "index snapshots",
    sql: `
CREATE TABLE memo_index_snapshots (
  pid bigint NOT NULL,
  format text NOT NULL,
  seq bigint NOT NULL,
  notes integer NOT NULL,
  bytes bigint NOT NULL,
  parts integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (pid, format, seq)
);

CREATE TABLE memo_index_snapshot_parts (
  pid bigint NOT NULL,
  format text NOT NULL,
  seq bigint NOT NULL,
  part integer NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (pid, format, seq, part),
  FOREIGN KEY (pid, format, seq) REFERENCES memo_index_snapshots (pid, format, seq)
    ON DELETE CASCADE
);
ALTER TABLE memo_index_snapshot_parts ALTER COLUMN data SET STORAGE EXTERNAL;
`,
  },
  {
    version: 4,
    name: "rate limits shared by every instance",
    sql: `
CREATE UNLOGGED TABLE memo_rate_limits (
  key text PRIMARY KEY,
  win bigint NOT NULL,
  count integer NOT NULL
);
`,
  },
];

/**
 * The schema version this build needs: the newest of {@linkcode MIGRATIONS}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MIGRATIONS, SCHEMA_VERSION } from "./_migrations.ts";
 *
 * assert.equal(SCHEMA_VERSION, MIGRATIONS[MIGRATIONS.length - 1].version);
 * ```
 */
export const SCHEMA_VERSION: number = Math.max(...MIGRATIONS.map((m) => m.version));

/**
 * The advisory lock (two 32-bit keys: "memo" and 1) held while migrating.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MIGRATION_LOCK } from "./_migrations.ts";
 *
 * assert.equal(MIGRATION_LOCK.length, 2);
 * ```
 */
export const MIGRATION_LOCK: readonly [number, number] = [0x6d656d6f, 1];

/**
 * Applies the pending migrations in one transaction, under the advisory lock; returns the versions
 * applied (none when the schema is current). Refuses a database whose schema is newer than this
 * code knows.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * // deno-lint-ignore no-import-prefix -- example only
 * import postgres from "npm:postgres@3.4.9";
 * import { migrate, MIGRATIONS } from "./_migrations.ts";
 * import { startPostgres } from "../../tests/_postgres.ts";
 *
 * const pg = await startPostgres();
 * const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
 * try {
 *   assert.deepEqual(await migrate(sql), MIGRATIONS.map((m) => m.version));
 *   assert.deepEqual(await migrate(sql), []); // idempotent
 * } finally {
 *   await sql.end();
 *   await pg.stop();
 * }
 * ```
 */
export async function migrate(
  sql: Sql,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number[]> {
  return await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK[0]}::int4, ${MIGRATION_LOCK[1]}::int4)`;
    await tx.unsafe(`CREATE TABLE IF NOT EXISTS memo_schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const rows = await tx<{ version: number }[]>`SELECT version FROM memo_schema_migrations`;
    const applied = new Set(rows.map((row) => Number(row.version)));
    const known = Math.max(0, ...migrations.map((m) => m.version));
    const newest = Math.max(0, ...applied);
    if (newest > known) {
      throw new Error(
        `Cannot migrate the PostgreSQL store: the database schema is at version ${newest}, ` +
          `newer than this server knows (${known})`,
      );
    }
    const done: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (applied.has(migration.version)) continue;
      await tx.unsafe(migration.sql);
      await migration.run?.(tx);
      await tx`INSERT INTO memo_schema_migrations (version, name)
        VALUES (${migration.version}, ${migration.name})`;
      done.push(migration.version);
    }
    return done;
  });
}
