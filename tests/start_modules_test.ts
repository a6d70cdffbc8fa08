/**
 * What memo loads at start, measured at run time: every module the process compiles, recorded
 * through the V8 inspector (`tests/_module_trace.ts`). `memo mcp`, `memo serve`, `deno serve
 * http.ts` and the short commands load no embedding code (the model, its worker, tfjs, the vector
 * side of a `Memo`) while they serve lexical recalls with the default configuration (`use-lite`,
 * `auto`), and no npm package beyond the few they need: a new heavy dependency (a secret scanner,
 * an OAuth library) must load on first use to pass. The first explicit vector recall then loads
 * the embedding code, which shows the check can fail.
 */

import assert from "node:assert/strict";
import { seedSmallProject } from "../testing/small_project.ts";
import { readUntil } from "../testing/wait.ts";
import { npmPackagesOf, repoModulesOf, traceProcess } from "./_module_trace.ts";
import { freePort } from "./_serve_process.ts";

/** The embedding code: the loader, its worker and backends, and a `Memo`'s vector side. */
function embeddingCode(urls: readonly string[]): string[] {
  const facade = new Set(["memory/embed/mod.ts", "memory/embed/types.ts", "memory/embed/load.ts"]);
  const vectorFacade = new Set([
    "memory/vectors/auto_engine.ts",
    "memory/vectors/lazy_embeddings.ts",
  ]);
  const own = repoModulesOf(urls).filter((m) =>
    (m.startsWith("memory/embed/") && !facade.has(m)) ||
    (m.startsWith("memory/vectors/") && !vectorFacade.has(m))
  );
  const npm = npmPackagesOf(urls).filter((p) =>
    /^@energetic-ai\/|^@tensorflow\/|^@huggingface\/|^onnxruntime/.test(p)
  );
  return [...own, ...npm];
}

/**
 * The npm packages a server may load while it serves lexical recalls: zod (the tools' schemas,
 * at the first tools/list or call) and porter2 (the stemmer of the lexical index).
 */
const SERVING_PACKAGES = new Set(["zod", "porter2"]);

function unexpectedPackages(urls: readonly string[], allowed: ReadonlySet<string>): string[] {
  return npmPackagesOf(urls).filter((p) => !allowed.has(p));
}

async function withProject(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "memo-start-" });
  try {
    await seedSmallProject(dir);
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A JSON-RPC client over a traced process's stdin and stdout. */
function stdioClient(child: Deno.ChildProcess) {
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  let id = 0;
  const encoder = new TextEncoder();
  return {
    // deno-lint-ignore no-explicit-any
    async request(method: string, params?: unknown): Promise<any> {
      const mine = ++id;
      await writer.write(
        encoder.encode(JSON.stringify({ jsonrpc: "2.0", id: mine, method, params }) + "\n"),
      );
      while (true) {
        const nl = buffered.indexOf("\n");
        if (nl >= 0) {
          const message = JSON.parse(buffered.slice(0, nl));
          buffered = buffered.slice(nl + 1);
          if (message.id !== mine) continue;
          if (message.error) throw new Error(`${method}: ${JSON.stringify(message.error)}`);
          return message.result;
        }
        const got = await readUntil(lines, (t) => t.includes("\n"), `the answer to ${method}`, {
          sofar: buffered,
        });
        if (got.done) throw new Error(`the server ended before answering ${method}`);
        buffered = got.text;
      }
    },
    async notify(method: string): Promise<void> {
      await writer.write(encoder.encode(JSON.stringify({ jsonrpc: "2.0", method }) + "\n"));
    },
    async close(): Promise<void> {
      await writer.close().catch(() => {});
      await lines.cancel().catch(() => {});
    },
  };
}

const INITIALIZE = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "start-modules-test", version: "1.0.0" },
};

Deno.test("memo mcp answers initialize with no npm package and no embedding code, serves lexical recalls without them, and loads them at the first vector recall", async () => {
  await withProject(async (dir) => {
    const traced = await traceProcess(["run", "-A", "cli.ts", "mcp", "--dir", dir], {
      stdio: true,
    });
    const client = stdioClient(traced.child);
    try {
      await client.request("initialize", INITIALIZE);
      const atStart = await traced.scripts();
      assert.deepEqual(npmPackagesOf(atStart), []);
      assert.deepEqual(embeddingCode(atStart), []);
      // Nothing of the memory package either: the notes load after the first answer.
      assert.deepEqual(repoModulesOf(atStart).filter((m) => m.startsWith("memory/")), []);
      // Nor Node's compatibility layer (node:child_process, node:fs, …): loading it was most of
      // the start's CPU. Deno registers one script of it in every process.
      assert.deepEqual(
        atStart.filter((u) =>
          u.startsWith("ext:deno_node/") && u !== "ext:deno_node/02_register_cloneable.js"
        ),
        [],
      );

      await client.notify("notifications/initialized");
      await client.request("tools/list");
      const auto = await client.request("tools/call", {
        name: "recall",
        arguments: { query: "how do deploys run" },
      });
      assert.equal(auto.structuredContent.engine, "lexical");
      assert.equal(
        auto.structuredContent.hits[0].note.title,
        "Deploys run with make deploy from main",
      );
      const stats = await client.request("tools/call", { name: "memory_stats", arguments: {} });
      const embeddings = stats.structuredContent.embeddings;
      assert.equal(embeddings.state, "idle");
      assert.match(embeddings.reason, /^auto uses lexical with use-lite/);
      const serving = await traced.scripts();
      assert.deepEqual(embeddingCode(serving), []);
      assert.deepEqual(unexpectedPackages(serving, SERVING_PACKAGES), []);

      const vector = await client.request("tools/call", {
        name: "recall",
        arguments: { query: "staging database", engine: "vector" },
      });
      assert.equal(vector.structuredContent.engine, "vector");
      const loaded = embeddingCode(await traced.scripts());
      assert.ok(loaded.includes("memory/vectors/embeddings.ts"), loaded.join(", "));
      assert.ok(loaded.includes("memory/embed/_thread.ts"), loaded.join(", "));
    } finally {
      await client.close(); // the end of stdin ends memo mcp
      await traced.waitForStderr(/Waiting for the debugger to disconnect/);
      assert.equal(await traced.stop(), 0);
    }
  });
});

Deno.test("memo serve and deno serve http.ts serve lexical recalls and the page without embedding code", async (t) => {
  await withProject(async (dir) => {
    const cases: { name: string; args: string[]; env: Record<string, string> }[] = [
      {
        name: "memo serve",
        args: ["run", "-A", "cli.ts", "serve", "--port", "0", "--dir", dir],
        env: {},
      },
      {
        name: "deno serve http.ts",
        args: ["serve", "-A", "--host", "127.0.0.1", "--port", String(freePort()), "http.ts"],
        env: { MEMO_ROOT_DIR: dir },
      },
    ];
    for (const c of cases) {
      await t.step(c.name, async () => {
        const traced = await traceProcess(c.args, { env: c.env });
        try {
          const [, origin] = await traced.waitForStderr(
            /[Ll]istening on (http:\/\/[^\s/]+:\d+)\//,
          );
          const page = await fetch(`${origin}/`);
          assert.equal(page.status, 200);
          await page.body?.cancel();
          const res = await fetch(`${origin}/mcp`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              accept: "application/json",
              "mcp-protocol-version": "2025-06-18",
            },
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: 1,
              method: "tools/call",
              params: { name: "recall", arguments: { query: "staging database" } },
            }),
          });
          const answer = await res.json();
          assert.equal(answer.result.structuredContent.engine, "lexical");
          const scripts = await traced.scripts();
          assert.deepEqual(embeddingCode(scripts), []);
          assert.deepEqual(unexpectedPackages(scripts, SERVING_PACKAGES), []);
        } finally {
          await traced.stop();
        }
      });
    }
  });
});

Deno.test("the short commands load no embedding code and no npm package but the stemmer", async (t) => {
  await withProject(async (dir) => {
    const commands = [
      ["recall", "staging database"],
      ["stats"],
      ["list"],
      ["remember", "Backups run nightly"],
      ["get", "nope"],
    ];
    for (const command of commands) {
      await t.step(`memo ${command[0]}`, async () => {
        const traced = await traceProcess(
          ["run", "-A", "cli.ts", ...command, "--json", "--dir", dir],
        );
        await traced.waitForStderr(/Waiting for the debugger to disconnect/);
        const scripts = await traced.scripts();
        await traced.stop();
        assert.deepEqual(embeddingCode(scripts), []);
        assert.deepEqual(unexpectedPackages(scripts, new Set(["porter2"])), []);
      });
    }
  });
});
