import assert from "node:assert/strict";
import { appendFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Memo, openMemo } from "./memo.ts";
import { MAX_MEMO_LIMIT } from "./memo_types.ts";
import { MemoryValidationError, NoteNotFoundError } from "./errors.ts";
import { createLexicalIndex } from "./recall/mod.ts";
import { FileMemoryStore } from "./store/file_store.ts";
import type { MemoryStore } from "./store/store.ts";
import { sanitizedTest as test } from "../testing/sanitized.ts";
import { pageCounter } from "../testing/pages.ts";

async function withMemo(fn: (memo: Memo, dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "memo-client-"));
  const memo = await openMemo({ rootDir: dir });
  try {
    await fn(memo, dir);
  } finally {
    await memo.close();
    await rm(dir, { recursive: true, force: true });
  }
}

test("Memo.remember() dedupes by normalised text when there is no source", async () => {
  await withMemo(async (memo) => {
    const first = await memo.remember({ text: "Deploys run with make deploy", labels: ["ops"] });
    assert.equal(first.status, "written");
    const again = await memo.remember({ text: "Deploys run with make deploy", labels: ["ops"] });
    assert.equal(again.status, "unchanged");
    assert.equal(again.note.id, first.note.id);
    const reworded = await memo.remember({
      text: "deploys run with `make deploy`.",
      labels: ["x"],
    });
    assert.equal(reworded.status, "unchanged", "case, punctuation and labels are the same note");
    assert.equal(reworded.note.id, first.note.id);
    assert.equal((await memo.stats()).notes, 1);
  });
});

test("Memo.remember() dedupes by source key and updates the note in place", async () => {
  await withMemo(async (memo) => {
    const source = "github:octo/app/discussions/42";
    const first = await memo.remember({ text: "Use pnpm", title: "Package manager", source });
    assert.equal(
      (await memo.remember({ text: "Use pnpm", title: "Package manager", source }))
        .status,
      "unchanged",
    );
    const changed = await memo.remember({ text: "Use npm now", title: "Package manager", source });
    assert.equal(changed.status, "updated");
    assert.equal(changed.note.id, first.note.id, "same identity, same id");
    assert.equal((await memo.get(first.note.id)).body, "Use npm now");
    assert.equal((await memo.stats()).notes, 1);
    assert.deepEqual((await memo.recall("pnpm")).map((h) => h.note.id), []);
    assert.deepEqual((await memo.recall("npm")).map((h) => h.note.id), [first.note.id]);
  });
});

test("Memo.recall() filters, explains and keeps the index in step with writes", async () => {
  await withMemo(async (memo) => {
    const a =
      (await memo.remember({ text: "The rateLimit is 100 requests", labels: ["api"] })).note;
    const b = (await memo.remember({
      text: "rate_limit for the worker queue",
      labels: ["ops"],
      source: "notion:page/1",
    })).note;
    assert.deepEqual(
      new Set((await memo.recall("rate limit")).map((h) => h.note.id)),
      new Set([
        a.id,
        b.id,
      ]),
    );
    assert.deepEqual((await memo.recall("rate limit", { labels: ["ops"] })).map((h) => h.note.id), [
      b.id,
    ]);
    assert.deepEqual(
      (await memo.recall("rate limit", { source: "notion:" })).map((h) => h.note.id),
      [
        b.id,
      ],
    );
    const [hit] = await memo.recall("requests", { explain: true });
    assert.equal(hit.note.id, a.id);
    assert.ok(hit.score > 0);
    assert.deepEqual(hit.matched, ["requests"], "the query words that matched");
    assert.ok(hit.explain && hit.explain.length > 0, "explain lists the contributions");
    await memo.update(a.id, { text: "No limit any more", title: "Limits" });
    assert.deepEqual((await memo.recall("requests")).map((h) => h.note.id), []);
    await memo.forget(b.id);
    assert.deepEqual((await memo.recall("worker")).map((h) => h.note.id), []);
  });
});

test("Memo.recall() with explain gives each hit the highlights of its matched terms", async () => {
  await withMemo(async (memo) => {
    await memo.remember({ title: "Deploying 🚀 the app", text: "The rateLimit for deploys" });
    const [hit] = await memo.recall("deploy rate limit", { explain: true });
    const words = hit.highlights!.map((h) =>
      `${h.field}:${hit.note[h.field].slice(h.start, h.end)}`
    );
    assert.deepEqual(words, ["title:Deploying", "body:rate", "body:Limit", "body:deploys"]);
    assert.equal((await memo.recall("deploy rate limit"))[0].highlights, undefined);
  });
});

test("Memo.recall() refuses bad input with MemoryValidationError", async (t) => {
  await withMemo(async (memo) => {
    await memo.remember({ text: "one note" });
    const cases: [string, () => Promise<unknown>][] = [
      ["an empty query", () => memo.recall("  ")],
      ["limit 0", () => memo.recall("note", { limit: 0 })],
      ["limit past the maximum", () => memo.recall("note", { limit: MAX_MEMO_LIMIT + 1 })],
      ["an unknown engine", () => memo.recall("note", { engine: "magic" as "lexical" })],
    ];
    for (const [name, call] of cases) {
      await t.step(name, async () => {
        await assert.rejects(call, MemoryValidationError);
      });
    }
    await t.step("the largest limit is accepted", async () => {
      assert.equal((await memo.recall("note", { limit: MAX_MEMO_LIMIT })).length, 1);
    });
  });
});

test("Memo.list() pages with an opaque cursor, filters, and refuses a malformed cursor", async () => {
  await withMemo(async (memo) => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      ids.push(
        (await memo.remember({ text: `note ${i}`, labels: i % 2 ? ["odd"] : ["even"] })).note.id,
      );
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    const nextPage = pageCounter("the pages of memo.list()");
    do {
      nextPage();
      const page = await memo.list({ limit: 3, cursor });
      assert.equal(page.total, 7);
      seen.push(...page.notes.map((n) => n.id));
      cursor = page.nextCursor;
    } while (cursor);
    assert.deepEqual(seen, ids);
    const odd = await memo.list({ labels: ["odd"], limit: 2 });
    assert.deepEqual(odd.notes.map((n) => n.id), [ids[1], ids[3]]);
    assert.equal(odd.total, 3);
    const rest = await memo.list({ labels: ["odd"], limit: 2, cursor: odd.nextCursor });
    assert.deepEqual(rest.notes.map((n) => n.id), [ids[5]]);
    assert.equal(rest.nextCursor, undefined);
    await memo.forget(ids[2]);
    const after = await memo.list({ limit: 2, cursor: (await memo.list({ limit: 2 })).nextCursor });
    assert.deepEqual(after.notes.map((n) => n.id), [ids[3], ids[4]]);
    await assert.rejects(() => memo.list({ cursor: "not a cursor" }), MemoryValidationError);
    await assert.rejects(() => memo.list({ limit: MAX_MEMO_LIMIT + 1 }), MemoryValidationError);
  });
});

test("Memo.get(), update() and forget() report unknown ids and refuse empty changes", async () => {
  await withMemo(async (memo) => {
    const { note } = await memo.remember({ text: "keep me", title: "Kept" });
    await assert.rejects(() => memo.get("nope"), NoteNotFoundError);
    await assert.rejects(() => memo.update("nope", { text: "x" }), NoteNotFoundError);
    await assert.rejects(() => memo.forget("nope"), NoteNotFoundError);
    await assert.rejects(() => memo.update(note.id, { text: " " }), MemoryValidationError);
    await assert.rejects(() => memo.update(note.id, {}), MemoryValidationError);
    const updated = await memo.update(note.id, { title: "Renamed", labels: [" a ", "a", "b"] });
    assert.equal(updated.title, "Renamed");
    assert.deepEqual(updated.labels, ["a", "b"]);
    assert.equal((await memo.forget(note.id)).id, note.id);
    await assert.rejects(() => memo.get(note.id), NoteNotFoundError);
  });
});

test("Memo.update() records the patch's updated time; alone it is nothing to change", async () => {
  await withMemo(async (memo) => {
    const { note } = await memo.remember({ text: "Deploys run on Fridays" });
    const edited = await memo.update(note.id, {
      text: "Deploys run on Mondays",
      updated: "2026-02-01T10:00:00+01:00",
    });
    assert.equal(edited.updated, "2026-02-01T09:00:00.000Z");
    assert.equal(edited.created, note.created);
    assert.equal((await memo.get(note.id)).updated, "2026-02-01T09:00:00.000Z", "stored");
    // The same content with another time: nothing changes.
    const same = await memo.update(note.id, {
      text: "Deploys run on Mondays",
      updated: "2030-01-01T00:00:00.000Z",
    });
    assert.equal(same.updated, "2026-02-01T09:00:00.000Z");
    await assert.rejects(
      () => memo.update(note.id, { updated: "2030-01-01T00:00:00.000Z" }),
      /Cannot update note: nothing to change/,
    );
    await assert.rejects(
      () => memo.update(note.id, { title: "Deploys", updated: "next week" }),
      (e) =>
        e instanceof MemoryValidationError &&
        e.message === "Cannot update note: updated must be an ISO 8601 time",
    );
    assert.equal((await memo.get(note.id)).updated, "2026-02-01T09:00:00.000Z", "nothing stored");
  });
});

test("Memo.stats() counts notes, labels and sources and reports damaged sections", async () => {
  await withMemo(async (memo, dir) => {
    await memo.remember({ text: "a", labels: ["x"], source: "github:o/r/discussions/1" });
    await memo.remember({ text: "b", labels: ["x", "y"] });
    const stats = await memo.stats();
    assert.equal(stats.notes, 2);
    assert.deepEqual(stats.labels, { x: 2, y: 1 });
    assert.deepEqual(stats.sources, { github: 1, none: 1 });
    assert.deepEqual(stats.issues, []);
    await appendFile(
      join(dir, ".memo", "memory", "notes.md"),
      "<!-- memo:note {broken -->\n## Broken\nbody\n\n",
    );
    const reopened = await openMemo({ rootDir: dir });
    try {
      const after = await reopened.stats();
      assert.equal(after.notes, 2, "the notes around a damaged section still load");
      assert.equal(after.issues.length, 1);
      assert.equal(after.issues[0].kind, "damaged-note");
      assert.ok(after.issues[0].line! > 1);
    } finally {
      await reopened.close();
    }
  });
});

test("Memo picks up notes another client wrote to the same project", async () => {
  await withMemo(async (memo, dir) => {
    const other = await openMemo({ rootDir: dir });
    try {
      const { note } = await other.remember({ text: "written by the other client" });
      assert.equal((await memo.get(note.id)).body, "written by the other client");
      assert.deepEqual((await memo.recall("other client")).map((h) => h.note.id), [note.id]);
    } finally {
      await other.close();
    }
  });
});

test("Memo.recall() answers a repeated recall from its cache until the notes change", async () => {
  await withMemo(async (memo, dir) => {
    const a = (await memo.remember({ text: "Rotate the vault token monthly" })).note;
    const first = await memo.recall("vault token");
    const again = await memo.recall("vault token");
    assert.deepEqual(again, first);
    assert.notEqual(again, first, "each caller gets its own array");
    again.pop();
    assert.equal((await memo.recall("vault token")).length, 1, "a caller cannot empty the cache");
    assert.equal(
      (await memo.recall("vault token", { explain: true }))[0].explain?.length! > 0,
      true,
    );
    const b = (await memo.remember({ text: "The vault token lives in 1Password" })).note;
    assert.deepEqual(
      new Set((await memo.recall("vault token")).map((h) => h.note.id)),
      new Set([a.id, b.id]),
      "an own write empties the cache",
    );
    const other = await openMemo({ rootDir: dir });
    try {
      await other.forget(a.id);
    } finally {
      await other.close();
    }
    assert.deepEqual(
      (await memo.recall("vault token")).map((h) => h.note.id),
      [b.id],
      "another process's write empties it too",
    );
  });
});

test("Memo searches the index once for repeated recalls, every time with recallCacheSize 0", async () => {
  for (const [size, searches] of [[undefined, 1], [0, 3]] as const) {
    const dir = await mkdtemp(join(tmpdir(), "memo-client-"));
    const index = createLexicalIndex();
    const search = index.search.bind(index);
    let calls = 0;
    index.search = (...args) => (calls++, search(...args));
    const memo = await openMemo({ rootDir: dir, index, recallCacheSize: size });
    try {
      await memo.remember({ text: "cache on or off" });
      calls = 0; // remember looked for similar notes
      for (let i = 0; i < 3; i++) assert.equal((await memo.recall("cache")).length, 1);
      assert.equal(calls, searches, `recallCacheSize ${size}`);
    } finally {
      await memo.close();
      await rm(dir, { recursive: true, force: true });
    }
  }
});

test("Memo.list() pages oldest or newest first, with filters, and cursors survive removals", async (t) => {
  await withMemo(async (memo) => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const labels = i % 2 === 0 ? ["even"] : ["odd"];
      const source = i < 4 ? `github:acme/app/issues/${i}` : `notion:page/${i}`;
      ids.push((await memo.remember({ text: `note ${i}`, labels, source })).note.id);
    }
    const all = async (options: Parameters<Memo["list"]>[0]) => {
      const out: string[] = [];
      let cursor: string | undefined;
      const nextPage = pageCounter("the pages of memo.list()");
      do {
        nextPage();
        const page = await memo.list({ ...options, cursor });
        out.push(...page.notes.map((n) => n.id));
        cursor = page.nextCursor;
      } while (cursor);
      return out;
    };
    await t.step("oldest (the default) and newest, in pages of 2", async () => {
      assert.deepEqual(await all({ limit: 2 }), ids);
      assert.deepEqual(await all({ limit: 2, order: "oldest" }), ids);
      assert.deepEqual(await all({ limit: 2, order: "newest" }), [...ids].reverse());
      const first = await memo.list({ limit: 3, order: "newest" });
      assert.equal(first.total, 7);
      assert.deepEqual(first.notes.map((n) => n.body), ["note 6", "note 5", "note 4"]);
    });
    await t.step("with filters: labels and source prefix", async () => {
      const even = [ids[0], ids[2], ids[4], ids[6]];
      assert.deepEqual(await all({ limit: 1, labels: ["even"] }), even);
      assert.deepEqual(await all({ limit: 1, labels: ["even"], order: "newest" }), even.reverse());
      const github = ids.slice(0, 4).reverse();
      assert.deepEqual(await all({ limit: 3, source: "github:", order: "newest" }), github);
      const page = await memo.list({
        limit: 2,
        source: "github:",
        labels: ["odd"],
        order: "newest",
      });
      assert.deepEqual(page.notes.map((n) => n.id), [ids[3], ids[1]]);
      assert.equal(page.total, 2);
      assert.equal(page.nextCursor, undefined);
    });
    await t.step("a cursor whose note was removed resumes in place, either order", async () => {
      const newest = await memo.list({ limit: 2, order: "newest" });
      await memo.forget(ids[5]); // last of the newest page
      const restNewest = await memo.list({ limit: 10, order: "newest", cursor: newest.nextCursor });
      assert.deepEqual(restNewest.notes.map((n) => n.id), [ids[4], ids[3], ids[2], ids[1], ids[0]]);
      const oldest = await memo.list({ limit: 2 });
      await memo.forget(ids[1]); // last of the oldest page
      const restOldest = await memo.list({ limit: 10, cursor: oldest.nextCursor });
      assert.deepEqual(restOldest.notes.map((n) => n.id), [ids[2], ids[3], ids[4], ids[6]]);
    });
    await t.step("a bad order or cursor is refused", async () => {
      await assert.rejects(
        memo.list({ order: "random" as "newest" }),
        MemoryValidationError,
      );
      await assert.rejects(memo.list({ order: "newest", cursor: "forged" }), MemoryValidationError);
    });
  });
});

test("Memo: concurrent readers share one catch-up with the store instead of one each", async () => {
  const dir = await Deno.makeTempDir();
  const inner = new FileMemoryStore({ rootDir: dir });
  let calls = 0;
  const store: MemoryStore = {
    load: () => inner.load(),
    commit: (batch, options) => inner.commit(batch, options),
    update: (id, patch) => inner.update(id, patch),
    remove: (id) => inner.remove(id),
    get: (id) => inner.get(id),
    list: (cursor, limit) => inner.list(cursor, limit),
    changesSince: (token) => {
      calls++;
      return inner.changesSince(token);
    },
  };
  const memo = await openMemo({ store });
  try {
    const { note } = await memo.remember({ text: "shared catch-up" });
    calls = 0;
    const hits = await Promise.all(Array.from({ length: 32 }, () => memo.recall("catch-up")));
    assert.ok(hits.every((h) => h[0]?.note.id === note.id));
    // The first reader starts a catch-up; the other 31 queue behind it and share the next one.
    assert.ok(calls <= 2, `${calls} catch-ups for 32 concurrent readers`);
    // A write made after a catch-up started is seen by a reader that arrives after it.
    const first = memo.recall("later");
    await memo.remember({ text: "later note" });
    assert.equal((await memo.recall("later")).length, 1);
    await first;
  } finally {
    await memo.close();
    await Deno.remove(dir, { recursive: true });
  }
});

test("update() with new text derives a derived title again, so recall stops matching the old words; a given title stays", async () => {
  await withMemo(async (memo) => {
    const { note } = await memo.remember({ text: "Deploys run with make deploy" });
    assert.equal(note.title, "Deploys run with make deploy"); // derived, not given
    await memo.update(note.id, { text: "Breakfast is at eight" });
    const hits = await memo.recall("deploy");
    assert.deepEqual(hits.map((h) => [h.note.title, h.note.body]), []);
    assert.equal((await memo.get(note.id))?.title, "Breakfast is at eight");
    const { note: titled } = await memo.remember({ text: "Lunch at noon", title: "Food" });
    await memo.update(titled.id, { text: "Lunch at one" });
    assert.equal((await memo.get(titled.id))?.title, "Food");
  });
});
