/**
 * The file store across OS processes: concurrent writers, writers killed with SIGKILL, locks
 * left by dead processes and locks held by live ones.
 */
import assert from "node:assert/strict";
import { appendFile, readFile, stat, writeFile } from "node:fs/promises";
// Imported file by file (not from mod.ts) so that these tests do not depend on the recall engines.
import { FileMemoryStore } from "../memory/store/file_store.ts";
import { memoPaths } from "../memory/store/paths.ts";
import type { Note } from "../memory/notes/note.ts";
import { StoreLockError } from "../memory/errors.ts";
import { readUntil } from "../testing/wait.ts";
import { pageCounter } from "../testing/pages.ts";

const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url).pathname;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A temp folder removed when the test ends (`await using`). */
async function tempRoot(prefix: string) {
  const path = await Deno.makeTempDir({ prefix });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

async function allNotes(store: FileMemoryStore): Promise<Note[]> {
  const out: Note[] = [];
  let cursor: string | undefined;
  const nextPage = pageCounter("the pages of store.list()");
  do {
    nextPage();
    const page = await store.list(cursor, 1000);
    out.push(...page.notes);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

async function runWriter(args: string[]): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", fixture("store_writer.ts"), ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  return new TextDecoder().decode(out.stdout).trim().split("\n");
}

/** A process that stays alive until killed. */
function liveProcess(): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["eval", "setTimeout(() => {}, 120000)"],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
}

/** The pid of a process that has already exited. */
async function deadPid(): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", ""],
    stdout: "null",
    stderr: "null",
  }).spawn();
  await child.status;
  return child.pid;
}

async function writeLock(rootDir: string, pid: number, size: number, ino: number) {
  const lock = { pid, host: Deno.hostname(), created: new Date().toISOString(), size, ino };
  await writeFile(memoPaths(rootDir).lock, JSON.stringify({ ...lock, nonce: "test" }));
}

Deno.test("two processes committing 500 notes each at once lose and duplicate nothing", async () => {
  await using root = await tempRoot("memo_two_");
  const rootDir = root.path;
  const [a, b] = await Promise.all([
    runWriter([rootDir, "alpha", "500", "10"]),
    runWriter([rootDir, "beta", "500", "10"]),
  ]);
  const printed = [...a, ...b].flatMap((line) => JSON.parse(line).written as string[]);
  assert.equal(printed.length, 1000);
  const store = new FileMemoryStore({ rootDir });
  const report = await store.load();
  assert.deepEqual([report.notes, report.issues], [1000, []]);
  const notes = await allNotes(store);
  assert.deepEqual(new Set(notes.map((n) => n.id)), new Set(printed));
  const bodies = new Set(notes.map((n) => n.body));
  for (const tag of ["alpha", "beta"]) {
    for (let i = 0; i < 500; i++) assert.ok(bodies.has(`${tag} note ${i}`), `${tag} note ${i}`);
  }
});

Deno.test("two processes committing the same source keys at once store each key once", async () => {
  await using root = await tempRoot("memo_shared_");
  const rootDir = root.path;
  const [a, b] = await Promise.all([
    runWriter([rootDir, "a", "100", "5", "shared"]),
    runWriter([rootDir, "b", "100", "5", "shared"]),
  ]);
  const results = [...a, ...b].map((line) => JSON.parse(line));
  const written = results.flatMap((r) => r.written);
  const unchanged = results.flatMap((r) => r.unchanged);
  assert.deepEqual([written.length, unchanged.length], [100, 100]);
  const store = new FileMemoryStore({ rootDir });
  assert.deepEqual(await store.load(), { notes: 100, issues: [] });
});

Deno.test("a writer killed at random moments leaves exactly the returned commits plus at most its batch in flight", async () => {
  await using root = await tempRoot("memo_crash_");
  const rootDir = root.path;
  let persisted = new Set<string>();
  for (let round = 0; round < 20; round++) {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", fixture("store_crash_writer.ts"), rootDir, `r${round}`],
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stderr = new Response(child.stderr).text();
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    // Kill only once a commit has returned (a loaded machine can be slow), then at a random time.
    let out = "";
    try {
      const committed = (t: string) => t.includes('{"done"');
      out = (await readUntil(reader, committed, "the writer's first commit")).text;
    } catch (e) {
      child.kill("SIGKILL");
      await child.status;
      throw new Error(`${(e as Error).message}\nstderr: ${await stderr}`);
    }
    if (!out.startsWith('{"ready":true}') || !out.includes('{"done"')) {
      child.kill("SIGKILL");
      await child.status;
      assert.fail(`the writer did not start: ${await stderr}`);
    }
    await sleep(Math.random() * 100);
    child.kill("SIGKILL");
    const end = "the killed writer's output to end";
    out = (await readUntil(reader, () => false, end, { sofar: out })).text;
    await child.status;
    await stderr;

    const lines = out.split("\n").slice(1, -1).map((l) => JSON.parse(l));
    const done = new Map<string, string[]>();
    let inFlight: string | undefined;
    for (const line of lines) {
      if (line.begin) inFlight = line.begin;
      if (line.done) {
        done.set(line.done, line.ids);
        inFlight = undefined;
      }
    }

    const store = new FileMemoryStore({ rootDir });
    const report = await store.load();
    assert.deepEqual(
      report.issues.filter((i) => i.kind === "damaged-note" || i.kind === "duplicate-id"),
      [],
      `round ${round}: no torn note`,
    );
    const byBatch = new Map<string, Note[]>();
    for (const note of await allNotes(store)) {
      const key = note.title.split("/").slice(0, 2).join("/");
      byBatch.set(key, [...(byBatch.get(key) ?? []), note]);
    }
    for (const [key, notes] of byBatch) assert.equal(notes.length, 10, `batch ${key} is whole`);
    for (const key of persisted) assert.ok(byBatch.has(key), `round ${round}: ${key} kept`);
    for (const [key, ids] of done) {
      assert.deepEqual(byBatch.get(key)?.map((n) => n.id).sort(), [...ids].sort(), key);
    }
    const extra = [...byBatch.keys()].filter((k) => !persisted.has(k) && !done.has(k));
    assert.ok(
      extra.length === 0 || (extra.length === 1 && extra[0] === inFlight),
      `round ${round}: unexpected batches ${extra.join(", ")} (in flight: ${inFlight})`,
    );
    persisted = new Set(byBatch.keys());
  }
  assert.ok(persisted.size > 20, "the writers got some commits done");
});

Deno.test("load() recovers a lock left by a dead process and cuts the torn tail it guarded", async () => {
  await using root = await tempRoot("memo_stale_");
  const rootDir = root.path;
  const paths = memoPaths(rootDir);
  const writer = new FileMemoryStore({ rootDir });
  await writer.commit({ notes: [{ text: "one" }, { text: "two" }] });
  const before = await readFile(paths.notes, "utf8");
  const st = await stat(paths.notes);
  await appendFile(paths.notes, '<!-- memo:note {"id":"torn","hash":"0123');
  await writeLock(rootDir, await deadPid(), st.size, st.ino);

  const store = new FileMemoryStore({ rootDir });
  const report = await store.load();
  assert.equal(report.notes, 2);
  assert.deepEqual(report.issues.map((i) => i.kind).sort(), ["stale-lock", "torn-tail"]);
  assert.equal(await readFile(paths.notes, "utf8"), before);
  await assert.rejects(stat(paths.lock), { code: "ENOENT" });
  assert.equal((await store.commit({ notes: [{ text: "three" }] })).written.length, 1);
});

Deno.test("commit() recovers a lock left by a dead process", async () => {
  await using root = await tempRoot("memo_stale_commit_");
  const rootDir = root.path;
  const store = new FileMemoryStore({ rootDir, lockTimeoutMs: 2_000 });
  await store.commit({ notes: [{ text: "one" }] });
  const st = await stat(memoPaths(rootDir).notes);
  await writeLock(rootDir, await deadPid(), st.size, st.ino);
  const r = await store.commit({ notes: [{ text: "two" }] });
  assert.equal(r.written.length, 1);
  assert.deepEqual(store.issues.map((i) => i.kind), ["stale-lock"]);
  await assert.rejects(stat(memoPaths(rootDir).lock), { code: "ENOENT" });
});

Deno.test("a lock held by a live process is respected until lockTimeoutMs, and readers still read", async () => {
  await using root = await tempRoot("memo_live_");
  const rootDir = root.path;
  const paths = memoPaths(rootDir);
  const store = new FileMemoryStore({ rootDir, lockTimeoutMs: 300 });
  await store.commit({ notes: [{ text: "one" }] });
  const before = await readFile(paths.notes, "utf8");
  const st = await stat(paths.notes);
  const holder = liveProcess();
  try {
    await writeLock(rootDir, holder.pid, st.size, st.ino);
    // The holder's write in flight: a whole note and half of another, past the lock's size.
    await appendFile(paths.notes, '<!-- memo:note {"id":"inflight"} -->\n## t\nb\n\n<!-- memo:no');
    const started = Date.now();
    await assert.rejects(store.commit({ notes: [{ text: "two" }] }), StoreLockError);
    assert.ok(Date.now() - started >= 290);
    const reader = new FileMemoryStore({ rootDir });
    assert.deepEqual(
      await reader.load(),
      { notes: 1, issues: [] },
      "the write in flight is unseen",
    );
  } finally {
    holder.kill("SIGKILL");
    await holder.status;
  }
  const r = await store.commit({ notes: [{ text: "two" }] });
  assert.equal(r.written.length, 1);
  assert.ok(store.issues.some((i) => i.kind === "torn-tail"));
  const after = new FileMemoryStore({ rootDir });
  assert.deepEqual((await allNotes(after)).map((n) => n.body), ["one", "two"]);
  assert.ok((await readFile(paths.notes, "utf8")).startsWith(before));
});

Deno.test("two processes correcting the same note at once both land, and no write is lost", async () => {
  await using root = await tempRoot("memo_correct_");
  const rootDir = root.path;
  const { openMemo } = await import("../memory/mod.ts");
  const memo = await openMemo({ rootDir, localEmbeddings: false, indexCache: false });
  const { note: old } = await memo.remember({ text: "Deploys run on Fridays" });
  const spawn = (tag: string) =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", fixture("history_corrector.ts"), rootDir, old.id, tag, "15"],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  const children = [spawn("alpha"), spawn("beta")];
  const bothReady = Promise.withResolvers<void>();
  let ready = 0;
  const outputs = children.map(async (child) => {
    const lines: string[] = [];
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of child.stdout) {
      buffered += decoder.decode(chunk, { stream: true });
      const cut = buffered.lastIndexOf("\n") + 1;
      for (const line of buffered.slice(0, cut).split("\n").slice(0, -1)) {
        if (line === "ready" && ++ready === 2) bothReady.resolve();
        lines.push(line);
      }
      buffered = buffered.slice(cut);
    }
    return lines;
  });
  // Both have loaded their notes: tell both to start at once (a process that exits first fails).
  await Promise.race([
    bothReady.promise,
    Promise.race(children.map((c) => c.status)).then(() => {
      throw new Error("a correcting process exited before it was ready");
    }),
  ]);
  for (const child of children) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode("go\n"));
    await writer.close();
  }
  const printed: string[] = [];
  for (const [i, child] of children.entries()) {
    const status = await child.status;
    const stderr = new TextDecoder().decode(
      (await new Response(child.stderr).arrayBuffer()) as ArrayBuffer,
    );
    assert.equal(status.code, 0, stderr);
    const lines = await outputs[i];
    printed.push(...JSON.parse(lines[lines.length - 1]) as string[]);
  }
  assert.equal(new Set(printed).size, 30);
  // Every correction landed: 30 new notes, each superseding the old one.
  const current = await memo.list({ limit: 100 });
  assert.deepEqual(current.notes.map((n) => n.id).sort(), [...printed].sort());
  for (const note of current.notes) assert.deepEqual(note.supersedes, [old.id]);
  assert.deepEqual((await memo.get(old.id)).supersededBy, [...printed].sort());
  assert.equal((await memo.list({ limit: 100, includeSuperseded: true })).total, 31);
  await memo.close();
});
