import assert from "node:assert/strict";
import { serve } from "../../platform/mod.ts";
import { recordingIO } from "../../testing/cli_io.ts";
import { runCli } from "../main.ts";
import { cloudServeConfig } from "./cloud.ts";
import { UsageError } from "../args.ts";
import { sanitizedTest as test } from "../../testing/sanitized.ts";

test("memo cloud serve: starts, answers /v1/health, logs requests without the key, stops on a signal", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    const io = recordingIO(dataDir);
    let stop = () => {};
    let listening!: (url: string) => void;
    const url = new Promise<string>((resolve) => (listening = resolve));
    const err: string[] = [];
    const exit = runCli(["cloud", "serve", "--port", "0"], {
      ...io,
      env: { MEMO_CLOUD_API_KEYS: "sk-cli-secret:team", MEMO_CLOUD_DATA_DIR: "data" },
      stderr: (text) => {
        err.push(text);
        const m = /^memo: cloud API listening on (http:\/\/127\.0\.0\.1:\d+\/v1)\n$/.exec(text);
        if (m) listening(m[1]);
        return Promise.resolve();
      },
      serve,
      onShutdownSignal: (callback) => {
        stop = callback;
        return () => {};
      },
    });
    const base = await url;
    const health = await fetch(`${base}/health`);
    const body = await health.json();
    assert.equal(body.status, "ok");
    assert.equal(body.store, "file");
    const created = await fetch(`${base}/workspaces/team/projects/default/notes`, {
      method: "POST",
      headers: {
        authorization: "Bearer sk-cli-secret",
        "content-type": "application/json",
        "idempotency-key": "one",
      },
      body: JSON.stringify({ text: "Deploys run with make deploy" }),
    });
    assert.equal(created.status, 201);
    await created.body?.cancel();
    stop();
    assert.equal(await exit, 0);
    // A relative MEMO_CLOUD_DATA_DIR is resolved against the working directory.
    const notes = await Deno.readTextFile(`${dataDir}/data/team/default/notes.md`);
    assert.match(notes, /make deploy/);
    const text = err.join("");
    assert.match(text, /memo-cloud: \S+ GET \/v1\/health 200 \d+ms\n/);
    assert.match(text, /memo-cloud: \S+ POST \/v1\/workspaces\/team\/projects\/default\/notes 201/);
    assert.match(text, /memo: stopped\n$/);
    assert.ok(!text.includes("sk-cli-secret"));
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

test("memo cloud serve: refuses to start without keys, with exit 1 and one line", async () => {
  const io = { ...recordingIO("/"), serve };
  assert.equal(await runCli(["cloud", "serve", "--port", "0"], io), 1);
  assert.deepEqual(io.err, [
    "memo: Cannot start the cloud API: MEMO_CLOUD_API_KEYS is empty; set it to key:workspaceId pairs\n",
  ]);
  assert.deepEqual(io.out, []);
});

test("memo cloud serve: a malformed key pair fails with one line that does not echo it", async () => {
  const io = { ...recordingIO("/"), env: { MEMO_CLOUD_API_KEYS: "good:team,sk-leak" }, serve };
  assert.equal(await runCli(["cloud", "serve", "--port", "0"], io), 1);
  assert.equal(io.err.length, 1);
  assert.match(
    io.err[0],
    /^memo: Cannot read MEMO_CLOUD_API_KEYS: pair 2 is not key:workspaceId\n$/,
  );
  assert.ok(!io.err[0].includes("sk-leak"));
});

test("memo cloud: usage errors exit 2; help names serve", async () => {
  for (const argv of [["cloud"], ["cloud", "start"], ["cloud", "serve", "--port", "x"]]) {
    const io = recordingIO("/");
    assert.equal(await runCli(argv, io), 2, argv.join(" "));
    assert.match(io.err[0], /\(usage: memo cloud serve \[--host H\] \[--port P\] /);
  }
  const io = recordingIO("/");
  assert.equal(await runCli(["help", "cloud"], io), 0);
  assert.match(io.out[0], /^Usage: memo cloud serve/);
  assert.throws(() => cloudServeConfig(["extra"], "/"), UsageError);
  assert.deepEqual(cloudServeConfig([], "/w"), {
    hostname: "127.0.0.1",
    port: 8788,
    cwd: "/w",
    json: false,
  });
});
