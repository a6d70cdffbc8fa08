/**
 * The hybrid runtime end to end (issue 12), on one real PostgreSQL cluster
 * and the real `cloud/main.ts` under `deno serve` for the whole file. Each
 * "machine" is a temporary project folder with its own hybrid runtime (in
 * this process, or a writer subprocess for the crash test); machines that
 * must be cut off from the cloud reach it through a fault proxy that can go
 * down.
 *
 * - two machines write 500 notes each; the server is SIGKILLed halfway and
 *   restarted on the same port once every write has returned: all three hold
 *   the same 1,000 notes;
 * - a writer process SIGKILLed 20 times: every write it reported reaches the
 *   cloud exactly once, and nothing is duplicated;
 * - conflicting updates (both orders) and updates racing forgets (both
 *   orders) converge to the winner plus the same `conflict` note;
 * - hand edits and hand deletions in `notes.md` replicate (running runtime
 *   and fresh runtime);
 * - one connector source synced on two machines is one note everywhere;
 * - a batch delete in the cloud (by prefix, then by ids) reaches every replica;
 * - a wrong key, a wrong URL and a server that never answers: writes stay
 *   local-speed, the status says what is wrong, the key is nowhere.
 *
 * @module
 */

import assert from "node:assert/strict";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseNotes } from "../memory/store/parse.ts";
import type { Note } from "../memory/notes/note.ts";
import { MemoCloudClient } from "../runtimes/cloud/client.ts";
import { isMemoRuntimeError } from "../runtimes/errors.ts";
import {
  createMemoHybridMcpRuntime,
  type MemoHybridMcpRuntime,
  type MemoHybridMcpRuntimeOptions,
} from "../runtimes/hybrid/runtime.ts";
import type { ReplicateResult } from "../runtimes/types.ts";
import { cloudNotes, type CloudProcess, inherited, startCloudProcess } from "./_cloud_process.ts";
import { type FaultProxy, startFaultProxy } from "./_fault_proxy.ts";
import { startPostgres } from "./_postgres.ts";
import { freePort } from "./_serve_process.ts";
import { discussion, startFakeGithub } from "./connectors_fake_github.ts";
import { prng } from "./fixtures/mcp_fuzz_messages.ts";
import { settled, STUCK_MS } from "../testing/wait.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const KEY = "mk_HYBRID_e2e_team_key_3c9d7e41a2";
const GITHUB_TOKEN = "ghp_HYBRIDe2eTOKEN0000000000000000000077";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A project folder with a hybrid runtime on it. */
interface Machine {
  dir: string;
  runtime: MemoHybridMcpRuntime;
}

/** The notes in a folder's `notes.md`, as on disk; the file must have no damaged section. */
async function localNotes(dir: string): Promise<Note[]> {
  let text = "";
  try {
    text = await readFile(join(dir, ".memo", "memory", "notes.md"), "utf8");
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  const parsed = parseNotes(text);
  assert.deepEqual(parsed.issues, [], `notes.md of ${dir} has no damaged or duplicate section`);
  return parsed.sections.flatMap((s) => s.note ? [s.note] : []);
}

/** A note's replicated fields (no cloud revision, `source` always present), for comparison. */
function plain(note: Note) {
  return {
    id: note.id,
    title: note.title,
    body: note.body,
    labels: [...note.labels],
    source: note.source ?? null,
    hash: note.hash,
    created: note.created,
    updated: note.updated,
  };
}

/** Notes as a list of plain records sorted by id. */
function table(notes: readonly Note[]) {
  return notes.map(plain).sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Replicates each runtime in turn, round after round, until a round in which
 * nothing moves and no outbox holds anything. Returns the rounds it took.
 */
async function converge(runtimes: readonly MemoHybridMcpRuntime[], maxRounds = 5) {
  let last: ReplicateResult[] = [];
  for (let round = 1; round <= maxRounds; round++) {
    last = [];
    for (const runtime of runtimes) last.push(await runtime.replicate());
    if (last.every((r) => r.outbox === 0 && r.pushed === 0 && r.pulled === 0)) return round;
  }
  throw new Error(`no convergence in ${maxRounds} rounds; last: ${JSON.stringify(last)}`);
}

/** Every file under `dir` (recursively), with its text. */
async function filesWithText(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return out;
    throw e;
  }
  for (const e of entries) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    out.set(path, new TextDecoder().decode(await Deno.readFile(path)));
  }
  return out;
}

/** Waits until `check` holds, polling every 50 ms, or fails after `ms`. */
async function eventually(what: string, ms: number, check: () => Promise<boolean>) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(50);
  }
}

Deno.test("the hybrid runtime end to end on PostgreSQL", async (t) => {
  const pg = await startPostgres();
  const serverEnv = {
    MEMO_CLOUD_DATABASE_URL: pg.url,
    MEMO_CLOUD_API_KEYS: `${KEY}:team`,
    MEMO_CLOUD_RATE_LIMIT: "0",
  };
  let server: CloudProcess = await startCloudProcess(serverEnv);
  const opened: { dir: string; runtime: MemoHybridMcpRuntime; closed: boolean }[] = [];
  const proxies: FaultProxy[] = [];
  const dirs = new Set<string>();

  /** A fresh folder and a hybrid runtime on it (or on `dir`). */
  async function machine(
    options: MemoHybridMcpRuntimeOptions & { dir?: string },
  ): Promise<Machine> {
    const dir = options.dir ?? await Deno.makeTempDir({ prefix: "memo-hybrid-e2e-" });
    const runtime = createMemoHybridMcpRuntime({
      rootDir: dir,
      baseUrl: server.origin,
      apiKey: KEY,
      workspaceId: "team",
      timeoutMs: 5000,
      retry: { maxRetries: 1, backoffMs: 50 },
      closeDrainMs: 300,
      pullIntervalMs: 60_000,
      // Replication is under test here; embedding 500 notes beside it would only compete for
      // the 2 cores the write timings are measured on (the engines have their own tests).
      localEmbeddings: false,
      ...options,
    });
    dirs.add(dir);
    opened.push({ dir, runtime, closed: false });
    return { dir, runtime };
  }
  /** Closes a machine's runtime (once). */
  async function shut(m: Machine) {
    const entry = opened.find((o) => o.runtime === m.runtime);
    if (entry && !entry.closed) {
      entry.closed = true;
      await m.runtime.close();
    }
  }
  const cloudOf = (projectId: string) =>
    new MemoCloudClient({
      baseUrl: server.origin,
      apiKey: KEY,
      workspaceId: "team",
      projectId,
      timeoutMs: 10_000,
    });
  /** A proxy to the server that a test can take down to cut a machine off. */
  async function proxy(): Promise<FaultProxy> {
    const p = await startFaultProxy(server.origin);
    proxies.push(p);
    return p;
  }

  try {
    await t.step(
      "two machines, 500 notes each, the server SIGKILLed midway: the same 1,000 notes everywhere",
      async () => {
        const PER_MACHINE = 500;
        const options = { projectId: "two", pullIntervalMs: 500 };
        const a = await machine(options);
        const b = await machine(options);
        const writes: { tag: string; i: number; id: string; ms: number; end: number }[] = [];
        // Both machines stop at their halfway mark until the server is dead; it comes back only
        // once every write has returned. A write that waited for the cloud would never return
        // (the writers' deadline below turns that into a failure).
        const halfway = Promise.withResolvers<void>();
        const killed = Promise.withResolvers<void>();
        let atHalfway = 0;
        let killedAt = Infinity;
        let restartedAt = Infinity;
        const textOf = (tag: string, i: number) =>
          `Note ${i} of machine ${tag}: ${i % 2 ? "odd" : "even"} numbers ${i * 7919 % 1000}`;
        const writeAll = async (m: Machine, tag: string) => {
          for (let i = 0; i < PER_MACHINE; i++) {
            if (i === PER_MACHINE / 2) {
              if (++atHalfway === 2) halfway.resolve();
              await killed.promise;
            }
            const start = performance.now();
            const result = await m.runtime.remember({
              text: textOf(tag, i),
              labels: [tag, `g${i % 7}`],
              ...(i % 3 === 0 ? { source: `e2e:two:${tag}:${i}` } : {}),
              ...(i % 5 === 0 ? { title: `Title ${tag} ${i}` } : {}),
            });
            const end = performance.now();
            assert.equal(result.status, "written");
            writes.push({ tag, i, id: result.note.id, ms: end - start, end });
          }
        };
        const writers = Promise.all([writeAll(a, "a"), writeAll(b, "b")]);
        await halfway.promise;
        const status = await server.kill();
        assert.equal(status.signal, "SIGKILL");
        killedAt = performance.now();
        killed.resolve();
        await settled(writers, "the writes made while the server is down to return", 120_000);
        const port = server.port;
        server = await startCloudProcess(serverEnv, { port });
        restartedAt = performance.now();
        assert.equal(server.port, port);

        // Local first: no write waited for the cloud to come back.
        assert.equal(writes.length, 2 * PER_MACHINE);
        const lastWrite = Math.max(...writes.map((w) => w.end));
        const duringOutage = writes.filter((w) => w.end > killedAt && w.end < restartedAt);
        assert.equal(
          duringOutage.length,
          PER_MACHINE,
          "each machine's second half of writes returned while the server was down",
        );
        assert.ok(
          lastWrite < restartedAt,
          `every write returned before the server came back (last ${
            Math.round(lastWrite - killedAt)
          } ms after the kill, restart at ${Math.round(restartedAt - killedAt)} ms)`,
        );
        // Local speed: far below the cloud client's 5 s timeout, which a loaded machine meets.
        const slowest = Math.max(...writes.map((w) => w.ms));
        assert.ok(slowest < 2500, `the slowest write took ${Math.round(slowest)} ms`);

        const rounds = await converge([a.runtime, b.runtime]);
        const cloud = await cloudNotes(cloudOf("two"));
        const [onA, onB] = [await localNotes(a.dir), await localNotes(b.dir)];
        for (const [where, notes] of [["A", onA], ["B", onB], ["cloud", cloud]] as const) {
          assert.equal(notes.length, 2 * PER_MACHINE, `${where} holds 1,000 notes`);
          assert.equal(new Set(notes.map((n) => n.id)).size, notes.length, `${where}: unique ids`);
          assert.deepEqual(
            new Set(notes.map((n) => n.id)),
            new Set(writes.map((w) => w.id)),
            `${where} holds every note under the id its write returned`,
          );
        }
        const byId = new Map(cloud.map((n) => [n.id, n]));
        for (const w of writes) assert.equal(byId.get(w.id)?.body, textOf(w.tag, w.i));
        assert.deepEqual(table(onA), table(cloud), "A and the cloud hold identical notes");
        assert.deepEqual(table(onB), table(cloud), "B and the cloud hold identical notes");
        for (const m of [a, b]) {
          const { replica, notes } = await m.runtime.stats();
          assert.equal(notes, 2 * PER_MACHINE);
          assert.equal(replica?.outbox, 0);
          assert.equal(replica?.error, undefined);
          assert.ok(replica?.lastPush && replica.lastPull, JSON.stringify(replica));
        }
        assert.ok(rounds <= 4, `converged in ${rounds} rounds`);
        await shut(a);
        await shut(b);
      },
    );

    await t.step(
      "crash: a writer SIGKILLed 20 times; every reported write reaches the cloud exactly once",
      async () => {
        const dir = await Deno.makeTempDir({ prefix: "memo-hybrid-e2e-crash-" });
        dirs.add(dir);
        const random = prng(20261124);
        const printed = new Map<number, string>(); // n → id
        const writer = join(ROOT, "tests", "fixtures", "hybrid_writer.ts");
        for (let run = 0; run < 20; run++) {
          const child = new Deno.Command(Deno.execPath(), {
            args: ["run", "-A", "--quiet", writer, dir, server.origin, "crash", String(run * 1e5)],
            cwd: ROOT,
            env: { ...inherited(), MEMO_CLOUD_API_KEY: KEY },
            clearEnv: true,
            stdin: "null",
            stdout: "piped",
            stderr: "piped",
          }).spawn();
          let out = "";
          let err = "";
          // Ready: the writer reported its first write (each run adds at least one).
          const ready = Promise.withResolvers<void>();
          const reading = (async () => {
            for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
              out += chunk;
              if (/^ready\nok [^\n]*\n/.test(out)) ready.resolve();
            }
          })();
          const readingErr = (async () => {
            for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
              err += chunk;
            }
          })();
          const exited = child.status.then((s) => {
            ready.reject(new Error(`the writer exited (${s.code}) before ready:\n${err}`));
            return s;
          });
          const timer = setTimeout(() => ready.reject(new Error("no first write in 60 s")), 60_000);
          try {
            await ready.promise;
            await sleep(Math.floor(random() * 500)); // a random moment of the writing
          } finally {
            clearTimeout(timer);
            try {
              child.kill("SIGKILL");
            } catch { /* gone */ }
            await exited;
            await reading;
            await readingErr;
          }
          // Only complete lines count: a line cut by the kill was not reported.
          const lines = out.split("\n").slice(0, -1);
          for (const line of lines.slice(1)) {
            const m = /^ok (\d+) (\S+)$/.exec(line);
            assert.ok(m, `a writer line: ${JSON.stringify(line)}`);
            printed.set(Number(m[1]), m[2]);
          }
        }
        assert.ok(printed.size >= 20, `the writers reported ${printed.size} writes`);

        // After the last kill, a fresh runtime on the folder replicates.
        const fresh = await machine({ dir, projectId: "crash" });
        await converge([fresh.runtime]);
        const local = await localNotes(dir);
        const cloud = await cloudNotes(cloudOf("crash"));
        const cloudById = new Map(cloud.map((n) => [n.id, n]));
        for (const [n, id] of printed) {
          assert.equal(cloudById.get(id)?.body, `note ${n}`, `reported write ${n} (${id})`);
        }
        const perBody = new Map<string, number>();
        for (const note of cloud) perBody.set(note.body, (perBody.get(note.body) ?? 0) + 1);
        const twice = [...perBody].filter(([, count]) => count !== 1);
        assert.deepEqual(twice, [], "every body once in the cloud");
        assert.ok(cloud.every((n) => /^note \d+$/.test(n.body)));
        // What was written but not reported (killed before the print) is there once too.
        assert.deepEqual(
          table(local),
          table(cloud),
          "the folder and the cloud hold the same notes",
        );
        assert.equal((await fresh.runtime.stats()).replica?.outbox, 0);
        await shut(fresh);
      },
    );

    await t.step(
      "conflicts: updates made while cut off, both push orders: the later wins, the loser is a conflict note",
      async () => {
        const [pa, pb] = [await proxy(), await proxy()];
        const a = await machine({ projectId: "conflict", baseUrl: pa.origin });
        const b = await machine({ projectId: "conflict", baseUrl: pb.origin });
        const x = await a.runtime.remember({ text: "Deploys run from the release branch" });
        const y = await a.runtime.remember({
          text: "The staging database is reset nightly",
          labels: ["ops"],
        });
        await converge([a.runtime, b.runtime]);
        assert.equal((await b.runtime.get(y.note.id)).body, y.note.body);

        await pa.down();
        await pb.down();
        // X: A first (loses), B later (wins). Y: B first (loses), A later (wins).
        const xA = await a.runtime.update(x.note.id, {
          text: "Deploys run from main, A says",
          labels: ["a-side"],
        });
        const yB = await b.runtime.update(y.note.id, { text: "Staging is reset weekly, B says" });
        await sleep(15);
        const xB = await b.runtime.update(x.note.id, { text: "Deploys run from tags, B says" });
        const yA = await a.runtime.update(y.note.id, {
          text: "Staging is reset on demand, A says",
          labels: ["ops", "a-side"],
        });
        assert.ok(xB.updated > xA.updated && yA.updated > yB.updated, "the clocks moved");
        // Each machine's push after its writes fails against the closed proxy.
        for (const m of [a, b]) {
          await eventually(
            "a push refused by the closed proxy",
            STUCK_MS,
            async () => /refused/.test((await m.runtime.stats()).replica?.error ?? ""),
          );
        }
        const during = new Map((await cloudNotes(cloudOf("conflict"))).map((n) => [n.id, n.body]));
        assert.deepEqual(
          [during.get(x.note.id), during.get(y.note.id)],
          [x.note.body, y.note.body],
          "the machines were cut off: the cloud saw neither update",
        );
        // A pushes first: its X (the loser) reaches the cloud first, its Y (the winner) too. B
        // is cut off until then, whatever its background timers do.
        pa.up();
        const results = [await a.runtime.replicate()];
        pb.up();
        results.push(
          await b.runtime.replicate(),
          await a.runtime.replicate(),
          await b.runtime.replicate(),
        );
        await converge([a.runtime, b.runtime]);

        const cloud = await cloudNotes(cloudOf("conflict"));
        const expectedConflict = (loser: Note, winnerId: string) => ({
          title: loser.title,
          body: `Conflict: superseded by ${winnerId}\n\n${loser.body}`,
          labels: ["conflict", ...loser.labels],
          source: null,
          created: loser.updated,
          updated: loser.updated,
        });
        for (
          const [where, notes] of [
            ["A", await localNotes(a.dir)],
            ["B", await localNotes(b.dir)],
            ["cloud", cloud],
          ] as const
        ) {
          const byId = new Map(notes.map((n) => [n.id, n]));
          assert.equal(byId.get(x.note.id)?.body, xB.body, `${where}: B's later X wins`);
          assert.equal(byId.get(y.note.id)?.body, yA.body, `${where}: A's later Y wins`);
          assert.deepEqual(byId.get(y.note.id)?.labels, yA.labels);
          const conflicts = notes.filter((n) => n.labels.includes("conflict"))
            .map(({ title, body, labels, source, created, updated }) => ({
              title,
              body,
              labels,
              source: source ?? null,
              created,
              updated,
            }))
            .sort((p, q) => p.body < q.body ? -1 : 1);
          assert.deepEqual(
            conflicts,
            [expectedConflict(xA, x.note.id), expectedConflict(yB, y.note.id)]
              .sort((p, q) => p.body < q.body ? -1 : 1),
            `${where} holds each losing version once, as a conflict note`,
          );
          assert.equal(notes.length, 4, `${where}: X, Y and two conflict notes`);
        }
        assert.deepEqual(table(await localNotes(a.dir)), table(cloud));
        assert.deepEqual(table(await localNotes(b.dir)), table(cloud));
        const counted = results.reduce((sum, r) => sum + r.conflicts, 0);
        const [sa, sb] = [await a.runtime.stats(), await b.runtime.stats()];
        assert.ok(counted >= 2, `replicate() reported ${counted} conflicts`);
        assert.ok(
          (sa.replica?.conflicts ?? 0) + (sb.replica?.conflicts ?? 0) >= 2,
          `stats count the conflicts: A ${sa.replica?.conflicts}, B ${sb.replica?.conflicts}`,
        );
        assert.ok((sb.replica?.conflicts ?? 0) >= 1, "B, which pushed second, resolved");
        await shut(a);
        await shut(b);
      },
    );

    await t.step(
      "a correction and a supersede on A are seen on B; a correction in the cloud reaches both",
      async () => {
        const a = await machine({ projectId: "history" });
        const b = await machine({ projectId: "history" });
        const cloud = cloudOf("history");
        const { note: old } = await a.runtime.remember({ text: "Deploys run on Fridays" });
        const { note: twin } = await a.runtime.remember({ text: "Staging lives in eu-west-1" });
        const { note: keep } = await a.runtime.remember({
          text: "The staging environment is in eu-west-1",
        });
        await converge([a.runtime, b.runtime]);
        const { note: fixed } = await a.runtime.correct!({
          id: old.id,
          text: "Deploys run on Mondays",
        });
        await a.runtime.supersede!({ ids: [twin.id], by: keep.id });
        await converge([a.runtime, b.runtime]);

        const hits = await b.runtime.recall("deploys run", { limit: 5 });
        assert.deepEqual(hits.map((h) => h.note.id), [fixed.id], "B: the new fact, not the old");
        const flagged = await b.runtime.recall("deploys run", {
          limit: 5,
          includeSuperseded: true,
        });
        assert.deepEqual(flagged.find((h) => h.note.id === old.id)?.note.supersededBy, [fixed.id]);
        const before = new Date(Date.parse(fixed.created) - 1).toISOString();
        const then = await b.runtime.recall("deploys run", { limit: 5, asOf: before });
        assert.deepEqual(then.map((h) => h.note.id), [old.id]);
        assert.deepEqual((await b.runtime.get(twin.id)).supersededBy, [keep.id]);
        // The cloud (PostgreSQL) holds the same chain, and hides the superseded notes too.
        assert.deepEqual((await cloud.get(old.id)).supersededBy, [fixed.id]);
        assert.equal(typeof (await cloud.get(old.id)).validUntil, "string");
        assert.deepEqual(
          (await cloud.list({ limit: 10 })).notes.map((n) => n.id).sort(),
          [
            fixed.id,
            keep.id,
          ].sort(),
        );
        // B's notes.md holds both notes, linked on the newer one.
        const onB = new Map((await localNotes(b.dir)).map((n) => [n.id, n]));
        assert.deepEqual(onB.get(fixed.id)?.supersedes, [old.id]);
        assert.equal(onB.get(old.id)?.validUntil, (await cloud.get(old.id)).validUntil);

        // A correction made through the Cloud API (one transaction there) reaches both machines.
        const { note: latest } = await cloud.correct({
          id: fixed.id,
          text: "Deploys run on Tuesdays",
        });
        await converge([a.runtime, b.runtime]);
        for (const m of [a, b]) {
          const now = await m.runtime.recall("deploys run", { limit: 5 });
          assert.deepEqual(now.map((h) => h.note.id), [latest.id]);
          assert.deepEqual((await m.runtime.get(fixed.id)).supersededBy, [latest.id]);
        }
        const history = (notes: Note[]) =>
          notes.map((n) => [n.id, n.hash, n.supersedes ?? [], n.validUntil ?? null]).sort();
        const everything = await cloud.list({ limit: 100, includeSuperseded: true });
        assert.equal(everything.total, 5);
        assert.deepEqual(history(await localNotes(a.dir)), history(everything.notes));
        assert.deepEqual(history(await localNotes(b.dir)), history(everything.notes));
        await shut(a);
        await shut(b);
      },
    );

    await t.step("an update races a forget, in both orders: the update wins", async () => {
      const [pa, pb] = [await proxy(), await proxy()];
      const a = await machine({ projectId: "race", baseUrl: pa.origin });
      const b = await machine({ projectId: "race", baseUrl: pb.origin });
      const x1 = (await a.runtime.remember({ text: "Race one: the cache is warmed at boot" })).note;
      const x2 = (await a.runtime.remember({ text: "Race two: logs rotate daily" })).note;
      await converge([a.runtime, b.runtime]);
      assert.equal((await b.runtime.get(x2.id)).body, x2.body);

      // (a) B, cut off, updates X1; A forgets X1 and replicates first.
      await pb.down();
      await a.runtime.forget(x1.id);
      await sleep(10);
      const x1B = await b.runtime.update(x1.id, { text: "Race one: the cache is warmed lazily" });
      await a.runtime.replicate();
      await assert.rejects(cloudOf("race").get(x1.id), { code: "not_found" });
      pb.up();
      await b.runtime.replicate();
      await converge([a.runtime, b.runtime]);

      // (b) A, cut off, forgets X2 (after B's update); B updates X2 and replicates first.
      await pa.down();
      const x2B = await b.runtime.update(x2.id, { text: "Race two: logs rotate hourly" });
      await sleep(10);
      await a.runtime.forget(x2.id);
      await b.runtime.replicate();
      assert.equal((await cloudOf("race").get(x2.id)).body, x2B.body);
      pa.up();
      await a.runtime.replicate();
      await converge([a.runtime, b.runtime]);

      const cloud = await cloudNotes(cloudOf("race"));
      for (
        const [where, notes] of [
          ["A", await localNotes(a.dir)],
          ["B", await localNotes(b.dir)],
          ["cloud", cloud],
        ] as const
      ) {
        const byId = new Map(notes.map((n) => [n.id, n]));
        assert.equal(byId.get(x1.id)?.body, x1B.body, `${where}: (a) X1 exists with B's update`);
        assert.equal(byId.get(x2.id)?.body, x2B.body, `${where}: (b) X2 exists with B's update`);
        assert.equal(notes.filter((n) => n.body.startsWith("Race")).length, 2, where);
      }
      assert.deepEqual(table(await localNotes(a.dir)), table(cloud));
      assert.deepEqual(table(await localNotes(b.dir)), table(cloud));
      for (const m of [a, b]) assert.equal((await m.runtime.get(x1.id)).body, x1B.body);
      await shut(a);
      await shut(b);
    });

    await t.step(
      "outside edits: a hand-edited body and a hand-deleted section replicate",
      async () => {
        const a = await machine({ projectId: "edits", pullIntervalMs: 300 });
        const b = await machine({ projectId: "edits" });
        const texts = {
          e1: "Edit one: the on-call rota is in the wiki",
          d1: "Delete one: the VPN needs a hardware token",
          e2: "Edit two: builds are cached for a week",
          d2: "Delete two: the printer is on floor three",
          keep: "Keep: coffee is free on Fridays",
        };
        const ids: Record<string, string> = {};
        for (const [k, text] of Object.entries(texts)) {
          ids[k] = (await a.runtime.remember({ text, labels: ["edits"] })).note.id;
        }
        await converge([a.runtime, b.runtime]);
        assert.equal((await b.runtime.stats()).notes, 5);
        const notesFile = join(a.dir, ".memo", "memory", "notes.md");
        /** What a person does in an editor: change a body's words; cut a whole section. */
        const handEdit = async (edit: string, newBody: string, remove: string) => {
          let text = await readFile(notesFile, "utf8");
          assert.ok(text.includes(`\n${texts[edit as keyof typeof texts]}\n`));
          text = text.replace(`\n${texts[edit as keyof typeof texts]}\n`, `\n${newBody}\n`);
          const start = text.indexOf(`<!-- memo:note {"id":"${ids[remove]}"`);
          assert.ok(start > 0, `the section of ${remove} is in notes.md`);
          const next = text.indexOf("<!-- memo:note", start + 1);
          text = text.slice(0, start) + (next < 0 ? "" : text.slice(next));
          await writeFile(notesFile, text);
        };
        const cloud = cloudOf("edits");
        const e1Body = "Edit one: the on-call rota moved to the handbook, by hand";
        const e2Body = "Edit two: builds are cached for a month now, edited by hand";

        // Pulled changes fire watch on B.
        const seen: { ids: string[]; listChanged: boolean }[] = [];
        const unwatch = b.runtime.watch!((change) => void seen.push(change));

        // (i) the running runtime picks the edits up in its next cycle, without replicate().
        await handEdit("e1", e1Body, "d1");
        await eventually("the running runtime pushes the hand edits", STUCK_MS, async () => {
          const listed = await cloudNotes(cloud);
          return listed.some((n) => n.id === ids.e1 && n.body === e1Body) &&
            !listed.some((n) => n.id === ids.d1);
        });
        assert.equal((await a.runtime.get(ids.e1)).body, e1Body);
        await b.runtime.replicate();
        assert.equal((await b.runtime.get(ids.e1)).body, e1Body, "B sees the new body");
        await assert.rejects(
          b.runtime.get(ids.d1),
          (e) => isMemoRuntimeError(e, "NOTE_NOT_FOUND"),
          "B no longer has the deleted note",
        );
        await eventually("B's watch reports the pulled changes", STUCK_MS, () =>
          Promise.resolve(
            seen.some((c) => c.ids.includes(ids.e1)) &&
              seen.some((c) => c.ids.includes(ids.d1) && c.listChanged),
          ));
        unwatch();

        // (ii) edits made while memo was not running: a fresh runtime (a restart) pushes them.
        await shut(a);
        await handEdit("e2", e2Body, "d2");
        const again = await machine({ dir: a.dir, projectId: "edits" });
        await again.runtime.replicate();
        await b.runtime.replicate();
        assert.equal((await b.runtime.get(ids.e2)).body, e2Body, "B sees the new body");
        await assert.rejects(
          b.runtime.get(ids.d2),
          (e) => isMemoRuntimeError(e, "NOTE_NOT_FOUND"),
        );
        await converge([again.runtime, b.runtime]);

        const inCloud = await cloudNotes(cloud);
        const onB = await localNotes(b.dir);
        const onA = await localNotes(a.dir);
        assert.deepEqual(
          inCloud.map((n) => n.body).sort(),
          [e1Body, e2Body, texts.keep].sort(),
          "the cloud: both edits, no deleted note",
        );
        assert.deepEqual(table(onB), table(inCloud), "B and the cloud hold identical notes");
        const content = (notes: Note[]) =>
          notes.map(({ id, title, body, labels }) => ({ id, title, body, labels }))
            .sort((p, q) => p.id < q.id ? -1 : 1);
        assert.deepEqual(content(onA), content(inCloud), "A and the cloud: the same content");
        await shut(again);
        await shut(b);
      },
    );

    await t.step(
      "the same source synced on two machines is one note everywhere, under one id",
      async () => {
        const github = startFakeGithub([{
          nameWithOwner: "octo-org/hello-world",
          discussions: [1, 2, 3].map((n) => discussion(n, `2024-05-0${n}T10:00:00Z`)),
        }], { token: GITHUB_TOKEN });
        try {
          const [pa, pb] = [await proxy(), await proxy()];
          const config = JSON.stringify({
            connectors: [{
              id: "gh",
              type: "discussions",
              repositories: ["octo-org/hello-world"],
              apiUrl: github.url,
            }],
          });
          const env = { GITHUB_TOKEN };
          const a = await machine({ projectId: "source", baseUrl: pa.origin, env });
          const b = await machine({ projectId: "source", baseUrl: pb.origin, env });
          for (const m of [a, b]) {
            await Deno.mkdir(join(m.dir, ".memo"), { recursive: true });
            await writeFile(join(m.dir, ".memo", "config.json"), config);
          }
          // Both sync while cut off: each makes its own three notes, with its own ids.
          await pa.down();
          await pb.down();
          for (const m of [a, b]) {
            const sync = await m.runtime.syncConnectors();
            assert.equal(sync.written, 3, JSON.stringify(sync));
          }
          pa.up();
          pb.up();
          for (let i = 0; i < 2; i++) {
            await a.runtime.replicate();
            await b.runtime.replicate();
          }
          await converge([a.runtime, b.runtime]);

          const cloud = await cloudNotes(cloudOf("source"));
          assert.equal(cloud.length, 3, "one note per discussion in the cloud");
          assert.deepEqual(
            cloud.map((n) => n.source).sort(),
            [1, 2, 3].map((n) => `github:octo-org/hello-world/discussions/${n}`),
          );
          const [onA, onB] = [await localNotes(a.dir), await localNotes(b.dir)];
          assert.deepEqual(table(onA), table(cloud), "A holds the cloud's notes, ids included");
          assert.deepEqual(table(onB), table(cloud), "B holds the cloud's notes, ids included");
          await shut(a);
          await shut(b);
        } finally {
          await github.close();
        }
      },
    );

    await t.step("a batch delete in the cloud reaches every replica as tombstones", async () => {
      const options = { projectId: "batchdelete" };
      const a = await machine(options);
      const b = await machine(options);
      await a.runtime.rememberMany!(
        Array.from({ length: 30 }, (_, i) => ({
          text: `Imported page ${i}`,
          source: `import:wiki/${i}`,
        })),
      );
      await a.runtime.remember({ text: "Written by hand, kept" });
      await converge([a.runtime, b.runtime]);
      assert.equal((await localNotes(b.dir)).length, 31);
      const cloud = cloudOf("batchdelete");
      const byPrefix = await cloud.deleteBatch({ sourcePrefix: "import:wiki/1" });
      assert.equal(byPrefix.deleted.length, 11); // 1 and 10 … 19
      const kept = (await cloudNotes(cloud)).filter((n) => n.source?.startsWith("import:"));
      const byIds = await cloud.deleteBatch({ ids: [...kept.map((n) => n.id), "01jnotthere0000"] });
      assert.deepEqual(byIds.notFound, ["01jnotthere0000"]);
      await converge([a.runtime, b.runtime]);
      for (const m of [a, b]) {
        const notes = await localNotes(m.dir);
        assert.deepEqual(notes.map((n) => n.body), ["Written by hand, kept"], m.dir);
      }
      await shut(a);
      await shut(b);
    });

    await t.step(
      "a misconfigured cloud: writes stay local-speed, the status says what is wrong, no key anywhere",
      async (s) => {
        const SECRET = "mk_HYBRID_secret_never_shown_9f8e7d";
        // A write that waited for the cloud would take the whole timeout (the server that never
        // answers): writes must take less than half of it, which a loaded machine meets.
        const timeoutMs = 3000;
        const check = async (
          baseUrl: string,
          apiKey: string,
          expected: RegExp,
        ) => {
          const m = await machine({
            projectId: "misconfigured",
            baseUrl,
            apiKey,
            timeoutMs,
            retry: { maxRetries: 0 },
            closeDrainMs: 200,
          });
          const times: number[] = [];
          const timed = async <T>(write: () => Promise<T>) => {
            const start = performance.now();
            const result = await write();
            times.push(performance.now() - start);
            return result;
          };
          const ids: string[] = [];
          for (let i = 0; i < 5; i++) {
            const r = await timed(() => m.runtime.remember({ text: `Offline note ${i}` }));
            assert.equal(r.status, "written");
            ids.push(r.note.id);
          }
          await timed(() => m.runtime.update(ids[0], { text: "Offline note 0, changed" }));
          await timed(() => m.runtime.forget(ids[1]));
          const slowest = Math.max(...times);
          assert.ok(slowest < timeoutMs / 2, `the slowest write took ${Math.round(slowest)} ms`);

          let thrown: unknown;
          await assert.rejects(m.runtime.replicate(), (e) => {
            thrown = e;
            return e instanceof Error && e.name === "MemoCloudError";
          });
          const message = (thrown as Error).message;
          assert.match(message, expected);
          assert.ok(!message.includes(apiKey), "no key in the error");
          const stats = await m.runtime.stats();
          assert.equal(stats.notes, 4);
          const error = stats.replica?.error ?? "";
          assert.match(error, expected, `status error: ${JSON.stringify(error)}`);
          assert.ok(!error.includes("\n"), "one line");
          assert.ok((stats.replica?.outbox ?? 0) > 0, "the changes wait in the outbox");
          assert.ok(!JSON.stringify(stats).includes(apiKey), "no key in the stats");
          const closing = performance.now();
          await shut(m); // never throws for the cloud
          const closeMs = performance.now() - closing;
          assert.ok(closeMs < 200 + timeoutMs, `close took ${Math.round(closeMs)} ms`);
          // Closed means done: no replication still holds the folder's lock.
          const lock = join(m.dir, ".memo", "replica", "lock");
          assert.ok(
            await Deno.stat(lock).then(() => false, () => true),
            "close() returned with .memo/replica/lock still held (a replication still running)",
          );
          const files = await filesWithText(join(m.dir, ".memo"));
          assert.ok(files.size > 0);
          for (const [path, text] of files) {
            assert.ok(!text.includes(apiKey), `the key is in ${path}`);
          }
          assert.equal((await localNotes(m.dir)).length, 4, "the notes are on disk");
        };

        await s.step("a wrong key (401)", async () => {
          await check(server.origin, SECRET, /401/);
        });
        await s.step("a wrong URL (connection refused)", async () => {
          await check(`http://127.0.0.1:${freePort()}`, SECRET, /refused/);
        });
        await s.step("a server that never answers", async () => {
          const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
          const held: Deno.Conn[] = [];
          const accepting = (async () => {
            try {
              for await (const conn of listener) held.push(conn);
            } catch { /* closed */ }
          })();
          try {
            const port = (listener.addr as Deno.NetAddr).port;
            await check(`http://127.0.0.1:${port}`, SECRET, /no answer/);
          } finally {
            listener.close();
            for (const conn of held) {
              try {
                conn.close();
              } catch { /* closed by the client */ }
            }
            await accepting;
          }
        });
      },
    );

    await t.step("the server never logged the key", () => {
      assert.ok(!server.log().includes(KEY));
    });
  } finally {
    for (const o of opened) {
      if (!o.closed) await o.runtime.close().catch(() => {});
    }
    for (const p of proxies) await p.close();
    await server.stop();
    await pg.stop();
    for (const dir of dirs) {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  }
});
