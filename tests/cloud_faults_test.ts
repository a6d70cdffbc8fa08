/**
 * Fault injection between the cloud runtime and the reference server: the
 * runtime → `tests/_fault_proxy.ts` (loopback) → the Cloud API handler over a
 * file store, served in process. The server down, 429 with `Retry-After`,
 * 500s, an answer slower than `timeoutMs` and a connection reset
 * mid-response: retries, timeouts and errors behave as documented, a retried
 * write carries its first `Idempotency-Key` and lands once, and the API key
 * appears in no error, answer or log line.
 *
 * Each fault happens on an event, never on a clock: the server comes back
 * when the first attempt has been refused, and a slow answer is held until
 * the client has given up on it. Timeouts are generous wherever an answer is
 * expected, so that a loaded machine answers in time.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createMemoCloudHandler } from "../cloud/app.ts";
import { FileCloudStore } from "../cloud/file/store.ts";
import type { CloudChange } from "../cloud/store.ts";
import { createMemoCloudMcpRuntime } from "../runtimes/cloud/runtime.ts";
import { isMemoRuntimeError } from "../runtimes/errors.ts";
import type { MemoMcpRuntime } from "../runtimes/types.ts";
import { type FaultProxy, startFaultProxy } from "./_fault_proxy.ts";

const KEY = "mk_FAULTS_team_key_3c8e1f0a77";
/** Time an attempt may take where an answer is expected: a loaded machine answers within it. */
const TIMEOUT_MS = 10_000;
/** Time an attempt may take where a held answer must time out, and the replay must not. */
const SHORT_TIMEOUT_MS = 2_000;
const MAX_RETRIES = 3;
const BACKOFF_MS = 40;

/** What the runtime sent and got back, attempt by attempt. */
interface Attempt {
  method: string;
  path: string;
  idempotencyKey: string | null;
  /** The status, or the failure's name. */
  outcome: number | string;
  /** `Idempotent-Replayed` of the answer. */
  replayed: boolean;
}

/** What the server answered, as the proxy received it. */
interface Answer {
  method: string;
  path: string;
  status: number;
  headers: string;
  body: string;
  replayed: boolean;
}

Deno.test("the cloud runtime through a fault-injecting proxy", async (t) => {
  const dataDir = await Deno.makeTempDir({ prefix: "memo-cloud-faults-" });
  const store = new FileCloudStore({ dataDir });
  const logLines: string[] = [];
  const handler = createMemoCloudHandler({
    store,
    apiKeys: new Map([[KEY, "team"]]),
    rateLimit: 0,
    log: (line) => void logLines.push(line),
  });
  const answers: Answer[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const url = new URL(request.url);
    const response = await handler(request);
    const body = await response.clone().text();
    answers.push({
      method: request.method,
      path: url.pathname,
      status: response.status,
      headers: JSON.stringify([...response.headers]),
      body,
      replayed: response.headers.get("idempotent-replayed") === "true",
    });
    return response;
  });
  const proxy: FaultProxy = await startFaultProxy(`http://127.0.0.1:${server.addr.port}`);
  const runtimes: MemoMcpRuntime[] = [];
  const errors: unknown[] = [];

  /** A runtime through the proxy for its own project, its workspace check done. */
  async function runtimeFor(
    projectId: string,
    options: {
      timeoutMs?: number;
      maxRetries?: number;
      /** Called when an attempt fails (refused, reset or timed out), before the backoff. */
      onFailure?: (attempt: Attempt) => void;
      /** The workspace, known: no `whoami` before the first call. */
      workspaceId?: string;
      /**
       * Makes a first call before returning (the workspace check and a read).
       * @default true
       */
      warm?: boolean;
    } = {},
  ) {
    const attempts: Attempt[] = [];
    const runtime = createMemoCloudMcpRuntime({
      baseUrl: proxy.origin,
      apiKey: KEY,
      projectId,
      workspaceId: options.workspaceId,
      timeoutMs: options.timeoutMs ?? TIMEOUT_MS,
      retry: { maxRetries: options.maxRetries ?? MAX_RETRIES, backoffMs: BACKOFF_MS },
      fetch: async (input, init) => {
        const request = new Request(input, init);
        const attempt: Attempt = {
          method: request.method,
          path: new URL(request.url).pathname,
          idempotencyKey: request.headers.get("idempotency-key"),
          outcome: "pending",
          replayed: false,
        };
        attempts.push(attempt);
        try {
          const response = await fetch(request);
          attempt.outcome = response.status;
          attempt.replayed = response.headers.get("idempotent-replayed") === "true";
          return response;
        } catch (e) {
          attempt.outcome = request.signal.aborted ? "aborted" : "failed";
          // A held answer whose client gave up: let the proxy's handler finish.
          if (request.signal.aborted) proxy.release();
          options.onFailure?.(attempt);
          throw e;
        }
      },
    });
    runtimes.push(runtime);
    if (options.warm !== false) {
      await runtime.stats(); // whoami and a first read, before any fault is queued
      attempts.length = 0;
    }
    const project = await store.project("team", projectId);
    return {
      runtime,
      attempts,
      /** The attempts of one method. */
      sent: (method: string) => attempts.filter((a) => a.method === method),
      /**
       * The project as the server's store has it: its notes, its feed (the file store keeps
       * each note's latest change) and `head`, the number of changes ever made.
       */
      async stored() {
        const { notes } = await project.list({ limit: 100 });
        const { changes } = await project.changes(0, 1000);
        return { notes, changes, head: (await project.stats()).revision };
      },
    };
  }

  /** Runs `call`, expecting a failure; keeps it for the secret check. */
  async function failure(call: Promise<unknown>): Promise<Error & { code?: string }> {
    const e = await call.then(() => assert.fail("the call succeeded"), (e) => e);
    errors.push(e);
    return e;
  }

  const ops = (changes: CloudChange[]) => changes.map((c) => `${c.op} ${c.id}`);

  try {
    await t.step("the server down: UNAVAILABLE after the retries, nothing written", async () => {
      const { runtime, attempts, stored } = await runtimeFor("down");
      await proxy.down();
      try {
        const started = performance.now();
        const e = await failure(runtime.remember({ text: "Written while the server is down" }));
        assert.ok(isMemoRuntimeError(e, "UNAVAILABLE"), String(e));
        assert.match(
          e.message,
          /^Cannot reach the Memo Cloud API at http:\/\/127\.0\.0\.1:\d+: connection refused \(4 attempts\)$/,
        );
        assert.equal(attempts.length, 1 + MAX_RETRIES);
        assert.equal(new Set(attempts.map((a) => a.idempotencyKey)).size, 1, "one key");
        // Three backoffs of at least half of 40, 80 and 160 ms.
        assert.ok(performance.now() - started >= (BACKOFF_MS * 7) / 2 - 5);
      } finally {
        proxy.up();
      }
      assert.deepEqual(await stored(), { notes: [], changes: [], head: 0 });
    });

    await t.step("the server back during the backoff: the call succeeds", async () => {
      // The server comes back once the first attempt has been refused, before the retry.
      const { runtime, attempts, stored } = await runtimeFor("back", {
        onFailure: () => proxy.up(),
      });
      await proxy.down();
      const result = await runtime.remember({ text: "Written as the server comes back" });
      assert.equal(result.status, "written");
      assert.deepEqual(attempts.map((a) => a.outcome), ["failed", 201], "refused, then written");
      assert.equal(new Set(attempts.map((a) => a.idempotencyKey)).size, 1);
      const { notes, changes, head } = await stored();
      assert.deepEqual(notes.map((n) => n.id), [result.note.id]);
      assert.deepEqual(ops(changes), [`upsert ${result.note.id}`]);
      assert.equal(head, 1, "one change in all");
    });

    await t.step("429 with Retry-After: 1: waits a second, retries with the same key", async () => {
      const { runtime, sent, stored } = await runtimeFor("limited");
      proxy.inject({
        kind: "status",
        status: 429,
        headers: { "retry-after": "1" },
        body: JSON.stringify({ error: { code: "rate_limited", message: "Too many requests" } }),
      });
      const seen = proxy.requests.length;
      const started = performance.now();
      const result = await runtime.remember({ text: "Written after a rate limit" });
      const elapsed = performance.now() - started;
      assert.equal(result.status, "written");
      assert.ok(elapsed >= 980, `waited ${elapsed} ms`);
      // A second, not a backoff of its own or a minute: the bound leaves a loaded machine slack.
      assert.ok(elapsed < 8000, `waited ${elapsed} ms`);
      const posts = proxy.requests.slice(seen).filter((r) => r.method === "POST");
      assert.deepEqual(posts.map((r) => r.outcome), ["status", "forward"]);
      assert.ok(posts[1].at - posts[0].at >= 980);
      assert.ok(posts[0].idempotencyKey);
      assert.equal(posts[1].idempotencyKey, posts[0].idempotencyKey, "the same Idempotency-Key");
      assert.deepEqual(sent("POST").map((a) => a.outcome), [429, 201]);
      const { notes, changes, head } = await stored();
      assert.deepEqual(notes.map((n) => n.id), [result.note.id]);
      assert.equal(changes.length, 1);
      assert.equal(head, 1, "one change in all");
    });

    await t.step(
      "500s: retried up to maxRetries, then UNAVAILABLE; fewer 500s succeed",
      async () => {
        const { runtime, sent, stored } = await runtimeFor("errors");
        const fiveHundred = { kind: "status", status: 500 } as const;
        proxy.inject(...Array(1 + MAX_RETRIES).fill(fiveHundred));
        const e = await failure(runtime.remember({ text: "Never lands" }));
        assert.ok(isMemoRuntimeError(e, "UNAVAILABLE"), String(e));
        assert.equal(e.message, "Cannot remember the note: injected 500 (500, 4 attempts)");
        assert.deepEqual(sent("POST").map((a) => a.outcome), [500, 500, 500, 500]);
        assert.equal(new Set(sent("POST").map((a) => a.idempotencyKey)).size, 1);
        assert.deepEqual(await stored(), { notes: [], changes: [], head: 0 });

        proxy.inject(...Array(MAX_RETRIES).fill(fiveHundred));
        const result = await runtime.remember({ text: "Lands on the last attempt" });
        assert.equal(result.status, "written");
        const posts = sent("POST").slice(4);
        assert.deepEqual(posts.map((a) => a.outcome), [500, 500, 500, 201]);
        assert.equal(new Set(posts.map((a) => a.idempotencyKey)).size, 1);
        assert.notEqual(posts[0].idempotencyKey, sent("POST")[0].idempotencyKey, "a new write");
        const { notes, changes, head } = await stored();
        assert.deepEqual(notes.map((n) => n.body), ["Lands on the last attempt"]);
        assert.equal(changes.length, 1);
        assert.equal(head, 1, "one change in all");

        // Reads are retried the same way.
        proxy.inject(fiveHundred, fiveHundred);
        assert.equal((await runtime.stats()).notes, 1);
      },
    );

    await t.step(
      "an answer slower than timeoutMs: the retry is replayed, the note stored once",
      async () => {
        // The held answer times out; the replay must not, on a loaded machine too.
        const { runtime, sent, stored } = await runtimeFor("slow", {
          timeoutMs: SHORT_TIMEOUT_MS,
        });
        proxy.inject({ kind: "hold" });
        const result = await runtime.remember({ text: "Written once despite a slow answer" });
        assert.equal(result.status, "written", "the first answer, replayed");
        const posts = sent("POST");
        assert.equal(posts.length, 2);
        assert.equal(posts[0].outcome, "aborted", "the first attempt timed out");
        assert.deepEqual([posts[1].outcome, posts[1].replayed], [201, true]);
        assert.equal(posts[1].idempotencyKey, posts[0].idempotencyKey);
        let { notes, changes, head } = await stored();
        assert.deepEqual(notes.map((n) => n.id), [result.note.id]);
        assert.deepEqual(notes[0].body, "Written once despite a slow answer");
        assert.deepEqual(ops(changes), [`upsert ${result.note.id}`]);
        assert.equal(head, 1, "one change in all");

        // An update too: the revision moves once.
        proxy.inject({ kind: "hold" });
        const updated = await runtime.update(result.note.id, { labels: ["slow"] });
        assert.deepEqual(updated.labels, ["slow"]);
        assert.deepEqual(sent("PATCH").map((a) => [a.outcome, a.replayed]), [
          ["aborted", false],
          [200, true],
        ]);
        ({ notes, changes, head } = await stored());
        assert.equal(head, 2, "the update is one change");
        assert.deepEqual(notes[0].labels, ["slow"]);
        assert.equal(notes[0].revision, 2);
        assert.deepEqual(changes.map((c) => [c.op, c.id, c.seq]), [["upsert", result.note.id, 2]]);

        // A read slower than every attempt: UNAVAILABLE, saying it timed out.
        // Its workspace is known, so the held list is its first request: both attempts time out.
        const { runtime: impatient } = await runtimeFor("slow", {
          timeoutMs: 100,
          maxRetries: 1,
          workspaceId: "team",
          warm: false,
        });
        proxy.inject({ kind: "hold" }, { kind: "hold" });
        const e = await failure(impatient.list({ limit: 5 }));
        assert.ok(isMemoRuntimeError(e, "UNAVAILABLE"), String(e));
        assert.match(
          e.message,
          /^Cannot reach the Memo Cloud API at http:\/\/127\.0\.0\.1:\d+: no answer within 100 ms \(2 attempts\)$/,
        );
      },
    );

    await t.step(
      "a connection reset mid-response: the retry is replayed, no duplicate",
      async () => {
        const { runtime, sent, stored } = await runtimeFor("reset");
        proxy.inject({ kind: "reset" });
        const result = await runtime.remember({ text: "Written once despite a reset" });
        assert.equal(result.status, "written");
        const posts = sent("POST");
        // The head arrived (201), the body broke: a network failure, retried with the same key.
        assert.equal(posts.length, 2);
        assert.equal(posts[0].outcome, 201);
        assert.deepEqual([posts[1].outcome, posts[1].replayed], [201, true]);
        assert.equal(posts[1].idempotencyKey, posts[0].idempotencyKey);
        let { notes, changes, head } = await stored();
        assert.deepEqual(notes.map((n) => n.id), [result.note.id]);
        assert.equal(changes.length, 1);
        assert.equal(head, 1, "one change in all");

        // A delete whose answer is lost: the retry gets the first answer, not a 404.
        proxy.inject({ kind: "reset" });
        const forgotten = await runtime.forget(result.note.id);
        assert.equal(forgotten.id, result.note.id);
        assert.deepEqual(sent("DELETE").map((a) => [a.outcome, a.replayed]), [
          [200, false],
          [200, true],
        ]);
        ({ notes, changes, head } = await stored());
        assert.deepEqual(notes, []);
        assert.equal(head, 2, "the delete is one change");
        assert.deepEqual(changes.map((c) => [c.op, c.id, c.seq]), [["delete", result.note.id, 2]]);
        await assert.rejects(
          runtime.get(result.note.id),
          (e) => isMemoRuntimeError(e, "NOTE_NOT_FOUND"),
        );
      },
    );

    await t.step("the API key is in no error, answer or log line", () => {
      assert.ok(errors.length >= 3);
      for (const e of errors as Error[]) {
        for (
          const text of [
            e.message,
            String(e),
            e.stack ?? "",
            JSON.stringify(e),
            String((e.cause as Error | undefined)?.message),
            JSON.stringify(e.cause ?? null),
          ]
        ) {
          assert.ok(!text.includes(KEY), text);
        }
      }
      assert.ok(answers.length > 20);
      for (const answer of answers) {
        assert.ok(!answer.body.includes(KEY) && !answer.headers.includes(KEY), answer.path);
      }
      assert.ok(logLines.length > 20);
      assert.ok(logLines.every((line) => !line.includes(KEY)));
      // Every request the proxy forwarded reached the server (and was answered there).
      assert.equal(
        proxy.requests.filter((r) => r.outcome !== "status").length,
        answers.length,
      );
    });
  } finally {
    for (const runtime of runtimes) await runtime.close();
    await proxy.close();
    await server.shutdown();
    await store.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});
