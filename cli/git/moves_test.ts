/**
 * Everything in git that moves `notes.md` goes through memo's merge driver (wired by `memo init`,
 * Debian's real git): merge and `pull`, `rebase` and `pull --rebase`, `cherry-pick`, `revert` and
 * `stash pop`. Then two clones and a bare remote that write, correct and forget, push and pull in
 * turn: both files end byte-identical, with no marker and no note lost that the rule keeps.
 */

import assert from "node:assert/strict";
import { mkdir, readFile, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { NOTES_PREAMBLE, parseNotes, serializeNote } from "@memo/memory";
import { recordingIO } from "../../testing/cli_io.ts";
import { git } from "../../testing/git.ts";
import { runCli } from "../main.ts";

const MARKER = /^(<{7}|={7}|>{7}|\|{7})/m;

async function memo(cwd: string, ...argv: string[]): Promise<string> {
  const io = recordingIO(cwd);
  const code = await runCli(argv, io);
  assert.equal(code, 0, `memo ${argv.join(" ")}: ${io.err.join("")}`);
  return io.out.join("");
}

/** Remembers a note and returns its id. */
async function remember(cwd: string, text: string): Promise<string> {
  return JSON.parse(await memo(cwd, "remember", text, "--json")).note.id;
}

/** Corrects a note and returns the new note's id. */
async function correct(cwd: string, id: string, text: string): Promise<string> {
  return JSON.parse(await memo(cwd, "correct", id, text, "--json")).note.id;
}

/** Commits everything with the message. */
async function commit(cwd: string, message: string): Promise<void> {
  await git(cwd, "add", "-A");
  await git(cwd, "commit", "-qm", message);
}

/** The project's notes file: no marker, readable, and its notes' bodies by id (live or not). */
async function notes(cwd: string): Promise<{ text: string; bodies: Map<string, string> }> {
  const text = await readFile(join(cwd, ".memo/memory/notes.md"), "utf8");
  assert.doesNotMatch(text, MARKER);
  const parsed = parseNotes(text);
  assert.deepEqual(parsed.issues, []);
  const bodies = new Map<string, string>();
  for (const s of parsed.sections) if (s.note) bodies.set(s.note.id, s.note.body);
  return { text, bodies };
}

/** Asserts which note ids the file holds, and that the work tree is clean. */
async function holds(cwd: string, ids: string[]): Promise<void> {
  const { bodies } = await notes(cwd);
  assert.deepEqual([...bodies.keys()].sort(), [...ids].sort());
  assert.equal(await git(cwd, "status", "--porcelain"), "");
}

async function withTemp(fn: (base: string) => Promise<void>): Promise<void> {
  const base = await realpath(await Deno.makeTempDir({ prefix: "memo-git-moves-" }));
  try {
    await fn(base);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

/** A git repository at base/name with `memo init` run (the driver wired) and nothing else. */
async function wired(base: string, name: string, clone?: string): Promise<string> {
  const repo = join(base, name);
  if (clone) await git(base, "clone", "-q", clone, repo);
  else {
    await mkdir(repo);
    await git(repo, "init", "-q", "-b", "main");
  }
  await git(repo, "config", "pull.rebase", "false");
  await memo(repo, "init");
  return repo;
}

Deno.test("merge, pull, rebase and pull --rebase move notes.md through the driver", async () => {
  await withTemp(async (base) => {
    const origin = await wired(base, "origin");
    const n0 = await remember(origin, "Deploys run with make deploy");
    await commit(origin, "base");
    const clone = await wired(base, "clone", origin);

    // pull (a merge): both sides appended a note.
    const o1 = await remember(origin, "origin says the queue is kafka");
    await commit(origin, "o1");
    const c1 = await remember(clone, "clone says the cache is redis");
    await commit(clone, "c1");
    await git(clone, "pull", "-q", "--no-rebase", "--no-edit");
    await holds(clone, [n0, o1, c1]);

    // pull --rebase: the clone's commit replayed on the origin's.
    const o2 = await remember(origin, "origin says the linter is deno lint");
    await commit(origin, "o2");
    const c2 = await remember(clone, "clone says the tests run with deno test");
    await commit(clone, "c2");
    await git(clone, "pull", "-q", "--rebase");
    await holds(clone, [n0, o1, c1, o2, c2]);
    assert.equal((await git(clone, "log", "--format=%s", "-1")).trim(), "c2"); // linear
    assert.equal((await git(clone, "rev-list", "--merges", "HEAD", "^HEAD~1")).trim(), "");

    // git merge of a local branch, with an edit on one side and a forget on the other.
    await git(clone, "checkout", "-qb", "topic");
    const t1 = await remember(clone, "topic says the docs live in docs/");
    await memo(clone, "update", o1, "--text", "origin says the queue is kafka, 3 brokers");
    await commit(clone, "t1");
    await git(clone, "checkout", "-q", "main");
    const m1 = await remember(clone, "main says releases are tagged v*");
    await memo(clone, "forget", c2);
    await commit(clone, "m1");
    await git(clone, "merge", "-q", "--no-edit", "topic");
    await holds(clone, [n0, o1, c1, o2, t1, m1]);
    assert.equal((await notes(clone)).bodies.get(o1), "origin says the queue is kafka, 3 brokers");

    // git rebase of a branch onto main.
    await git(clone, "checkout", "-qb", "later");
    const l1 = await remember(clone, "later says the port is 8080");
    await commit(clone, "l1");
    await git(clone, "checkout", "-q", "main");
    const m2 = await remember(clone, "main says the database is postgres");
    await commit(clone, "m2");
    await git(clone, "checkout", "-q", "later");
    await git(clone, "rebase", "-q", "main");
    await holds(clone, [n0, o1, c1, o2, t1, m1, m2, l1]);
    const order = [...(await notes(clone)).bodies.keys()];
    assert.deepEqual(order.slice(-2), [l1, m2]); // new notes by created, however replayed
  });
});

Deno.test("cherry-pick, revert and stash pop move notes.md through the driver", async () => {
  await withTemp(async (base) => {
    const repo = await wired(base, "repo");
    const n0 = await remember(repo, "Deploys run with make deploy");
    await commit(repo, "base");

    // cherry-pick a commit that added a note onto a branch that added another.
    await git(repo, "checkout", "-qb", "side");
    const s1 = await remember(repo, "side says the queue is kafka");
    await commit(repo, "s1");
    await git(repo, "checkout", "-q", "main");
    const m1 = await remember(repo, "main says the cache is redis");
    await commit(repo, "m1");
    await git(repo, "cherry-pick", "side");
    await holds(repo, [n0, m1, s1]);

    // revert a commit that added two notes, with a note appended after them: they go, it stays.
    const r1 = await remember(repo, "a note to revert");
    const r2 = await remember(repo, "another note to revert");
    await commit(repo, "r");
    const reverted = (await git(repo, "rev-parse", "HEAD")).trim();
    const k1 = await remember(repo, "a note to keep");
    await commit(repo, "k1");
    await git(repo, "revert", "--no-edit", reverted);
    await holds(repo, [n0, m1, s1, k1]);
    for (const id of [r1, r2]) assert.ok(!(await notes(repo)).bodies.has(id), `${id} is gone`);

    // stash pop over a commit that appended a note in the meantime.
    const w1 = await remember(repo, "work in progress: the port is 8080");
    await git(repo, "stash", "-q");
    await holds(repo, [n0, m1, s1, k1]);
    const m2 = await remember(repo, "main says the database is postgres");
    await commit(repo, "m2");
    await git(repo, "stash", "pop", "-q");
    const { bodies } = await notes(repo);
    assert.deepEqual([...bodies.keys()].sort(), [n0, m1, s1, k1, m2, w1].sort());
    assert.equal(await git(repo, "stash", "list"), "");
  });
});

Deno.test("two clones and a bare remote: writes, corrections, forgets, push and pull in turn", async () => {
  await withTemp(async (base) => {
    const remote = join(base, "remote.git");
    await git(base, "init", "-q", "--bare", "-b", "main", remote);
    const a = await wired(base, "a", remote);
    const n0 = await remember(a, "Deploys run with make deploy");
    const n1 = await remember(a, "The queue is kafka");
    const n2 = await remember(a, "The cache is memcached");
    await commit(a, "base");
    await git(a, "push", "-q", "-u", "origin", "main");
    const b = await wired(base, "b", remote);

    // Round 1: both write; a corrects n1, b forgets n2; a pushes, b pulls (a merge) and pushes.
    const a1 = await remember(a, "alice: the linter is deno lint");
    const n1c = await correct(a, n1, "The queue is kafka, 3 brokers since June");
    await commit(a, "a round 1");
    await git(a, "push", "-q");
    const b1 = await remember(b, "bob: the tests run with deno test");
    await memo(b, "forget", n2);
    await commit(b, "b round 1");
    await git(b, "pull", "-q", "--no-edit");
    await git(b, "push", "-q");

    // Round 2: a writes and forgets its own note, then pulls with --rebase; b corrects n0.
    const b2 = await remember(b, "bob: releases are tagged v*");
    const n0c = await correct(b, n0, "Deploys run with make deploy-prod");
    await commit(b, "b round 2");
    await git(b, "push", "-q");
    const a2 = await remember(a, "alice: the port is 8080");
    await memo(a, "forget", a1);
    await commit(a, "a round 2");
    await git(a, "pull", "-q", "--rebase");
    await git(a, "push", "-q");

    // Round 3: both write again and forget the same note; b merges and pushes; a pulls.
    const a3 = await remember(a, "alice: the database is postgres");
    await memo(a, "forget", b2);
    await commit(a, "a round 3");
    await git(a, "push", "-q");
    const b3 = await remember(b, "bob: the docs live in docs/");
    await memo(b, "forget", b2); // forgotten on both sides: gone
    await commit(b, "b round 3");
    await git(b, "pull", "-q", "--no-edit");
    await git(b, "push", "-q");
    await git(a, "pull", "-q", "--no-edit");

    const [fa, fb] = [await notes(a), await notes(b)];
    assert.equal(fa.text, fb.text); // byte-identical
    // Kept: every note not forgotten, the corrected notes (closed) beside their corrections.
    assert.deepEqual(
      [...fa.bodies.keys()].sort(),
      [n0, n1, n1c, b1, n0c, a2, a3, b3].sort(),
    );
    assert.equal(fa.bodies.get(n1c), "The queue is kafka, 3 brokers since June");
    assert.equal(fa.bodies.get(n0c), "Deploys run with make deploy-prod");
    const live = JSON.parse(await memo(a, "list", "--json", "--limit", "50"));
    const liveIds = (live.notes as { id: string }[]).map((n) => n.id).sort();
    assert.deepEqual(liveIds, [n1c, b1, n0c, a2, a3, b3].sort()); // corrected ones closed
    assert.equal(await git(a, "status", "--porcelain"), "");
    assert.equal(await git(b, "status", "--porcelain"), "");
  });
});

Deno.test("a supersedes link to a note gone after a merge never crashes a read; doctor lists it", async () => {
  await withTemp(async (base) => {
    const repo = await wired(base, "repo");
    const note = (id: string, body: string, supersedes?: string[]) =>
      serializeNote({
        id,
        title: body,
        body,
        labels: [],
        hash: "0123abcd",
        created: "2026-01-01T00:00:00.000Z",
        updated: "2026-01-01T00:00:00.000Z",
        ...(supersedes ? { supersedes } : {}),
      });
    await mkdir(join(repo, ".memo/memory"), { recursive: true });
    await writeFile(
      join(repo, ".memo/memory/notes.md"),
      NOTES_PREAMBLE + note("n1", "Deploys run with make deploy") +
        note("n2", "The queue is kafka, 3 brokers", ["ghost"]),
    );
    const before = await readFile(join(repo, ".memo/memory/notes.md"), "utf8");
    const list = JSON.parse(await memo(repo, "list", "--json"));
    assert.deepEqual(list.notes.map((n: { id: string }) => n.id), ["n1", "n2"]);
    const all = JSON.parse(await memo(repo, "list", "--json", "--include-superseded"));
    assert.equal(all.notes.length, 2);
    assert.match(await memo(repo, "get", "n2"), /kafka, 3 brokers/);
    assert.match(await memo(repo, "recall", "kafka"), /kafka, 3 brokers/);
    assert.match(await memo(repo, "list", "--as-of", "2026-06-01"), /kafka/);
    assert.equal(await readFile(join(repo, ".memo/memory/notes.md"), "utf8"), before);

    const io = recordingIO(repo);
    assert.equal(await runCli(["doctor", "--json"], io), 1);
    assert.deepEqual(JSON.parse(io.out.join("")).problems.map((p: { code: string }) => p.code), [
      "dangling-supersedes",
    ]);
    assert.match(io.out.join(""), /note n2 supersedes ghost/);
  });
});
