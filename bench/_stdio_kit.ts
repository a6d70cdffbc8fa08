/**
 * What the stdio benchmarks share (`bench/stdio_bench.ts`, the session era,
 * `bench/stdio_stateless.ts`, MCP 2026-07-28, and `bench/start_bench.ts`, the
 * cold start A/B): the dense corpus of notes, its seeding and its queries, and
 * the cold start's definition (spawn to the `initialize` result, through the
 * SDK's client).
 *
 * @module
 */

// deno-lint-ignore no-import-prefix -- test-only, pinned
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";

/** A stdio server process to start: its command, arguments, folder and extra variables. */
export interface StdioCommand {
  command: string;
  args: string[];
  cwd: string;
  env?: Record<string, string>;
}

/**
 * Starts a stdio MCP server and connects the SDK's `Client` to it (`initialize`, then
 * `notifications/initialized`): the cold start of the stdio benchmarks is `ms`, from the spawn
 * to the `initialize` result; `pid` is the server's process. The caller closes the client (which
 * ends the process).
 */
export async function timedConnect(
  target: StdioCommand,
): Promise<{ client: Client; ms: number; pid: number | null }> {
  const transport = new StdioClientTransport({
    command: target.command,
    args: target.args,
    cwd: target.cwd,
    stderr: "ignore",
    ...(target.env ? { env: { ...Deno.env.toObject(), ...target.env } } : {}),
  });
  const client = new Client({ name: "stdio-bench", version: "1.0.0" });
  const started = performance.now();
  await client.connect(transport);
  return { client, ms: performance.now() - started, pid: transport.pid };
}

/**
 * The notes' vocabulary: 48 words, so that every query word is in most notes (a dense corpus,
 * the worst case for BM25: each recall scores most of the 10,000 notes).
 */
export const VOCABULARY: readonly string[] = (
  "deploy staging database migration cache redis postgres kafka queue worker cron backup " +
  "restore rollback feature flag rollout canary latency incident outage pager runbook " +
  "terraform kubernetes helm ingress certificate dns secret vault token rotation audit " +
  "billing invoice customer onboarding churn pricing roadmap sprint retro design review"
).split(" ");

/** The repeated queries: a call's query is `QUERIES[i % 8]`. */
export const QUERIES: readonly string[] = [
  "staging database migration",
  "redis cache latency",
  "kubernetes helm rollout",
  "incident pager runbook",
  "billing invoice customer",
  "token rotation vault audit",
  "canary feature flag",
  "backup restore postgres",
];

/**
 * Three vocabulary words picked by `i`: a different query for every call of a run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { freshQuery } from "./_stdio_kit.ts";
 *
 * const queries = new Set(Array.from({ length: 1000 }, (_, i) => freshQuery(i)));
 * assert.equal(queries.size, 1000);
 * ```
 */
export function freshQuery(i: number): string {
  const n = VOCABULARY.length;
  return [VOCABULARY[i % n], VOCABULARY[Math.floor(i / n) % n], VOCABULARY[(i * 7 + 3) % n]]
    .join(" ");
}

/** A new temporary project of `notes` notes of 40 vocabulary words each (none when 0). */
export async function seedProject(notes: number): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "memo-stdio-bench-" });
  if (notes === 0) return dir;
  const { openMemo } = await import("../memory/mod.ts");
  const memo = await openMemo({ rootDir: dir });
  const words = VOCABULARY;
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const drafts = [];
  for (let i = 0; i < notes; i++) {
    const body = Array.from({ length: 40 }, () => words[Math.floor(rand() * words.length)])
      .join(" ");
    drafts.push({ text: `Note ${i}: ${body}.`, title: `note ${i}`, labels: [`topic-${i % 20}`] });
  }
  await memo.rememberMany(drafts);
  await memo.close();
  return dir;
}
