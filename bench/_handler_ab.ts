/**
 * Two trees' code side by side in one process, for a comparison that holds on
 * a busy machine (where loads over HTTP taken a few seconds apart move by 2×):
 *
 * - `handlerAb`: each tree's `createHttpHandler` over its own protocol server,
 *   both on the same kind of in-memory runtime
 *   (tests/fixtures/mcp_fake_runtime.ts), sent the same requests, from the
 *   request to the last byte of the answer (HTTP parsing and sockets aside,
 *   which both trees leave to the same server);
 * - `responseStepAb`: the one step of a small answer's path that the gzip
 *   change touched, alone (building the `Response` from the answer's JSON).
 *
 * Both run the two sides in alternating batches of a few milliseconds, each
 * timed in CPU time of this process (`process.cpuUsage()`, so that waiting for
 * a core does not count), and read each side's fastest tenth of batches:
 * other processes only ever slow a batch down (a busy sibling hyperthread, a
 * cold cache), so the fastest batches are the code's own cost.
 * bench/http_gzip.ts runs them beside its wrk loads.
 *
 * @module
 */

import process from "node:process";
import { median, percentile } from "./_report.ts";
import { createFakeRuntime } from "../tests/fixtures/mcp_fake_runtime.ts";

/** What one side's batches took, per operation. */
export interface AbSide {
  /** The fastest tenth of the batches (10th percentile), per operation. */
  fast: number;
  /** The median batch, per operation. */
  median: number;
}

/** What an A/B found for one workload. */
export interface AbResult {
  key: string;
  label: string;
  /** This tree's and the other's CPU µs per operation. */
  memo: AbSide;
  base: AbSide;
  /** base ÷ memo of the fastest tenths: memo's throughput over base's. */
  ratio: number;
}

/** Times `op` `perBatch` times in CPU µs per operation. */
async function batch(op: () => unknown, perBatch: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < perBatch; i++) await op();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / perBatch;
}

/**
 * `batches` batches of each side in turn, the order flipping every pair,
 * after a warm-up of a quarter as many.
 */
async function alternate(
  key: string,
  label: string,
  memoOp: () => unknown,
  baseOp: () => unknown,
  batches: number,
  perBatch: number,
): Promise<AbResult> {
  for (let i = 0; i < batches / 4; i++) {
    await batch(memoOp, perBatch), await batch(baseOp, perBatch);
  }
  const memo: number[] = [];
  const base: number[] = [];
  for (let b = 0; b < batches; b++) {
    if (b % 2 === 0) {
      memo.push(await batch(memoOp, perBatch)), base.push(await batch(baseOp, perBatch));
    } else base.push(await batch(baseOp, perBatch)), memo.push(await batch(memoOp, perBatch));
  }
  const side = (xs: number[]): AbSide => ({
    fast: percentile([...xs].sort((a, b) => a - b), 0.1),
    median: median(xs),
  });
  const m = side(memo);
  const b = side(base);
  return { key, label, memo: m, base: b, ratio: b.fast / m.fast };
}

/** One request of the handler A/B. */
export interface AbRequest {
  key: string;
  label: string;
  headers: Record<string, string>;
  /** The body; `{id}` is replaced by the id of a short note of the runtime. */
  body: string;
}

type Handler = (request: Request) => Promise<Response>;

/** The handler of the tree at `root` (a path ending with `/`) on a fake runtime of `notes` notes. */
async function handlerOf(
  root: string,
  notes: number,
): Promise<{ handle: Handler; shortId: string }> {
  const { createHttpHandler } = await import(`file://${root}server/http/handler.ts`);
  const { createMemoMcpProtocolServer } = await import(`file://${root}server/protocol_server.ts`);
  const runtime = createFakeRuntime(notes);
  const server = createMemoMcpProtocolServer({ runtime });
  const handle = createHttpHandler(
    { allowedOrigins: [], auth: {}, maxInputBytes: 256_000 },
    () => server,
  ) as Handler;
  return { handle, shortId: runtime.notes.keys().next().value! };
}

/** `requests` against the handlers of `memoRoot` and `baseRoot`, CPU µs per request. */
export async function handlerAb(
  memoRoot: string,
  baseRoot: string,
  requests: readonly AbRequest[],
  { batches = 60, perBatch = 300, notes = 50 } = {},
): Promise<AbResult[]> {
  const memo = await handlerOf(memoRoot, notes);
  const base = await handlerOf(baseRoot, notes);
  const op = (side: typeof memo, r: AbRequest) => {
    const body = r.body.replace("{id}", side.shortId);
    return async () => {
      const res = await side.handle(
        new Request("http://127.0.0.1:8787/mcp", { method: "POST", headers: r.headers, body }),
      );
      if (res.status !== 200) throw new Error(`${r.key}: HTTP ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    };
  };
  const results: AbResult[] = [];
  for (const r of requests) {
    results.push(
      await alternate(r.key, r.label, op(memo, r), op(base, r), batches, perBatch),
    );
  }
  return results;
}

/** One answer of the step A/B: its JSON and the request headers it answers. */
export interface StepAnswer {
  key: string;
  label: string;
  json: string;
  headers: Record<string, string>;
}

/**
 * The Response built from each answer's JSON: this tree's `answerResponse`
 * (which also decides on gzip) against the other tree's `rpcResponse`, CPU
 * µs per answer. What it adds, over what a whole request costs, bounds what
 * the change can take from small answers' throughput.
 */
export async function responseStepAb(
  memoRoot: string,
  baseRoot: string,
  answers: readonly StepAnswer[],
  { batches = 60, perBatch = 5_000 } = {},
): Promise<AbResult[]> {
  const { answerResponse } = await import(`file://${memoRoot}server/http/responses.ts`);
  const { rpcResponse } = await import(`file://${baseRoot}server/http/responses.ts`);
  const results: AbResult[] = [];
  for (const a of answers) {
    const headers = new Headers(a.headers);
    results.push(
      await alternate(
        a.key,
        a.label,
        () => answerResponse(a.json, "json", null, 200, headers),
        () => rpcResponse(a.json, "json", null, 200),
        batches,
        perBatch,
      ),
    );
  }
  return results;
}
