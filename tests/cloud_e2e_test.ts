/**
 * The cloud end to end, on one real PostgreSQL cluster for the whole file:
 *
 * - `memo mcp` (the real entry point, over stdio, `MEMO_RUNTIME=cloud`)
 *   serves every tool, resource and prompt to the official MCP SDK client
 *   from `cloud/main.ts` running under `deno serve` on PostgreSQL, and writes
 *   no notes under its `--dir` or working directory;
 * - two `cloud/main.ts` instances on the same database, each reached through
 *   its own cloud runtime: what one writes the other reads at once, and
 *   2 × 500 concurrent writes (plus duplicates by identity sent through both
 *   at once) lose nothing and duplicate nothing.
 *
 * @module
 */

import assert from "node:assert/strict";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
import { MemoCloudClient } from "../runtimes/cloud/client.ts";
import { createMemoCloudMcpRuntime } from "../runtimes/cloud/runtime.ts";
import { isMemoRuntimeError } from "../runtimes/errors.ts";
import type { RuntimeRememberResult } from "../runtimes/types.ts";
import { cloudNotes, type CloudProcess, inherited, startCloudProcess } from "./_cloud_process.ts";
import { startPostgres } from "./_postgres.ts";
import { discussion, startFakeGithub } from "./connectors_fake_github.ts";
import { exerciseEverything, validating } from "./fixtures/mcp_sdk.ts";
import { EXPECTED_TOOL_NAMES } from "./fixtures/mcp_protocol_calls.ts";
import { pageCounter } from "../testing/pages.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const KEY = "mk_E2E_team_key_5f2c9a71d0";
const OTHER_KEY = "mk_E2E_other_key_81b3e6";
const GITHUB_TOKEN = "ghp_E2EgithubTOKEN00000000000000000000042";

/** Every change of the project's feed, page by page. */
async function wholeFeed(client: MemoCloudClient) {
  const changes = [];
  let since: string | undefined;
  const nextPage = pageCounter("the pages of client.changes()");
  for (;;) {
    nextPage();
    const page = await client.changes({ since, limit: 1000 });
    changes.push(...page.changes);
    since = page.next;
    if (!page.hasMore) return changes;
  }
}

/** Every file under `dir`, relative, sorted. */
async function filesUnder(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

Deno.test("the cloud end to end on PostgreSQL", async (t) => {
  const pg = await startPostgres();
  const servers: CloudProcess[] = [];
  const serverEnv = {
    MEMO_CLOUD_DATABASE_URL: pg.url,
    MEMO_CLOUD_API_KEYS: `${KEY}:team,${OTHER_KEY}:other`,
    MEMO_CLOUD_RATE_LIMIT: "0",
  };
  try {
    // Two instances, started at once: both migrate the same empty database.
    const [a, b] = await Promise.all([
      startCloudProcess(serverEnv),
      startCloudProcess(serverEnv),
    ]);
    servers.push(a, b);
    const direct = (origin: string, projectId: string) =>
      new MemoCloudClient({ baseUrl: origin, apiKey: KEY, projectId });

    await t.step("memo mcp over stdio serves the whole tool surface from the cloud", async () => {
      const dir = await Deno.makeTempDir({ prefix: "memo-e2e-dir-" });
      const cwd = await Deno.makeTempDir({ prefix: "memo-e2e-cwd-" });
      const github = startFakeGithub([{
        nameWithOwner: "octo-org/hello-world",
        discussions: [1, 2].map((n) => discussion(n, `2024-05-0${n}T10:00:00Z`)),
      }], { token: GITHUB_TOKEN });
      const stdio = new StdioClientTransport({
        command: Deno.execPath(),
        args: [
          "run",
          "-A",
          "--quiet",
          "--config",
          join(ROOT, "deno.json"),
          join(ROOT, "cli.ts"),
          "mcp",
          "--dir",
          dir,
        ],
        cwd,
        stderr: "pipe",
        env: {
          ...inherited(),
          MEMO_RUNTIME: "cloud",
          MEMO_CLOUD_BASE_URL: a.origin,
          MEMO_CLOUD_API_KEY: KEY,
          MEMO_CLOUD_PROJECT_ID: "mcp",
          GITHUB_TOKEN,
        },
      });
      let mcpStderr = "";
      stdio.stderr?.on("data", (chunk: Uint8Array) => {
        mcpStderr += new TextDecoder().decode(chunk);
      });
      const { transport, inbound } = validating(stdio);
      const client = new Client({ name: "memo-e2e", version: "1.0.0" });
      const errors: unknown[] = [];
      client.onerror = (e: unknown) => void errors.push(e);
      const called = new Set<string>();
      const callTool = client.callTool.bind(client);
      client.callTool = ((params: Json, ...rest: Json[]) => {
        called.add(params.name);
        return callTool(params, ...rest);
      }) as typeof client.callTool;
      const call = async (name: string, args: Record<string, unknown>) =>
        (await client.callTool({ name, arguments: args })) as Json;
      const cloud = direct(b.origin, "mcp"); // through the other instance: the database is shared
      try {
        await client.connect(transport);
        assert.equal(client.getServerVersion()?.name, "memo");

        // Every tool, resource, template, completion and prompt, as the local runtime answers.
        await exerciseEverything(client);

        // What the MCP server wrote is in the Cloud API, with server revisions.
        const remembered = await call("remember", {
          text: "The cloud end to end test writes this note through MCP",
          labels: ["e2e"],
          source: "e2e:mcp",
        });
        assert.equal(remembered.structuredContent.status, "written", JSON.stringify(remembered));
        const id = remembered.structuredContent.note.id as string;
        const stored = await cloud.get(id);
        assert.equal(stored.body, "The cloud end to end test writes this note through MCP");
        assert.equal(stored.source, "e2e:mcp");
        assert.ok(Number.isSafeInteger(stored.revision) && stored.revision > 0);
        assert.equal("revision" in remembered.structuredContent.note, false);

        // What another client writes, MCP reads at once.
        const outside = await cloud.remember({ text: "Quokkas were written beside MCP" });
        const found = await call("recall", { query: "quokkas" });
        assert.deepEqual(
          found.structuredContent.hits.map((h: Json) => h.note.id),
          [outside.note.id],
        );
        assert.equal(found.structuredContent.hits[0].engine, "lexical");
        const vector = await call("recall", { query: "quokkas", engine: "vector" });
        assert.equal(vector.isError, true);
        assert.match(
          JSON.stringify(vector),
          /Cannot recall with the vector engine: the cloud runtime is lexical/,
        );

        // sync_connectors: the connector runs in memo mcp's process, one pass = one batch.
        await mkdir(join(dir, ".memo"), { recursive: true });
        await writeFile(
          join(dir, ".memo", "config.json"),
          JSON.stringify({
            connectors: [{
              id: "gh",
              type: "discussions",
              repositories: ["octo-org/hello-world"],
              apiUrl: github.url,
            }],
          }),
        );
        const before = (await cloud.stats()).revision;
        const sync = await call("sync_connectors", {});
        assert.equal(sync.isError, undefined, JSON.stringify(sync));
        assert.equal(sync.structuredContent.written, 2, JSON.stringify(sync.structuredContent));
        const synced = (await cloud.list({ source: "github:", limit: 10 })).notes;
        assert.deepEqual(synced.map((n) => n.title).sort(), ["Discussion 1", "Discussion 2"]);
        const feed = await cloud.changes({ since: String(before) });
        assert.deepEqual(feed.changes.map((c) => c.op), ["upsert", "upsert"]);

        // A correction through MCP on PostgreSQL (one transaction on the server): recall's
        // first hit is the new fact, the old one is history, flagged, and what held before.
        const wrong = await call("remember", { text: "The e2e cache lives in us-east-1" });
        const wrongId = wrong.structuredContent.note.id as string;
        const corrected = await call("correct", {
          id: wrongId,
          text: "The e2e cache lives in eu-west-1",
        });
        assert.equal(corrected.isError, undefined, JSON.stringify(corrected));
        const fixed = corrected.structuredContent.note;
        assert.deepEqual([fixed.supersedes, corrected.structuredContent.superseded], [
          [wrongId],
          [wrongId],
        ]);
        const now = await call("recall", { query: "e2e cache lives" });
        const nowIds = now.structuredContent.hits.map((h: Json) => h.note.id);
        assert.equal(nowIds[0], fixed.id);
        assert.ok(!nowIds.includes(wrongId), "the old fact is history");
        const all = await call("recall", { query: "e2e cache lives", includeSuperseded: true });
        const old = all.structuredContent.hits.find((h: Json) => h.note.id === wrongId);
        assert.deepEqual(old?.note.supersededBy, [fixed.id]);
        const earlier = new Date(Date.parse(fixed.created) - 1).toISOString();
        const then = await call("recall", { query: "e2e cache lives", asOf: earlier });
        const thenIds = then.structuredContent.hits.map((h: Json) => h.note.id);
        assert.equal(thenIds[0], wrongId);
        assert.ok(!thenIds.includes(fixed.id), "not recorded yet then");
        assert.deepEqual((await cloud.get(wrongId)).supersededBy, [fixed.id]);
        assert.equal(typeof (await cloud.get(wrongId)).validUntil, "string");
        // supersede and tidy go through the cloud too.
        const merged = await call("supersede", { ids: [outside.note.id], by: id });
        assert.deepEqual(merged.structuredContent.superseded, [outside.note.id]);
        const tidy = await call("tidy", {});
        assert.equal(tidy.isError, undefined, JSON.stringify(tidy));
        assert.equal(tidy.structuredContent.sha256, undefined, "a cloud plan has no notes.md");

        const tools = (await client.listTools()).tools.map((tool: Json) => tool.name);
        assert.deepEqual(tools, EXPECTED_TOOL_NAMES);
        assert.deepEqual([...called].sort(), [...tools].sort(), "every listed tool was called");

        // The counts MCP reports are the cloud's.
        const stats = await call("memory_stats", {});
        const cloudStats = await cloud.stats();
        assert.equal(stats.structuredContent.notes, cloudStats.notes);
        assert.deepEqual(stats.structuredContent.labels, cloudStats.labels);
        // exercise's survivor, 2 here, 2 synced, a note and its correction
        assert.equal(cloudStats.notes, 1 + 1 + 1 + 2 + 2);
      } finally {
        await client.close();
        await github.close();
        await cloud.health(); // the servers still answer
      }
      try {
        assert.deepEqual(inbound.invalid, []);
        assert.deepEqual(errors, [], "stdout carried only valid JSON-RPC");
        assert.ok(!mcpStderr.includes(KEY), "memo mcp never writes the key");
        // No notes under --dir: only the connectors' configuration and state.
        assert.deepEqual(await filesUnder(dir), [
          ".memo/config.json",
          ".memo/connectors/state.json",
        ]);
        assert.deepEqual(await readdir(cwd), [], "nothing in the working directory");
      } finally {
        await Deno.remove(dir, { recursive: true });
        await Deno.remove(cwd, { recursive: true });
      }
    });

    await t.step(
      "two instances: a note written through one is read through the other at once",
      async () => {
        const one = createMemoCloudMcpRuntime({
          baseUrl: a.origin,
          apiKey: KEY,
          projectId: "pair",
        });
        const two = createMemoCloudMcpRuntime({
          baseUrl: `${b.origin}/v1`,
          apiKey: KEY,
          workspaceId: "team",
          projectId: "pair",
        });
        try {
          const written = await one.remember({
            text: "Axolotls regrow their limbs",
            labels: ["bio"],
          });
          const hits = await two.recall("axolotls limbs", { limit: 5 });
          assert.deepEqual(hits.map((h) => h.note.id), [written.note.id]);
          assert.deepEqual(hits[0].note, written.note);

          const again = await two.remember({
            text: "Axolotls regrow their limbs",
            labels: ["bio"],
          });
          assert.equal(again.status, "unchanged", "the identity (content hash) is shared");
          assert.equal(again.note.id, written.note.id);
          const updated = await two.update(written.note.id, { title: "Axolotls" });
          assert.equal(updated.title, "Axolotls");
          assert.equal((await one.get(written.note.id)).title, "Axolotls");
          await one.forget(written.note.id);
          await assert.rejects(
            two.get(written.note.id),
            (e) => isMemoRuntimeError(e, "NOTE_NOT_FOUND"),
          );
          assert.equal((await two.stats()).notes, 0);
          // Another workspace's key sees none of it, through either instance.
          const other = createMemoCloudMcpRuntime({
            baseUrl: b.origin,
            apiKey: OTHER_KEY,
            projectId: "pair",
          });
          await one.remember({ text: "Only the team sees this" });
          assert.equal((await other.stats()).notes, 0);
          await other.close();
        } finally {
          await one.close();
          await two.close();
        }
      },
    );

    await t.step(
      "two instances: 2 × 500 concurrent writes lose nothing and duplicate nothing",
      async () => {
        const PER_RUNTIME = 500;
        const SAME_SOURCE_SAME_TEXT = 20; // both send it: one written, one unchanged
        const SAME_SOURCE_NEW_TEXT = 20; // both send it with their own text: one written, one updated
        const SAME_TEXT = 20; // no source, same text (content hash): one written, one unchanged
        const runtimes = [a, b].map((server) =>
          createMemoCloudMcpRuntime({
            baseUrl: server.origin,
            apiKey: KEY,
            projectId: "load",
            timeoutMs: 30_000,
          })
        );
        try {
          // The workspace check once per runtime, so that the writes start together.
          await Promise.all(runtimes.map((r) => r.stats()));
          const writes: Promise<RuntimeRememberResult>[][] = runtimes.map((runtime, r) => {
            const own = Array.from({ length: PER_RUNTIME }, (_, i) =>
              runtime.remember({
                text: `Load note ${i} written through instance ${r} (${crypto.randomUUID()})`,
                labels: [`r${r}`],
                ...(i % 2 ? { source: `load:${r}:${i}` } : {}),
              }));
            const dupes = [
              ...Array.from({ length: SAME_SOURCE_SAME_TEXT }, (_, i) =>
                runtime.remember({
                  text: `Shared source ${i}, same text`,
                  source: `dup:same:${i}`,
                })),
              ...Array.from({ length: SAME_SOURCE_NEW_TEXT }, (_, i) =>
                runtime.remember({
                  text: `Shared source ${i}, text of instance ${r}`,
                  source: `dup:new:${i}`,
                })),
              ...Array.from(
                { length: SAME_TEXT },
                (_, i) => runtime.remember({ text: `Shared text ${i} without a source` }),
              ),
            ];
            return [...own, ...dupes];
          });
          const [fromA, fromB] = await Promise.all(writes.map((w) => Promise.all(w)));

          // Each runtime's own notes were all written, with distinct ids.
          for (const results of [fromA, fromB]) {
            assert.ok(
              results.slice(0, PER_RUNTIME).every((r) => r.status === "written"),
            );
          }
          // Each duplicate pair landed once: the same note, one written and one not.
          for (let i = PER_RUNTIME; i < fromA.length; i++) {
            const pair = [fromA[i], fromB[i]];
            assert.equal(pair[0].note.id, pair[1].note.id, `pair ${i} names one note`);
            const statuses = pair.map((p) => p.status).sort();
            const kind = i - PER_RUNTIME < SAME_SOURCE_SAME_TEXT ||
                i - PER_RUNTIME >= SAME_SOURCE_SAME_TEXT + SAME_SOURCE_NEW_TEXT
              ? "unchanged"
              : "updated";
            assert.deepEqual(statuses, [kind, "written"].sort(), `pair ${i}: ${statuses}`);
          }
          const dupeCount = SAME_SOURCE_SAME_TEXT + SAME_SOURCE_NEW_TEXT + SAME_TEXT;
          const expected = 2 * PER_RUNTIME + dupeCount;

          const cloud = direct(a.origin, "load");
          const notes = await cloudNotes(cloud);
          assert.equal(notes.length, expected);
          assert.equal(new Set(notes.map((n) => n.id)).size, expected, "unique ids");
          assert.equal(
            new Set(notes.map((n) => n.source ? `source:${n.source}` : `hash:${n.hash}`)).size,
            expected,
            "unique identities",
          );
          const ids = new Set(notes.map((n) => n.id));
          for (const result of [...fromA, ...fromB]) assert.ok(ids.has(result.note.id));
          const stats = await runtimes[1].stats();
          assert.equal(stats.notes, expected);
          assert.deepEqual(stats.labels, { r0: PER_RUNTIME, r1: PER_RUNTIME });
          assert.equal((await cloud.list({ limit: 1 })).total, expected);

          // The feed: one upsert per write that changed something, in strict seq order.
          const feed = await wholeFeed(direct(b.origin, "load"));
          const changed = [...fromA, ...fromB].filter((r) => r.status !== "unchanged").length;
          assert.equal(changed, expected + SAME_SOURCE_NEW_TEXT);
          assert.equal(feed.length, changed);
          assert.ok(feed.every((c) => c.op === "upsert"));
          assert.ok(feed.every((c, i) => i === 0 || c.seq > feed[i - 1].seq), "seq increases");
          assert.equal(new Set(feed.map((c) => c.seq)).size, feed.length);
          assert.deepEqual(new Set(feed.map((c) => c.id)), ids, "the feed names every note");
          assert.equal((await cloud.stats()).revision, feed.at(-1)!.seq);
          // The latest upsert of each note in the feed is the note as stored.
          const latest = new Map(feed.map((c) => [c.id, c]));
          for (const note of notes) assert.equal(latest.get(note.id)!.revision, note.revision);
        } finally {
          await Promise.all(runtimes.map((r) => r.close()));
        }
      },
    );

    await t.step("the servers never logged the keys", () => {
      for (const server of servers) {
        assert.match(server.log(), /POST \/v1\/workspaces\/team\/projects\/load\/notes 201/);
        assert.ok(!server.log().includes(KEY));
        assert.ok(!server.log().includes(OTHER_KEY));
      }
    });
    await t.step("SIGTERM stops both instances at once", async () => {
      const statuses = await Promise.all(servers.splice(0).map((s) => s.stop()));
      for (const status of statuses) assert.equal(status.signal, null, "not killed");
    });
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await pg.stop();
  }
});
