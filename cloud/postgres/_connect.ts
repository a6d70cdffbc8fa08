/**
 * How the PostgreSQL store opens a pool of `npm:postgres` connections.
 *
 * The driver, left to itself, asks every new connection for the database's array types before
 * its first query. It runs that query from a message handler and drops the promise: when the
 * connection is reset in that moment (the database restarting, a proxy cutting it), the rejection
 * is unhandled and ends a Deno process, which is how a `memo cloud serve` could die while its
 * database restarted. memo therefore turns that query off (`fetch_types: false`) and gives the
 * driver the only array types it sends, `text[]` and `int8[]`, itself. memo reads no array
 * column; a query that did would get the array's text (`{a,b}`), not a JavaScript array.
 *
 * Each new connection also starts one round trip sooner (the snapshot copies open theirs while a
 * request waits).
 *
 * @module
 */

import postgres, { type Sql } from "postgres";

/** PostgreSQL's type ids (`pg_type.oid`) of `text[]` and `int8[]`, fixed by the server. */
const TEXT_ARRAY = 1009;
const INT8_ARRAY = 1016;

/** Backslashes and double quotes, escaped in a quoted element of an array literal. */
const ESCAPED = /[\\"]/g;

/**
 * `values` as a PostgreSQL array literal (`{"a","b\"c",NULL}`), every element quoted, so that
 * commas, braces, spaces and the word NULL stay text. Nested arrays are not memo's: they throw.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { arrayLiteral } from "./_connect.ts";
 *
 * assert.equal(arrayLiteral(["a", 'b"c', "d\\e", null]), '{"a","b\\"c","d\\\\e",NULL}');
 * assert.equal(arrayLiteral([1, 20n]), '{"1","20"}');
 * assert.equal(arrayLiteral([]), "{}");
 * ```
 */
export function arrayLiteral(values: readonly unknown[]): string {
  const parts = values.map((value) => {
    if (value === null || value === undefined) return "NULL";
    if (Array.isArray(value)) throw new TypeError("Cannot send a nested array to PostgreSQL");
    return `"${String(value).replace(ESCAPED, "\\$&")}"`;
  });
  return `{${parts.join(",")}}`;
}

/**
 * The array types memo sends, for the driver's `types` option. `from` is empty: no column memo
 * reads is an array.
 */
const ARRAY_TYPES = {
  textArray: { to: TEXT_ARRAY, from: [], serialize: arrayLiteral, parse: String },
  int8Array: { to: INT8_ARRAY, from: [], serialize: arrayLiteral, parse: String },
};

/** Options of {@linkcode connectPostgres}. */
export interface ConnectOptions {
  /** Connections in the pool. */
  max: number;
  /**
   * Seconds a new connection may take.
   * @default 10
   */
  connectTimeout?: number;
}

/**
 * A pool on `url` that never asks for the database's types (see the module's doc). Throws when the
 * URL is not valid, with the driver's message (which may quote the URL: callers replace it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { connectPostgres } from "./_connect.ts";
 *
 * const sql = connectPostgres("postgres://memo@127.0.0.1:1/memo", { max: 1 });
 * assert.equal(sql.options.fetch_types, false); // nothing connects until the first query
 * await sql.end();
 * ```
 */
export function connectPostgres(url: string, options: ConnectOptions): Sql {
  return postgres(url, {
    max: options.max,
    onnotice: () => {},
    connect_timeout: options.connectTimeout ?? 10,
    fetch_types: false,
    types: ARRAY_TYPES,
  });
}
