import assert from "node:assert/strict";
import { readUntil } from "../testing/wait.ts";

const ROOT = new URL("..", import.meta.url);

function inherited(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME", "TMPDIR"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function denoServe(env: Record<string, string>): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["serve", "-A", "--host", "127.0.0.1", "--port", "0", "cloud/main.ts"],
    cwd: ROOT,
    // Only what the server needs, so that no MEMO_* variable of the test's own leaks in.
    env: { ...inherited(), NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

Deno.test("deno serve cloud/main.ts: prints the listening line, serves, logs each request without the key", async () => {
  const dataDir = await Deno.makeTempDir();
  const child = denoServe({
    MEMO_CLOUD_API_KEYS: "sk_main_secret:team",
    MEMO_CLOUD_DATA_DIR: dataDir,
  });
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  try {
    const listening = /memo: cloud API listening on (http:\/\/127\.0\.0\.1:\d+)\/v1\n/;
    const started = await readUntil(reader, (t) => listening.test(t), "the listening line");
    text = started.text;
    if (started.done) throw new Error(`exited before listening:\n${text}`);
    const origin = listening.exec(text)![1];
    const health = await (await fetch(`${origin}/v1/health`)).json();
    assert.deepEqual(health.store, "file");
    const created = await fetch(`${origin}/v1/workspaces/team/projects/default/notes`, {
      method: "POST",
      headers: {
        authorization: "Bearer sk_main_secret",
        "content-type": "application/json",
        "idempotency-key": "one",
      },
      body: JSON.stringify({ text: "Deploys run with make deploy" }),
    });
    assert.equal(created.status, 201);
    await created.body?.cancel();
    const denied = await fetch(`${origin}/v1/whoami`, {
      headers: { authorization: "Bearer wrong" },
    });
    assert.equal(denied.status, 401);
    await denied.body?.cancel();
    text = (await readUntil(reader, (t) => / GET \/v1\/whoami 401 /.test(t), "the 401 log line", {
      sofar: text,
    })).text;
    assert.match(text, /^memo-cloud: \S+ GET \/v1\/health 200 \d+ms$/m);
    assert.match(
      text,
      /^memo-cloud: \S+ POST \/v1\/workspaces\/team\/projects\/default\/notes 201 \d+ms$/m,
    );
    assert.ok(!text.includes("sk_main_secret"));
    assert.match(await Deno.readTextFile(`${dataDir}/team/default/notes.md`), /make deploy/);
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await reader.cancel().catch(() => {});
    await child.stdout.cancel().catch(() => {});
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("deno serve cloud/main.ts: refuses to start without keys, with exit 1 and one line", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["serve", "-A", "--host", "127.0.0.1", "--port", "0", "cloud/main.ts"],
    cwd: ROOT,
    env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", MEMO_CLOUD_API_KEYS: " " },
    stdin: "null",
  }).output();
  assert.equal(output.code, 1);
  assert.equal(
    new TextDecoder().decode(output.stderr),
    "memo: Cannot start the cloud API: MEMO_CLOUD_API_KEYS is empty; set it to key:workspaceId pairs\n",
  );
});
