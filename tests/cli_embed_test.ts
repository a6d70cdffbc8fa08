/**
 * `memo embed` and `memo recall --engine vector|hybrid` with the real
 * offline model (use-lite), as processes run with `--deny-net`: nothing can
 * be fetched. A paraphrase finds the note that the lexical engine misses.
 * Then, in this process, the progress bar a terminal gets.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { recordingIO } from "../testing/cli_io.ts";
import { runCli } from "../cli/main.ts";
import { runProcess } from "./_run_process.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const KEY = "The staging deploy key rotates every 90 days";
const PARAPHRASE = "how often do we change the credentials for pre-production";
const OTHERS = [
  "Lunch is served at noon in the kitchen",
  "The office wifi password is on the fridge",
  "Our team meets on Mondays",
];

function memo(dir: string, args: string[]) {
  return runProcess(
    Deno.execPath(),
    [
      "run",
      "--deny-net",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-sys",
      "--quiet",
      "cli.ts",
      ...args,
      "--dir",
      dir,
    ],
    { cwd: ROOT, env: { NO_COLOR: "1", MEMO_RUNTIME: "local" } },
  );
}

Deno.test("memo embed and memo recall --engine vector|hybrid with use-lite, offline", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-cli-embed-" });
  try {
    for (const text of [KEY, ...OTHERS]) {
      const r = await memo(dir, ["remember", text]);
      assert.equal(r.code, 0, r.err);
    }
    const lexical = await memo(dir, ["recall", PARAPHRASE, "--engine", "lexical", "--json"]);
    assert.equal(lexical.code, 0, lexical.err);
    const lexicalTitles = JSON.parse(lexical.out).hits.map((h: { note: { title: string } }) =>
      h.note.title
    );
    assert.ok(!lexicalTitles.includes(KEY), `lexical finds no word of it: ${lexicalTitles}`);

    // recall --engine vector embeds what is missing first, then ranks by meaning.
    const vector = await memo(dir, ["recall", PARAPHRASE, "--engine", "vector", "--json"]);
    assert.equal(vector.code, 0, vector.err);
    assert.equal(vector.err, "", "no progress bar off a terminal");
    const found = JSON.parse(vector.out);
    assert.equal(found.engine, "vector");
    assert.deepEqual(found.coverage, { embedded: 4, total: 4 });
    assert.equal(found.hits[0].note.title, KEY);

    // Everything is in the cache now: embed computes nothing.
    const embed = await memo(dir, ["embed"]);
    assert.equal(embed.code, 0, embed.err);
    assert.equal(embed.out, "embedded 4 of 4 notes (0 computed) with use-lite\n");

    const hybrid = await memo(dir, ["recall", PARAPHRASE, "--engine", "hybrid", "--explain"]);
    assert.equal(hybrid.code, 0, hybrid.err);
    assert.match(hybrid.out, new RegExp(`^1\\. ${KEY} `));
    assert.match(hybrid.out, /\n {3}parts: vector #1 0\.\d{3}, fused 0\.\d{4}\n/);
    assert.match(hybrid.out, /\nengine: hybrid, 4\/4 notes embedded\n$/);

    const more = await memo(dir, ["remember", "Backups of the staging database run nightly"]);
    assert.equal(more.code, 0, more.err);
    const json = await memo(dir, ["embed", "--json"]);
    assert.equal(json.code, 0, json.err);
    assert.deepEqual(JSON.parse(json.out), {
      model: "use-lite",
      embedded: 5,
      total: 5,
      computed: 1,
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("memo embed shows a progress bar on a terminal, and only there", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-cli-embed-bar-" });
  try {
    const io = recordingIO(dir);
    io.env = { MEMO_RUNTIME: "local" };
    for (const text of [KEY, ...OTHERS]) assert.equal(await runCli(["remember", text], io), 0);
    assert.deepEqual(io.err, [], "short commands show no progress");
    const terminal = recordingIO(dir);
    terminal.env = { MEMO_RUNTIME: "local" };
    terminal.stderrIsTerminal = true;
    assert.equal(await runCli(["embed"], terminal), 0, terminal.err.join(""));
    const screen = terminal.err.join("");
    const CLEAR = "\r\x1b[K";
    assert.ok(screen.includes(`${CLEAR}memo: model ready 100%`), JSON.stringify(screen));
    assert.ok(screen.includes(`${CLEAR}memo: embedding [${"#".repeat(20)}] 4/4`));
    assert.ok(screen.endsWith(CLEAR), "the line is cleared at the end");
    assert.deepEqual(terminal.out, ["embedded 4 of 4 notes (4 computed) with use-lite\n"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
