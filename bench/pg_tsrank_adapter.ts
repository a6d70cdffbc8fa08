/**
 * The hand-built PostgreSQL peer of the cloud recall quality bench: what a
 * user would write with PostgreSQL's own full-text search, as a system under
 * test of `../shared/bench/recall_eval.mjs` (JSON Lines on stdin/stdout).
 *
 * It starts a throwaway cluster (`tests/_postgres.ts`), stores every item as a
 * row (`title` = `"<speaker>, <date_text>"` as memo's adapter does, `body` =
 * the item's text) with a stored `tsvector` of the `english` configuration and
 * a GIN index, and ranks with plain `ts_rank`:
 *
 * - `TSRANK_MODE=or` (default): the question's lexemes joined with `|`, since
 *   a question rarely has every word in the answer;
 * - `TSRANK_MODE=and`: `plainto_tsquery`, the textbook form, which joins them
 *   with `&`.
 *
 * Run: deno run -A bench/pg_tsrank_adapter.ts
 *
 * @module
 */

// deno-lint-ignore no-import-prefix -- bench-only, pinned
import postgres from "npm:postgres@3.4.9";
import process from "node:process";
import { startPostgres } from "../tests/_postgres.ts";
import { serveEvaluatorProtocol } from "./_evaluator_sut.ts";

/** One corpus item of the benchmark format. */
interface Item {
  id: string;
  text: string;
  speaker?: string;
  date_text?: string;
}

const MODE = process.env.TSRANK_MODE === "and" ? "and" : "or";

async function main(): Promise<void> {
  const pg = await startPostgres();
  const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
  try {
    await sql`CREATE TABLE items (
      conversation text NOT NULL,
      id text NOT NULL,
      title text NOT NULL,
      body text NOT NULL,
      tsv tsvector GENERATED ALWAYS AS
        (setweight(to_tsvector('english', title), 'A') || to_tsvector('english', body)) STORED,
      PRIMARY KEY (conversation, id))`;
    await sql`CREATE INDEX items_tsv ON items USING gin (tsv)`;

    // deno-lint-ignore no-explicit-any
    const handle = async (msg: any): Promise<unknown> => {
      if (msg?.op === "index") {
        const items = msg.items as Item[];
        const rows = items.map((item) => ({
          conversation: msg.conversation_id,
          id: item.id,
          title: [item.speaker, item.date_text].filter((x) => x).join(", "),
          body: item.text,
        }));
        await sql`DELETE FROM items WHERE conversation = ${msg.conversation_id}`;
        for (let i = 0; i < rows.length; i += 500) {
          await sql`INSERT INTO items ${sql(rows.slice(i, i + 500))}`;
        }
        await sql`ANALYZE items`;
        return { ok: true };
      }
      if (msg?.op === "query") {
        const k = Number.isInteger(msg.k) && msg.k > 0 ? msg.k : 10;
        const question = typeof msg.question === "string" ? msg.question : "";
        const rows = MODE === "and"
          ? await sql`SELECT id FROM items, plainto_tsquery('english', ${question}) q
              WHERE conversation = ${msg.conversation_id} AND tsv @@ q
              ORDER BY ts_rank(tsv, q) DESC, id LIMIT ${k}`
          : await sql`WITH q AS (
                SELECT to_tsquery('english', coalesce(string_agg(quote_literal(lexeme), ' | '), '')) AS q
                FROM unnest(to_tsvector('english', ${question})))
              SELECT id FROM items, q
              WHERE conversation = ${msg.conversation_id} AND tsv @@ q.q
              ORDER BY ts_rank(tsv, q.q) DESC, id LIMIT ${k}`;
        return { qid: msg.qid, ids: rows.map((row) => row.id as string) };
      }
      return { ok: false, error: `unknown op ${msg?.op}` };
    };

    await serveEvaluatorProtocol(handle, "pg_tsrank_adapter");
  } finally {
    await sql.end();
    await pg.stop();
  }
}

if (import.meta.main) {
  await main();
  process.exit(0);
}
