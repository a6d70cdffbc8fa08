/**
 * Git and the hybrid runtime together (issue 31): a cloud on one real PostgreSQL cluster, two
 * clones of one git repository whose `notes.md` merges through `memo merge-file`, both hybrid on
 * one cloud project, each reaching the cloud through a proxy that goes down while it works on its
 * branch. Each clone writes, edits and forgets while the other does too; B merges A's branch
 * through the driver, then both sync. Twice: once with A's branch already in the cloud, once with
 * neither side synced before the merge.
 *
 * - B pushes exactly what the merge changed against the cloud (its adds, edits and forgets, A's
 *   when A has not synced, and the conflict copy), nothing else;
 * - the cloud and both clones hold each note once: a conflict copy made by B's merge and the one
 *   made by a replication's conflict rule (on B, or on A) are one note, and one text remembered on
 *   both branches is one note;
 * - no note forgotten on either branch comes back;
 * - merging back (A merges B's branch, B fast-forwards) pushes nothing.
 *
 * @module
 */

import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseNotes } from "../memory/store/parse.ts";
import type { Note } from "../memory/notes/note.ts";
import { MemoCloudClient } from "../runtimes/cloud/client.ts";
import {
  createMemoHybridMcpRuntime,
  type MemoHybridMcpRuntime,
} from "../runtimes/hybrid/runtime.ts";
import { cloudNotes, startCloudProcess } from "./_cloud_process.ts";
import { startFaultProxy } from "./_fault_proxy.ts";
import { startPostgres } from "./_postgres.ts";
import { git } from "../testing/git.ts";

const CLI = fileURLToPath(new URL("../cli.ts", import.meta.url));
const KEY = "mk_HYBRID_git_merge_team_key_7e2a9c";
const PROJECT = "git";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A clone's git set-up: identity, and the driver wired as `memo init` wires it. */
async function wire(dir: string): Promise<void> {
  await git(dir, "config", "user.email", "memo@example.com");
  await git(dir, "config", "user.name", "memo");
  await git(dir, "config", "merge.memo.name", "memo notes merge");
  await git(
    dir,
    "config",
    "merge.memo.driver",
    `${Deno.execPath()} run -A ${CLI} merge-file %O %A %B`,
  );
}

/** The notes in a clone's `notes.md`, which must hold no marker and no damaged section. */
async function localNotes(dir: string): Promise<Note[]> {
  const text = await readFile(join(dir, ".memo", "memory", "notes.md"), "utf8");
  assert.doesNotMatch(text, /^(<{7}|={7}|>{7})/m, `notes.md of ${dir} holds no conflict marker`);
  const parsed = parseNotes(text);
  assert.deepEqual(parsed.issues, [], `notes.md of ${dir} has no damaged or duplicate section`);
  return parsed.sections.flatMap((s) => s.note ? [s.note] : []);
}

/** Notes as sorted `[id, content hash, body]` rows, for comparison. */
function rows(notes: readonly Note[]): [string, string, string][] {
  return notes.map((n): [string, string, string] => [n.id, n.hash, n.body]).sort((a, b) =>
    a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0
  );
}

Deno.test("hybrid after a git merge: each note once in the cloud, nothing forgotten comes back", async () => {
  const pg = await startPostgres();
  const server = await startCloudProcess({
    MEMO_CLOUD_DATABASE_URL: pg.url,
    MEMO_CLOUD_API_KEYS: `${KEY}:team`,
    MEMO_CLOUD_RATE_LIMIT: "0",
  });
  const top = await Deno.makeTempDir({ prefix: "memo-hybrid-git-" });
  const runtimes: MemoHybridMcpRuntime[] = [];
  // Each clone reaches the cloud through a proxy that goes down while it works on its branch.
  const proxy = await startFaultProxy(server.origin);
  const proxyA = await startFaultProxy(server.origin);
  const hybrid = (dir: string, baseUrl = server.origin) => {
    const runtime = createMemoHybridMcpRuntime({
      rootDir: dir,
      baseUrl,
      apiKey: KEY,
      workspaceId: "team",
      projectId: PROJECT,
      timeoutMs: 5000,
      retry: { maxRetries: 1, backoffMs: 50 },
      closeDrainMs: 300,
      pullIntervalMs: 600_000,
      localEmbeddings: false,
      prewarm: false,
    });
    runtimes.push(runtime);
    return runtime;
  };
  const cloud = new MemoCloudClient({
    baseUrl: server.origin,
    apiKey: KEY,
    workspaceId: "team",
    projectId: PROJECT,
    timeoutMs: 10_000,
  });
  const aDir = join(top, "a");
  const bDir = join(top, "b");
  try {
    // The shared base: A remembers five notes, replicates them and commits.
    await mkdir(join(aDir, ".memo"), { recursive: true });
    await git(aDir, "init", "-q", "-b", "main");
    await wire(aDir);
    await writeFile(join(aDir, ".memo", ".gitattributes"), "memory/notes.md merge=memo\n");
    const a = hybrid(aDir, proxyA.origin);
    const base: Note[] = [];
    for (
      const text of [
        "Deploys run with make deploy",
        "The queue is kafka",
        "The cache is redis",
        "Staging lives in eu-west-1",
        "Logs rotate daily",
      ]
    ) base.push((await a.remember({ text })).note);
    const [deploy, queue, cache, staging, logs] = base;
    await a.replicate();
    await git(aDir, "add", ".memo/.gitattributes", ".memo/memory/notes.md");
    await git(aDir, "commit", "-qm", "base");

    // B clones the repository and follows the same cloud project: nothing to push.
    await git(top, "clone", "-q", aDir, bDir);
    await wire(bDir);
    const b = hybrid(bDir, proxy.origin);
    assert.equal((await b.replicate()).pushed, 0, "a clone of replicated notes pushes nothing");
    assert.equal((await b.stats()).notes, 5);

    // Both branches move at once, B cut off from the cloud. A: a new note, the same text as B's, an edit, two forgets.
    await proxy.down();
    const aNew = (await a.remember({ text: "Alice: the CDN is cloudfront" })).note;
    await a.remember({ text: "The build cache lives in S3" });
    await a.update(deploy.id, { text: "Deploys run with make ship" });
    await a.forget(queue.id);
    await a.forget(logs.id);
    await a.replicate(); // A's branch reaches the cloud before the merge
    await git(aDir, "commit", "-qam", "alice");
    // B: a new note, the same text as A's, a later edit of the same note, two forgets.
    await sleep(5);
    const bNew = (await b.remember({ text: "Bob: the search is opensearch" })).note;
    await b.remember({ text: "The build cache lives in S3" });
    const bDeploy = await b.update(deploy.id, { text: "Deploys run with make release" });
    await b.forget(cache.id);
    await b.forget(logs.id);
    await git(bDir, "commit", "-qam", "bob");

    // B merges A's branch through the driver, its runtime open (the merge is an outside edit).
    await git(bDir, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main");
    const merged = await localNotes(bDir);
    const copies = merged.filter((n) => n.labels.includes("conflict"));
    assert.equal(copies.length, 1, "the merge made one conflict copy: A's version of the edit");
    const [copy] = copies;
    assert.ok(copy.body.endsWith("Deploys run with make ship"));
    assert.equal(merged.find((n) => n.id === deploy.id)?.body, bDeploy.body);

    // B syncs: it pushes what the merge changed on its side, and nothing else: the forget and the
    // edit of its branch, its new note and the conflict copy (A's branch is in the cloud already;
    // the text both remembered is one note there).
    // The proxy comes up only now: before, a background push that a write kicked could reach the
    // cloud beside the merge, and then pull into notes.md while git merged it.
    proxy.up();
    const seen = proxy.requests.length;
    const bSync = await b.replicate();
    assert.equal(bSync.pushed, 4, `B's sync: ${JSON.stringify(bSync)}`);
    const writes = proxy.requests.slice(seen).filter((r) => r.method !== "GET");
    const notePath = (id: string) => `/v1/workspaces/team/projects/${PROJECT}/notes/${id}`;
    assert.deepEqual(
      writes.map((r) => `${r.method} ${r.path}`).sort(),
      [
        `DELETE ${notePath(cache.id)}`,
        `PATCH ${notePath(deploy.id)}`,
        `POST /v1/workspaces/team/projects/${PROJECT}/notes:batch`,
      ].sort(),
    );
    const aSync = await a.replicate();
    assert.equal(aSync.pushed, 0, `A had pushed its branch already: ${JSON.stringify(aSync)}`);
    for (let round = 0; round < 3; round++) {
      const results = [await b.replicate(), await a.replicate()];
      if (results.every((r) => r.pushed === 0 && r.pulled === 0 && r.outbox === 0)) break;
      assert.ok(round < 2, `no convergence: ${JSON.stringify(results)}`);
    }

    const inCloud = await cloudNotes(cloud);
    const expectedBodies = [
      "Deploys run with make release",
      copy.body,
      "Staging lives in eu-west-1",
      "Alice: the CDN is cloudfront",
      "The build cache lives in S3",
      "Bob: the search is opensearch",
    ].sort();
    assert.deepEqual(inCloud.map((n) => n.body).sort(), expectedBodies, "each note once");
    for (const gone of [queue, cache, logs]) {
      assert.ok(!inCloud.some((n) => n.id === gone.id), `${gone.body}: forgotten stays forgotten`);
    }
    assert.ok(inCloud.some((n) => n.id === staging.id && n.body === staging.body));
    assert.ok(inCloud.some((n) => n.id === aNew.id) && inCloud.some((n) => n.id === bNew.id));
    assert.equal(inCloud.filter((n) => n.labels.includes("conflict")).length, 1);
    assert.deepEqual(rows(await localNotes(aDir)), rows(inCloud), "A holds the cloud's notes");
    assert.deepEqual(rows(await localNotes(bDir)), rows(inCloud), "B holds the cloud's notes");

    // B commits what it synced; A commits its own synced file and merges B's branch back.
    await git(bDir, "commit", "-qam", "bob: synced");
    await git(aDir, "commit", "-qam", "alice: synced");
    await git(aDir, "pull", "-q", "--no-rebase", "--no-edit", bDir, "main");
    assert.deepEqual(rows(await localNotes(aDir)), rows(inCloud), "A's merge keeps each note once");
    const back = await a.replicate();
    assert.equal(back.pushed + back.pulled + back.outbox, 0, JSON.stringify(back));
    assert.deepEqual(rows(await cloudNotes(cloud)), rows(inCloud), "the cloud did not move");

    // Round two, neither clone synced before the merge. B takes A's merge (a fast-forward that
    // rewrites B's file with the same notes: nothing to push).
    await git(bDir, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main");
    const ff = await b.replicate();
    assert.equal(ff.pushed + ff.outbox, 0, JSON.stringify(ff));
    await proxyA.down();
    await proxy.down();
    await a.update(staging.id, { text: "Staging lives in eu-central-1" });
    await a.forget(bNew.id);
    await a.forget(aNew.id);
    await git(aDir, "commit", "-qam", "alice: round two");
    await sleep(5);
    const bStaging = await b.update(staging.id, { text: "Staging lives in us-east-1" });
    const bMore = (await b.remember({ text: "Bob: the mail goes through SES" })).note;
    await b.forget(aNew.id);
    await git(bDir, "commit", "-qam", "bob: round two");
    await git(bDir, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main");
    const copies2 = (await localNotes(bDir)).filter((n) =>
      n.labels.includes("conflict") && n.body.endsWith("Staging lives in eu-central-1")
    );
    assert.equal(copies2.length, 1, "B's merge made the copy of A's staging edit");
    // B syncs first: its merge's changes, A's included (A has not synced).
    proxy.up();
    const seen2 = proxy.requests.length;
    const bSync2 = await b.replicate();
    assert.equal(bSync2.pushed, 5, `B's second sync: ${JSON.stringify(bSync2)}`);
    assert.deepEqual(
      proxy.requests.slice(seen2).filter((r) => r.method !== "GET").map((r) =>
        `${r.method} ${r.path}`
      ).sort(),
      [
        `DELETE ${notePath(aNew.id)}`,
        `DELETE ${notePath(bNew.id)}`,
        `PATCH ${notePath(staging.id)}`,
        `POST /v1/workspaces/team/projects/${PROJECT}/notes:batch`,
      ].sort(),
    );
    // A syncs: its pull meets the conflict its own merge never saw, and makes the same copy.
    proxyA.up();
    const aSync2 = await a.replicate();
    assert.equal(aSync2.pushed, 0, `A's second sync: ${JSON.stringify(aSync2)}`);
    assert.equal(aSync2.conflicts, 1);
    const final = await cloudNotes(cloud);
    assert.deepEqual(rows(await localNotes(aDir)), rows(final), "A holds the cloud's notes");
    assert.deepEqual(rows(await localNotes(bDir)), rows(final), "B holds the cloud's notes");
    assert.equal(final.find((n) => n.id === staging.id)?.body, bStaging.body);
    assert.equal(final.filter((n) => n.id === copies2[0].id).length, 1);
    assert.equal(final.filter((n) => n.labels.includes("conflict")).length, 2);
    for (const gone of [queue, cache, logs, aNew, bNew]) {
      assert.ok(!final.some((n) => n.id === gone.id), `${gone.body}: forgotten stays forgotten`);
    }
    assert.ok(final.some((n) => n.id === bMore.id));
    assert.equal(final.length, inCloud.length, "two forgotten, one remembered, one copy");
  } finally {
    for (const runtime of runtimes) await runtime.close().catch(() => {});
    await proxy.close();
    await proxyA.close();
    await server.stop();
    await pg.stop();
    await Deno.remove(top, { recursive: true });
  }
});
