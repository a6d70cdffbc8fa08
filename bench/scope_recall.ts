/**
 * Recall over three scopes against one: the same N notes, split across `project`, `local` and
 * `user` (a third each), or all in `project`; the same queries, side by side in one run, on warm
 * clients (the first recall of each is not counted). The goal of issue 32: the three scopes' p50
 * at most 1.2× the one scope's, at 10k and 100k notes.
 *
 * Run: deno run -A bench/scope_recall.ts [--sizes 10000,100000] [--queries 200] [--json FILE]
 *
 * @module
 */

import { parseArgs } from "node:util";
import { join } from "node:path";
import { openMemo } from "../memory/mod.ts";
import { NOTES_PREAMBLE, serializeNote } from "../memory/store/codec.ts";
import { parseNotes } from "../memory/store/parse.ts";
import { memoPaths } from "../memory/store/paths.ts";
import { generateNotes } from "./_notes_corpus.ts";
import { percentile } from "./_report.ts";
import { loadAvg, log } from "./_http_kit.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    sizes: { type: "string", default: "10000,100000" },
    queries: { type: "string", default: "200" },
    json: { type: "string" },
  },
});
const GOAL = 1.2;
const WORDS = ("deploy staging database cache index token memory agent recall rate limit retry " +
  "backoff queue worker schema migration release branch review latency budget incident owner")
  .split(" ");

function queries(n: number): string[] {
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: n }, () => {
    const k = 1 + Math.floor(rand() * 3);
    return Array.from({ length: k }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(" ");
  });
}

async function time(memo: Awaited<ReturnType<typeof openMemo>>, qs: string[]): Promise<number[]> {
  await memo.recall(qs[0], { engine: "lexical" });
  const out: number[] = [];
  for (const q of qs) {
    const t = performance.now();
    await memo.recall(q, { engine: "lexical", limit: 10 });
    out.push(performance.now() - t);
  }
  return out;
}

async function main() {
  const qs = queries(Number(flags.queries));
  const rows: Record<string, unknown>[] = [];
  log(`load ${loadAvg()}`);
  for (const size of flags.sizes!.split(",").map(Number)) {
    const one = await Deno.makeTempDir({ prefix: "memo-scope-one-" });
    const three = await Deno.makeTempDir({ prefix: "memo-scope-three-" });
    await generateNotes(one, size);
    const text = await Deno.readTextFile(memoPaths(one).notes);
    const notes = parseNotes(text).sections.flatMap((s) => s.note ? [s.note] : []);
    const third = Math.ceil(notes.length / 3);
    const write = async (path: string, part: typeof notes) => {
      await Deno.mkdir(join(path, ".."), { recursive: true });
      await Deno.writeTextFile(path, NOTES_PREAMBLE + part.map(serializeNote).join(""));
    };
    const home = join(three, "home");
    await write(memoPaths(three).notes, notes.slice(0, third));
    await write(join(three, ".memo", "memory", "notes.local.md"), notes.slice(third, 2 * third));
    await write(join(home, "memory", "notes.md"), notes.slice(2 * third));
    const a = await openMemo({
      rootDir: one,
      engine: "lexical",
      localEmbeddings: false,
      recallCacheSize: 0,
    });
    const b = await openMemo({
      rootDir: three,
      engine: "lexical",
      localEmbeddings: false,
      scopes: { memoHome: home },
      recallCacheSize: 0,
    });
    // Side by side: alternate rounds so that the machine's noise falls on both alike.
    const ta: number[] = [];
    const tb: number[] = [];
    for (let round = 0; round < 4; round++) {
      const part = qs.filter((_, i) => i % 4 === round);
      if (round % 2) {
        tb.push(...await time(b, part));
        ta.push(...await time(a, part));
      } else {
        ta.push(...await time(a, part));
        tb.push(...await time(b, part));
      }
    }
    const same = (await a.recall("deploy staging", { limit: 10 })).map((h) => h.note.id).join();
    const sameB = (await b.recall("deploy staging", { limit: 10 })).map((h) => h.note.id).join();
    ta.sort((x, y) => x - y);
    tb.sort((x, y) => x - y);
    const p50a = percentile(ta, 0.5);
    const p50b = percentile(tb, 0.5);
    log(
      `${size} notes: one scope p50 ${p50a.toFixed(3)} ms p95 ${
        percentile(ta, 0.95).toFixed(3)
      }; ` +
        `three scopes p50 ${p50b.toFixed(3)} ms p95 ${percentile(tb, 0.95).toFixed(3)}; ` +
        `ratio ${(p50b / p50a).toFixed(2)}x (goal <= ${GOAL}x); same top 10: ${same === sameB}`,
    );
    rows.push({
      notes: size,
      oneP50: p50a,
      threeP50: p50b,
      ratio: p50b / p50a,
      goal: GOAL,
      sameTop10: same === sameB,
    });
    await a.close();
    await b.close();
    await Deno.remove(one, { recursive: true });
    await Deno.remove(three, { recursive: true });
  }
  log(`load ${loadAvg()}`);
  if (flags.json) await Deno.writeTextFile(flags.json, JSON.stringify({ rows }, null, 2) + "\n");
}

if (import.meta.main) await main();
