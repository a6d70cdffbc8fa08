/**
 * The cloud runtime against the real reference server, in process: the
 * Cloud API handler (`createMemoCloudHandler`) over a `FileCloudStore` in a
 * temporary folder. The runtime's `fetch` calls the handler directly, or the
 * handler served on a loopback port for the CLI.
 */

import assert from "node:assert/strict";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCli } from "../cli/main.ts";
import { createMemoCloudHandler, type MemoCloudHandler } from "../cloud/app.ts";
import { FileCloudStore } from "../cloud/file/store.ts";
import { createMemoMcpRuntimeFromConfig } from "../runtimes/factory.ts";
import {
  createMemoCloudMcpRuntime,
  type MemoCloudMcpRuntimeOptions,
} from "../runtimes/cloud/runtime.ts";
import { isMemoRuntimeError } from "../runtimes/errors.ts";
import type { MemoMcpRuntime, RuntimeChange } from "../runtimes/types.ts";
import { createMemoMcpProtocolServer } from "../server/protocol_server.ts";
import { recordingIO } from "../testing/cli_io.ts";
import { discussion, startFakeGithub } from "./connectors_fake_github.ts";
import { serve } from "./connectors_helpers.ts";

const KEY = "mk_TEAM_integration_0123456789";
const OTHER_KEY = "mk_OTHER_integration_987654";
const GITHUB_TOKEN = "ghp_CLOUDgithubTOKEN0000000000000000000042";

interface Cloud {
  handler: MemoCloudHandler;
  /** Requests the handler answered: `METHOD path`. */
  requests: string[];
  runtime(options?: Partial<MemoCloudMcpRuntimeOptions>): MemoMcpRuntime;
  close(): Promise<void>;
}

async function startCloud(): Promise<Cloud> {
  const dataDir = await Deno.makeTempDir({ prefix: "memo-cloud-rt-" });
  const store = new FileCloudStore({ dataDir });
  const handler = createMemoCloudHandler({
    store,
    apiKeys: new Map([[KEY, "team"], [OTHER_KEY, "other"]]),
    rateLimit: 0,
  });
  const requests: string[] = [];
  const runtimes: MemoMcpRuntime[] = [];
  const fetch = (input: Request | URL | string, init?: RequestInit) => {
    const request = new Request(input, init);
    requests.push(`${request.method} ${new URL(request.url).pathname}`);
    return handler(request);
  };
  return {
    handler,
    requests,
    runtime(options = {}) {
      const runtime = createMemoCloudMcpRuntime({
        baseUrl: "http://127.0.0.1:8788",
        apiKey: KEY,
        fetch,
        watchIntervalMs: 40,
        retry: { backoffMs: 5 },
        ...options,
      });
      runtimes.push(runtime);
      return runtime;
    },
    async close() {
      for (const runtime of runtimes) await runtime.close();
      await store.close();
      await Deno.remove(dataDir, { recursive: true });
    },
  };
}

/** Waits until `check` holds (polling); fails only a stuck test, after `ms`. */
async function until(check: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("Cannot wait any longer: the condition never held");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

Deno.test("the cloud runtime serves the whole runtime surface from the reference server", async () => {
  const cloud = await startCloud();
  try {
    const runtime = cloud.runtime({ projectId: "handbook" });
    assert.equal(runtime.kind, "cloud");
    assert.equal((await runtime.stats()).notes, 0, "a project never written is empty");

    const deploy = await runtime.remember({
      text: "Run `make deploy` from the release branch.",
      title: "How to deploy",
      labels: ["infra"],
      source: "wiki:deploy",
    });
    assert.equal(deploy.status, "written");
    assert.deepEqual(Object.keys(deploy.note).sort(), [
      "body",
      "created",
      "hash",
      "id",
      "labels",
      "source",
      "title",
      "updated",
    ]);
    const again = await runtime.remember({
      text: "Run `make deploy` from the release branch.",
      title: "How to deploy",
      labels: ["infra"],
      source: "wiki:deploy",
    });
    assert.equal(again.status, "unchanged");
    const changed = await runtime.remember({
      text: "Run `make deploy` from main.",
      labels: ["infra"],
      source: "wiki:deploy",
    });
    assert.equal(changed.status, "updated");
    assert.equal(changed.note.id, deploy.note.id, "the same source is the same note");
    const ci = await runtime.remember({ text: "Deploy previews are built by CI", labels: ["ci"] });

    const hits = await runtime.recall("deploy", { limit: 5, labels: ["ci"], explain: true });
    assert.deepEqual(hits.map((h) => h.note.id), [ci.note.id]);
    assert.equal(hits[0].engine, "lexical");
    assert.ok(hits[0].explain?.length);
    const bySource = await runtime.recall("deploy", { limit: 5, source: "wiki:" });
    assert.deepEqual(bySource.map((h) => h.note.id), [deploy.note.id]);
    assert.equal((await runtime.recall("deploy", { limit: 5, engine: "auto" })).length, 2);
    await assert.rejects(
      runtime.recall("deploy", { limit: 5, engine: "vector" }),
      (e) =>
        isMemoRuntimeError(e, "INVALID_INPUT") && /the cloud runtime is lexical/.test(e.message),
    );
    await assert.rejects(
      runtime.recall("   ", { limit: 5 }),
      (e) => isMemoRuntimeError(e, "INVALID_INPUT"),
    );

    assert.equal((await runtime.get(ci.note.id)).title, "Deploy previews are built by CI");
    const first = await runtime.list({ limit: 1 });
    assert.equal(first.total, 2);
    assert.ok(first.nextCursor);
    const second = await runtime.list({ limit: 1, cursor: first.nextCursor });
    assert.deepEqual(
      [...first.notes, ...second.notes].map((n) => n.id).sort(),
      [deploy.note.id, ci.note.id].sort(),
    );
    assert.equal(second.nextCursor, undefined);
    await assert.rejects(
      runtime.list({ limit: 5, cursor: "forged" }),
      (e) => isMemoRuntimeError(e, "INVALID_INPUT"),
    );
    assert.deepEqual((await runtime.list({ limit: 5, labels: ["infra"] })).notes.map((n) => n.id), [
      deploy.note.id,
    ]);

    const updated = await runtime.update(ci.note.id, { title: "Previews", labels: ["ci", "web"] });
    assert.equal(updated.title, "Previews");
    assert.deepEqual(updated.labels, ["ci", "web"]);
    assert.deepEqual(await runtime.completeIds(ci.note.id.slice(0, 12), 5), {
      values: [ci.note.id],
      total: 1,
    });

    const stats = await runtime.stats();
    assert.equal(stats.notes, 2);
    assert.deepEqual(stats.labels, { infra: 1, ci: 1, web: 1 });
    assert.deepEqual(stats.engine, { default: "lexical", auto: "lexical" });
    assert.deepEqual(stats.issues, []);

    assert.equal((await runtime.forget(ci.note.id)).id, ci.note.id);
    await assert.rejects(
      runtime.get(ci.note.id),
      (e) => isMemoRuntimeError(e, "NOTE_NOT_FOUND") && e.details?.id === ci.note.id,
    );
    await assert.rejects(runtime.forget("nope"), (e) => isMemoRuntimeError(e, "NOTE_NOT_FOUND"));
    await assert.rejects(
      runtime.update("nope", { title: "x" }),
      (e) => isMemoRuntimeError(e, "NOTE_NOT_FOUND"),
    );
    assert.equal((await runtime.stats()).notes, 1);

    // Another project of the same workspace is another set of notes.
    assert.equal((await cloud.runtime({ projectId: "other" }).stats()).notes, 0);
  } finally {
    await cloud.close();
  }
});

/**
 * Notes that stay true, as a runtime answers them: a correction, the history filters, the
 * chain both ways, the refusals, duplicates caught at write, supersede and tidy.
 */
async function staysTrue(runtime: MemoMcpRuntime): Promise<void> {
  const { note: old } = await runtime.remember({ text: "Deploys run on Fridays", labels: ["ops"] });
  const same = await runtime.remember({ text: "deploys  run on FRIDAYS!" });
  assert.deepEqual([same.status, same.note.id], ["unchanged", old.id], "the same text, normalised");
  const { note: fixed, superseded } = await runtime.correct!({
    id: old.id,
    text: "Deploys run on Mondays",
  });
  assert.deepEqual([superseded, fixed.supersedes, fixed.labels], [[old.id], [old.id], ["ops"]]);
  assert.deepEqual((await runtime.recall("deploys run", { limit: 5 })).map((h) => h.note.id), [
    fixed.id,
  ]);
  const history = await runtime.recall("deploys run", { limit: 5, includeSuperseded: true });
  assert.deepEqual(
    history.map((h) => [h.note.id, h.note.supersededBy]).sort(),
    [
      [fixed.id, undefined],
      [old.id, [fixed.id]],
    ].sort(),
  );
  const before = new Date(Date.parse(fixed.created) - 1).toISOString();
  const then = await runtime.recall("deploys run", { limit: 5, asOf: before });
  assert.deepEqual(then.map((h) => h.note.id), [old.id]);
  assert.deepEqual((await runtime.list({ limit: 10 })).notes.map((n) => n.id), [fixed.id]);
  assert.equal((await runtime.list({ limit: 10, includeSuperseded: true })).total, 2);
  assert.equal((await runtime.list({ limit: 10, since: fixed.created })).total, 1);
  assert.equal((await runtime.list({ limit: 10, until: "2000-01-01" })).total, 0);
  const gone = await runtime.get(old.id);
  assert.deepEqual([gone.supersededBy, typeof gone.validUntil], [[fixed.id], "string"]);
  assert.deepEqual(await runtime.completeIds(old.id, 5), { values: [old.id], total: 1 });

  const invalid = (e: unknown) => isMemoRuntimeError(e, "INVALID_INPUT");
  await assert.rejects(
    runtime.correct!({ id: "nope", text: "x" }),
    (e) => isMemoRuntimeError(e, "NOTE_NOT_FOUND"),
  );
  await assert.rejects(runtime.remember({ text: "Other", supersedes: ["nope"] }), invalid);
  await assert.rejects(runtime.update(old.id, { supersedes: [fixed.id] }), invalid, "a cycle");
  await assert.rejects(runtime.update(old.id, { supersedes: [old.id] }), invalid, "itself");
  await assert.rejects(runtime.update(old.id, { supersedes: ["nope"] }), invalid, "unknown");
  assert.equal((await runtime.list({ limit: 10, includeSuperseded: true })).total, 2);

  const { note: a } = await runtime.remember({ text: "Canary deploys hold at 5% of traffic." });
  const b = await runtime.remember({ text: "FYI canary deploys hold at 5% of traffic." });
  assert.deepEqual(b.similar?.map((s) => s.id), [a.id]);
  const plan = await runtime.tidy!();
  const merge = plan.proposals.find((p) => p.kind === "merge");
  assert.ok(merge?.kind === "merge", JSON.stringify(plan));
  assert.deepEqual([merge.keep.id, merge.supersede.map((n) => n.id)], [b.note.id, [a.id]]);
  const applied = await runtime.applyTidy!(plan);
  assert.deepEqual([applied.merged, applied.superseded], [1, [a.id]]);
  assert.deepEqual((await runtime.get(a.id)).supersededBy, [b.note.id]);
  const again = await runtime.supersede!({ ids: [a.id], by: b.note.id });
  assert.deepEqual(again.superseded, [], "every link was there");
  await assert.rejects(
    runtime.supersede!({ ids: [a.id], by: "nope" }),
    (e) => isMemoRuntimeError(e, "NOTE_NOT_FOUND"),
  );
  await assert.rejects(runtime.supersede!({ ids: ["nope"], by: b.note.id }), invalid);
  await assert.rejects(runtime.supersede!({ ids: [b.note.id], by: a.id }), invalid, "a cycle");
  assert.deepEqual(
    (await runtime.list({ limit: 10 })).notes.map((n) => n.id).sort(),
    [
      fixed.id,
      b.note.id,
    ].sort(),
  );
}

Deno.test("the cloud runtime keeps notes true as the local runtime does", async (t) => {
  await t.step("local", async () => {
    const rootDir = await Deno.makeTempDir({ prefix: "memo-true-local-" });
    const runtime = createMemoMcpRuntimeFromConfig({ rootDir, recall: { localEmbeddings: false } });
    try {
      await staysTrue(runtime);
    } finally {
      await runtime.close();
      await Deno.remove(rootDir, { recursive: true });
    }
  });
  await t.step("cloud", async () => {
    const cloud = await startCloud();
    try {
      await staysTrue(cloud.runtime({ projectId: "true" }));
    } finally {
      await cloud.close();
    }
  });
});

Deno.test("the cloud runtime recalls what local lexical recall finds over the same notes", async () => {
  const cloud = await startCloud();
  const rootDir = await Deno.makeTempDir({ prefix: "memo-cloud-local-" });
  const local = createMemoMcpRuntimeFromConfig({ rootDir, recall: { engine: "lexical" } });
  try {
    const runtime = cloud.runtime();
    const texts = [
      "Deploys run with make deploy from the release branch",
      "The staging database is reset every night",
      "CI builds deploy previews for every pull request",
      "Rollbacks use make rollback and take five minutes",
      "The release branch is cut on Mondays",
    ];
    for (const text of texts) {
      await runtime.remember({ text });
      await local.remember({ text });
    }
    for (const query of ["deploy", "release branch", "make", "database reset"]) {
      const fromCloud = await runtime.recall(query, { limit: 10 });
      const fromLocal = await local.recall(query, { limit: 10, engine: "lexical" });
      assert.deepEqual(fromCloud.map((h) => h.note.title), fromLocal.map((h) => h.note.title));
    }
  } finally {
    await local.close();
    await cloud.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});

Deno.test("the cloud runtime refuses another workspace and a wrong key, having read and written nothing", async () => {
  const cloud = await startCloud();
  try {
    const wrongWorkspace = cloud.runtime({ workspaceId: "other" });
    for (
      const call of [
        () => wrongWorkspace.remember({ text: "must not land" }),
        () => wrongWorkspace.stats(),
        () => wrongWorkspace.list({ limit: 5 }),
      ]
    ) {
      const e = await call().catch((e) => e);
      assert.ok(isMemoRuntimeError(e, "CONFIG"), String(e));
      assert.match(e.message, /the API key belongs to workspace "team", not "other"/);
    }
    assert.deepEqual(
      cloud.requests.filter((r) => !r.endsWith("/whoami")),
      [],
      "only whoami was asked",
    );
    assert.equal((await cloud.runtime().stats()).notes, 0);
    assert.equal((await cloud.runtime({ apiKey: OTHER_KEY }).stats()).notes, 0);

    const wrongKey = cloud.runtime({ apiKey: "mk_WRONG_key_000" });
    const e = await wrongKey.remember({ text: "x" }).catch((e) => e);
    assert.ok(isMemoRuntimeError(e, "CONFIG"));
    assert.equal(
      e.message,
      "Cannot reach the Memo Cloud API at http://127.0.0.1:8788: the API key was refused (401)",
    );
    assert.ok(!JSON.stringify({ ...e, message: e.message }).includes("mk_WRONG_key_000"));
  } finally {
    await cloud.close();
  }
});

Deno.test("a write whose answer is lost is retried with its key and lands once", async () => {
  const cloud = await startCloud();
  try {
    let dropped = 0;
    const runtime = createMemoCloudMcpRuntime({
      baseUrl: "http://127.0.0.1:8788",
      apiKey: KEY,
      retry: { backoffMs: 1 },
      fetch: async (input, init) => {
        const request = new Request(input, init);
        const response = await cloud.handler(request);
        if (request.method === "POST" && dropped < 2) {
          dropped++; // the server did the work; the connection broke before the answer
          await response.body?.cancel();
          throw new TypeError("connection reset by peer");
        }
        return response;
      },
    });
    try {
      const { status } = await runtime.remember({ text: "Retried writes land once" });
      assert.equal(status, "written", "the replayed first answer");
      await runtime.syncConnectors(); // nothing configured: no write
      const stats = await cloud.runtime().stats();
      assert.equal(stats.notes, 1);
      assert.equal(dropped, 2);
    } finally {
      await runtime.close();
    }
  } finally {
    await cloud.close();
  }
});

Deno.test("watch reports the runtime's own writes at once and other writers' through the change feed", async () => {
  const cloud = await startCloud();
  try {
    const watcher = cloud.runtime();
    const writer = cloud.runtime();
    await writer.remember({ text: "Written before anyone listened" });
    const seen: RuntimeChange[] = [];
    // The poller finds the head in its first check, whenever that answers: what was written
    // before is never reported, and the watcher's own writes are reported by the watcher.
    const stop = watcher.watch!((change) => void seen.push(change));

    const own = await watcher.remember({ text: "Written by the watcher" });
    assert.deepEqual(
      seen,
      [{ ids: [own.note.id], listChanged: true }],
      "reported before it resolves",
    );
    await watcher.update(own.note.id, { labels: ["x"] });
    assert.deepEqual(seen[1], { ids: [own.note.id], listChanged: false });

    const other = await writer.remember({ text: "Written by someone else" });
    await until(() => seen.length === 3);
    assert.deepEqual(seen[2], { ids: [other.note.id], listChanged: true });
    await writer.forget(other.note.id);
    await until(() => seen.length === 4);
    assert.deepEqual(seen[3], { ids: [other.note.id], listChanged: true });

    await watcher.forget(own.note.id);
    assert.deepEqual(seen[4], { ids: [own.note.id], listChanged: true });
    // Two reads of the feed started after the delete: the first has been read through.
    const reads = () => cloud.requests.filter((r) => r.endsWith("/changes")).length;
    const after = reads();
    await until(() => reads() >= after + 2);
    assert.equal(seen.length, 5, "the feed does not report the watcher's own writes again");

    stop();
    const before = cloud.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(cloud.requests.length, before, "no polling once nobody listens");
  } finally {
    await cloud.close();
  }
});

Deno.test("the MCP server answers tools over the cloud runtime", async () => {
  const cloud = await startCloud();
  try {
    const server = createMemoMcpProtocolServer({ runtime: cloud.runtime() });
    const call = async (id: number, name: string, args: Record<string, unknown>) =>
      JSON.parse(
        (await server.handle(JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name, arguments: args },
        })))!,
      ).result;
    const remembered = await call(1, "remember", { text: "Deploys run with make deploy" });
    assert.equal(remembered.isError, undefined, JSON.stringify(remembered));
    const recalled = await call(2, "recall", { query: "deploy" });
    assert.equal(recalled.structuredContent.hits[0].note.title, "Deploys run with make deploy");
    assert.equal("revision" in recalled.structuredContent.hits[0].note, false);
    const stats = await call(3, "memory_stats", {});
    assert.equal(stats.structuredContent.notes, 1);
    const vector = await call(4, "recall", { query: "deploy", engine: "vector" });
    assert.equal(vector.isError, true);
    assert.match(
      JSON.stringify(vector),
      /Cannot recall with the vector engine: the cloud runtime is lexical/,
    );
  } finally {
    await cloud.close();
  }
});

/** A project folder whose `.memo/config.json` configures a GitHub connector on the fake. */
async function connectorProject(githubUrl: string, extra: Record<string, unknown> = {}) {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-cloud-sync-" });
  await mkdir(join(rootDir, ".memo"), { recursive: true });
  await writeFile(
    join(rootDir, ".memo", "config.json"),
    JSON.stringify({
      ...extra,
      connectors: [{
        id: "gh",
        type: "discussions",
        repositories: ["octo-org/hello-world"],
        apiUrl: githubUrl,
      }],
    }),
  );
  return rootDir;
}

Deno.test("syncConnectors commits each connector pass as one batch, and writes no notes under rootDir", async () => {
  const cloud = await startCloud();
  const github = startFakeGithub([{
    nameWithOwner: "octo-org/hello-world",
    discussions: [1, 2, 3].map((n) => discussion(n, `2024-05-0${n}T10:00:00Z`)),
  }], { token: GITHUB_TOKEN });
  const rootDir = await connectorProject(github.url);
  try {
    const runtime = cloud.runtime({ rootDir, env: { GITHUB_TOKEN } });
    const result = await runtime.syncConnectors();
    assert.deepEqual(result.errors, []);
    assert.deepEqual(
      [result.written, result.updated, result.unchanged],
      [3, 0, 0],
    );
    assert.equal(
      cloud.requests.filter((r) => r.endsWith("/notes:batch")).length,
      1,
      "one pass, one batch",
    );
    assert.equal(
      cloud.requests.filter((r) => r.startsWith("POST") && !r.endsWith(":batch")).length,
      0,
    );
    assert.equal((await runtime.stats()).notes, 3);
    const again = await runtime.syncConnectors({ full: true });
    assert.deepEqual([again.written, again.updated, again.unchanged], [0, 0, 3]);
    // The connectors' state lives under rootDir; the notes do not.
    assert.deepEqual((await readdir(join(rootDir, ".memo"))).sort(), ["config.json", "connectors"]);
    await assert.rejects(
      runtime.syncConnectors({ only: ["nope"] }),
      (e) => isMemoRuntimeError(e, "CONNECTOR_NOT_FOUND"),
    );
  } finally {
    await cloud.close();
    await github.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});

Deno.test("a connector pass over one batch's 16 MiB goes in several batches, in order, and lands whole", async () => {
  const cloud = await startCloud();
  // Three discussions of 6 MiB: the pass is over the 16 MiB of one batch.
  const big = "x".repeat(6 * 1024 * 1024);
  const github = startFakeGithub([{
    nameWithOwner: "octo-org/hello-world",
    discussions: [1, 2, 3].map((n) => discussion(n, `2024-05-0${n}T10:00:00Z`, { body: big })),
  }], { token: GITHUB_TOKEN });
  const rootDir = await connectorProject(github.url);
  try {
    const runtime = cloud.runtime({ rootDir, env: { GITHUB_TOKEN } });
    const result = await runtime.syncConnectors();
    assert.deepEqual(result.errors, []);
    assert.equal(result.written, 3);
    assert.equal(cloud.requests.filter((r) => r.endsWith("/notes:batch")).length, 2);
    assert.equal((await runtime.stats()).notes, 3);
    // The state moved: the next pass reads nothing new and writes nothing.
    const again = await runtime.syncConnectors();
    assert.deepEqual([again.errors, again.written, again.updated], [[], 0, 0]);
  } finally {
    await cloud.close();
    await github.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});

/** The handler on a loopback port, for the CLI (which builds its runtime from the environment). */
async function servedCloud() {
  const cloud = await startCloud();
  const server = serve((request) => {
    cloud.requests.push(`${request.method} ${new URL(request.url).pathname}`);
    return cloud.handler(request);
  });
  return {
    cloud,
    url: server.url,
    close: async () => {
      await server.close();
      await cloud.close();
    },
  };
}

async function cli(argv: string[], env: Record<string, string>, cwd: string) {
  const io = recordingIO(cwd);
  io.env = env;
  const code = await runCli(argv, io);
  return { code, out: io.out.join(""), err: io.err.join("") };
}

Deno.test("every memo command works with MEMO_RUNTIME=cloud, writing nothing under --dir", async () => {
  const served = await servedCloud();
  const dir = await Deno.makeTempDir({ prefix: "memo-cloud-cli-" });
  const env = {
    MEMO_RUNTIME: "cloud",
    MEMO_CLOUD_BASE_URL: served.url,
    MEMO_CLOUD_API_KEY: KEY,
  };
  try {
    const remember = await cli(
      ["remember", "Deploys run with make deploy", "--label", "ops", "--dir", dir],
      env,
      dir,
    );
    assert.equal(remember.code, 0, remember.err);
    const [, id] = remember.out.match(/^written (\S+) {2}Deploys run with make deploy\n$/)!;
    const recall = await cli(["recall", "deploy", "--json", "--dir", dir], env, dir);
    assert.equal(JSON.parse(recall.out).hits[0].note.id, id);
    assert.match((await cli(["get", id, "--dir", dir], env, dir)).out, /make deploy/);
    assert.match(
      (await cli(["list", "--dir", dir], env, dir)).out,
      /Deploys run with make deploy \[ops\]/,
    );
    assert.equal(
      (await cli(["update", id, "--title", "Deploying", "--dir", dir], env, dir)).code,
      0,
    );
    const stats = await cli(["stats", "--dir", dir], env, dir);
    assert.match(stats.out, /^notes: 1\n/);
    assert.match(stats.out, /recall engine: lexical \(auto uses lexical\)/);
    const vector = await cli(["recall", "deploy", "--engine", "vector", "--dir", dir], env, dir);
    assert.equal(vector.code, 2);
    assert.equal(
      vector.err,
      "memo: Cannot recall with the vector engine: the cloud runtime is lexical\n",
    );
    assert.equal((await cli(["forget", id, "--dir", dir], env, dir)).code, 0);
    const sync = await cli(["sync", "--dir", dir], env, dir);
    assert.equal(sync.code, 0, sync.err);
    assert.deepEqual(await readdir(dir), [], "no notes.md, nothing at all under --dir");
  } finally {
    await served.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("memo selects the cloud from .memo/config.json, and memo sync commits through it", async () => {
  const served = await servedCloud();
  const github = startFakeGithub([{
    nameWithOwner: "octo-org/hello-world",
    discussions: [1, 2].map((n) => discussion(n, `2024-05-0${n}T10:00:00Z`)),
  }], { token: GITHUB_TOKEN });
  const rootDir = await connectorProject(github.url, {
    runtime: "cloud",
    cloud: { baseUrl: `${served.url}/v1/`, workspaceId: "team", projectId: "synced" },
  });
  const env = { MEMO_CLOUD_API_KEY: KEY, GITHUB_TOKEN };
  try {
    const sync = await cli(["sync"], env, rootDir);
    assert.equal(sync.code, 0, sync.err);
    assert.equal(
      sync.out,
      "gh (discussions): 2 fetched, 2 written, 0 updated, 0 unchanged\n" +
        "Synced 1 connector: 2 written, 0 updated, 0 unchanged.\n",
    );
    assert.equal(
      served.cloud.requests.filter((r) =>
        r === "POST /v1/workspaces/team/projects/synced/notes:batch"
      )
        .length,
      1,
    );
    const stats = await cli(["stats", "--json"], env, rootDir);
    assert.equal(JSON.parse(stats.out).notes, 2);
    await assert.rejects(Deno.stat(join(rootDir, ".memo", "memory")), Deno.errors.NotFound);
    const local = await cli(["stats", "--json"], { ...env, MEMO_RUNTIME: "local" }, rootDir);
    assert.equal(JSON.parse(local.out).notes, 0, "MEMO_RUNTIME wins over the file");
  } finally {
    await served.close();
    await github.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});

Deno.test("a failing cloud call exits 1 with one line on stderr, without the key", async () => {
  const served = await servedCloud();
  const dir = await Deno.makeTempDir({ prefix: "memo-cloud-cli-" });
  try {
    const wrongKey = "mk_REFUSED_cli_key_0000";
    const refused = await cli(["stats", "--dir", dir], {
      MEMO_RUNTIME: "cloud",
      MEMO_CLOUD_BASE_URL: served.url,
      MEMO_CLOUD_API_KEY: wrongKey,
    }, dir);
    assert.equal(refused.code, 1);
    assert.equal(
      refused.err,
      `memo: Cannot reach the Memo Cloud API at ${served.url}: the API key was refused (401)\n`,
    );
    assert.equal(refused.out, "");
    assert.ok(!refused.err.includes(wrongKey));

    const port = Number(new URL(served.url).port);
    await served.close();
    const down = await cli(["remember", "x", "--dir", dir], {
      MEMO_RUNTIME: "cloud",
      MEMO_CLOUD_BASE_URL: `http://127.0.0.1:${port}`,
      MEMO_CLOUD_API_KEY: KEY,
    }, dir);
    assert.equal(down.code, 1);
    assert.match(
      down.err,
      /^memo: Cannot reach the Memo Cloud API at http:\/\/127\.0\.0\.1:\d+: connection refused \(4 attempts\)\n$/,
    );
    assert.ok(!down.err.includes(KEY));
    assert.deepEqual(await readdir(dir), []);

    const noKey = await cli(["stats", "--dir", dir], {
      MEMO_RUNTIME: "cloud",
      MEMO_CLOUD_BASE_URL: `http://127.0.0.1:${port}`,
    }, dir);
    assert.equal(noKey.code, 1);
    assert.equal(
      noKey.err,
      "memo: Cannot start the cloud runtime: no API key (set MEMO_CLOUD_API_KEY)\n",
    );
  } finally {
    await served.close().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("http.ts: MEMO_RUNTIME=cloud and the cloud option serve the MCP endpoint from the Cloud API", async () => {
  const { createFrameworkMemoMcpHandler } = await import("../http.ts");
  const cloud = await startCloud();
  try {
    const handler = createFrameworkMemoMcpHandler({
      env: { MEMO_RUNTIME: "cloud", MEMO_CLOUD_API_KEY: KEY, MEMO_CLOUD_BASE_URL: "http://x" },
      // Code options win over the variables: the base URL, and the in-process server.
      cloud: {
        baseUrl: "http://127.0.0.1:8788",
        fetch: (input, init) => cloud.handler(new Request(input, init)),
      },
    });
    const call = async (id: number, name: string, args: Record<string, unknown>) => {
      const response = await handler(
        new Request("http://127.0.0.1:8787/mcp", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id,
            method: "tools/call",
            params: { name, arguments: args },
          }),
        }),
      );
      assert.equal(response.status, 200);
      return (await response.json()).result;
    };
    await call(1, "remember", { text: "Served from the cloud" });
    const stats = await call(2, "memory_stats", {});
    assert.equal(JSON.parse(stats.content[0].text).notes, 1);
    assert.equal((await cloud.runtime().stats()).notes, 1, "the note is in the Cloud API");
  } finally {
    await cloud.close();
  }
});

Deno.test("the cloud runtime's scan finds superseded notes too, and names a source it cannot redact", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "memo-cloud-scan-" });
  const store = new FileCloudStore({ dataDir });
  // A server and a client that let secrets through: notes written before the guard.
  const handler = createMemoCloudHandler({
    store,
    apiKeys: new Map([[KEY, "team"]]),
    rateLimit: 0,
    secrets: "allow",
  });
  const runtime = createMemoCloudMcpRuntime({
    baseUrl: "http://127.0.0.1:8788",
    apiKey: KEY,
    fetch: (input: Request | URL | string, init?: RequestInit) => handler(new Request(input, init)),
    retry: { backoffMs: 5 },
    secrets: "allow",
  });
  try {
    const token = "ghp_ZK2vNTaIlzUaP8YUAZtvaJko1sGEultVpJkQ";
    const { note: old } = await runtime.remember({ text: `CI token ${token}` });
    await runtime.correct!({ id: old.id, text: "CI token rotated" });
    const { note: sourced } = await runtime.remember({ text: "ci notes", source: `ci:${token}` });
    const found = await runtime.scanSecrets!({ redact: true });
    const ids = new Set(found.findings.map((f) => f.id));
    assert.ok(ids.has(old.id), "the superseded note is scanned");
    assert.deepEqual(found.unredacted?.map((f) => [f.id, f.field]), [[sourced.id, "source"]]);
    const again = await runtime.scanSecrets!();
    assert.deepEqual(again.findings.map((f) => [f.id, f.field]), [[sourced.id, "source"]]);
  } finally {
    await runtime.close();
    await store.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});
