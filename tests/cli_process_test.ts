import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { VERSION } from "../version.ts";
import { type ProcessResult, runProcess } from "./_run_process.ts";

const CLI = new URL("../cli.ts", import.meta.url).pathname;

function memo(cwd: string, args: string[], stdin?: string): Promise<ProcessResult> {
  return runProcess(Deno.execPath(), ["run", "-A", CLI, ...args], {
    cwd,
    stdin,
    env: { NO_COLOR: "1" },
  });
}

Deno.test("memo (process) remembers, recalls and exits 0", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-proc-" });
  const r = await memo(dir, [
    "remember",
    "The staging database is db-stage-2",
    "--label",
    "infra",
    "--json",
  ]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.err, "");
  const id = JSON.parse(r.out).note.id;
  const hits = JSON.parse((await memo(dir, ["recall", "staging db", "--json"])).out).hits;
  assert.equal(hits[0].note.id, id);
  const file = await readFile(join(dir, ".memo", "memory", "notes.md"), "utf8");
  assert.match(file, /## The staging database is db-stage-2/);
});

Deno.test("memo (process) reads text from stdin with --file -", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-proc-" });
  const r = await memo(dir, ["remember", "--file", "-", "--json"], "piped text");
  assert.equal(r.code, 0, r.err);
  assert.equal(JSON.parse(r.out).note.body, "piped text");
});

Deno.test("memo (process) usage errors exit 2 with one line on stderr", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-proc-" });
  for (const args of [["remember", "x", "--wat"], ["nope"], ["get"], []]) {
    const r = await memo(dir, args);
    assert.equal(r.code, 2, JSON.stringify(args));
    if (args.length) {
      assert.equal(r.out, "");
      assert.match(r.err, /^memo: [^\n]+\n$/);
    }
  }
});

Deno.test("memo (process) a failed operation exits 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-proc-" });
  const r = await memo(dir, ["forget", "01unknown"]);
  assert.equal(r.code, 1);
  assert.equal(r.err, "memo: Cannot find note 01unknown\n");
});

Deno.test("memo --version matches deno.json", async () => {
  const config = JSON.parse(await readFile(new URL("../deno.json", import.meta.url), "utf8"));
  assert.equal(VERSION, config.version);
  const r = await memo(Deno.cwd(), ["--version"]);
  assert.equal(r.out.trim(), VERSION);
});

Deno.test("memo (process) hybrid: a write succeeds with the cloud down; replicate exits 1, or 2 outside hybrid", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-proc-" });
  const key = "mk_PROCESS_hybrid_key_0123456789";
  await Deno.mkdir(join(dir, ".memo"));
  await Deno.writeTextFile(
    join(dir, ".memo", "config.json"),
    JSON.stringify({ cloud: { retry: { maxRetries: 0 } } }), // fail fast
  );
  const hybrid = (args: string[]) =>
    runProcess(Deno.execPath(), ["run", "-A", CLI, ...args], {
      cwd: dir,
      env: {
        NO_COLOR: "1",
        MEMO_RUNTIME: "hybrid",
        MEMO_CLOUD_BASE_URL: "http://127.0.0.1:9", // nothing listens
        MEMO_CLOUD_API_KEY: key,
      },
    });
  const r = await hybrid(["remember", "Written while the cloud is down", "--json"]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.err, "", "the CLI's drain at the end never fails the command");
  assert.equal(JSON.parse(r.out).status, "written");
  const file = await readFile(join(dir, ".memo", "memory", "notes.md"), "utf8");
  assert.match(file, /Written while the cloud is down/);
  const replicate = await hybrid(["replicate"]);
  assert.equal(replicate.code, 1);
  assert.match(replicate.err, /^memo: Cannot reach the Memo Cloud API[^\n]*\n$/);
  assert.ok(!replicate.err.includes(key));
  const local = await memo(dir, ["replicate", "--json"]); // MEMO_RUNTIME unset: local
  assert.equal(local.code, 2);
  assert.equal(local.err, "memo: replicate needs the hybrid runtime\n");
  assert.equal(local.out, "");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("memo (process) exits 0 quietly when the reader of stdout goes away (memo export | head)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-proc-" });
  const lines = Array.from({ length: 2000 }, (_, i) =>
    JSON.stringify({
      type: "entity",
      name: `e${i}`,
      entityType: "t",
      observations: [`observation ${i}, padded so that the export outgrows a pipe's buffer`],
    }));
  await Deno.writeTextFile(join(dir, "memory.jsonl"), lines.join("\n") + "\n");
  assert.equal((await memo(dir, ["import", "memory.jsonl"])).code, 0);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "export"],
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const reader = child.stdout.getReader();
  const first = await reader.read(); // like `head`: one chunk, then close the pipe
  assert.ok(first.value && first.value.length > 0);
  await reader.cancel();
  const [status, err] = await Promise.all([
    child.status,
    new Response(child.stderr).text(),
  ]);
  assert.equal(err, "");
  assert.equal(status.code, 0);
  await Deno.remove(dir, { recursive: true });
});
