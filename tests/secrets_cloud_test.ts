/**
 * The secrets guard beyond one machine: the Cloud API server catches what a client sends
 * unguarded (`MEMO_CLOUD_SECRETS`, on PostgreSQL, in a real `cloud/main.ts` process: nothing in
 * any row, the idempotency records included, or the request log), refuses under `refuse`
 * (400 `invalid_request`), and stores what it is sent under `allow`, on `POST notes:correct` as on
 * the other write routes; the cloud runtime sends nothing it detected (a correction included), a
 * hybrid machine's correction is guarded locally; and hybrid replication
 * carries no secret to another machine: one whose local policy lets a secret through gets the
 * cloud's redacted copy back, and a `memo scan --redact` on one machine replicates to the other.
 */

import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { memoPaths } from "@memo/memory";
import postgres from "postgres";
import { createMemoCloudHandler, FileCloudStore } from "../cloud/mod.ts";
import { createMemoCloudMcpRuntime, createMemoHybridMcpRuntime, MemoCloudClient } from "../mod.ts";
import { secretCorpus } from "../testing/secrets_corpus.ts";
import { startCloudProcess } from "./_cloud_process.ts";
import { startPostgres } from "./_postgres.ts";
import { assertNoSecret, assertNoSecretOnDisk, filesUnder } from "./_secrets_check.ts";

const corpus = secretCorpus();
const KEY = "mk_secrets_guard_test_key";

Deno.test("the Cloud API on PostgreSQL redacts what an unguarded client sends: no row, kept answer or log line holds a value", async () => {
  const pg = await startPostgres();
  const server = await startCloudProcess({
    MEMO_CLOUD_DATABASE_URL: pg.url,
    MEMO_CLOUD_API_KEYS: `${KEY}:team`,
    MEMO_LOG_LEVEL: "debug",
  });
  const sql = postgres(pg.url, { onnotice: () => {} });
  try {
    // The raw client runs no guard: the server must.
    const client = new MemoCloudClient({ baseUrl: server.origin, apiKey: KEY });
    const answers: unknown[] = [];
    const batch = await client.upsertBatch(corpus.map((s) => ({ text: s.text })));
    answers.push(batch);
    assert.ok(batch.redacted!.length >= corpus.length);
    for (const s of corpus.slice(0, 3)) {
      const one = await client.remember({ text: `again: ${s.text}`, labels: [s.value] });
      answers.push(one);
      assert.deepEqual(one.redacted!.map((r) => r.field).sort(), ["labels", "text"]);
    }
    const id = batch.results[0].note.id;
    answers.push(await client.update(id, { title: corpus[4].value }));
    // notes:correct: the new text, title and labels, as a new note's.
    const fixed = await client.correct({
      id: batch.results[1].note.id,
      text: `Now: ${corpus[5].text}`,
      labels: [corpus[6].value],
    });
    answers.push(fixed);
    assert.deepEqual(fixed.redacted!.map((r) => r.field).sort(), ["labels", "text"]);
    assertNoSecret(JSON.stringify(answers), corpus, "an API answer");
    const tables = await sql<{ table_name: string }[]>`
      SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`;
    assert.ok(tables.some((t) => t.table_name === "memo_idempotency"));
    for (const { table_name } of tables) {
      const rows = await sql.unsafe(`SELECT * FROM "${table_name}"`);
      assertNoSecret(JSON.stringify(rows), corpus, `PostgreSQL table ${table_name}`);
    }
    const kept = await sql`SELECT count(*)::int AS n FROM memo_idempotency WHERE state = 'done'`;
    assert.ok(kept[0].n > 0, "the answers kept for replays are there, redacted");
    assertNoSecret(server.log(), corpus, "the request log");
  } finally {
    await sql.end();
    await server.stop();
    await pg.stop();
  }
});

/** POSTs `body` to a path of the default project through `handler`, with an Idempotency-Key. */
function poster(handler: (request: Request) => Promise<Response>) {
  const base = "http://cloud.test/v1/workspaces/team/projects/default";
  return (path: string, body: unknown, key: string) =>
    handler(
      new Request(`${base}${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${KEY}`,
          "content-type": "application/json",
          "idempotency-key": key,
        },
        body: JSON.stringify(body),
      }),
    );
}

Deno.test("the Cloud API under refuse answers 400 invalid_request naming the rules, keeps nothing of the value, and purge drops kept answers", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "memo-secrets-cloud-" });
  const store = new FileCloudStore({ dataDir });
  const lines: string[] = [];
  const handler = createMemoCloudHandler({
    store,
    apiKeys: [{ key: KEY, workspaceId: "team" }],
    secrets: "refuse",
    log: (line) => lines.push(line),
    logLevel: "debug",
  });
  try {
    const post = poster(handler);
    for (const [i, s] of corpus.entries()) {
      const response = await post("/notes", { text: s.text }, `k${i}`);
      assert.equal(response.status, 400, s.name);
      const body = await response.json();
      assert.equal(body.error.code, "invalid_request");
      assert.ok(body.error.details.secrets.some((r: { rule: string }) => r.rule === s.rule));
      assertNoSecret(JSON.stringify(body), corpus, "a refusal");
    }
    const batch = await post("/notes:batch", { notes: corpus.map((s) => ({ text: s.text })) }, "b");
    assert.equal(batch.status, 400);
    const plain = await post("/notes", { text: "A plain note" }, "plain");
    assert.equal(plain.status, 201);
    const { note } = await plain.json();
    for (
      const [i, fix] of [{ text: corpus[2].text }, { text: "t", labels: [corpus[3].value] }]
        .entries()
    ) {
      const response = await post("/notes:correct", { id: note.id, ...fix }, `c${i}`);
      assert.equal(response.status, 400);
      const body = await response.json();
      assert.equal(body.error.code, "invalid_request");
      assert.match(body.error.message, /^Cannot correct the note: the note holds a secret/);
      assert.equal(body.error.details.secrets.length, 1);
      assertNoSecret(JSON.stringify(body), corpus, "a refusal");
    }
    assertNoSecret(lines.join("\n"), corpus, "the request log");
    for (const { path, text } of await filesUnder(dataDir)) assertNoSecret(text, corpus, path);
    assert.equal((await (await store.project("team", "default")).stats()).notes, 1);
    assert.ok(await store.idempotency.purge(new Date(Date.now() + 1000)) > 0);
    assert.equal(await store.idempotency.purge(new Date(Date.now() + 1000)), 0);
  } finally {
    await store.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("the Cloud API under allow stores what it is sent: POST notes and notes:correct, no redacted", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "memo-secrets-cloud-allow-" });
  const store = new FileCloudStore({ dataDir });
  const handler = createMemoCloudHandler({
    store,
    apiKeys: [{ key: KEY, workspaceId: "team" }],
    secrets: "allow",
  });
  try {
    const post = async (path: string, body: unknown, key: string) =>
      await (await poster(handler)(path, body, key)).json();
    const made = await post("/notes", { text: corpus[0].text }, "a");
    assert.ok(made.note.body.includes(corpus[0].value) && made.redacted === undefined);
    const fixed = await post("/notes:correct", { id: made.note.id, text: corpus[1].text }, "b");
    assert.ok(fixed.note.body.includes(corpus[1].value) && fixed.redacted === undefined);
  } finally {
    await store.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

/** An in-process Cloud API on loopback, and a fetch that records every request body. */
function cloudOnLoopback(dataDir: string) {
  const store = new FileCloudStore({ dataDir });
  const handler = createMemoCloudHandler({ store, apiKeys: [{ key: KEY, workspaceId: "team" }] });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  const sent: string[] = [];
  const recording = async (input: Request | URL | string, init?: RequestInit) => {
    const request = new Request(input, init);
    sent.push(await request.clone().text());
    return await fetch(request);
  };
  return {
    baseUrl: `http://127.0.0.1:${server.addr.port}`,
    sent,
    fetch: recording,
    close: async () => {
      await server.shutdown();
      await store.close();
    },
  };
}

Deno.test("the cloud runtime guards on its side: nothing it detected is ever sent", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "memo-secrets-cloudrt-" });
  const cloud = cloudOnLoopback(dataDir);
  const runtime = createMemoCloudMcpRuntime({
    baseUrl: cloud.baseUrl,
    apiKey: KEY,
    fetch: cloud.fetch,
  });
  try {
    const one = await runtime.remember({ text: corpus[0].text });
    assert.equal(one.redacted![0].rule, corpus[0].rule);
    const many = await runtime.rememberMany!(corpus.slice(1).map((s) => ({ text: s.text })));
    assert.ok(many.redacted!.length >= corpus.length - 1);
    let heard = 0;
    await runtime.update(one.note.id, { text: corpus[3].text }, {
      onRedacted: (r) => heard = r.length,
    });
    assert.equal(heard, 1);
    const fixed = await runtime.correct!({ id: one.note.id, text: `Now: ${corpus[6].text}` });
    assert.deepEqual(fixed.redacted, [{ rule: corpus[6].rule, field: "text" }]);
    assert.ok(cloud.sent.length >= 4);
    assertNoSecret(cloud.sent.join("\n"), corpus, "a request body");
    const refusing = createMemoCloudMcpRuntime({
      baseUrl: cloud.baseUrl,
      apiKey: KEY,
      fetch: cloud.fetch,
      secrets: "refuse",
    });
    const before = cloud.sent.length;
    await assert.rejects(refusing.remember({ text: corpus[5].text }), { code: "INVALID_INPUT" });
    await assert.rejects(
      refusing.correct!({ id: fixed.note.id, text: corpus[5].text }),
      { code: "INVALID_INPUT", message: /^Cannot correct the note: / },
    );
    assert.equal(cloud.sent.length, before, "a refused write sends nothing");
    await refusing.close();
  } finally {
    await runtime.close();
    await cloud.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("hybrid replication carries no secret to another machine; a machine that allowed one gets the cloud's redacted copy; scan --redact replicates", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "memo-secrets-hybrid-" });
  const [a, b] = [
    await Deno.makeTempDir({ prefix: "memo-secrets-a-" }),
    await Deno.makeTempDir({ prefix: "memo-secrets-b-" }),
  ];
  const cloud = cloudOnLoopback(dataDir);
  const machine = (rootDir: string, secrets: "redact" | "allow") =>
    createMemoHybridMcpRuntime({
      rootDir,
      baseUrl: cloud.baseUrl,
      apiKey: KEY,
      fetch: cloud.fetch,
      pullIntervalMs: 60_000,
      localEmbeddings: false,
      closeDrainMs: 0,
      secrets,
    });
  const onA = machine(a, "redact");
  const lax = machine(a, "allow");
  const onB = machine(b, "redact");
  try {
    for (const s of corpus.slice(0, 8)) await onA.remember({ text: s.text });
    const { note: old } = await onA.remember({ text: "Releases are signed by the CI bot" });
    const fixed = await onA.correct!({ id: old.id, text: `Releases: ${corpus[9].text}` });
    assert.deepEqual(fixed.redacted, [{ rule: corpus[9].rule, field: "text" }]);
    await onA.replicate();
    // A machine whose policy let secrets through: the cloud redacts, and the copy comes back.
    // (What the lax machine wrote is checked in its answer: its background push may already have
    // pulled the cloud's redacted copy back into notes.md.)
    const laxWrites = [];
    for (const s of corpus.slice(8, 14)) laxWrites.push(await lax.remember({ text: s.text }));
    assert.ok(`${laxWrites[0].note.title}\n${laxWrites[0].note.body}`.includes(corpus[8].value));
    assert.deepEqual(laxWrites[0].redacted ?? [], []);
    await lax.replicate();
    await lax.replicate();
    await onB.replicate();
    // (Redacted alike, the five GitHub notes are one: the same text is stored once.)
    assert.equal((await onB.stats()).notes, (await lax.stats()).notes);
    await assertNoSecretOnDisk(a, corpus);
    await assertNoSecretOnDisk(b, corpus);
    // A hand edit on B, then memo scan --redact there: one edit, replicated to A.
    const path = memoPaths(b).notes;
    const hand = corpus.find((s) => s.rule === "stripe-key")!;
    const text = await readFile(path, "utf8");
    await writeFile(path, text.replace(/\n\n$/, `\nedited by hand: ${hand.text}\n\n`));
    const scanned = await onB.scanSecrets!({ redact: true });
    assert.deepEqual(scanned.findings.map((f) => f.rule), ["stripe-key"]);
    await onB.replicate();
    await lax.replicate();
    assert.match(
      await readFile(memoPaths(a).notes, "utf8"),
      /edited by hand: .*\[redacted:stripe-key\]/,
    );
    await assertNoSecretOnDisk(a, corpus);
    assertNoSecret(cloud.sent.join("\n"), [hand], "a request body");
  } finally {
    await onA.close();
    await lax.close();
    await onB.close();
    await cloud.close();
    for (const dir of [dataDir, a, b]) await Deno.remove(dir, { recursive: true });
  }
});
