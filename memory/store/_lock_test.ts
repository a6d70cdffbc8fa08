import assert from "node:assert/strict";
import { mkdir, readFile, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  acquireLock,
  type LockSettings,
  readLock,
  recoverStaleLock,
  staleReason,
} from "./_lock.ts";
import { StoreLockError } from "../errors.ts";

async function settings(extra: Partial<LockSettings> = {}): Promise<LockSettings> {
  const dir = join(await Deno.makeTempDir({ prefix: "memo_lock_" }), "memory");
  await mkdir(dir, { recursive: true });
  return {
    lockPath: join(dir, "notes.md.lock"),
    notesPath: join(dir, "notes.md"),
    timeoutMs: 30_000, // only a stuck test waits this long (the timeout test sets its own)
    staleMs: 5000,
    foreignStaleMs: 600_000,
    create: true,
    ...extra,
  };
}

const lockText = (pid: number, host = Deno.hostname()) =>
  JSON.stringify({ pid, host, created: "", size: 0, ino: 0, nonce: "n" });

Deno.test("staleReason() tells stale locks from live ones", async (t) => {
  const s = await settings();
  const now = Date.now();
  const cases: [string, string, number, boolean][] = [
    ["a fresh empty lock", "", now - 1000, false],
    ["an old empty lock", "", now - 6000, true],
    ["an old unreadable lock", "{not json", now - 6000, true],
    ["a live process of this host", lockText(Deno.ppid), now - 3_600_000, false],
    ["this pid, not taken here, recent", lockText(Deno.pid), now - 1000, false],
    ["this pid, not taken here, old", lockText(Deno.pid), now - 6000, true],
    ["another host, recent", lockText(1, "elsewhere"), now - 60_000, false],
    ["another host, old", lockText(1, "elsewhere"), now - 700_000, true],
  ];
  for (const [name, text, mtimeMs, stale] of cases) {
    await t.step(name, async () => {
      await writeFile(s.lockPath, text);
      const lock = (await readLock(s.lockPath))!;
      assert.equal(staleReason({ ...lock, mtimeMs }, s, now) !== undefined, stale);
    });
  }
});

Deno.test("acquireLock() waits for a lock released meanwhile and records the file's size", async () => {
  const s = await settings();
  await writeFile(s.notesPath, "12345");
  const first = await acquireLock(s);
  assert.equal(first.info.size, 5);
  assert.equal(first.info.ino, (await stat(s.notesPath)).ino);
  assert.equal(staleReason((await readLock(s.lockPath))!, s), undefined, "ours is live");
  const started = Date.now();
  setTimeout(() => first.release(), 100);
  const second = await acquireLock(s);
  assert.ok(Date.now() - started >= 90);
  assert.equal(JSON.parse(await readFile(s.lockPath, "utf8")).nonce, second.info.nonce);
  await second.release();
  await assert.rejects(stat(s.lockPath), { code: "ENOENT" });
});

Deno.test("acquireLock() throws StoreLockError after timeoutMs on a live lock", async () => {
  const s = await settings({ timeoutMs: 150 });
  await writeFile(s.lockPath, lockText(Deno.ppid));
  const started = Date.now();
  await assert.rejects(acquireLock(s), StoreLockError);
  assert.ok(Date.now() - started >= 140);
  assert.equal(await readFile(s.lockPath, "utf8"), lockText(Deno.ppid));
});

Deno.test("acquireLock() recovers an old empty lock and reports it", async () => {
  const s = await settings({ staleMs: 1000 });
  await writeFile(s.lockPath, "");
  const old = new Date(Date.now() - 5000);
  await utimes(s.lockPath, old, old);
  const held = await acquireLock(s);
  assert.deepEqual(held.issues.map((i) => i.kind), ["stale-lock"]);
  await held.release();
});

Deno.test("recoverStaleLock() leaves a lock that changed since it was judged", async () => {
  const s = await settings();
  await writeFile(s.notesPath, "0123456789");
  await writeFile(s.lockPath, lockText(999_999_999));
  const judged = (await readLock(s.lockPath))!;
  await writeFile(s.lockPath, lockText(Deno.ppid));
  const r = await recoverStaleLock(s, judged);
  assert.deepEqual(r, { issues: [], busy: false });
  assert.equal(await readFile(s.lockPath, "utf8"), lockText(Deno.ppid));
  assert.equal((await stat(s.notesPath)).size, 10);
});

Deno.test("recoverStaleLock() backs off while another process recovers", async () => {
  const s = await settings();
  await writeFile(s.lockPath, lockText(999_999_999));
  await writeFile(`${s.lockPath}.break`, JSON.stringify({ pid: Deno.ppid, host: Deno.hostname() }));
  const r = await recoverStaleLock(s, (await readLock(s.lockPath))!);
  assert.equal(r.busy, true);
  assert.ok((await readLock(s.lockPath))?.text, "the lock is still there");
});

/** A lock as a writer that died takes it: pid 999999999 (dead), notes.md's size, inode and tail. */
async function deadWriterLock(s: LockSettings): Promise<void> {
  const held = await acquireLock(s);
  held.abandon();
  assert.ok(held.info.tail, "the lock records the bytes before its size");
  await writeFile(s.lockPath, JSON.stringify({ ...held.info, pid: 999_999_999 }));
}

const committed = "## one\nfirst note\n\n## two\n" +
  "the last committed note, long enough that the bytes a lock records are all its own, kept whole\n\n";
/** What a dead writer appended: the start of a note's marker line, its write cut short. */
const torn = '<!-- memo:note {"id":"three","labels":[],"created":"2026-01-0';

Deno.test("recoverStaleLock() cuts a dead writer's bytes at the size it recorded", async () => {
  const s = await settings();
  await writeFile(s.notesPath, committed);
  await deadWriterLock(s);
  await writeFile(s.notesPath, committed + torn);
  const r = await recoverStaleLock(s, (await readLock(s.lockPath))!);
  assert.deepEqual(r.issues.map((i) => i.kind), ["torn-tail", "stale-lock"]);
  assert.equal(await readFile(s.notesPath, "utf8"), committed);
});

Deno.test("recoverStaleLock() finds where the dead writer began after a hand edit above it", async (t) => {
  for (
    const [name, edited] of [
      ["a line added", committed.replace("first note", "first note\nAsk #ops for the new one.")],
      ["a line shortened", committed.replace("first note", "1st")],
    ]
  ) {
    await t.step(name, async () => {
      const s = await settings();
      await writeFile(s.notesPath, committed);
      await deadWriterLock(s);
      // The dead writer's bytes, then a person's edit in place (same inode) above them.
      await writeFile(s.notesPath, edited + torn);
      const r = await recoverStaleLock(s, (await readLock(s.lockPath))!);
      assert.match(r.issues[0].message, /^Cut \d+ bytes/);
      assert.equal(await readFile(s.notesPath, "utf8"), edited, "the edit and every note kept");
    });
  }
});

Deno.test("recoverStaleLock() cuts nothing when it cannot tell where the dead writer began", async () => {
  const s = await settings();
  await writeFile(s.notesPath, committed);
  await deadWriterLock(s);
  // The edit changed the very bytes the lock recorded: its end cannot be found again.
  const edited = committed.replace("kept whole", "kept whole, edited by hand");
  await writeFile(s.notesPath, edited + torn);
  const r = await recoverStaleLock(s, (await readLock(s.lockPath))!);
  assert.equal(r.issues[0].kind, "torn-tail");
  assert.match(r.issues[0].message, /^Left the end of notes\.md as it is/);
  assert.equal(await readFile(s.notesPath, "utf8"), edited + torn, "nothing cut");
  assert.equal(await readLock(s.lockPath), undefined, "the lock is recovered all the same");
});
