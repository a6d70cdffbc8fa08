/**
 * Internal: `Idempotency-Key` handling around a write. The key is claimed with the request's
 * fingerprint; a repeat gets the first answer with `Idempotent-Replayed: true`; the same key with
 * another request is a 400; a repeat while the first runs waits for it, then answers 409 `{ reason:
 * "in_progress" }`. 5xx answers are not kept: the key is released and a retry runs again.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { CloudApiError, jsonTextResponse } from "./errors.ts";
import type { IdempotencyStore, IdempotentAnswer } from "./store.ts";

/** How long a repeat waits for the first request by default, in ms. */
export const DEFAULT_IDEMPOTENCY_WAIT_MS = 10_000;

/**
 * The fingerprint of a write: SHA-256 of its method, path, `If-Match` revision (so that a retry
 * with another precondition is not taken for a repeat) and body.
 */
export function fingerprintOf(
  method: string,
  path: string,
  body: Uint8Array,
  ifMatch?: number,
): string {
  return createHash("sha256")
    .update(`${method}\n${path}\n${ifMatch ?? ""}\n`, "utf8")
    .update(body)
    .digest("hex");
}

/** How {@linkcode runIdempotent} runs. */
export interface IdempotentRun {
  /** Where keys are kept. */
  store: IdempotencyStore;
  /** The caller's workspace. */
  workspaceId: string;
  /** The `Idempotency-Key`. */
  key: string;
  /** {@linkcode fingerprintOf} the request. */
  fingerprint: string;
  /** How long a repeat waits for a running first request, in ms. */
  waitMs: number;
  /**
   * The request's signal, aborted when the client goes away. A getter: Deno charges every request
   * whose `signal` is read, so only a waiting repeat reads it.
   */
  signal?: () => AbortSignal;
  /** Called when an answer could not be kept (the answer is still sent). */
  onKeepError(error: unknown): void;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * Runs `write` at most once per key: claims the key, runs, keeps the answer (unless 5xx). Throws
 * what `write` throws, after releasing the key.
 */
export async function runIdempotent(
  run: IdempotentRun,
  write: () => Promise<IdempotentAnswer>,
): Promise<Response> {
  const { store, workspaceId, key, fingerprint } = run;
  const deadline = Date.now() + run.waitMs;
  let pause = 20;
  while (true) {
    const claim = await store.claim(workspaceId, key, fingerprint);
    switch (claim.kind) {
      case "replay":
        return jsonTextResponse(claim.answer.status, claim.answer.body, {
          "idempotent-replayed": "true",
        });
      case "mismatch":
        throw new CloudApiError(
          "invalid_request",
          "Cannot run the request: its Idempotency-Key was used for another request",
        );
      case "pending": {
        const left = deadline - Date.now();
        const signal = run.signal?.();
        if (left <= 0 || signal?.aborted) {
          throw new CloudApiError(
            "conflict",
            "Cannot run the request: a request with the same Idempotency-Key is still running; retry later",
            { details: { reason: "in_progress" } },
          );
        }
        await sleep(Math.min(pause, left), signal);
        pause = Math.min(pause * 2, 250);
        continue;
      }
      case "claimed": {
        let answer: IdempotentAnswer;
        try {
          answer = await write();
        } catch (e) {
          await store.release(workspaceId, key, fingerprint).catch(run.onKeepError);
          throw e;
        }
        try {
          if (answer.status >= 500) await store.release(workspaceId, key, fingerprint);
          else await store.complete(workspaceId, key, answer, fingerprint);
        } catch (e) {
          run.onKeepError(e);
        }
        return jsonTextResponse(answer.status, answer.body);
      }
    }
  }
}
