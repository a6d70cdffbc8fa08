/**
 * The user scope's own hybrid runtime (issue 32): `$MEMO_HOME/config.json` with
 * `"runtime": "hybrid"` replicates the user store with a cloud project of its own, beside the
 * team's. Machines share nothing here: each has its own project folder and its own `MEMO_HOME`,
 * and the clouds are one in-process reference Cloud API (file store) reached through an injected
 * `fetch`, with a team workspace (one project per team project) and the person's workspace.
 *
 * @module
 */

import assert from "node:assert/strict";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createMemoCloudHandler } from "../cloud/app.ts";
import { FileCloudStore } from "../cloud/file/store.ts";
import { MemoCloudClient } from "../runtimes/cloud/client.ts";
import { runtimeFactoryFromEnv } from "../runtimes/start/from_env.ts";
import type { MemoMcpRuntime } from "../runtimes/types.ts";
import { type TempDir, tempDir } from "../testing/temp_dir.ts";
import { cloudNotes } from "./_cloud_process.ts";

const TEAM_KEY = "mk_USERHYBRID_team_key_0a71";
const USER_KEY = "mk_USERHYBRID_ada_key_93be";
const BASE_URL = "http://cloud.test";

type Fetch = (input: Request | URL | string, init?: RequestInit) => Promise<Response>;

/** The texts of a cloud project's notes, sorted. */
async function cloudTexts(fetch: Fetch, apiKey: string, workspaceId: string, projectId: string) {
  const client = new MemoCloudClient({ baseUrl: BASE_URL, apiKey, workspaceId, projectId, fetch });
  return (await cloudNotes(client)).map((n) => n.body).sort();
}

Deno.test("user scope with a hybrid runtime of its own: user notes follow the person across machines, and no scope reaches another's cloud", async () => {
  await using clouds = await tempDir("memo-user-hybrid-cloud-");
  const handler = createMemoCloudHandler({
    store: new FileCloudStore({ dataDir: clouds.path }),
    apiKeys: new Map([[TEAM_KEY, "team"], [USER_KEY, "ada"]]),
    rateLimit: 0,
  });
  const fetch: Fetch = (input, init) => handler(new Request(input, init));
  const userConfig = JSON.stringify({
    runtime: "hybrid",
    cloud: { baseUrl: BASE_URL, workspaceId: "ada", projectId: "me", pullIntervalMs: 600_000 },
  });
  const runtimes: MemoMcpRuntime[] = [];
  const dirs: TempDir[] = [];

  /** A machine: its own project folder and `MEMO_HOME`; `team` names its team's cloud project. */
  const machine = async (team: string | undefined, env: Record<string, string> = {}) => {
    const project = await tempDir("memo-user-hybrid-project-");
    const home = await tempDir("memo-user-hybrid-home-");
    dirs.push(project, home);
    await writeFile(join(home.path, "config.json"), userConfig);
    const runtime = runtimeFactoryFromEnv({
      env: {
        MEMO_HOME: home.path,
        MEMO_USER_CLOUD_API_KEY: USER_KEY,
        MEMO_LOCAL_EMBEDDINGS: "false",
        ...(team
          ? {
            MEMO_RUNTIME: "hybrid",
            MEMO_CLOUD_BASE_URL: BASE_URL,
            MEMO_CLOUD_API_KEY: TEAM_KEY,
            MEMO_CLOUD_WORKSPACE_ID: "team",
            MEMO_CLOUD_PROJECT_ID: team,
            MEMO_CLOUD_PULL_INTERVAL_MS: "600000",
          }
          : {}),
        ...env,
      },
      cloud: { fetch, retry: { maxRetries: 0 } },
      userCloud: { fetch, retry: { maxRetries: 0 } },
      prewarm: false,
    })(project.path);
    runtimes.push(runtime);
    return { runtime, project: project.path, home: home.path };
  };
  const userTexts = async (runtime: MemoMcpRuntime) =>
    (await runtime.list({ scope: "user", limit: 50 })).notes.map((n) => n.body).sort();

  try {
    // Two machines of one person, on two different team projects.
    const a = await machine("alpha");
    const b = await machine("beta");
    const tabs = (await a.runtime.remember({ text: "USER: Ada prefers tabs", scope: "user" })).note;
    await a.runtime.remember({ text: "ALPHA: deploys run with make deploy" });
    await a.runtime.remember({ text: "LOCAL-A: this checkout serves on 8081", scope: "local" });
    await b.runtime.remember({ text: "BETA: the queue is kafka" });
    await b.runtime.remember({ text: "LOCAL-B: this checkout builds offline", scope: "local" });

    // `replicate()` runs both replications (the writes' own may have pushed already): the sums,
    // and each scope's.
    const first = await a.runtime.replicate!();
    const { project, user } = first.scopes ?? {};
    assert.ok(project && user, JSON.stringify(first));
    for (const k of ["pushed", "pulled", "conflicts", "outbox"] as const) {
      assert.equal(first[k], project[k] + user[k]);
    }
    assert.equal(first.outbox, 0);

    // Machine B pulls A's user note into its user scope (same id), and pushes its own.
    const second = await b.runtime.replicate!();
    assert.equal(second.outbox, 0, JSON.stringify(second));
    const seen = (await b.runtime.list({ scope: "user", limit: 50 })).notes;
    assert.deepEqual(seen.map((n) => [n.id, n.scope]), [[tabs.id, "user"]]);
    await b.runtime.remember({ text: "USER: Ada reviews before lunch", scope: "user" });
    await b.runtime.replicate!();
    await a.runtime.replicate!();
    const both = ["USER: Ada prefers tabs", "USER: Ada reviews before lunch"];
    assert.deepEqual(await userTexts(a.runtime), both);
    assert.deepEqual(await userTexts(b.runtime), both);

    // Each cloud project holds its own scope's notes, and nothing else.
    assert.deepEqual(await cloudTexts(fetch, USER_KEY, "ada", "me"), both);
    assert.deepEqual(await cloudTexts(fetch, TEAM_KEY, "team", "alpha"), [
      "ALPHA: deploys run with make deploy",
    ]);
    assert.deepEqual(await cloudTexts(fetch, TEAM_KEY, "team", "beta"), [
      "BETA: the queue is kafka",
    ]);
    // The user's state lives in MEMO_HOME, the project's in .memo/replica/.
    assert.ok((await stat(join(a.home, "replica", "state.jsonl"))).isFile());
    assert.ok((await stat(join(a.project, ".memo", "replica", "state.jsonl"))).isFile());
    const userState = await readFile(join(a.home, "replica", "state.jsonl"), "utf8");
    assert.ok(userState.includes(tabs.id) && !userState.includes("alpha"));

    // memory_stats: `replica` stays the project's, `userReplica` is the user scope's.
    const stats = await a.runtime.stats();
    assert.equal(stats.replica?.outbox, 0);
    assert.equal(stats.userReplica?.outbox, 0);
    assert.equal(stats.userReplica?.error, undefined);

    // A third machine whose project is local: its user scope replicates all the same.
    const c = await machine(undefined);
    const third = await c.runtime.replicate!();
    assert.equal(c.runtime.kind, "local");
    assert.deepEqual(Object.keys(third.scopes ?? {}), ["user"]);
    assert.equal(third.scopes?.user?.outbox, 0);
    assert.deepEqual(await userTexts(c.runtime), both);
    const cStats = await c.runtime.stats();
    assert.equal(cStats.replica, undefined);
    assert.equal(cStats.userReplica?.outbox, 0);

    // A user note moved into the project leaves the user cloud (a forget for it).
    await c.runtime.update(tabs.id, { scope: "project" });
    await c.runtime.replicate!();
    assert.deepEqual(await cloudTexts(fetch, USER_KEY, "ada", "me"), [both[1]]);

    // Hosted, the user scope is not served: no user replication, whatever MEMO_HOME says.
    const hosted = await machine(undefined, { MEMO_RUNTIME: "local" });
    runtimes.pop();
    await hosted.runtime.close();
    const served = runtimeFactoryFromEnv({
      env: { MEMO_HOME: hosted.home, MEMO_USER_CLOUD_API_KEY: USER_KEY },
      userCloud: { fetch },
      hosted: "this endpoint is hosted",
      prewarm: false,
    })(hosted.project);
    runtimes.push(served);
    assert.equal((await served.stats()).userReplica, undefined);
    await assert.rejects(served.replicate!(), { code: "UNAVAILABLE" });
  } finally {
    for (const r of runtimes) await r.close().catch(() => {});
    for (const d of dirs) await d[Symbol.asyncDispose]();
  }
});
