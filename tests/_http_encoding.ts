/**
 * Test helper: what a real client sees of the endpoint's gzip, against a
 * server running in another process (`memo serve` under Deno or Node,
 * `deno serve http.ts`). Answers over 1 KB come gzipped to a client that
 * accepts gzip and plain to one that does not; a `subscriptions/listen`
 * stream is never compressed and its events arrive while it stays open.
 *
 * @module
 */

import assert from "node:assert/strict";

export { gunzip, rawPost } from "../testing/raw_http.ts";

const STATELESS = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": STATELESS,
  "io.modelcontextprotocol/clientCapabilities": {},
};
/** How long a listen event may take on a loaded machine before the stream counts as held. */
const HELD_AFTER_MS = 30_000;

/** A session-era (2025-06-18) JSON-RPC request with these headers. */
function sessionRequest(method: string, params?: unknown): RequestInit & { body: string } {
  return {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, ...(params ? { params } : {}) }),
  };
}

/**
 * POSTs `method` with `fetch` (which asks for gzip and decodes it) and
 * returns the answer's JSON with its `content-encoding` and `vary`.
 */
export async function fetchAnswer(
  url: string,
  method: string,
  params?: unknown,
  acceptEncoding?: string,
): Promise<{ json: Record<string, unknown>; encoding: string | null; vary: string | null }> {
  const init = sessionRequest(method, params);
  if (acceptEncoding !== undefined) {
    (init.headers as Record<string, string>)["accept-encoding"] = acceptEncoding;
  }
  const res = await fetch(url, init);
  assert.equal(res.status, 200);
  return {
    json: await res.json(),
    encoding: res.headers.get("content-encoding"),
    vary: res.headers.get("vary"),
  };
}

/**
 * `tools/list` (over 1 KB) comes gzipped with `Vary: Accept-Encoding` to a
 * client that accepts gzip, and plain to one that sends `identity` or
 * `gzip;q=0`; `ping` (a few bytes) comes plain to both.
 */
export async function checkGzipAnswers(url: string): Promise<void> {
  const zipped = await fetchAnswer(url, "tools/list", undefined, "gzip, deflate, br");
  assert.equal(zipped.encoding, "gzip");
  assert.match(zipped.vary ?? "", /Accept-Encoding/);
  const tools = (zipped.json.result as { tools: unknown[] }).tools;
  assert.ok(tools.length >= 8);
  for (const refusal of ["identity", "gzip;q=0"]) {
    const plain = await fetchAnswer(url, "tools/list", undefined, refusal);
    assert.equal(plain.encoding, null, refusal);
    assert.match(plain.vary ?? "", /Accept-Encoding/);
    assert.deepEqual(plain.json, zipped.json);
  }
  const ping = await fetchAnswer(url, "ping", undefined, "gzip");
  assert.equal(ping.encoding, null);
  assert.doesNotMatch(ping.vary ?? "", /Accept-Encoding/);
  assert.deepEqual(ping.json, { jsonrpc: "2.0", id: 1, result: {} });
}

/** Reads `reader` until `done` holds on the text so far; throws when the stream ends or is held. */
async function readUntil(
  reader: ReadableStreamDefaultReader<string>,
  done: (text: string) => boolean,
  what: string,
  sofar = "",
): Promise<string> {
  let text = sofar;
  while (!done(text)) {
    let timer!: ReturnType<typeof setTimeout>;
    const held = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${what} did not arrive: the stream is held (so far: ${text})`)),
        HELD_AFTER_MS,
      );
    });
    try {
      const r = await Promise.race([reader.read(), held]);
      if (r.done) throw new Error(`the stream ended before ${what}: ${text}`);
      text += r.value;
    } finally {
      clearTimeout(timer);
    }
  }
  return text;
}

/**
 * A stateless `subscriptions/listen` asked with `Accept-Encoding: gzip` is
 * answered plain, and its events arrive while it is open: the
 * acknowledgement, then the change a `remember` makes.
 */
export async function checkListenLive(url: string): Promise<void> {
  const cancel = new AbortController();
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "accept-encoding": "gzip, deflate, br",
      "mcp-protocol-version": STATELESS,
      "mcp-method": "subscriptions/listen",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "subscriptions/listen",
      params: { _meta: META, notifications: { resourcesListChanged: true } },
    }),
    signal: cancel.signal,
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  assert.equal(res.headers.get("content-encoding"), null);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let text = await readUntil(reader, (t) => t.includes("acknowledged"), "the acknowledgement");
    const wrote = await fetchAnswer(url, "tools/call", {
      name: "remember",
      arguments: { text: "a change the listen stream carries at once" },
    });
    assert.equal((wrote.json.result as { isError?: boolean }).isError, undefined);
    text = await readUntil(
      reader,
      (t) => t.includes("notifications/resources/list_changed"),
      "the change notification",
      text,
    );
  } finally {
    cancel.abort();
    await reader.cancel().catch(() => {});
  }
}
