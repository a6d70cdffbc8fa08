import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import * as sdk from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
import { expectedReply, generateCases } from "./fixtures/mcp_fuzz_messages.ts";
import { tempDir } from "../testing/temp_dir.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SEED = Number(Deno.env.get("MEMO_FUZZ_SEED") ?? 20251125);
const COUNT = 2500;
const encoder = new TextEncoder();

/** Validates one line the server wrote; returns its id key, or undefined for a notification. */
function check(line: string): string | undefined {
  const message = JSON.parse(line);
  assert.ok(message && typeof message === "object" && !Array.isArray(message), line.slice(0, 200));
  if (message.id === null) {
    // JSON-RPC requires id null when the id is unknown; the SDK's schema has no null, so
    // the rest of the message is checked against its error schema.
    assert.ok(message.error, "an id-null message is an error");
    const { id: _id, ...rest } = message;
    sdk.JSONRPCErrorResponseSchema.parse(rest);
    assert.ok(Object.keys(message.error).every((k) => ["code", "message", "data"].includes(k)));
    return "null";
  }
  sdk.JSONRPCMessageSchema.parse(message);
  if ("method" in message) {
    assert.ok(
      NOTIFICATIONS.includes(message.method),
      `the server sends only log and change notifications, not ${message.method}`,
    );
    return undefined;
  }
  assert.ok(!/\n\s+at\s/.test(JSON.stringify(message)), "no stack trace");
  return JSON.stringify(message.id);
}

/** What memo may send unasked: logs, and changes of the notes (session era or listen). */
const NOTIFICATIONS = [
  "notifications/message",
  "notifications/resources/list_changed",
  "notifications/resources/updated",
  "notifications/subscriptions/acknowledged",
];

Deno.test(`memo mcp answers ${COUNT} hostile messages over stdio exactly once each (seed ${SEED})`, async () => {
  await using dirTmp = await tempDir("memo-fuzz-");
  const dir = dirTmp.path;
  const cases = generateCases(SEED, COUNT);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "cli.ts", "mcp", "--dir", dir],
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = new Response(child.stdout).text();
  const stderr = new Response(child.stderr).text();
  const expected = new Map<string, number>();
  const expect = (key: string | undefined) => {
    if (key !== undefined) expected.set(key, (expected.get(key) ?? 0) + 1);
  };
  const writer = child.stdin.getWriter();
  const init = JSON.stringify({
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "fuzz", version: "1" },
    },
  });
  await writer.write(
    encoder.encode(init + "\n" + '{"jsonrpc":"2.0","method":"notifications/initialized"}\n'),
  );
  expect('"init"');
  for (const c of cases) {
    expect(expectedReply(c.line));
    const framed = new Uint8Array(c.line.length + 1);
    framed.set(c.line);
    framed[c.line.length] = 0x0a;
    await writer.write(framed);
  }
  await writer.close();
  const status = await child.status;
  const out = await stdout;
  const err = await stderr;
  assert.equal(status.code, 0, `the process must not die (stderr: ${err.slice(0, 500)})`);
  assert.equal(status.signal, null);

  const actual = new Map<string, number>();
  const lines = out.split("\n");
  assert.equal(lines.pop(), "", "output ends with a newline");
  for (const line of lines) {
    const key = check(line);
    if (key !== undefined) actual.set(key, (actual.get(key) ?? 0) + 1);
  }
  const diffs: string[] = [];
  for (const key of new Set([...expected.keys(), ...actual.keys()])) {
    if (expected.get(key) !== actual.get(key)) {
      diffs.push(`${key}: expected ${expected.get(key) ?? 0}, got ${actual.get(key) ?? 0}`);
    }
  }
  assert.deepEqual(diffs.slice(0, 20), [], `seed ${SEED}`);
  const total = [...expected.values()].reduce((a, b) => a + b, 0);
  assert.ok(total > COUNT / 2, `most cases expect an answer (${total})`);
  assert.ok(cases.length >= 2000);
});
