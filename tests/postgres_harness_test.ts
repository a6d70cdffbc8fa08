/**
 * The PostgreSQL test harness (`tests/_postgres.ts`) with the driver the cloud
 * store's tests use: a throwaway cluster accepts a connection, stores and
 * returns UTF-8 text, and two clusters started at once do not collide.
 *
 * @module
 */

import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import postgres from "npm:postgres@3.4.9";
import { startPostgres } from "./_postgres.ts";

async function roundTrip(url: string, text: string): Promise<string> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)`;
    await sql`INSERT INTO notes (body) VALUES (${text})`;
    const rows = await sql<{ body: string }[]>`SELECT body FROM notes`;
    assert.equal(rows.length, 1);
    return rows[0].body;
  } finally {
    await sql.end();
  }
}

Deno.test("postgres harness: a fresh cluster stores and returns UTF-8 text", async () => {
  const pg = await startPostgres();
  try {
    const text = "café ✓ 日本語 🐘";
    assert.equal(await roundTrip(pg.url, text), text);
    const sql = postgres(pg.url, { max: 1 });
    try {
      const [{ server_version }] = await sql<{ server_version: string }[]>`SHOW server_version`;
      assert.ok(Number.parseInt(server_version) >= 13, `server_version ${server_version}`);
      const [{ db, encoding }] = await sql<{ db: string; encoding: string }[]>`
        SELECT current_database() AS db, pg_encoding_to_char(encoding) AS encoding
        FROM pg_database WHERE datname = current_database()`;
      assert.deepEqual({ db, encoding }, { db: "memo", encoding: "UTF8" });
    } finally {
      await sql.end();
    }
  } finally {
    await pg.stop();
  }
});

Deno.test("postgres harness: two clusters started at once get their own ports", async () => {
  const [a, b] = await Promise.all([startPostgres(), startPostgres()]);
  try {
    assert.notEqual(a.port, b.port);
    const [ra, rb] = await Promise.all([roundTrip(a.url, "a"), roundTrip(b.url, "b")]);
    assert.deepEqual([ra, rb], ["a", "b"]);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
});
