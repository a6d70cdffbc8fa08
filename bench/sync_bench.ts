/**
 * Connector sync benchmark: 10,000 Notion pages (400 answers of 25, each
 * page with content) from the fake Notion API into a `notes.md` that already
 * holds 100,000 notes.
 *
 * Per round, on a fresh copy of the 100,000-note project:
 *
 * 1. fetching alone: `WorkspaceConnector.pull()` of every page and its
 *    content, nothing committed (the baseline; measured first and last in the
 *    round, the faster of the two counts, which is the stricter baseline);
 * 2. the first pass: `runConnectors` (fetch, then one commit); the share
 *    spent committing and the bytes written. The commit is split into the
 *    store's `commit()` (dedupe, serialize, append, fsync) and the rest (the
 *    `Memo` client bringing its index up to date), and its CPU time is given
 *    too (steadier than wall time on a busy machine: the fake server runs in
 *    another process);
 * 3. a full re-run with nothing changed (`full: true`, reads everything
 *    again): bytes written (goal 0) and time against fetching alone (goal
 *    ≤ 1.2×);
 * 4. an incremental re-run with nothing changed (the default, from the
 *    stored state).
 *
 * The fake server runs in its own process (this script with `--serve`), so
 * that serving does not share the event loop with the sync it measures. It
 * answers at loopback speed (about 0.3 ms a request here); `--latency MS`
 * adds a delay to each answer, as a real network would (Notion itself also
 * allows only about 3 requests a second).
 *
 * Run: deno run -A --lock=deno.dev.lock bench/sync_bench.ts [--pages 10000] [--notes 100000] [--rounds 3] [--latency 0] [--json out.json]
 *
 * @module
 */

import { cp, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { cpuUsage } from "node:process";
import { FileMemoryStore, type NoteDraft, openMemo } from "@memo/memory";
import {
  type ConnectorProgress,
  FileConnectorState,
  runConnectors,
  WorkspaceConnector,
} from "../connectors/mod.ts";
import { startFakeNotion } from "../tests/connectors_fake_notion.ts";
import {
  type BlockObjectResponse,
  blocks,
  page,
  type PageObjectResponse,
  text,
} from "../tests/fixtures/notion/objects.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    pages: { type: "string", default: "10000" },
    notes: { type: "string", default: "100000" },
    rounds: { type: "string", default: "3" },
    latency: { type: "string", default: "0" },
    json: { type: "string" },
    serve: { type: "boolean", default: false },
  },
});
const PAGES = Number(flags.pages);
const NOTES = Number(flags.notes);
const ROUNDS = Number(flags.rounds);
const LATENCY = Number(flags.latency);
const TOKEN = "ntn_BENCHtoken000000000000000000000000000";
const DATABASE_ID = "0f8fad5b-d9cb-469f-a165-70867728950e";

/** A uuid-shaped id from a number. */
function uuid(prefix: string, n: number): string {
  const hex = n.toString(16).padStart(12, "0");
  return `${prefix}-0000-4000-8000-${hex}`;
}

/** The fake server: PAGES pages in one database, six content blocks each. */
function serveFake(): void {
  const pages: PageObjectResponse[] = [];
  const children = new Map<string, BlockObjectResponse[]>();
  const words = [
    "deploy",
    "staging",
    "rollback",
    "incident",
    "review",
    "budget",
    "roadmap",
    "oncall",
  ];
  for (let i = 0; i < PAGES; i++) {
    const id = uuid("5a000000", i);
    const minute = String(i % 60).padStart(2, "0");
    const hour = String(Math.floor(i / 60) % 24).padStart(2, "0");
    const day = String(1 + Math.floor(i / 1440) % 28).padStart(2, "0");
    pages.push(page({
      id,
      title: `Page ${i}: ${words[i % words.length]} notes`,
      created: "2024-01-01T00:00:00.000Z",
      edited: `2024-05-${day}T${hour}:${minute}:00.000Z`,
      databaseId: DATABASE_ID,
      status: i % 3 ? "Done" : "Draft",
      tags: [words[i % words.length], words[(i * 7) % words.length]],
    }));
    const b = (k: number) => uuid(`b${String(k).padStart(7, "0")}`, i);
    children.set(id, [
      blocks.heading(b(1), id, 2, [text(`Summary of page ${i}`)]),
      blocks.paragraph(b(2), id, [
        text(`The ${words[i % 8]} process for team ${i % 17} changed on day ${i % 28}. `),
        text("Read the runbook", { bold: true }),
        text(" before you start."),
      ]),
      blocks.bullet(b(3), id, [text(`Owner: person ${i % 101}`)]),
      blocks.bullet(b(4), id, [text(`Window: ${i % 24}:00 UTC`)]),
      blocks.code(b(5), id, `make ${words[i % 8]} TARGET=env-${i % 5}`, "bash"),
      blocks.paragraph(b(6), id, [text(`Follow-up in ${words[(i + 3) % 8]} review.`)]),
    ]);
  }
  const fake = startFakeNotion(
    { databases: new Map([[DATABASE_ID, pages]]), searchable: [], children },
    { token: TOKEN, listPageSize: 25, quiet: true, latencyMs: LATENCY },
  );
  console.log(fake.url);
}

if (flags.serve) {
  serveFake();
} else {
  await main();
}

interface Round {
  fetchAloneMs: number;
  firstPassMs: number;
  commitMs: number;
  storeCommitMs: number;
  indexUpdateMs: number;
  commitCpuMs: number;
  commitShare: number;
  bytesWritten: number;
  written: number;
  fullRerunMs: number;
  fullRerunBytes: number;
  fullRerunCommitMs: number;
  fullRerunVsFetch: number;
  incrementalRerunMs: number;
  incrementalRerunBytes: number;
}

async function main(): Promise<void> {
  const server = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `--lock=${new URL("../deno.dev.lock", import.meta.url).pathname}`,
      new URL(import.meta.url).pathname,
      "--serve",
      "--pages",
      String(PAGES),
      "--latency",
      String(LATENCY),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let url = "";
  while (!url.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("Cannot start the fake Notion server");
    url += value;
  }
  url = url.trim();
  try {
    const base = await Deno.makeTempDir({ prefix: "memo-sync-bench-" });
    let started = performance.now();
    await prefill(base);
    const notesSize = (await stat(join(base, ".memo", "memory", "notes.md"))).size;
    console.error(
      `prefilled ${NOTES} notes (${(notesSize / 1e6).toFixed(1)} MB) in ${
        ((performance.now() - started) / 1000).toFixed(1)
      } s`,
    );
    const rounds: Round[] = [];
    for (let r = 1; r <= ROUNDS; r++) {
      const dir = await Deno.makeTempDir({ prefix: "memo-sync-bench-round-" });
      await cp(join(base, ".memo"), join(dir, ".memo"), { recursive: true });
      started = performance.now();
      const store = new FileMemoryStore({ rootDir: dir });
      const commit = store.commit.bind(store);
      let storeCommitMs = 0;
      store.commit = async (...a) => {
        const t0 = performance.now();
        try {
          return await commit(...a);
        } finally {
          storeCommitMs = performance.now() - t0;
        }
      };
      const memo = await openMemo({ store });
      const openMs = performance.now() - started;
      const connector = () =>
        new WorkspaceConnector({ token: TOKEN, apiUrl: url, databaseId: DATABASE_ID });
      const state = new FileConnectorState(join(dir, ".memo", "connectors", "state.json"));

      const fetchAlone = async () => {
        const t0 = performance.now();
        const fetched = await connector().pull({});
        if (fetched.length !== PAGES) throw new Error(`fetched ${fetched.length} pages`);
        return performance.now() - t0;
      };
      const fetchBefore = await fetchAlone();

      const first = await timedRun((on) =>
        runConnectors([connector()], memo, { state, onProgress: on })
      );
      const firstStoreCommitMs = storeCommitMs;
      const full = await timedRun((on) =>
        runConnectors([connector()], memo, { state, full: true, onProgress: on })
      );
      const incremental = await timedRun((on) =>
        runConnectors([connector()], memo, { state, onProgress: on })
      );
      const fetchAloneMs = Math.min(fetchBefore, await fetchAlone());
      await memo.close();
      const round: Round = {
        fetchAloneMs,
        firstPassMs: first.ms,
        commitMs: first.commitMs,
        storeCommitMs: firstStoreCommitMs,
        indexUpdateMs: first.commitMs - firstStoreCommitMs,
        commitCpuMs: first.commitCpuMs,
        commitShare: first.commitMs / first.ms,
        bytesWritten: first.bytes,
        written: first.written,
        fullRerunMs: full.ms,
        fullRerunBytes: full.bytes,
        fullRerunCommitMs: full.commitMs,
        fullRerunVsFetch: full.ms / fetchAloneMs,
        incrementalRerunMs: incremental.ms,
        incrementalRerunBytes: incremental.bytes,
      };
      rounds.push(round);
      console.error(
        `round ${r}: open ${ms(openMs)}, fetch alone ${ms(fetchAloneMs)}, first pass ${
          ms(first.ms)
        } (commit ${ms(first.commitMs)}: store ${ms(round.storeCommitMs)} + index ${
          ms(round.indexUpdateMs)
        }, cpu ${ms(round.commitCpuMs)}, ${
          pct(round.commitShare)
        }, ${first.bytes} bytes, ${first.written} written), ` +
          `full re-run ${ms(full.ms)} (commit ${ms(full.commitMs)}, ${full.bytes} bytes, ${
            round.fullRerunVsFetch.toFixed(2)
          }× fetch), ` +
          `incremental re-run ${ms(incremental.ms)} (${incremental.bytes} bytes)`,
      );
      await Deno.remove(dir, { recursive: true });
    }
    await Deno.remove(base, { recursive: true });
    const median = (pick: (r: Round) => number) => {
      const v = rounds.map(pick).sort((a, b) => a - b);
      return v[Math.floor(v.length / 2)];
    };
    const summary = {
      pages: PAGES,
      existingNotes: NOTES,
      latencyMs: LATENCY,
      rounds: ROUNDS,
      median: {
        fetchAloneMs: Math.round(median((r) => r.fetchAloneMs)),
        firstPassMs: Math.round(median((r) => r.firstPassMs)),
        commitMs: Math.round(median((r) => r.commitMs)),
        storeCommitMs: Math.round(median((r) => r.storeCommitMs)),
        indexUpdateMs: Math.round(median((r) => r.indexUpdateMs)),
        commitCpuMs: Math.round(median((r) => r.commitCpuMs)),
        commitShare: Number(median((r) => r.commitShare).toFixed(4)),
        bytesWritten: median((r) => r.bytesWritten),
        fullRerunMs: Math.round(median((r) => r.fullRerunMs)),
        fullRerunBytes: median((r) => r.fullRerunBytes),
        fullRerunCommitMs: Math.round(median((r) => r.fullRerunCommitMs)),
        fullRerunVsFetch: Number(median((r) => r.fullRerunVsFetch).toFixed(3)),
        incrementalRerunMs: Math.round(median((r) => r.incrementalRerunMs)),
        incrementalRerunBytes: median((r) => r.incrementalRerunBytes),
      },
      goals: {
        commitShareAtMost10Percent: rounds.every((r) => r.commitShare <= 0.1),
        unchangedRerunWritesZeroBytes: rounds.every((r) =>
          r.fullRerunBytes === 0 && r.incrementalRerunBytes === 0
        ),
        unchangedRerunAtMost1_2xFetch: median((r) => r.fullRerunVsFetch) <= 1.2,
      },
      all: rounds,
    };
    console.log(JSON.stringify(summary, null, 2));
    if (flags.json) await writeFile(flags.json, JSON.stringify(summary, null, 2) + "\n");
  } finally {
    server.kill("SIGTERM");
    await server.status;
  }
}

/** Runs a sync, timing it and its commit (from the `committing` to the `committed` event). */
async function timedRun(
  run: (onProgress: (p: ConnectorProgress) => void) => Promise<{ errors: unknown[] }>,
) {
  const t = { ms: 0, commitMs: 0, commitCpuMs: 0, bytes: 0, written: 0 };
  let committing = 0;
  let cpu = 0;
  const cpuMs = () => {
    const u = cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const on = (p: ConnectorProgress) => {
    if (p.phase === "committing") {
      committing = performance.now();
      cpu = cpuMs();
    }
    if (p.phase === "committed") {
      t.commitMs = performance.now() - committing;
      t.commitCpuMs = cpuMs() - cpu;
      t.bytes = p.bytesWritten ?? 0;
      t.written = p.written ?? 0;
    }
  };
  const started = performance.now();
  const result = await run(on);
  t.ms = performance.now() - started;
  if (result.errors.length) throw new Error(JSON.stringify(result.errors));
  return t;
}

/** Writes NOTES notes through the store, in one commit. */
async function prefill(rootDir: string): Promise<void> {
  const memo = await openMemo({ store: new FileMemoryStore({ rootDir }) });
  const drafts: NoteDraft[] = [];
  const topics = ["deploy", "database", "oncall", "budget", "design", "hiring", "security"];
  for (let i = 0; i < NOTES; i++) {
    drafts.push({
      text: `Note ${i} about ${topics[i % topics.length]}: the ${
        topics[(i * 3) % topics.length]
      } team agreed on item ${i % 997} and will revisit it in week ${i % 52}.`,
      labels: [topics[i % topics.length]],
      source: `bench:note/${i}`,
      created: "2024-01-01T00:00:00.000Z",
      updated: "2024-01-01T00:00:00.000Z",
    });
  }
  await memo.rememberMany(drafts);
  await memo.close();
}

function ms(v: number): string {
  return v >= 10_000 ? `${(v / 1000).toFixed(1)} s` : `${Math.round(v)} ms`;
}

function pct(v: number): string {
  return `${(v * 100).toFixed(1)}%`;
}
