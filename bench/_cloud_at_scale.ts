/**
 * The cloud at scale (issue 26), the parts `bench/cloud_scale.ts` runs with
 * `--only snapshot,budget,forget,ratelimit` (each side by side in one run):
 *
 * - `coldSnapshot`: the first recall of a fresh instance (`deno serve
 *   cloud/main.ts`) on the loaded project, with its index snapshot in
 *   PostgreSQL against without one, alternating;
 * - `budgetBench`: one instance serving 1,000 projects of 1,000 notes, with
 *   a 256 MB index budget against an unbounded one: RSS, recall p50/p95, the
 *   instance's own figures (`GET /v1/stats`);
 * - `forgetBench`: `memo forget --source` of 10,000 notes on the cloud, batch
 *   (`notes:batchDelete`) against one request per note;
 * - `rateLimitBench`: request p50 with the rate limit counted in PostgreSQL
 *   against no limit.
 *
 * @module
 */

// deno-lint-ignore no-import-prefix -- bench-only, pinned
import postgres from "npm:postgres@3.4.9";
import { PostgresCloudStore } from "../cloud/postgres/store.ts";
import { createMemoCloudMcpRuntime } from "../runtimes/cloud/runtime.ts";
import { MemoCloudClient } from "../runtimes/cloud/client.ts";
import { DENO, freePort, log, ROOT, rssKiB, waitForCloudHealth } from "./_http_kit.ts";
import { corpus } from "./index_scale.ts";

const API_KEY = "bench-key";
const OPERATOR_KEY = "bench-operator";
const WORKSPACE = "bench";

/** p50, p95 and count of timings in ms (nearest rank below). */
export function percentiles(ms: readonly number[]): { n: number; p50: number; p95: number } {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p / 100 * s.length))];
  const round = (x: number) => Math.round(x * 100) / 100;
  return { n: s.length, p50: round(at(50)), p95: round(at(95)) };
}

/** A `deno serve cloud/main.ts` process on `databaseUrl` with `env`. */
export interface Instance {
  baseUrl: string;
  pid: number;
  client(projectId: string): MemoCloudClient;
  figures(): Promise<Record<string, unknown>>;
  rssMB(): number;
  /** SIGKILL: nothing it does in the background is waited for. */
  kill(): Promise<void>;
  /** SIGTERM: it closes its store (waiting for snapshot writes under way). */
  stop(): Promise<void>;
}

/** Starts an instance and waits for its health answer. */
export async function startInstance(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<Instance> {
  const port = freePort();
  const child = new Deno.Command(DENO, {
    args: ["serve", "-A", "--host", "127.0.0.1", "--port", String(port), "cloud/main.ts"],
    cwd: ROOT,
    env: {
      NO_COLOR: "1",
      MEMO_CLOUD_DATABASE_URL: databaseUrl,
      MEMO_CLOUD_API_KEYS: `${API_KEY}:${WORKSPACE}`,
      MEMO_CLOUD_OPERATOR_KEYS: OPERATOR_KEY,
      MEMO_CLOUD_RATE_LIMIT: "0",
      MEMO_LOG_LEVEL: "warn",
      ...env,
    },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  // Drained all the time (a full pipe would stall the server); the tail says why a start failed.
  let tail = "";
  (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      tail = (tail + chunk).slice(-4000);
    }
  })().catch(() => {});
  const baseUrl = `http://127.0.0.1:${port}`;
  let exited = false;
  child.status.then(() => (exited = true));
  try {
    await waitForCloudHealth(baseUrl, child, () => `a Cloud API instance did not start:\n${tail}`);
  } catch (e) {
    if (exited) throw new Error(`a Cloud API instance exited at start:\n${tail}`, { cause: e });
    throw e;
  }
  let ended: Promise<void> | undefined;
  const end = (signal: Deno.Signal) =>
    ended ??= (async () => {
      child.kill(signal);
      await child.status;
    })();
  return {
    baseUrl,
    pid: child.pid,
    client: (projectId) =>
      new MemoCloudClient({
        baseUrl,
        apiKey: API_KEY,
        workspaceId: WORKSPACE,
        projectId,
        timeoutMs: 120_000,
      }),
    async figures() {
      const response = await fetch(`${baseUrl}/v1/stats`, {
        headers: { authorization: `Bearer ${OPERATOR_KEY}` },
      });
      return await response.json();
    },
    rssMB: () => Math.round(rssKiB(child.pid) / 1024),
    kill: () => end("SIGKILL"),
    stop: () => end("SIGTERM"),
  };
}

/** Polls `check` every 100 ms until it holds, for at most `ms`. */
async function until(what: string, check: () => Promise<boolean>, ms = 600_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The first recall of a fresh instance on `projectId`, with and without its
 * index snapshot, alternating `runs` times each.
 */
export async function coldSnapshot(
  databaseUrl: string,
  projectId: string,
  queries: string[],
  runs = 3,
) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const snapshots = async () =>
      Number((await sql`SELECT count(*)::int AS n FROM memo_index_snapshots`)[0].n);
    // The snapshot: the first instance builds the project and writes it in the background.
    await sql`DELETE FROM memo_index_snapshots`;
    const writer = await startInstance(databaseUrl);
    let t = performance.now();
    await writer.client(projectId).recall(queries[0], { limit: 10 });
    const buildMs = performance.now() - t;
    t = performance.now();
    await until("the snapshot", async () => await snapshots() === 1);
    const writeMs = performance.now() - t;
    await writer.kill();
    const [size] = await sql<{ bytes: string; notes: number }[]>`
      SELECT bytes, notes FROM memo_index_snapshots`;
    await sql`DROP TABLE IF EXISTS bench_snap_h, bench_snap_p`;
    await sql`CREATE TABLE bench_snap_h AS SELECT * FROM memo_index_snapshots`;
    // The parts kept as the instance wrote them: uncompressed (the column's STORAGE EXTERNAL). A
    // copy in a table of default storage is compressed (pglz), stays so when put back, and every
    // read of it then decompressed it in PostgreSQL (about 20 ms of 17 MB).
    await sql`CREATE TABLE bench_snap_p (LIKE memo_index_snapshot_parts INCLUDING STORAGE)`;
    await sql`INSERT INTO bench_snap_p SELECT * FROM memo_index_snapshot_parts`;
    log(
      `snapshot of ${size.notes} notes: ${Math.round(Number(size.bytes) / 1048576)} MB, ` +
        `written ${Math.round(writeMs)} ms after the first build (${Math.round(buildMs)} ms)`,
    );
    const rows: { mode: "without" | "with"; firstMs: number; secondMs: number; rssMB: number }[] =
      [];
    for (let run = 0; run < runs; run++) {
      for (const mode of ["without", "with"] as const) {
        await sql`DELETE FROM memo_index_snapshots`;
        if (mode === "with") {
          await sql`INSERT INTO memo_index_snapshots SELECT * FROM bench_snap_h`;
          await sql`INSERT INTO memo_index_snapshot_parts SELECT * FROM bench_snap_p`;
          const [{ packed }] = await sql<{ packed: number }[]>`
            SELECT count(*)::int AS packed FROM memo_index_snapshot_parts
            WHERE pg_column_compression(data) IS NOT NULL`;
          if (packed) throw new Error(`${packed} snapshot parts were put back compressed`);
        }
        const instance = await startInstance(databaseUrl);
        const client = instance.client(projectId);
        await client.whoami();
        const q = queries[1 + (run * 2 + (mode === "with" ? 1 : 0)) % (queries.length - 1)];
        t = performance.now();
        await client.recall(q, { limit: 10 });
        const firstMs = performance.now() - t;
        t = performance.now();
        await client.recall(queries[0], { limit: 10 });
        const secondMs = performance.now() - t;
        const stats = await instance.figures() as { snapshots: { loaded: number } };
        if ((stats.snapshots.loaded === 1) !== (mode === "with")) {
          throw new Error(`the ${mode} run did ${JSON.stringify(stats.snapshots)}`);
        }
        rows.push({ mode, firstMs, secondMs, rssMB: instance.rssMB() });
        log(
          `cold first recall ${mode} a snapshot: ${Math.round(firstMs)} ms (RSS ${
            rows.at(-1)!.rssMB
          } MB)`,
        );
        await instance.kill();
      }
    }
    await sql`DELETE FROM memo_index_snapshots`;
    await sql`INSERT INTO memo_index_snapshots SELECT * FROM bench_snap_h`;
    await sql`INSERT INTO memo_index_snapshot_parts SELECT * FROM bench_snap_p`;
    await sql`DROP TABLE bench_snap_h, bench_snap_p`;
    const of = (mode: string) => rows.filter((r) => r.mode === mode);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const without = of("without").map((r) => Math.round(r.firstMs));
    const withSnapshot = of("with").map((r) => Math.round(r.firstMs));
    return {
      snapshotMB: Math.round(Number(size.bytes) / 1048576),
      snapshotWrittenAfterMs: Math.round(writeMs),
      withoutMs: without,
      withMs: withSnapshot,
      ratio: Math.round(mean(withSnapshot) / mean(without) * 1000) / 1000,
      secondRecallMs: of("with").map((r) => Math.round(r.secondMs * 100) / 100),
      rssWithoutMB: of("without").map((r) => r.rssMB),
      rssWithMB: of("with").map((r) => r.rssMB),
    };
  } finally {
    await sql.end();
  }
}

/**
 * One instance serving `projects` projects of `notes` notes: a pass over
 * every project (each loaded cold), then `recalls` recalls of random
 * projects, with each budget in turn (0: unbounded).
 */
export async function budgetBench(
  databaseUrl: string,
  options: { projects: number; notes: number; recalls: number; budgetsMb: number[] },
) {
  const { projects, notes, recalls } = options;
  const { note, queries } = corpus(50_000);
  const name = (p: number) => `p${String(p).padStart(4, "0")}`;
  const loader = await PostgresCloudStore.open({ url: databaseUrl, max: 4, snapshots: false });
  let t = performance.now();
  try {
    for (let p = 0; p < projects; p++) {
      const project = await loader.project(WORKSPACE, name(p));
      // Short notes (about 240 characters: a fact an agent remembers), so that the unbounded
      // instance's million notes fit the machine; the 100k-note runs use the corpus's 1 KB notes.
      const drafts = Array.from({ length: notes }, (_, i) => {
        const n = note(p * notes + i);
        const cut = n.body.length > 240 ? n.body.slice(0, n.body.lastIndexOf(" ", 240)) : n.body;
        return { text: cut, title: n.title, labels: n.labels };
      });
      await project.upsert(drafts);
      if (p % 100 === 99) log(`loaded ${p + 1} projects of ${notes} notes`);
    }
    await loader.sql.unsafe("VACUUM ANALYZE");
  } finally {
    await loader.close();
  }
  const loadMs = performance.now() - t;
  const asked = queries(500);
  // Every project's snapshot first, so that both runs find the same database.
  const preparer = await startInstance(databaseUrl, { MEMO_CLOUD_INDEX_BUDGET_MB: "100000" });
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    t = performance.now();
    for (let p = 0; p < projects; p++) {
      await preparer.client(name(p)).recall(asked[p % asked.length], { limit: 10 });
    }
    await until(
      "every snapshot",
      async () =>
        Number((await sql`SELECT count(*)::int AS n FROM memo_index_snapshots`)[0].n) >= projects,
    );
    log(`${projects} snapshots written in ${Math.round((performance.now() - t) / 1000)} s`);
  } finally {
    await preparer.kill();
    await sql.end();
  }
  const rows = [];
  for (const budgetMb of options.budgetsMb) {
    const instance = await startInstance(databaseUrl, {
      MEMO_CLOUD_INDEX_BUDGET_MB: String(budgetMb || 100000),
    });
    try {
      const clients = Array.from({ length: projects }, (_, p) => instance.client(name(p)));
      await clients[0].whoami();
      const first: number[] = [];
      for (let p = 0; p < projects; p++) {
        t = performance.now();
        await clients[p].recall(asked[(p * 7) % asked.length], { limit: 10 });
        first.push(performance.now() - t);
      }
      const rssAfterPass = instance.rssMB();
      let seed = 26;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
      const timings: number[] = [];
      for (let i = 0; i < recalls; i++) {
        const p = Math.floor(random() * projects);
        t = performance.now();
        await clients[p].recall(asked[Math.floor(random() * asked.length)], { limit: 10 });
        timings.push(performance.now() - t);
      }
      const figures = await instance.figures() as {
        index: { bytes: number; projects: number; evictions: number; hitRate: number };
      };
      const row = {
        budgetMb: budgetMb || "unbounded",
        coldPass: percentiles(first),
        random: percentiles(timings),
        rssAfterPassMB: rssAfterPass,
        rssMB: instance.rssMB(),
        heldProjects: figures.index.projects,
        indexMB: Math.round(figures.index.bytes / 1048576),
        evictions: figures.index.evictions,
        hitRate: Math.round(figures.index.hitRate * 1000) / 1000,
      };
      rows.push(row);
      log(`budget ${row.budgetMb}: ${JSON.stringify(row)}`);
    } finally {
      await instance.kill();
    }
  }
  return { projects, notes, recalls, loadS: Math.round(loadMs / 1000), rows };
}

/**
 * `memo forget --source` of `count` notes through the cloud: the CLI (one
 * batch delete per 10,000), the cloud runtime's list-then-`forgetMany` in
 * process (what the CLI runs), and one `DELETE` per note as before.
 */
export async function forgetBench(databaseUrl: string, count = 10_000) {
  const instance = await startInstance(databaseUrl);
  const seed = async (projectId: string) => {
    const client = instance.client(projectId);
    const drafts = Array.from({ length: count }, (_, i) => ({
      text: `Imported record ${i} of the old wiki, kept for reference (${projectId})`,
      source: `import:wiki/${i}`,
    }));
    for (let i = 0; i < drafts.length; i += 5000) {
      await client.upsertBatch(drafts.slice(i, i + 5000));
    }
  };
  const listIds = async (client: MemoCloudClient) => {
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.list({ cursor, limit: 100, source: "import:wiki/" });
      ids.push(...page.notes.map((n) => n.id));
      cursor = page.nextCursor;
    } while (cursor);
    return ids;
  };
  try {
    // The CLI, as a user runs it (a project folder whose config points at the instance; a
    // 10,000-note batch may take more than the client's 10 s default on a loaded machine).
    await seed("forget-cli");
    const dir = await Deno.makeTempDir({ prefix: "memo-forget-bench-" });
    await Deno.mkdir(`${dir}/.memo`);
    await Deno.writeTextFile(
      `${dir}/.memo/config.json`,
      JSON.stringify({
        runtime: "cloud",
        cloud: { baseUrl: instance.baseUrl, projectId: "forget-cli", timeoutMs: 120_000 },
      }),
    );
    let t = performance.now();
    const cli = await new Deno.Command(DENO, {
      args: [
        "run",
        "-A",
        "cli.ts",
        "forget",
        "--source",
        "import:wiki/",
        "--yes",
        "--json",
        "--dir",
        dir,
      ],
      cwd: ROOT,
      env: { NO_COLOR: "1", MEMO_CLOUD_API_KEY: API_KEY },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const cliMs = performance.now() - t;
    await Deno.remove(dir, { recursive: true });
    const stdout = new TextDecoder().decode(cli.stdout);
    if (!cli.success || JSON.parse(stdout).forgotten !== count) {
      throw new Error(`memo forget --source: ${stdout}${new TextDecoder().decode(cli.stderr)}`);
    }
    log(`memo forget --source, ${count} notes, batch: ${Math.round(cliMs)} ms (CLI process)`);

    // In process: the same list, then a batch delete or one DELETE per note.
    await seed("forget-batch");
    const runtime = createMemoCloudMcpRuntime({ cloudClient: instance.client("forget-batch") });
    t = performance.now();
    const batchIds = await listIds(instance.client("forget-batch"));
    const listMs = performance.now() - t;
    const d = performance.now();
    const removed = await runtime.forgetMany!(batchIds);
    const batchDeleteMs = performance.now() - d;
    const batchMs = performance.now() - t;
    await runtime.close();
    if (removed.length !== count) throw new Error(`batch forgot ${removed.length}`);
    log(
      `in process, batch: list ${Math.round(listMs)} ms + delete ${Math.round(batchDeleteMs)} ms`,
    );

    await seed("forget-each");
    const client = instance.client("forget-each");
    t = performance.now();
    const eachIds = await listIds(client);
    const d2 = performance.now();
    for (const id of eachIds) await client.forget(id);
    const eachDeleteMs = performance.now() - d2;
    const eachMs = performance.now() - t;
    log(`in process, one DELETE per note: ${Math.round(eachMs)} ms`);
    return {
      notes: count,
      cliBatchMs: Math.round(cliMs),
      batch: {
        listMs: Math.round(listMs),
        deleteMs: Math.round(batchDeleteMs),
        totalMs: Math.round(batchMs),
      },
      perNote: {
        deleteMs: Math.round(eachDeleteMs),
        totalMs: Math.round(eachMs),
        deletesPerS: Math.round(count / (eachDeleteMs / 1000)),
      },
      speedup: Math.round(eachMs / batchMs * 10) / 10,
    };
  } finally {
    await instance.kill();
  }
}

/**
 * Request p50/p95 (sequential `GET stats` of a small project) with the rate
 * limit counted in PostgreSQL against none: two instances, one request to
 * each in turn, so that the machine's load weighs on both alike.
 */
export async function rateLimitBench(databaseUrl: string, requests = 3000) {
  const off = await startInstance(databaseUrl, { MEMO_CLOUD_RATE_LIMIT: "0" });
  const on = await startInstance(databaseUrl, { MEMO_CLOUD_RATE_LIMIT: "1000000" });
  try {
    await off.client("rl").remember({ text: "The rate limit's bench project" });
    const clients = { off: off.client("rl"), on: on.client("rl") };
    const timed = async (client: MemoCloudClient) => {
      const t = performance.now();
      await client.stats();
      return performance.now() - t;
    };
    for (let i = 0; i < 200; i++) await Promise.all([timed(clients.off), timed(clients.on)]);
    const all = { off: [] as number[], on: [] as number[] };
    for (let i = 0; i < requests; i++) {
      const first = i % 2 ? "on" : "off";
      const second = first === "on" ? "off" : "on";
      all[first].push(await timed(clients[first]));
      all[second].push(await timed(clients[second]));
    }
    const result = {
      off: percentiles(all.off),
      shared: percentiles(all.on),
      overheadP50Ms: 0,
    };
    result.overheadP50Ms = Math.round((result.shared.p50 - result.off.p50) * 100) / 100;
    log(`rate limit: off ${JSON.stringify(result.off)}, shared ${JSON.stringify(result.shared)}`);
    return result;
  } finally {
    await off.kill();
    await on.kill();
  }
}
