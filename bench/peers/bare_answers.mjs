/**
 * Benchmark peer, the ceiling of `bench/http_ceiling.ts`: a bare server that reads and parses each
 * JSON-RPC body and answers, byte for byte, what memo answered to the same request — its status,
 * its headers in order and its body, with the request's id put in place. Nothing else: no origin,
 * header or version check, no dispatch, no logging. The answers come from a file that the bench
 * captured from memo at the start of its run, keyed by the request's `MCP-Protocol-Version` header
 * and JSON-RPC method.
 *
 * Under Deno it serves with a bare `Deno.serve`; under Node with a bare `node:http` server (the
 * same file runs on both hosts, so that each host's ceiling is its own plain server).
 *
 * Run: `deno run -A bench/peers/bare_answers.mjs <port> <answers.json>` or
 * `node bench/peers/bare_answers.mjs <port> <answers.json>`
 *
 * The file: `{ "answers": [{ "version": "2025-11-25", "method": "tools/list", "status": 200,
 * "headers": [["content-type", "application/json"], …], "body": "{\"jsonrpc\":\"2.0\",\"id\":1,…}" }] }`
 * (`content-length` and `date` are left out: both servers write their own). Under Deno,
 * `GET /__timers` answers the time spent in the handler (`?reset` starts again), as
 * `bench/peers/memo_timed.ts` does for memo.
 *
 * @module
 */

const args = globalThis.Deno ? Deno.args : process.argv.slice(2);
const port = Number(args[0] ?? 8790);
const file = args[1];

/** `version|method` → the answer's parts around its id. */
const answers = new Map();

async function load() {
  const text = globalThis.Deno
    ? await Deno.readTextFile(file)
    : await (await import("node:fs/promises")).readFile(file, "utf8");
  for (const a of JSON.parse(text).answers) {
    const id = JSON.stringify(JSON.parse(a.body).id);
    const head = `{"jsonrpc":"2.0","id":${id}`;
    if (!a.body.startsWith(head)) throw new Error(`${file}: not a compact JSON-RPC answer`);
    answers.set(`${a.version}|${a.method}`, {
      status: a.status,
      headers: a.headers,
      flat: a.headers.flat(),
      tail: a.body.slice(head.length),
    });
  }
}

await load();

/** The answer to a parsed message under a version header. */
function answerOf(version, message) {
  const a = answers.get(`${version}|${message.method}`);
  if (a === undefined) return undefined;
  return { a, body: `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)}${a.tail}` };
}

/** Under Deno, the time in the handler, as `bench/peers/memo_timed.ts` keeps it. */
const timers = { requests: 0, handlerMs: 0 };

/** `GET /__timers` (`?reset` starts the sums again). */
function timersResponse(url) {
  const body = JSON.stringify(timers);
  if (url.endsWith("?reset")) Object.assign(timers, { requests: 0, handlerMs: 0 });
  return new Response(body, { headers: { "content-type": "application/json" } });
}

if (globalThis.Deno) {
  Deno.serve({
    hostname: "127.0.0.1",
    port,
    onListen: () => console.error(`bare peer (Deno): http://127.0.0.1:${port}/mcp`),
  }, async (request) => {
    if (request.method === "GET") return timersResponse(request.url);
    const start = performance.now();
    const message = JSON.parse(await request.text());
    const found = answerOf(request.headers.get("mcp-protocol-version"), message);
    if (found === undefined) return new Response("no such answer", { status: 500 });
    const response = new Response(found.body, { status: found.a.status, headers: found.a.headers });
    timers.handlerMs += performance.now() - start;
    timers.requests++;
    return response;
  });
} else {
  const { createServer } = await import("node:http");
  createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const message = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const found = answerOf(req.headers["mcp-protocol-version"], message);
      if (found === undefined) {
        res.writeHead(500).end("no such answer");
        return;
      }
      res.writeHead(found.a.status, [
        ...found.a.flat,
        "content-length",
        String(Buffer.byteLength(found.body)),
      ]);
      res.end(found.body);
    });
  }).listen(
    port,
    "127.0.0.1",
    () => console.error(`bare peer (Node): http://127.0.0.1:${port}/mcp`),
  );
}
