/**
 * Scopes (issue 32) and the hybrid runtime: a hybrid project (`MEMO_RUNTIME=hybrid`, as
 * `runtimeFactoryFromEnv` starts it) on a cloud backed by PostgreSQL, with local and user notes
 * beside the project's. After each sync the cloud holds exactly the project's notes; a move out
 * of the project reaches the cloud as a forget, a move into it as a new note; and no text that
 * was only ever local or user is anywhere in the database (a `pg_dump` of it).
 *
 * @module
 */

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseNotes } from "../memory/store/parse.ts";
import { MemoCloudClient } from "../runtimes/cloud/client.ts";
import { runtimeFactoryFromEnv } from "../runtimes/start/from_env.ts";
import type { MemoMcpRuntime } from "../runtimes/types.ts";
import { findPostgresBin } from "../scripts/test_setup.ts";
import { tempDir } from "../testing/temp_dir.ts";
import { cloudNotes, startCloudProcess } from "./_cloud_process.ts";
import { startPostgres } from "./_postgres.ts";

const KEY = "mk_SCOPES_hybrid_team_key_51c0e8";

/** Every row of the cloud's database, as `pg_dump` writes it. */
async function dumpDatabase(port: number): Promise<string> {
  const bin = await findPostgresBin();
  const { code, stdout, stderr } = await new Deno.Command(join(bin!, "pg_dump"), {
    args: ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "--data-only", "memo"],
  }).output();
  const text = new TextDecoder();
  assert.equal(code, 0, text.decode(stderr));
  return text.decode(stdout);
}

/** The project's notes as `notes.md` holds them: `[id, body]`, sorted. */
async function projectRows(rootDir: string): Promise<[string, string][]> {
  const parsed = parseNotes(await readFile(join(rootDir, ".memo", "memory", "notes.md"), "utf8"));
  return parsed.sections.flatMap((s) =>
    s.note ? [[s.note.id, s.note.body] as [string, string]] : []
  )
    .sort();
}

Deno.test("a hybrid project with local and user notes: the cloud on PostgreSQL receives the project's notes only", async () => {
  const pg = await startPostgres();
  const server = await startCloudProcess({
    MEMO_CLOUD_DATABASE_URL: pg.url,
    MEMO_CLOUD_API_KEYS: `${KEY}:team`,
    MEMO_CLOUD_RATE_LIMIT: "0",
  });
  await using project = await tempDir("memo-scopes-hybrid-");
  await using home = await tempDir("memo-scopes-hybrid-home-");
  const rootDir = project.path;
  const cloud = new MemoCloudClient({
    baseUrl: server.origin,
    apiKey: KEY,
    workspaceId: "team",
    projectId: "app",
    timeoutMs: 10_000,
  });
  let runtime: MemoMcpRuntime | undefined;
  try {
    runtime = runtimeFactoryFromEnv({
      env: {
        MEMO_RUNTIME: "hybrid",
        MEMO_CLOUD_BASE_URL: server.origin,
        MEMO_CLOUD_API_KEY: KEY,
        MEMO_CLOUD_WORKSPACE_ID: "team",
        MEMO_CLOUD_PROJECT_ID: "app",
        MEMO_CLOUD_PULL_INTERVAL_MS: "600000",
        MEMO_LOCAL_EMBEDDINGS: "false",
        MEMO_HOME: home.path,
      },
      prewarm: false,
    })(rootDir);
    const rt = runtime;
    const remember = async (text: string, scope?: "project" | "local" | "user") =>
      (await rt.remember(scope ? { text, scope } : { text })).note;
    const sync = async () => {
      const result = await rt.replicate!();
      assert.equal(result.outbox, 0, JSON.stringify(result));
      const inCloud = (await cloudNotes(cloud)).map((n): [string, string] => [n.id, n.body]).sort();
      assert.deepEqual(inCloud, await projectRows(rootDir), "the cloud holds the project's notes");
      return inCloud;
    };

    // Every scope holds notes; only the project's are pushed.
    const deploys = await remember("Deploys run with make deploy");
    const queue = await remember("The queue is kafka", "project");
    const port = await remember("LOCAL-ONLY: this checkout serves on port 8081", "local");
    const offline = await remember("Moves in: this checkout builds offline", "local");
    const tabs = await remember("USER-ONLY: Ada prefers tabs", "user");
    const reviews = await remember("Moves in: Ada reviews before lunch", "user");
    assert.deepEqual((await rt.stats()).scopes, { project: 2, local: 2, user: 2 });
    let inCloud = await sync();
    assert.deepEqual(inCloud.map(([id]) => id).sort(), [deploys.id, queue.id].sort());

    // Moves: out of the project (a forget, for the cloud), into it from local and from user;
    // edits and forgets in the other scopes push nothing.
    await rt.update(queue.id, { scope: "local" });
    await rt.update(offline.id, { scope: "project" });
    await rt.update(reviews.id, { scope: "project" });
    await rt.update(tabs.id, { text: "USER-ONLY: Ada prefers tabs, width 4" });
    await rt.update(port.id, { text: "LOCAL-ONLY: this checkout serves on port 8082" });
    await rt.forget(port.id);
    inCloud = await sync();
    assert.deepEqual(
      inCloud.map(([id]) => id).sort(),
      [deploys.id, offline.id, reviews.id].sort(),
      "the moved-out note is forgotten in the cloud, the moved-in ones arrive",
    );
    const again = await rt.replicate!();
    assert.equal(again.pushed + again.pulled + again.outbox, 0, JSON.stringify(again));
    assert.deepEqual(
      (await rt.list({ limit: 50 })).notes.map((n) => [n.id, n.scope]).sort(),
      [
        [deploys.id, "project"],
        [offline.id, "project"],
        [reviews.id, "project"],
        [queue.id, "local"],
        [tabs.id, "user"],
      ].sort(),
    );

    // Nothing that was only ever local or user reached the database, in any table.
    const dump = await dumpDatabase(pg.port);
    assert.match(dump, /Deploys run with make deploy/, "the dump holds the project's notes");
    for (const id of [port.id, tabs.id]) assert.ok(!dump.includes(id), `${id} is not in the cloud`);
    assert.doesNotMatch(dump, /LOCAL-ONLY|USER-ONLY|port 808|prefers tabs/);
  } finally {
    await runtime?.close().catch(() => {});
    await server.stop();
    await pg.stop();
  }
});
