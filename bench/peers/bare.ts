/**
 * Benchmark peer (b), the ceiling: a bare `Deno.serve` that parses the JSON
 * body and answers a constant JSON-RPC result with the request's id.
 *
 * Run: `deno run -A bench/peers/bare.ts <port>`
 *
 * @module
 */

const port = Number(Deno.args[0] ?? 8789);

Deno.serve({
  hostname: "127.0.0.1",
  port,
  onListen: () => console.error(`bare peer: listening on http://127.0.0.1:${port}/mcp`),
}, async (request) => {
  const message = JSON.parse(await request.text());
  return new Response(`{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{}}`, {
    headers: { "content-type": "application/json" },
  });
});
