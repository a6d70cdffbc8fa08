/**
 * Scale benchmark of the file store: 100,000 synthetic notes of about 1 KB (about 110 MB of
 * notes.md). Generates the file in a temp folder, then measures in a fresh process:
 *
 * - open: `new FileMemoryStore` + `load()` (read + parse), and the first `changesSince()`;
 * - open with the `Memo` client (store + lexical index), when the recall engine is present;
 * - commit of 25 new notes into the big file, which must append: the first one (it builds the
 *   identity index used for dedupe) and the median and p95 of the next 15;
 * - another store's commit picked up by a reader (tail reload, median of 5), and an idle
 *   `changesSince()`;
 * - one update (atomic rewrite of the whole file);
 * - open with the `Memo` client, split into the store's parse and the index build (the rest),
 *   and the first recall after it;
 * - peak RSS of the measuring process (VmHWM);
 * - the `Memo` open again in a fresh process of its own (what `memo` pays at start), with that
 *   process's peak RSS;
 * - the same open with the index snapshot of `.memo/cache/` (written by a process before it).
 *
 * Usage: deno run -A bench/store_scale.ts [--notes 100000] [--commits 15] [--json]
 *        deno run -A bench/store_scale.ts --generate <rootDir> [--notes 100000]
 */

import { FileMemoryStore } from "../memory/store/file_store.ts";
import { Memo } from "../memory/memo.ts";
import { memoPaths } from "../memory/store/paths.ts";
import { generateNotes as generate } from "./_notes_corpus.ts";
import { peakRssMB } from "./_peak_rss.ts";

const args = Deno.args;
const flag = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};

if (args[0] === "--measure") {
  console.log(JSON.stringify(await measure(args[1], flag("commits", 16))));
} else if (args[0] === "--measure-memo") {
  console.log(JSON.stringify(await measureMemoOpen(args[1])));
} else if (args[0] === "--measure-memo-cached") {
  // The same open with the index snapshot in .memo/cache/ (written by --write-cache).
  const memo = await openMemoTimed(args[1], true);
  console.log(JSON.stringify({
    cachedMemoOpenMs: memo.openMs,
    cachedMemoOpenParseMs: memo.parseMs,
    cachedMemoOpenIndexMs: memo.indexMs,
    cachedMemoFirstRecallMs: memo.firstRecallMs,
    cachedMemoPeakRssMB: peakRssMB(),
  }));
} else if (args[0] === "--write-cache") {
  const memo = new Memo({ rootDir: args[1], indexCache: "always" });
  await memo.load();
  await memo.close(); // waits for the snapshot
  console.log("{}");
} else if (args[0] === "--generate") {
  // Leaves a generated store in the given folder (for profiling).
  console.log(await generate(args[1], flag("notes", 100_000)));
} else {
  const count = flag("notes", 100_000);
  const rootDir = await Deno.makeTempDir({ prefix: "memo_scale_" });
  try {
    const t0 = performance.now();
    const bytes = await generate(rootDir, count);
    const genMs = performance.now() - t0;
    const run = async (mode: string) => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", new URL(import.meta.url).pathname, mode, rootDir, ...args],
        stderr: "inherit",
      }).output();
      if (!out.success) throw new Error("the measuring process failed (see above)");
      return JSON.parse(new TextDecoder().decode(out.stdout));
    };
    // The Memo open in a fresh process first: the other run grows the file by its commits.
    const alone = await run("--measure-memo");
    // Then with the index snapshot, written by a process of its own and removed afterwards.
    await run("--write-cache");
    const cached = await run("--measure-memo-cached");
    await Deno.remove(memoPaths(rootDir).cache, { recursive: true });
    const result = await run("--measure");
    const report = {
      notes: count,
      fileMB: +(bytes / 1e6).toFixed(1),
      generateMs: r(genMs),
      ...result,
      ...alone,
      ...cached,
    };
    if (args.includes("--json")) console.log(JSON.stringify(report));
    else for (const [k, v] of Object.entries(report)) console.log(`${k.padEnd(28)} ${v}`);
  } finally {
    await Deno.remove(rootDir, { recursive: true });
  }
}

function r(ms: number): number {
  return Math.round(ms * 10) / 10;
}

async function measure(rootDir: string, commits: number) {
  const notesPath = memoPaths(rootDir).notes;
  let t = performance.now();
  const store = new FileMemoryStore({ rootDir });
  const report = await store.load();
  const loadMs = performance.now() - t;
  t = performance.now();
  const first = await store.changesSince();
  const firstChangesMs = performance.now() - t;
  if (report.notes !== first.upserted.length || report.issues.length) {
    throw new Error(`unexpected load: ${report.notes} notes, ${report.issues.length} issues`);
  }
  const rssAfterOpen = peakRssMB();

  const times: number[] = [];
  const ino = (await Deno.stat(notesPath)).ino;
  let n = 0;
  for (let i = 0; i < commits; i++) {
    const notes = Array.from({ length: 25 }, () => ({
      text: `bench commit note ${n++}: ` + "lorem ipsum dolor sit amet ".repeat(36),
      labels: ["bench"],
    }));
    t = performance.now();
    const result = await store.commit({ notes });
    times.push(performance.now() - t);
    if (result.written.length !== 25) throw new Error("commit did not write 25 notes");
  }
  if ((await Deno.stat(notesPath)).ino !== ino) throw new Error("a commit rewrote the file");
  const firstCommitMs = times.shift()!;
  times.sort((a, b) => a - b);

  const caughtUp = await store.changesSince(first.token);
  t = performance.now();
  const idle = await store.changesSince(caughtUp.token);
  const idleMs = performance.now() - t;

  const other = new FileMemoryStore({ rootDir });
  await other.load();
  let token = (await other.changesSince()).token;
  const tails: number[] = [];
  for (let i = 0; i < 5; i++) {
    await store.commit({ notes: [{ text: `from another store ${i}` }] });
    t = performance.now();
    const tail = await other.changesSince(token);
    tails.push(performance.now() - t);
    if (tail.reset || tail.upserted.length !== 1) throw new Error("tail reload was not a delta");
    token = tail.token;
  }
  const tailMs = tails.sort((a, b) => a - b)[2];

  t = performance.now();
  await store.update(first.upserted[50_000 % first.upserted.length].id, { text: "rewritten" });
  const updateMs = performance.now() - t;
  await other.close();
  await store.close();

  const memo = await openMemoTimed(rootDir);

  return {
    storeOpenMs: r(loadMs),
    firstChangesSinceMs: r(firstChangesMs),
    peakRssAfterStoreOpenMB: rssAfterOpen,
    commit25FirstMs: r(firstCommitMs),
    commit25P50Ms: r(times[Math.floor(times.length / 2)]),
    commit25P95Ms: r(times[Math.min(times.length - 1, Math.ceil(times.length * 0.95) - 1)]),
    commit25MaxMs: r(times[times.length - 1]),
    idleChangesSinceMs: r(idleMs) + (idle.upserted.length ? " (not idle!)" : ""),
    tailReloadMs: r(tailMs),
    updateRewriteMs: r(updateMs),
    memoOpenMs: memo.openMs,
    memoOpenParseMs: memo.parseMs,
    memoOpenIndexMs: memo.indexMs,
    memoFirstRecallMs: memo.firstRecallMs,
    peakRssMB: peakRssMB(),
  };
}

/** Opens a `Memo` on `rootDir`, timing the store's parse and the rest (the index), then recalls. */
async function openMemoTimed(rootDir: string, indexCache = false) {
  const store = new FileMemoryStore({ rootDir });
  const load = store.load.bind(store);
  let parseMs = 0;
  store.load = async () => {
    const t0 = performance.now();
    try {
      return await load();
    } finally {
      parseMs = performance.now() - t0;
    }
  };
  const t = performance.now();
  const memo = new Memo({ store, rootDir, indexCache });
  const report = await memo.load();
  const openMs = performance.now() - t;
  if (report.issues.length) throw new Error(`unexpected load: ${report.issues.length} issues`);
  const t2 = performance.now();
  const hits = await memo.recall("deploy staging database");
  const firstRecallMs = performance.now() - t2;
  if (!hits.length) throw new Error("the first recall found nothing");
  await memo.close();
  return {
    openMs: r(openMs),
    parseMs: r(parseMs),
    indexMs: r(openMs - parseMs),
    firstRecallMs: r(firstRecallMs),
  };
}

/** The `Memo` open alone, in a process of its own. */
async function measureMemoOpen(rootDir: string) {
  const memo = await openMemoTimed(rootDir);
  return {
    freshMemoOpenMs: memo.openMs,
    freshMemoOpenParseMs: memo.parseMs,
    freshMemoOpenIndexMs: memo.indexMs,
    freshMemoFirstRecallMs: memo.firstRecallMs,
    freshMemoPeakRssMB: peakRssMB(),
  };
}
