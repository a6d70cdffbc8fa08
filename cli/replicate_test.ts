import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createMemoCloudHandler } from "../cloud/app.ts";
import { FileCloudStore } from "../cloud/file/store.ts";
import { recordingIO } from "../testing/cli_io.ts";
import { runCli } from "./main.ts";
import { sanitizedTest as test } from "../testing/sanitized.ts";

const KEY = "mk_REPLICATE_cli_test_0123456789";

async function run(
  cwd: string,
  argv: string[],
  env: Record<string, string> = {},
  terminal = false,
) {
  const io = recordingIO(cwd);
  io.env = env;
  io.stderrIsTerminal = terminal;
  const code = await runCli(argv, io);
  return { code, out: io.out.join(""), err: io.err.join("") };
}

async function projectWith(config?: unknown): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "memo-cli-replicate-" });
  if (config !== undefined) {
    await Deno.mkdir(join(dir, ".memo"));
    await Deno.writeTextFile(join(dir, ".memo", "config.json"), JSON.stringify(config));
  }
  return dir;
}

test("memo replicate refuses bad arguments with exit 2", async (t) => {
  const dir = await projectWith();
  for (const argv of [["replicate", "now"], ["replicate", "--bogus"], ["replicate", "--dir"]]) {
    await t.step(argv.join(" "), async () => {
      const r = await run(dir, argv);
      assert.equal(r.code, 2);
      assert.match(r.err, /^memo: .*\(usage: memo replicate \[--json\]\)\n$/);
      assert.equal(r.out, "");
    });
  }
  const help = await run(dir, ["help", "replicate"]);
  assert.match(help.out, /^Usage: memo replicate \[--json\]\n\nPush local changes to the cloud/);
  await Deno.remove(dir, { recursive: true });
});

test("memo replicate exits 2 in the local and cloud runtimes, touching nothing", async (t) => {
  const cloudEnv = {
    MEMO_CLOUD_BASE_URL: "http://127.0.0.1:9", // never asked
    MEMO_CLOUD_API_KEY: KEY,
  };
  const cases: [string, unknown, Record<string, string>][] = [
    ["local by default", undefined, {}],
    ["MEMO_RUNTIME=local", undefined, { MEMO_RUNTIME: "local" }],
    ["MEMO_RUNTIME=cloud", undefined, { ...cloudEnv, MEMO_RUNTIME: "cloud" }],
    ["config.json runtime local", { runtime: "local" }, {}],
    ["config.json runtime cloud", { runtime: "cloud" }, cloudEnv],
  ];
  for (const [name, config, env] of cases) {
    await t.step(name, async () => {
      const dir = await projectWith(config);
      for (const argv of [["replicate"], ["replicate", "--json"]]) {
        const r = await run(dir, [...argv, "--dir", dir], env);
        assert.equal(r.code, 2);
        assert.equal(r.err, "memo: replicate needs the hybrid runtime\n");
        assert.equal(r.out, "");
      }
      assert.deepEqual(
        [...Deno.readDirSync(dir)].map((e) => e.name),
        config === undefined ? [] : [".memo"],
      );
      await Deno.remove(dir, { recursive: true });
    });
  }
});

test("memo replicate pushes and pulls through a cloud, and exits 1 when the cloud fails", async (t) => {
  const dataDir = await Deno.makeTempDir({ prefix: "memo-cli-replicate-cloud-" });
  const store = new FileCloudStore({ dataDir });
  const handler = createMemoCloudHandler({
    store,
    apiKeys: new Map([[KEY, "team"]]),
    rateLimit: 0,
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
  const baseUrl = `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`;
  const env = { MEMO_RUNTIME: "hybrid", MEMO_CLOUD_BASE_URL: baseUrl, MEMO_CLOUD_API_KEY: KEY };
  const a = await projectWith({ cloud: { retry: { maxRetries: 0 } } }); // fails fast when down
  const b = await projectWith({ runtime: "hybrid", cloud: { baseUrl, projectId: "default" } });
  const bEnv = { MEMO_CLOUD_API_KEY: KEY }; // B takes its runtime and cloud from config.json
  const cloudNotes = async () => (await (await store.project("team", "default")).stats()).notes;
  try {
    await t.step("A's notes reach the cloud; replicate --json says nothing is left", async () => {
      for (const text of ["Deploys run with make deploy", "Releases are cut on Mondays"]) {
        assert.equal((await run(a, ["remember", text, "--dir", a], env)).code, 0);
      }
      const r = await run(a, ["replicate", "--json", "--dir", a], env);
      assert.equal(r.code, 0, r.err);
      const result = JSON.parse(r.out);
      assert.deepEqual(Object.keys(result).sort(), ["conflicts", "outbox", "pulled", "pushed"]);
      assert.equal(result.outbox, 0);
      assert.equal(result.conflicts, 0);
      assert.equal(await cloudNotes(), 2);
    });
    await t.step("B pulls them, with progress on a terminal", async () => {
      const r = await run(b, ["replicate", "--dir", b], bEnv, true);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /^pushed 0, pulled 2, 0 conflicts, outbox 0\n$/);
      assert.ok(r.err.includes("\r\x1b[Kmemo: pulling"), JSON.stringify(r.err));
      assert.ok(r.err.endsWith("\r\x1b[K"), "the progress line is cleared at the end");
      const notes = await readFile(join(b, ".memo", "memory", "notes.md"), "utf8");
      assert.match(notes, /Deploys run with make deploy/);
      assert.match(notes, /Releases are cut on Mondays/);
      const again = await run(b, ["replicate", "--dir", b], bEnv);
      assert.equal(again.out, "pushed 0, pulled 0, 0 conflicts, outbox 0\n");
      assert.equal(again.err, "", "no progress off a terminal");
    });
    await t.step("memo stats shows the replica line", async () => {
      const human = await run(b, ["stats", "--dir", b], bEnv);
      assert.match(human.out, /\nreplica: outbox 0, last push .*, last pull \d{4}-.*, lag /);
      const json = JSON.parse((await run(b, ["stats", "--json", "--dir", b], bEnv)).out);
      assert.equal(json.replica.outbox, 0);
      assert.equal(typeof json.replica.lastPull, "string");
    });
    await t.step("a refused key exits 1 without the key, and the notes stay", async () => {
      const wrong = "mk_WRONG_cli_replicate_key_987";
      const before = await readFile(join(b, ".memo", "memory", "notes.md"), "utf8");
      const r = await run(b, ["replicate", "--dir", b], { MEMO_CLOUD_API_KEY: wrong });
      assert.equal(r.code, 1);
      assert.match(r.err, /^memo: [^\n]+\n$/);
      assert.ok(!r.err.includes(wrong) && !r.err.includes(KEY), r.err);
      assert.equal(await readFile(join(b, ".memo", "memory", "notes.md"), "utf8"), before);
    });
    await t.step("a cloud that is down exits 1", async () => {
      const r = await run(a, ["replicate", "--dir", a], {
        ...env,
        MEMO_CLOUD_BASE_URL: "http://127.0.0.1:9",
      });
      assert.equal(r.code, 1);
      assert.match(r.err, /^memo: Cannot reach the Memo Cloud API/);
      assert.ok(!r.err.includes(KEY));
    });
  } finally {
    await server.shutdown();
    await store.close();
    for (const dir of [a, b, dataDir]) await Deno.remove(dir, { recursive: true });
  }
});
