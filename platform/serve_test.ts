import assert from "node:assert/strict";
import { serve } from "./serve.ts";

Deno.test("serve() aborted while a graceful shutdown waits for a request neither throws nor cuts it", async () => {
  const reached = Promise.withResolvers<void>();
  const release = Promise.withResolvers<void>();
  const stop = new AbortController();
  const server = await serve(async () => {
    reached.resolve();
    await release.promise;
    return new Response("late but whole");
  }, { hostname: "127.0.0.1", port: 0, signal: stop.signal });
  const answer = fetch(`http://127.0.0.1:${server.port}/`).then((r) => r.text());
  await reached.promise;
  const shutdown = server.shutdown(); // waits for the request in flight
  // Memo serve's grace ends: it aborts. Deno cannot cut a graceful shutdown under way (its own
  // abort listener threw BadResource and ended the process); the process exit does the cutting.
  stop.abort();
  release.resolve();
  assert.equal(await answer, "late but whole");
  await shutdown;
  await server.finished;
});

Deno.test("serve() aborted before any shutdown closes the server at once", async () => {
  const stop = new AbortController();
  const server = await serve(() => new Response("ok"), {
    hostname: "127.0.0.1",
    port: 0,
    signal: stop.signal,
  });
  assert.equal(await (await fetch(`http://127.0.0.1:${server.port}/`)).text(), "ok");
  stop.abort();
  await server.finished;
  await assert.rejects(fetch(`http://127.0.0.1:${server.port}/`), TypeError);
});
