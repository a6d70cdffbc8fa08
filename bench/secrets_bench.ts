/**
 * The secrets guard's cost, measured side by side in one run:
 *
 * - `remember` p50 and p95 with the guard (`redact`, the default) against without it (`allow`),
 *   calls interleaved on two clients, over notes like an agent's (most hold no secret; 2 % do);
 * - a 50,000-record `memo import` (server-memory JSONL) with the guard against without it, three
 *   rounds in alternating order (the median of each), and the guard's own share (`guardDrafts`
 *   over the same 50,000 drafts, timed alone);
 * - `memo scan` over 100,000 notes (2 % holding a secret), and the `memory_stats` count after it.
 *
 * Goals: the guard costs at most 1.1× on `remember` and 1.15× on import.
 *
 * Usage: deno run -A bench/secrets_bench.ts [--remembers N] [--records N] [--notes N] [--json FILE]
 *
 * @module
 */

import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  contentHash,
  guardDrafts,
  type Note,
  NOTES_PREAMBLE,
  openMemo,
  serializeNote,
} from "@memo/memory";
import { runCli } from "../cli/main.ts";
import { recordingIO } from "../testing/cli_io.ts";
import { randomOf, secretCorpus } from "../testing/secrets_corpus.ts";
import { type CheckedGoal, checkGoals, percentile } from "./_report.ts";

function flag(name: string, fallback: number): number {
  const at = Deno.args.indexOf(`--${name}`);
  return at >= 0 ? Number(Deno.args[at + 1]) : fallback;
}
const REMEMBERS = flag("remembers", 2000);
const RECORDS = flag("records", 50_000);
const NOTES = flag("notes", 100_000);
const jsonAt = Deno.args.indexOf("--json");
const JSON_OUT = jsonAt >= 0 ? Deno.args[jsonAt + 1] : undefined;

const corpus = secretCorpus();
const WORDS = ("deploy release runbook on-call staging database migration rollback cache " +
  "token rotate vault service queue worker latency index backup restore alert page team " +
  "review decision convention build test lint ship monday friday because owner").split(" ");

/** A note like an agent's: prose, a path, a number; every 50th holds a secret. */
function noteText(i: number): string {
  const words = Array.from({ length: 40 }, (_, k) => WORDS[(i * 7 + k * 13) % WORDS.length]);
  const text = `${words.join(" ")}. See src/${WORDS[i % WORDS.length]}.ts line ${i % 400}.`;
  return i % 50 === 0 ? `${text}\n${corpus[i % corpus.length].text}` : text;
}

async function rememberBench(): Promise<Record<string, number>> {
  const dirs = [await Deno.makeTempDir(), await Deno.makeTempDir()];
  const options = { localEmbeddings: false, indexCache: false, engine: "lexical" } as const;
  const off = await openMemo({ rootDir: dirs[0], ...options, secrets: "allow" });
  const on = await openMemo({ rootDir: dirs[1], ...options, secrets: "redact" });
  // Warm both (the guard loads secretlint's rules at the first note that needs them).
  for (let i = 0; i < 100; i++) {
    await off.remember({ text: `warm ${i} ${noteText(i)}` });
    await on.remember({ text: `warm ${i} ${noteText(i)}` });
  }
  const times = { on: [] as number[], off: [] as number[] };
  for (let i = 0; i < REMEMBERS; i++) {
    const text = `${i} ${noteText(i + 1)}`;
    const order: ["on" | "off", typeof on][] = i % 2 ? [["on", on], ["off", off]] : [["off", off], [
      "on",
      on,
    ]];
    for (const [name, memo] of order) {
      const start = performance.now();
      await memo.remember({ text });
      times[name].push(performance.now() - start);
    }
  }
  await off.close();
  await on.close();
  for (const dir of dirs) await Deno.remove(dir, { recursive: true });
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const [on_, off_] = [sorted(times.on), sorted(times.off)];
  return {
    onP50: percentile(on_, 0.5),
    onP95: percentile(on_, 0.95),
    offP50: percentile(off_, 0.5),
    offP95: percentile(off_, 0.95),
  };
}

async function importBench(): Promise<Record<string, number>> {
  const work = await Deno.makeTempDir();
  const source = join(work, "memory.jsonl");
  const lines = Array.from({ length: RECORDS }, (_, i) =>
    JSON.stringify({
      type: "entity",
      name: `Entity ${i}`,
      entityType: WORDS[i % WORDS.length],
      observations: [noteText(i)],
    }));
  await writeFile(source, lines.join("\n") + "\n");
  const runs: Record<string, number[]> = { redact: [], allow: [] };
  for (let round = 0; round < 3; round++) {
    for (const policy of round % 2 ? ["allow", "redact"] : ["redact", "allow"]) {
      const dir = join(work, `${policy}-${round}`);
      await mkdir(join(dir, ".memo"), { recursive: true });
      const io = recordingIO(dir);
      const start = performance.now();
      const exit = await runCli(["import", source, "--secrets", policy, "--dir", dir], io);
      runs[policy].push(performance.now() - start);
      if (exit !== 0) throw new Error(`import failed: ${io.err.join("")}`);
    }
  }
  await Deno.remove(work, { recursive: true });
  const drafts = Array.from({ length: RECORDS }, (_, i) => ({
    text: `- ${noteText(i)}`,
    title: `Entity ${i}`,
    labels: [WORDS[i % WORDS.length]],
    source: `server-memory:Entity%20${i}`,
  }));
  const guardRuns: number[] = [];
  for (let round = 0; round < 3; round++) {
    const start = performance.now();
    await guardDrafts(drafts, "redact", "import");
    guardRuns.push(performance.now() - start);
  }
  const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { onMs: mid(runs.redact), offMs: mid(runs.allow), guardMs: mid(guardRuns) };
}

async function scanBench(): Promise<Record<string, number>> {
  const dir = await Deno.makeTempDir();
  await mkdir(join(dir, ".memo", "memory"), { recursive: true });
  const parts: string[] = [NOTES_PREAMBLE];
  for (let i = 0; i < NOTES; i++) {
    const note: Note = {
      id: `0${randomOf("0123456789abcdefghjkmnpqrstvwxyz", 19)}`,
      title: `Note ${i}`,
      body: i % 100 === 0
        ? `${noteText(i + 1)}\n${corpus[i % corpus.length].text}`
        : noteText(i + 1),
      labels: [WORDS[i % WORDS.length]],
      hash: "",
      created: "2026-01-01T00:00:00.000Z",
      updated: "2026-01-01T00:00:00.000Z",
    };
    note.hash = contentHash(note);
    parts.push(serializeNote(note));
  }
  await writeFile(join(dir, ".memo", "memory", "notes.md"), parts.join(""));
  const memo = await openMemo({ rootDir: dir, localEmbeddings: false, indexCache: false });
  let start = performance.now();
  const result = await memo.scanSecrets();
  const scanMs = performance.now() - start;
  start = performance.now();
  const stats = await memo.stats();
  const statsMs = performance.now() - start;
  start = performance.now();
  await memo.stats();
  const statsAgainMs = performance.now() - start;
  await memo.close();
  await Deno.remove(dir, { recursive: true });
  return {
    scanMs,
    findings: result.findings.length,
    statsMs,
    statsAgainMs,
    counted: stats.secrets?.findings ?? -1,
  };
}

const remember = await rememberBench();
const imported = await importBench();
const scan = await scanBench();
const rememberRatio = remember.onP50 / remember.offP50;
const importRatio = imported.onMs / imported.offMs;
const goals: CheckedGoal[] = checkGoals([
  {
    goal: "remember p50 with the guard ≤ 1.1× without",
    value: rememberRatio,
    atMost: 1.1,
    shown: (v) => `${v.toFixed(3)}×`,
  },
  {
    goal: `import of ${RECORDS} records with the guard ≤ 1.15× without`,
    value: importRatio,
    atMost: 1.15,
    shown: (v) => `${v.toFixed(3)}×`,
  },
]);
const ms = (v: number) => `${v.toFixed(3)} ms`;
console.log(`remember (${REMEMBERS} each, interleaved; 2 % hold a secret):`);
console.log(`  guard on  p50 ${ms(remember.onP50)}  p95 ${ms(remember.onP95)}`);
console.log(`  guard off p50 ${ms(remember.offP50)}  p95 ${ms(remember.offP95)}`);
console.log(
  `  ratio p50 ${rememberRatio.toFixed(3)}×, p95 ${(remember.onP95 / remember.offP95).toFixed(3)}×`,
);
console.log(`import of ${RECORDS} records (median of 3, alternating):`);
console.log(
  `  guard on ${(imported.onMs / 1000).toFixed(2)} s, off ${
    (imported.offMs / 1000).toFixed(2)
  } s, ratio ${importRatio.toFixed(3)}×`,
);
console.log(
  `  the guard alone over the ${RECORDS} drafts: ${(imported.guardMs / 1000).toFixed(2)} s (${
    (imported.guardMs / imported.offMs * 100).toFixed(1)
  } % of the import without it)`,
);
console.log(`memo scan over ${NOTES} notes (2 % hold a secret):`);
console.log(
  `  ${
    (scan.scanMs / 1000).toFixed(2)
  } s, ${scan.findings} findings; stats count ${scan.counted} in ${ms(scan.statsMs)} (again: ${
    ms(scan.statsAgainMs)
  }, cached)`,
);
for (const g of goals) console.log(`goal: ${g.goal}: ${g.measured} (met: ${g.met})`);
if (JSON_OUT) {
  await writeFile(JSON_OUT, JSON.stringify({ remember, import: imported, scan, goals }, null, 2));
}
