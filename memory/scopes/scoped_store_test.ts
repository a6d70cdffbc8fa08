/**
 * Scopes end to end (issue 32): a project, its local notes and a person's `MEMO_HOME`, each in a
 * temporary folder, served by one `Memo` (`openMemo({ rootDir, scopes: { memoHome } })`).
 *
 * @module
 */

import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Memo, openMemo } from "../memo.ts";
import type { Note } from "../notes/note.ts";
import { parseNotes } from "../store/parse.ts";
import { MemoryValidationError } from "../errors.ts";
import { sanitizedTest as test } from "../../testing/sanitized.ts";
import { tempDir } from "../../testing/temp_dir.ts";
import { type Scope, scopePaths } from "./mod.ts";
import { ScopedMemoryStore } from "./scoped_store.ts";
import { openScopedStore } from "./open_scopes.ts";
import { FileMemoryStore } from "../store/file_store.ts";
import type { MemoryStore } from "../store/store.ts";

/** A project folder and a `MEMO_HOME`, both temporary, and a `Memo` over the three scopes. */
async function withScopes(
  fn: (ctx: {
    memo: Memo;
    rootDir: string;
    memoHome: string;
    open: () => Promise<Memo>;
    file: (scope: Scope) => string;
  }) => Promise<void>,
): Promise<void> {
  await using project = await tempDir("memo-scopes-project-");
  await using home = await tempDir("memo-scopes-home-");
  const rootDir = project.path;
  const memoHome = join(home.path, "memo");
  const opened: Memo[] = [];
  const open = async () => {
    const memo = await openMemo({ rootDir, scopes: { memoHome }, localEmbeddings: false });
    opened.push(memo);
    return memo;
  };
  try {
    await fn({
      memo: await open(),
      rootDir,
      memoHome,
      open,
      file: (scope) => scopePaths(scope, { rootDir, memoHome }).notes,
    });
  } finally {
    for (const memo of opened) await memo.close();
  }
}

/** The notes a scope's file holds (none when it does not exist), parsed as a fresh open would. */
async function notesIn(path: string): Promise<Note[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    return [];
  }
  const parsed = parseNotes(text);
  assert.deepEqual(parsed.issues, [], `${path} parses cleanly`);
  return parsed.sections.flatMap((s) => (s.note ? [s.note] : []));
}

async function bytesOf(path: string): Promise<string | undefined> {
  return await readFile(path, "utf8").catch(() => undefined);
}

test("three scopes: each write lands in its scope's file, reads see every scope", async () => {
  await withScopes(async ({ memo, file, open }) => {
    const p = (await memo.remember({ text: "Deploys run with make deploy" })).note;
    const l = (await memo.remember({ text: "My checkout builds with --offline", scope: "local" }))
      .note;
    const u = (await memo.remember({ text: "Ada prefers tabs over spaces", scope: "user" })).note;
    assert.deepEqual([p.scope, l.scope, u.scope], ["project", "local", "user"]);

    assert.deepEqual((await notesIn(file("project"))).map((n) => n.id), [p.id]);
    assert.deepEqual((await notesIn(file("local"))).map((n) => n.id), [l.id]);
    assert.deepEqual((await notesIn(file("user"))).map((n) => n.id), [u.id]);
    for (const scope of ["project", "local", "user"] as const) {
      assert.doesNotMatch(await readFile(file(scope), "utf8"), /scope/, "the file is the scope");
    }

    // Reads see every scope, and every note says where it lives.
    const listed = await memo.list();
    assert.equal(listed.total, 3);
    assert.deepEqual(
      listed.notes.map((n) => [n.id, n.scope]),
      [[p.id, "project"], [l.id, "local"], [u.id, "user"]],
    );
    const hits = await memo.recall("deploy offline tabs", { limit: 10 });
    assert.deepEqual(hits.map((h) => h.note.scope).sort(), ["local", "project", "user"]);
    assert.equal((await memo.get(u.id)).scope, "user");
    assert.deepEqual((await memo.stats()).scopes, { project: 1, local: 1, user: 1 });

    // A filter narrows to one scope, or to several.
    assert.deepEqual((await memo.list({ scope: "user" })).notes.map((n) => n.id), [u.id]);
    assert.deepEqual(
      (await memo.list({ scope: ["local", "project"] })).notes.map((n) => n.id).sort(),
      [p.id, l.id].sort(),
    );
    assert.deepEqual(
      (await memo.recall("deploy offline tabs", { scope: "local" })).map((h) => h.note.id),
      [l.id],
    );

    // update and forget find a note in any scope, and write where it lives.
    const edited = await memo.update(l.id, { text: "My checkout builds with --offline --frozen" });
    assert.equal(edited.scope, "local");
    assert.match(await readFile(file("local"), "utf8"), /--frozen/);
    assert.doesNotMatch(await readFile(file("project"), "utf8"), /--frozen/);
    await memo.forget(u.id);
    assert.deepEqual(await notesIn(file("user")), []);
    assert.equal((await notesIn(file("project"))).length, 1);

    // A fresh open reads the same.
    const again = await open();
    assert.deepEqual(
      (await again.list()).notes.map((n) => [n.id, n.scope]),
      [[p.id, "project"], [l.id, "local"]],
    );
  });
});

test("update with another scope moves the note, keeping its id, between every pair of scopes", async () => {
  await withScopes(async ({ memo, file, open, rootDir }) => {
    const { note } = await memo.remember({ text: "Reviews need two approvals", labels: ["team"] });
    const path: Scope[] = ["user", "local", "project", "local", "user", "project"];
    let from: Scope = "project";
    for (const to of path) {
      const moved = await memo.update(note.id, { scope: to });
      assert.equal(moved.id, note.id);
      assert.equal(moved.scope, to);
      assert.equal(moved.body, note.body);
      assert.deepEqual(moved.labels, ["team"]);
      for (const scope of ["project", "local", "user"] as const) {
        const ids = (await notesIn(file(scope))).map((n) => n.id);
        assert.deepEqual(ids, scope === to ? [note.id] : [], `after ${from} -> ${to}: ${scope}`);
      }
      assert.equal((await memo.get(note.id)).scope, to);
      assert.deepEqual((await memo.list()).notes.map((n) => n.id), [note.id]);
      from = to;
    }
    // A move with an edit: both land, in the new scope.
    const both = await memo.update(note.id, { scope: "local", text: "Reviews need one approval" });
    assert.equal(both.scope, "local");
    assert.equal((await notesIn(file("local")))[0].body, "Reviews need one approval");
    assert.deepEqual(await notesIn(file("project")), []);
    // No journal stays behind once a move is done, and a reopen sees one note.
    await assert.rejects(readFile(join(rootDir, ".memo", "cache", "scope-move.json")));
    const again = await open();
    assert.deepEqual((await again.list()).notes.map((n) => [n.id, n.scope]), [[note.id, "local"]]);
  });
});

test("ids are unique across scopes: a draft whose id another scope holds is refused", async () => {
  await withScopes(async ({ memo, file }) => {
    const u = (await memo.remember({ text: "Ada reads the changelog first", scope: "user" })).note;
    const before = await bytesOf(file("project"));
    // What an import writes: drafts with their ids (a file exported from another project).
    const error = await memo.rememberMany([
      { text: "Something else entirely", id: u.id, scope: "project" },
    ]).catch((e) => e);
    assert.ok(error instanceof MemoryValidationError, String(error));
    assert.match(error.message, /held by the user scope/);
    assert.equal(await bytesOf(file("project")), before, "nothing was written");
    assert.deepEqual((await notesIn(file("user"))).map((n) => n.body), [u.body]);
    // New notes never take an id another scope holds.
    const ids = new Set([u.id]);
    for (const scope of ["project", "local", "user"] as const) {
      for (let i = 0; i < 5; i++) {
        const { note } = await memo.remember({ text: `Fact ${scope} number ${i}`, scope });
        assert.ok(!ids.has(note.id), `${note.id} is new`);
        ids.add(note.id);
      }
    }
    assert.equal((await memo.list({ limit: 100 })).total, 16);
  });
});

test("supersedes never crosses scopes: remember, update_note and correct", async () => {
  await withScopes(async ({ memo, file }) => {
    const p = (await memo.remember({ text: "The staging database is postgres 15" })).note;
    const u = (await memo.remember({ text: "Ada's editor is helix", scope: "user" })).note;
    const l = (await memo.remember({ text: "This checkout uses port 8081", scope: "local" }))
      .note;
    const snapshot = async () => ({
      project: await bytesOf(file("project")),
      local: await bytesOf(file("local")),
      user: await bytesOf(file("user")),
    });
    const before = await snapshot();

    // remember into one scope, superseding a note of another.
    for (
      const [draft, other] of [
        [
          { text: "The staging database is postgres 16", supersedes: [p.id], scope: "user" },
          "project",
        ],
        [{ text: "Ada's editor is zed", supersedes: [u.id], scope: "project" }, "user"],
        [{ text: "This checkout uses port 8082", supersedes: [l.id], scope: "user" }, "local"],
        // Without a scope the draft would go to the superseded notes' scope: two of them disagree.
        [{ text: "Everything changed", supersedes: [p.id, u.id] }, "user"],
      ] as const
    ) {
      const error = await memo.remember(draft).catch((e) => e);
      assert.ok(error instanceof MemoryValidationError, `${draft.text}: ${error}`);
      assert.match(error.message, /supersedes links stay within one scope/);
      assert.match(error.message, new RegExp(`${other} scope`));
    }
    // update_note: a note's supersedes naming a note of another scope.
    for (const [id, target] of [[p.id, u.id], [u.id, l.id], [l.id, p.id]]) {
      const error = await memo.update(id, { supersedes: [target] }).catch((e) => e);
      assert.ok(error instanceof MemoryValidationError, String(error));
      assert.match(error.message, /supersedes links stay within one scope/);
    }
    // supersede (the tool): across scopes too.
    const refused = await memo.supersede({ ids: [u.id], by: p.id }).catch((e) => e);
    assert.ok(refused instanceof MemoryValidationError, `supersede: ${refused}`);
    assert.match(refused.message, /supersedes links stay within one scope/);
    assert.deepEqual(await snapshot(), before, "every scope's file is byte for byte unchanged");

    // Within a scope, supersedes works, and the new note goes to that scope without naming it.
    const next = await memo.remember({ text: "Ada's editor is zed", supersedes: [u.id] });
    assert.equal(next.note.scope, "user");
    assert.deepEqual((await notesIn(file("user"))).map((n) => n.supersedes ?? []), [[], [u.id]]);
    assert.equal(await bytesOf(file("project")), before.project);
  });
});

test("a note that another supersedes cannot move alone, and a refused move changes nothing", async () => {
  await withScopes(async ({ memo, file }) => {
    const old = (await memo.remember({ text: "The project uses pnpm" })).note;
    const { note: next } = await memo.correct({ id: old.id, text: "The project uses bun now" });
    const snapshot = async () => ({
      project: await bytesOf(file("project")),
      local: await bytesOf(file("local")),
      user: await bytesOf(file("user")),
    });
    const before = await snapshot();
    // The superseded note: the link would dangle.
    const superseded = await memo.update(old.id, { scope: "user" }).catch((e) => e);
    assert.ok(superseded instanceof MemoryValidationError, String(superseded));
    assert.match(
      superseded.message,
      new RegExp(`note ${next.id} of the project scope supersedes it`),
    );
    // The superseding note, with an edit: refused before the edit is written.
    const withEdit = await memo.update(next.id, { text: "The project uses bun 1.2", scope: "user" })
      .catch((e) => e);
    assert.ok(withEdit instanceof MemoryValidationError, String(withEdit));
    assert.match(withEdit.message, /supersedes links stay within one scope/);
    assert.deepEqual(await snapshot(), before, "every scope's file is byte for byte unchanged");
    assert.equal((await memo.get(next.id)).body, "The project uses bun now");
    // A move with an edit that goes through moves the note, edited.
    const plain = (await memo.remember({ text: "Lunch is at noon" })).note;
    const moved = await memo.update(plain.id, { text: "Lunch is at one", scope: "local" });
    assert.deepEqual([moved.scope, moved.body, moved.id], ["local", "Lunch is at one", plain.id]);
    assert.deepEqual((await notesIn(file("local"))).map((n) => n.body), ["Lunch is at one"]);
  });
});

test("correct writes the new note into the corrected note's scope", async () => {
  await withScopes(async ({ memo, file }) => {
    for (const scope of ["user", "local", "project"] as const) {
      const old = (await memo.remember({ text: `The ${scope} timezone is UTC`, scope })).note;
      const others = (["project", "local", "user"] as const).filter((s) => s !== scope);
      const before = await Promise.all(others.map((s) => bytesOf(file(s))));
      const corrected = await memo.correct({ id: old.id, text: `The ${scope} timezone is CET` });
      assert.equal(corrected.note.scope, scope);
      const held = await notesIn(file(scope));
      const fresh = held.find((n) => n.id === corrected.note.id);
      assert.ok(fresh, `the correction is in the ${scope} file`);
      assert.deepEqual(fresh.supersedes, [old.id]);
      assert.ok(held.some((n) => n.id === old.id), "the old fact stays as history");
      assert.deepEqual(
        await Promise.all(others.map((s) => bytesOf(file(s)))),
        before,
        `correcting a ${scope} note leaves the other scopes alone`,
      );
    }
  });
});

test("tidy never proposes a merge across scopes", async () => {
  await withScopes(async ({ memo }) => {
    const text = "Canary deploys hold at 5% of traffic.";
    const p = (await memo.remember({ text })).note;
    const u = (await memo.remember({ text, scope: "user" })).note;
    assert.notEqual(p.id, u.id, "the same text in two scopes is two notes");
    const plan = await memo.tidy();
    assert.deepEqual(plan.proposals.filter((x) => x.kind === "merge"), [], JSON.stringify(plan));
    // Within one scope, the same near-duplicates are proposed (the check can fail).
    const l1 = (await memo.remember({ text, scope: "local" })).note;
    const l2 = (await memo.remember({ text: `FYI ${text}`, scope: "local" })).note;
    const merges = (await memo.tidy()).proposals.flatMap((x) =>
      x.kind === "merge" ? [[x.keep.id, ...x.supersede.map((s) => s.id)].sort()] : []
    );
    assert.deepEqual(merges, [[l1.id, l2.id].sort()]);
  });
});

/** Deterministic filler words for a corpus whose notes score differently. */
const WORDS = (
  "deploy cache queue kafka redis postgres index shard replica backup restore token session " +
  "cookie header proxy gateway router schema migration rollback canary metric alert pager " +
  "budget latency throughput batch stream worker cron lambda bucket region zone cluster node " +
  "secret vault audit review merge branch release tag build lint format test fixture mock"
).split(" ");

function corpus(n: number): string[] {
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const texts: string[] = [];
  for (let i = 0; i < n; i++) {
    const len = 6 + Math.floor(rand() * 18);
    const words = Array.from({ length: len }, () => WORDS[Math.floor(rand() * WORDS.length)]);
    texts.push(`Note ${i}: ${words.join(" ")}`);
  }
  return texts;
}

const QUERIES = [
  "deploy canary rollback",
  "redis cache",
  "postgres migration schema",
  "kafka queue worker",
  "alert pager latency",
  "vault secret audit",
];

test("one ranking across scopes: moving a note leaves every hit's rank and score as they were", async () => {
  await withScopes(async ({ memo, open }) => {
    await memo.rememberMany(corpus(200).map((text) => ({ text })));
    const ranks = async (m: Memo) => {
      const out: [string, number][][] = [];
      for (const q of QUERIES) {
        const hits = await m.recall(q, { limit: 25, engine: "lexical" });
        assert.ok(hits.length >= 10, `${q}: enough hits to compare`);
        out.push(hits.map((h) => [h.note.id, h.score]));
      }
      return out;
    };
    const before = await ranks(memo);
    // A fresh open builds its index otherwise than the writer, whose notes written since the open
    // wait in the index's log (their scores may differ in the last bit): it has its own baseline.
    const first = await open();
    const beforeFresh = await ranks(first);
    await first.close();
    // A note that ranks for several queries, not first: it moves among the others.
    const counts = new Map<string, number>();
    for (const list of before) {
      for (const [id] of list.slice(1)) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    const moving = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0][0];
    for (const scope of ["user", "local", "project"] as const) {
      await memo.update(moving, { scope });
      assert.equal((await memo.get(moving)).scope, scope);
      assert.deepEqual(await ranks(memo), before, `the ranks with the note in ${scope}`);
      // And from a fresh open (the index built from the files, the project's from its snapshot).
      const fresh = await open();
      assert.deepEqual(await ranks(fresh), beforeFresh, `a fresh open, the note in ${scope}`);
      await fresh.close();
    }
  });
});

test("an id in two scopes after an outside edit: reads show the project's copy only", async () => {
  await withScopes(async ({ memo, file, open }) => {
    const { note } = await memo.remember({ text: "The API base path is /v2" });
    await memo.remember({ text: "Ada signs commits with ssh keys", scope: "user" });
    const committed = await readFile(file("project"), "utf8");
    await memo.update(note.id, { scope: "user", text: "The API base path is /v3" });
    assert.deepEqual(await notesIn(file("project")), []);
    // Another machine's edit (a git pull) brings the note back into the project.
    await writeFile(file("project"), committed);
    // The open client notices it at its next read, and a fresh open reads the same.
    const open_ = await memo.list();
    assert.deepEqual(open_.notes.filter((n) => n.id === note.id).map((n) => [n.scope, n.body]), [
      ["project", "The API base path is /v2"],
    ]);
    assert.equal(open_.total, 2);
    const again = await open();
    const listed = await again.list();
    assert.deepEqual(listed.notes.filter((n) => n.id === note.id).map((n) => [n.scope, n.body]), [
      ["project", "The API base path is /v2"],
    ]);
    assert.equal(listed.total, 2);
    assert.equal((await again.get(note.id)).scope, "project");
    const hits = await again.recall("API base path", { limit: 10 });
    assert.deepEqual(hits.map((h) => [h.note.id, h.note.scope, h.note.body]), [
      [note.id, "project", "The API base path is /v2"],
    ]);
    // Both files still hold it: nothing was lost, for doctor to report.
    assert.ok((await notesIn(file("user"))).some((n) => n.id === note.id));
  });
});

test("a fresh folder's first write into the local scope ignores it in .memo/.gitignore", async () => {
  await withScopes(async ({ memo, rootDir, file }) => {
    const { note } = await memo.remember({ text: "This checkout uses port 8081", scope: "local" });
    assert.equal(note.scope, "local");
    assert.deepEqual((await notesIn(file("local"))).map((n) => n.id), [note.id]);
    const ignore = (await readFile(join(rootDir, ".memo", ".gitignore"), "utf8")).split("\n");
    assert.ok(
      ignore.includes("memory/notes.local.md") && ignore.includes("memory/notes.local.md.lock"),
    );
    assert.equal(await bytesOf(file("project")), undefined, "the project's file is not created");
  });
});

test("history filters work across scopes: includeSuperseded, asOf, since", async () => {
  await withScopes(async ({ memo }) => {
    const old = "2026-01-01T00:00:00.000Z";
    const vim =
      (await memo.remember({ text: "Ada's editor is vim", scope: "user", created: old })).note;
    const port = (await memo.remember({
      text: "The dev server's port is 3000",
      scope: "local",
      created: old,
    })).note;
    const between = "2026-01-02T00:00:00.000Z"; // the new notes are written now, later
    const helix =
      (await memo.remember({ text: "Ada's editor is helix", supersedes: [vim.id] })).note;
    const port2 = (await memo.correct({ id: port.id, text: "The dev server's port is 4000" })).note;
    assert.deepEqual([helix.scope, port2.scope], ["user", "local"]);
    const rows = (hits: { note: { id: string; scope?: string } }[]) =>
      hits.map((h) => [h.note.id, h.note.scope]).sort();

    assert.deepEqual(
      rows(await memo.recall("editor port", { limit: 10 })),
      [[helix.id, "user"], [port2.id, "local"]].sort(),
      "superseded notes are hidden in every scope",
    );
    const all = await memo.recall("editor port", { limit: 10, includeSuperseded: true });
    assert.deepEqual(
      rows(all),
      [[vim.id, "user"], [helix.id, "user"], [port.id, "local"], [port2.id, "local"]].sort(),
    );
    assert.deepEqual(all.find((h) => h.note.id === vim.id)?.note.supersededBy, [helix.id]);
    assert.deepEqual(
      rows(await memo.recall("editor port", { limit: 10, asOf: between })),
      [[vim.id, "user"], [port.id, "local"]].sort(),
      "asOf sees each scope as it was",
    );
    assert.deepEqual(
      (await memo.list({ since: between })).notes.map((n) => [n.id, n.scope]).sort(),
      [[helix.id, "user"], [port2.id, "local"]].sort(),
    );
  });
});

test("changesSince asks each scope's store once when nothing changed, and still shows the first scope's copy of a change", async () => {
  await using dir = await tempDir("memo-scopes-changes-");
  const asked: Scope[] = [];
  /** A file store that counts its `changesSince` calls (each is one stat of its file). */
  const counted = (scope: Scope, notesPath?: string): MemoryStore => {
    const store = new FileMemoryStore({ rootDir: dir.path, notesPath });
    const changesSince = store.changesSince.bind(store);
    store.changesSince = (token) => {
      asked.push(scope);
      return changesSince(token);
    };
    return store;
  };
  const store = new ScopedMemoryStore({
    stores: {
      project: counted("project"),
      local: counted("local", join(dir.path, ".memo/memory/notes.local.md")),
      user: counted("user", join(dir.path, "home/memory/notes.md")),
    },
  });
  try {
    await store.load();
    const written = (await store.commit({ notes: [{ text: "Use pnpm", scope: "local" }] }))
      .written[0];
    let token = (await store.changesSince()).token;

    asked.length = 0;
    const quiet = await store.changesSince(token);
    assert.deepEqual([quiet.upserted, quiet.removed], [[], []]);
    assert.deepEqual(asked.toSorted(), ["local", "project", "user"], "one call (one stat) a scope");
    token = quiet.token;

    // The same id written into the user scope behind the store's back: the local copy (read first)
    // is the one that shows, so the change gives nothing; the id sets are brought up for it.
    const userFile = join(dir.path, "home/memory/notes.md");
    await mkdir(join(dir.path, "home/memory"), { recursive: true });
    const local = await readFile(join(dir.path, ".memo/memory/notes.local.md"), "utf8");
    await writeFile(userFile, local.replace("Use pnpm", "Use npm"));
    asked.length = 0;
    const changed = await store.changesSince(token);
    assert.deepEqual(changed.upserted.map((n) => n.body), []);
    assert.ok(asked.length > 3, "the id sets were brought up to the stores");
    assert.equal((await store.get(written.id))?.body, "Use pnpm");
  } finally {
    await store.close();
  }
});

test("changesSince gives its own token back while nothing changed, and a new one with a change behind its back", async () => {
  await using dir = await tempDir("memo-scopes-token-");
  const userPath = join(dir.path, "home/memory/notes.md");
  const store = new ScopedMemoryStore({
    stores: {
      project: new FileMemoryStore({ rootDir: dir.path }),
      user: new FileMemoryStore({ rootDir: join(dir.path, "home"), notesPath: userPath }),
    },
  });
  const other = new FileMemoryStore({ rootDir: join(dir.path, "home"), notesPath: userPath });
  try {
    await store.load();
    await store.commit({ notes: [{ text: "Deploys on Fridays" }] });
    const first = await store.changesSince();
    const quiet = await store.changesSince(first.token);
    assert.deepEqual([quiet.token, quiet.reset, quiet.upserted, quiet.removed], [
      first.token,
      false,
      [],
      [],
    ]);
    const w = await other.commit({ notes: [{ text: "Prefers tabs" }] });
    const changed = await store.changesSince(quiet.token);
    assert.notEqual(changed.token, quiet.token);
    assert.deepEqual(changed.upserted.map((n) => [n.id, n.scope]), [[w.written[0].id, "user"]]);
    // An older token than the last one still gives what changed since it.
    assert.equal((await store.changesSince(first.token)).upserted.length, 1);
    const after = await store.changesSince(changed.token);
    assert.deepEqual([after.token, after.upserted, after.removed], [changed.token, [], []]);
  } finally {
    await store.close();
    await other.close();
  }
});

test("a move killed halfway is left for a process that serves both scopes, not dropped by one that serves fewer", async () => {
  await using project = await tempDir("memo-rev-journal-");
  await using home = await tempDir("memo-rev-journal-home-");
  const rootDir = project.path;
  const memoHome = join(home.path, "memo");
  // A move project -> user killed between its steps 2 and 3: the note in both files, the journal
  // still there (what scopes_kill_test's SIGKILL leaves).
  const all = openScopedStore(rootDir, { memoHome });
  await all.load();
  const written = (await all.commit({ notes: [{ text: "Ada prefers tabs", scope: "project" }] }))
    .written[0];
  const note = (await all.get(written.id))!;
  const { scope: _s, ...plain } = note as Note & { scope?: unknown };
  await (all.store("user") as FileMemoryStore).applyReplica({ put: [plain as Note], remove: [] });
  await all.close();
  await mkdir(join(rootDir, ".memo", "cache"), { recursive: true });
  await writeFile(
    join(rootDir, ".memo", "cache", "scope-move.json"),
    JSON.stringify({ id: note.id, from: "project", to: "user" }) + "\n",
  );

  // The next open serves the project alone (a hosted endpoint, or no MEMO_HOME in its env).
  const narrow = openScopedStore(rootDir, { serve: ["project"] });
  await narrow.load();
  await narrow.close();

  // Then a process that serves both opens: the note must be in exactly one scope.
  const again = openScopedStore(rootDir, { memoHome });
  await again.load();
  const holders = [];
  for (const scope of ["project", "user"] as const) {
    if (await (again.store(scope) as FileMemoryStore).get(note.id)) holders.push(scope);
  }
  await again.close();
  assert.deepEqual(holders, ["user"], "the move was dropped: the note stays in two scopes");
});

test("a tidy plan with merges in two scopes applies, each merge in its own scope", async () => {
  await withScopes(async ({ memo }) => {
    const text = "Canary deploys hold at 5% of traffic.";
    await memo.remember({ text });
    await memo.remember({ text: `FYI ${text}` });
    await memo.remember({ text, scope: "local" });
    await memo.remember({ text: `FYI ${text}`, scope: "local" });
    const plan = await memo.tidy();
    assert.equal(plan.proposals.filter((x) => x.kind === "merge").length, 2);
    const result = await memo.applyTidy(plan);
    assert.equal(result.merged, 2);
    const current = (await memo.list({ limit: 10 })).notes;
    assert.deepEqual(current.map((n) => n.scope).sort(), ["local", "project"]);
    // A plan made before a change is refused as before.
    await memo.remember({ text: "Another note" });
    await memo.remember({ text: `Sidecars drain for 30 s`, scope: "local" });
    await memo.remember({ text: `FYI Sidecars drain for 30 s`, scope: "local" });
    const stale = await memo.tidy();
    await memo.remember({ text: "One more" });
    await assert.rejects(memo.applyTidy(stale));
  });
});
