import assert from "node:assert/strict";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { runCli } from "../main.ts";
import { recordingIO } from "../../testing/cli_io.ts";
import { sanitizedTest as test } from "../../testing/sanitized.ts";
import { tempDir } from "../../testing/temp_dir.ts";

const encoder = new TextEncoder();

/**
 * Runs `memo mcp` over in-memory streams fed with `lines`, from a working folder removed after;
 * returns the exit code and replies.
 */
async function mcp(argv: string[], lines: unknown[], env: Record<string, string> = {}) {
  await using cwd = await tempDir("memo-cli-mcp-");
  const io = recordingIO(cwd.path);
  io.env = env;
  let out = "";
  io.stdin = () =>
    Promise.resolve(
      new ReadableStream<Uint8Array>({
        start(c) {
          for (const l of lines) c.enqueue(encoder.encode(JSON.stringify(l) + "\n"));
          c.close();
        },
      }),
    );
  io.stdoutStream = () =>
    Promise.resolve(
      new WritableStream<Uint8Array>({
        write: (chunk) => void (out += new TextDecoder().decode(chunk)),
      }),
    );
  const code = await runCli(["mcp", ...argv], io);
  const replies = out.split("\n").filter(Boolean).map((l) => JSON.parse(l));
  return { code, replies, err: io.err.join(""), stdout: io.out.join("") };
}

const remember = {
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "remember", arguments: { text: "from the CLI test" } },
};

test("memo mcp refuses bad flags with exit code 2", async (t) => {
  for (
    const argv of [["--bogus"], ["--max-page-size", "0"], ["--request-timeout-ms", "x"], ["extra"]]
  ) {
    await t.step(argv.join(" "), async () => {
      const { code, err } = await mcp(argv, []);
      assert.equal(code, 2);
      assert.match(err, /^memo: .*usage: memo mcp/);
    });
  }
});

test("memo mcp serves the project of --dir and writes only JSON-RPC to stdout", async () => {
  await using tmp = await tempDir("memo-cli-mcp-dir-");
  const dir = tmp.path;
  const { code, replies, stdout } = await mcp(["--dir", dir], [remember]);
  assert.equal(code, 0);
  assert.equal(stdout, "", "nothing but the MCP stream");
  assert.equal(replies[0].result.structuredContent.status, "written");
  assert.ok((await stat(join(dir, ".memo", "memory", "notes.md"))).isFile());
});

test("memo mcp reads MEMO_ROOT_DIR and MEMO_MCP_READ_ONLY", async () => {
  await using tmp = await tempDir("memo-cli-mcp-env-");
  const dir = tmp.path;
  const ro = await mcp([], [remember], { MEMO_ROOT_DIR: dir, MEMO_MCP_READ_ONLY: "true" });
  assert.equal(ro.replies[0].error.code, -32010);
  const rw = await mcp([], [remember], { MEMO_ROOT_DIR: dir });
  assert.equal(rw.replies[0].result.structuredContent.status, "written");
  const flag = await mcp(["--read-only"], [remember], { MEMO_ROOT_DIR: dir });
  assert.equal(flag.replies[0].error.code, -32010);
});

test("memo mcp serves the hybrid runtime of MEMO_RUNTIME, without an API key", async () => {
  await using tmp = await tempDir("memo-cli-mcp-hybrid-");
  const dir = tmp.path;
  const stats = {
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "memory_stats", arguments: {} },
  };
  const { code, replies } = await mcp(["--dir", dir], [remember, stats], {
    MEMO_RUNTIME: "hybrid",
    MEMO_CLOUD_BASE_URL: "http://127.0.0.1:9", // nothing listens; writes are local
  });
  assert.equal(code, 0);
  // The server answers calls as they end, not in the order they came.
  const reply = (id: number) => replies.find((r) => r.id === id);
  assert.equal(reply(1).result.structuredContent.status, "written");
  assert.ok((await stat(join(dir, ".memo", "memory", "notes.md"))).isFile());
  const replica = reply(2).result.structuredContent.replica;
  assert.equal(typeof replica?.outbox, "number", "memory_stats reports the replica");
});

test("memo help lists mcp", async () => {
  const io = recordingIO(".");
  assert.equal(await runCli(["help"], io), 0);
  assert.match(io.out.join(""), /\n {2}mcp +Serve memory over MCP/);
});
