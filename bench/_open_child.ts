/**
 * The measuring process of `open_scale.ts`: one `Memo` open of one source tree (memo now, or an
 * older commit checked out beside it) on one project, in a fresh process, printed as one line of
 * JSON. It imports nothing but the tree's own modules, `node:` builtins and `_peak_rss.ts`, so
 * that the same file measures any commit: run it with the tree's `deno.json` (`--config`).
 *
 * Modes:
 *
 * - `write`: opens with `indexCache: "always"` and closes (waits for the index snapshot);
 * - `open`, `open-embeddings`: the open with its parts (embeddings off, or as configured by
 *   default; a tree without embeddings ignores the option);
 * - `read`: the tree's read of notes.md alone (`readNotes`, decoding included; with the digest
 *   the open takes where the tree has it, from the digest record of `.memo/cache/` where the tree
 *   keeps one, as its open does).
 *
 * Run: deno run -A --config <tree>/deno.json bench/_open_child.ts <tree> <rootDir> <mode>
 *
 * @module
 */

import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { peakRssMB } from "./_peak_rss.ts";

/** Parts of one open, in milliseconds (wall clock), and what it cost. */
export interface OpenFigures {
  /** From `new Memo` to `load()` resolved. */
  openMs: number;
  /** The store's `load()`: reading and parsing notes.md. */
  storeLoadMs: number;
  /**
   * From the first `changesSince()` call's end to the index snapshot's import's end: waiting for
   * the snapshot's bytes, keying it to the notes (the digest), checking and importing it.
   */
  snapshotMs: number;
  /** The rest: the first `changesSince()`, the notes into the client, the index's last merge. */
  catchUpMs: number;
  /** CPU time of the process during the open (every thread). */
  cpuMs: number;
  /** Peak resident memory of the process after the open. */
  peakRssMB: number;
  notes: number;
}

const [tree, rootDir, mode] = Deno.args;
if (import.meta.main) console.log(JSON.stringify(await run(tree, rootDir, mode)));

async function run(tree: string, rootDir: string, mode: string) {
  // The first path that the tree has (`5081ee0` kept these files flat in memory/ and recall/).
  const at = async (...paths: string[]) => {
    for (const path of paths.slice(0, -1)) {
      if (existsSync(join(tree, path))) return await import(join(tree, path));
    }
    return await import(join(tree, paths.at(-1)!));
  };
  if (mode === "read") return await read(at, rootDir);
  const { Memo } = await at("memory/memo.ts");
  if (mode === "write") {
    const memo = new Memo({ rootDir, indexCache: "always", localEmbeddings: false });
    await memo.load();
    await memo.close(); // waits for the snapshot
    return {};
  }
  if (mode !== "open" && mode !== "open-embeddings") throw new Error(`unknown mode ${mode}`);
  const { FileMemoryStore } = await at("memory/store/file_store.ts", "memory/file_store.ts");
  const { Bm25Index } = await at("memory/recall/lexical/lexical.ts", "memory/recall/lexical.ts");
  const store = new FileMemoryStore({ rootDir });
  const times: Record<string, number> = {};
  const timed = (name: string, fn: (...args: unknown[]) => Promise<unknown>) =>
    async function (this: unknown, ...args: unknown[]) {
      const first = !(`${name}End` in times);
      if (first) times[`${name}Start`] = performance.now();
      try {
        return await fn.apply(this, args);
      } finally {
        if (first) times[`${name}End`] = performance.now();
      }
    };
  store.load = timed("load", store.load.bind(store));
  store.changesSince = timed("changes", store.changesSince.bind(store));
  const importSnapshot = Bm25Index.prototype.importSnapshot;
  Bm25Index.prototype.importSnapshot = function (this: unknown, ...args: unknown[]) {
    const ok = importSnapshot.apply(this, args);
    if (ok) times.importEnd = performance.now();
    return ok;
  };
  const cpu = process.cpuUsage();
  const start = performance.now();
  const memo = new Memo({ store, rootDir, localEmbeddings: mode === "open-embeddings" });
  const report = await memo.load();
  const end = performance.now();
  const used = process.cpuUsage(cpu);
  if (times.importEnd === undefined) throw new Error("the open did not use the index snapshot");
  if (report.issues.length) throw new Error(`unexpected load: ${report.issues.length} issues`);
  const figures: OpenFigures = {
    openMs: end - start,
    storeLoadMs: times.loadEnd - times.loadStart,
    snapshotMs: times.importEnd - times.changesEnd,
    catchUpMs: times.changesEnd - times.loadEnd + (end - times.importEnd),
    cpuMs: (used.user + used.system) / 1000,
    peakRssMB: peakRssMB(),
    notes: report.notes,
  };
  await memo.close();
  return figures;
}

/** The tree's read of notes.md alone, hashing as its open does (a tree without it ignores that). */
async function read(
  at: (...paths: string[]) => Promise<Record<string, unknown>>,
  rootDir: string,
) {
  const { readNotes } = await at("memory/store/_notes_file.ts", "memory/_notes_file.ts");
  const { memoPaths } = await at("memory/store/paths.ts", "memory/paths.ts");
  const paths = (memoPaths as (dir: string) => { notes: string; lock: string; cache: string })(
    rootDir,
  );
  // The digest recorded by an earlier open (trees since the digest record only).
  const digestCache = existsSync(join(tree, "memory/store/_digest_cache.ts"))
    ? await import(join(tree, "memory/store/_digest_cache.ts"))
    : undefined;
  const known = digestCache?.readDigestCache(digestCache.digestCachePath(paths.cache));
  const size = statSync(paths.notes).size;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const done = await (readNotes as (s: unknown) => Promise<unknown>)({
    notesPath: paths.notes,
    lockPath: paths.lock,
    locked: false,
    hash: true,
    mark: size,
    known,
  });
  const readMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  if (typeof done !== "object") throw new Error(`cannot read notes.md: ${done}`);
  return { readMs, cpuMs: (used.user + used.system) / 1000 };
}
