import assert from "node:assert/strict";
import { ManualClock } from "../../tests/connectors_helpers.ts";
import { checkApiUrl, exchange } from "./http.ts";
import { ConnectorNetworkError, ConnectorTimeoutError } from "../errors.ts";
import type { FetchLike } from "../types.ts";

const request = {
  url: "https://api.example.com/x",
  method: "GET" as const,
  headers: { Authorization: "Bearer tok_secret" },
};

/** A fetch that never answers until its signal aborts. */
const silent: FetchLike = (_input, init) =>
  new Promise((_resolve, reject) =>
    init?.signal?.addEventListener("abort", () => reject(init.signal!.reason))
  );

Deno.test("exchange() times out on the injected clock and clears its timer", async () => {
  const clock = new ManualClock();
  const pending = exchange(request, {
    fetch: silent,
    clock,
    action: "read page 1",
    timeoutMs: 30_000,
  });
  await Promise.resolve();
  clock.advance(29_999);
  clock.advance(1);
  await assert.rejects(
    pending,
    (e) =>
      e instanceof ConnectorTimeoutError && e.timeoutMs === 30_000 &&
      e.message === "Cannot read page 1: no complete answer within 30000 ms",
  );
  assert.equal(clock.pending, 0);
});

Deno.test("exchange() covers the body with the timeout too", async () => {
  const clock = new ManualClock();
  const reading = Promise.withResolvers<void>();
  const slowBody: FetchLike = (_input, init) =>
    Promise.resolve(
      new Response(
        new ReadableStream({
          start(c) {
            c.enqueue(new TextEncoder().encode("{"));
            init?.signal?.addEventListener("abort", () => c.error(init.signal!.reason));
          },
          pull() {
            reading.resolve(); // the head came, the body is being read: only "{" so far
            return new Promise<void>(() => {});
          },
        }),
      ),
    );
  const pending = exchange(request, { fetch: slowBody, clock, action: "read page 2" });
  await reading.promise;
  clock.advance(30_000);
  await assert.rejects(pending, ConnectorTimeoutError);
});

Deno.test("exchange() passes the caller's abort through and names network failures", async () => {
  const clock = new ManualClock();
  const controller = new AbortController();
  const pending = exchange(request, {
    fetch: silent,
    clock,
    signal: controller.signal,
    action: "read",
  });
  controller.abort(new DOMException("stop", "AbortError"));
  await assert.rejects(pending, (e) => e instanceof DOMException && e.name === "AbortError");
  assert.equal(clock.pending, 0);
  const refused: FetchLike = () =>
    Promise.reject(new TypeError("error sending request: Connection refused (os error 111)"));
  await assert.rejects(
    exchange(request, { fetch: refused, clock, action: "read page 1 from api.example.com" }),
    (e) =>
      e instanceof ConnectorNetworkError &&
      e.message === "Cannot read page 1 from api.example.com: the connection was refused",
  );
});

Deno.test("checkApiUrl() drops query and fragment and refuses credentials", () => {
  const fail = (m: string) => new Error(m);
  assert.equal(
    checkApiUrl("https://x.example/api?q=1#f", "the", fail).href,
    "https://x.example/api",
  );
  assert.throws(() => checkApiUrl("https://u:p@x.example", "the", fail), /holds credentials/);
  assert.throws(() => checkApiUrl("not a url", "the", fail), /not an absolute URL/);
});
