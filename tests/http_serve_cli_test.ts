/**
 * `memo serve` as a process: it listens on 127.0.0.1, prints where and how to
 * connect, answers MCP on /mcp and serves the web page on /, and stops
 * cleanly on SIGTERM and SIGINT.
 */

import assert from "node:assert/strict";
import { createMemoCloudHandler } from "../cloud/app.ts";
import { FileCloudStore } from "../cloud/file/store.ts";
import { type ServeProcess, startDenoServe, startMemoServe } from "./_serve_process.ts";

const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-06-18",
};

Deno.test("memo serve listens, answers on /mcp and stops on SIGTERM", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-serve-" });
  const server = await startMemoServe(["--dir", dir], {});
  try {
    assert.match(
      server.stderr(),
      new RegExp(`memo: listening on http://127\\.0\\.0\\.1:${server.port}/mcp\\n`),
    );
    const res = await fetch(`${server.origin}/mcp`, {
      method: "POST",
      headers: HEADERS,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "remember", arguments: { text: "memo serve stores notes" } },
      }),
    });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).result.structuredContent.status, "written");
    const other = await fetch(`${server.origin}/other`, {
      method: "POST",
      headers: HEADERS,
      body: "{}",
    });
    assert.equal(other.status, 404);
    await other.body?.cancel();
    await waitFor(server, "press Ctrl+C");
    assert.match(
      server.stderr(),
      new RegExp(
        `memo: listening on http://127\\.0\\.0\\.1:${server.port}/mcp\\n` +
          `memo: web page at http://127\\.0\\.0\\.1:${server.port}/\\n`,
      ),
    );
    const page = await fetch(`${server.origin}/`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
    assert.match(await page.text(), /<title>memo<\/title>/);
    const notes = await Deno.readTextFile(`${dir}/.memo/memory/notes.md`);
    assert.match(notes, /memo serve stores notes/);
  } finally {
    const code = await server.stop();
    assert.equal(code, 0, server.stderr());
    assert.match(server.stderr(), /memo: stopped/);
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("memo serve stops on SIGINT and prints the connect hint with a token, never the token", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-serve-" });
  const token = "serve-cli-token-5a8d";
  const server = await startMemoServe(["--dir", dir, "--read-only"], {
    MEMO_MCP_BEARER_TOKEN: token,
  });
  try {
    const deadline = Date.now() + 30_000;
    while (!server.stderr().includes("press Ctrl+C") && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.match(server.stderr(), /Authorization: Bearer/);
    assert.ok(!server.stderr().includes(token));
    const res = await fetch(`${server.origin}/mcp`, {
      method: "POST",
      headers: { ...HEADERS, authorization: `Bearer ${token}` },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "remember", arguments: { text: "refused" } },
      }),
    });
    assert.match(await res.text(), /MCP_AUTHORIZATION_ERROR/);
  } finally {
    const code = await server.stop("SIGINT");
    assert.equal(code, 0, server.stderr());
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

async function waitFor(server: ServeProcess, text: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!server.stderr().includes(text) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
}

Deno.test("memo serve --no-ui serves no page; --ui-path moves it", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "memo-serve-" });
  try {
    await t.step("--no-ui", async () => {
      const server = await startMemoServe(["--dir", dir, "--no-ui"], {});
      try {
        await waitFor(server, "press Ctrl+C");
        assert.ok(!server.stderr().includes("web page"), server.stderr());
        const page = await fetch(`${server.origin}/`);
        assert.equal(page.status, 404);
        await page.body?.cancel();
      } finally {
        assert.equal(await server.stop(), 0, server.stderr());
      }
    });
    await t.step("--ui-path /ui", async () => {
      const server = await startMemoServe(["--dir", dir, "--ui-path", "/ui"], {});
      try {
        await waitFor(server, "press Ctrl+C");
        const ui = `http://127.0.0.1:${server.port}/ui`;
        assert.match(server.stderr(), new RegExp(`memo: web page at ${ui}\\n`));
        const page = await fetch(ui);
        assert.equal(page.status, 200);
        assert.match(await page.text(), /^<!doctype html>/);
        const root = await fetch(`${server.origin}/`);
        assert.equal(root.status, 404);
        await root.body?.cancel();
      } finally {
        assert.equal(await server.stop(), 0, server.stderr());
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

/** Runs `memo …` to its end; a server that starts listening is stopped (SIGTERM) at once. */
async function runCli(args: string[], env: Record<string, string> = {}) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "cli.ts", ...args],
    cwd: new URL("..", import.meta.url),
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const decoder = new TextDecoder();
  let stderr = "";
  for await (const chunk of child.stderr) {
    stderr += decoder.decode(chunk, { stream: true });
    if (stderr.includes("memo: listening on")) child.kill("SIGTERM");
  }
  return { code: (await child.status).code, stderr };
}

Deno.test("memo serve refuses a non-loopback host without a token (exit 2)", async () => {
  const r = await runCli(["serve", "--host", "0.0.0.0", "--port", "0"]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^memo: refusing to listen on 0\.0\.0\.0 without authentication/);
});

Deno.test("memo serve fails clearly when the cloud runtime cannot start (exit 1)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-serve-" });
  const r = await runCli(["serve", "--port", "0", "--dir", dir], { MEMO_RUNTIME: "cloud" });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /^memo: Cannot start the cloud runtime: /);
  await Deno.remove(dir, { recursive: true }).catch(() => {});
});

Deno.test("memo serve refuses at start a project whose .memo/config.json cannot work (exit 1)", async (t) => {
  for (
    const [name, config, message] of [
      ["an unknown runtime", { runtime: "bogus" }, /runtime must be local, hybrid or cloud/],
      [
        "the vector engine without embeddings",
        { recall: { engine: "vector", localEmbeddings: false } },
        /^memo: Cannot start the runtime: the vector engine needs embeddings/,
      ],
    ] as const
  ) {
    await t.step(name, async () => {
      const dir = await Deno.makeTempDir({ prefix: "memo-serve-" });
      try {
        await Deno.mkdir(`${dir}/.memo`);
        await Deno.writeTextFile(`${dir}/.memo/config.json`, JSON.stringify(config));
        const r = await runCli(["serve", "--port", "0", "--dir", dir]);
        assert.equal(r.code, 1, r.stderr);
        assert.match(r.stderr, message);
        assert.doesNotMatch(r.stderr, /listening/);
      } finally {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    });
  }
});

Deno.test("MEMO_RUNTIME=hybrid reaches memo serve and http.ts: local writes, pushed to the cloud in the background", async (t) => {
  const key = "mk_SERVE_hybrid_test_0123456789";
  const dataDir = await Deno.makeTempDir({ prefix: "memo-serve-hybrid-cloud-" });
  const store = new FileCloudStore({ dataDir });
  const cloud = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    createMemoCloudHandler({ store, apiKeys: new Map([[key, "team"]]), rateLimit: 0 }),
  );
  const env = {
    MEMO_RUNTIME: "hybrid",
    MEMO_CLOUD_BASE_URL: `http://127.0.0.1:${(cloud.addr as Deno.NetAddr).port}`,
    MEMO_CLOUD_API_KEY: key,
  };
  const call = async (server: ServeProcess, name: string, args: Record<string, unknown>) => {
    const res = await fetch(`${server.origin}/mcp`, {
      method: "POST",
      headers: HEADERS,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name, arguments: args },
      }),
    });
    return (await res.json()).result.structuredContent;
  };
  const starts: [string, (dir: string) => Promise<ServeProcess>][] = [
    ["memo serve", (dir) => startMemoServe(["--dir", dir], env)],
    ["http.ts", (dir) => startDenoServe({ ...env, MEMO_ROOT_DIR: dir })],
  ];
  try {
    for (const [name, start] of starts) {
      await t.step(name, async () => {
        const dir = await Deno.makeTempDir({ prefix: "memo-serve-hybrid-" });
        const project = await store.project("team", "default");
        const before = (await project.stats()).notes;
        const server = await start(dir);
        try {
          const text = `Written through ${name} in hybrid mode`;
          assert.equal((await call(server, "remember", { text })).status, "written");
          assert.match(await Deno.readTextFile(`${dir}/.memo/memory/notes.md`), new RegExp(text));
          const deadline = Date.now() + 30_000; // only a stuck push waits this long
          while ((await project.stats()).notes === before && Date.now() < deadline) {
            await new Promise((r) => setTimeout(r, 20));
          }
          assert.equal((await project.stats()).notes, before + 1, "pushed in the background");
          const stats = await call(server, "memory_stats", {});
          assert.equal(typeof stats.replica?.outbox, "number", JSON.stringify(stats));
        } finally {
          const code = await server.stop();
          assert.equal(code, 0, server.stderr());
          assert.ok(!server.stderr().includes(key));
          await Deno.remove(dir, { recursive: true }).catch(() => {});
        }
      });
    }
  } finally {
    await cloud.shutdown();
    await store.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});
