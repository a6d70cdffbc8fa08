/**
 * `memo embed` and `memo recall --engine hybrid` with the real offline model
 * (use-lite), run in this process: short commands embed nothing, `embed`
 * shows a progress bar on a terminal and says what it did, the human recall
 * output shows the engine and explain's parts. (The paraphrase test under
 * `--deny-net` is `recall_offline_test.ts`.)
 */

import assert from "node:assert/strict";
import { recordingIO } from "../testing/cli_io.ts";
import { runCli } from "../cli/main.ts";

const KEY = "The staging deploy key rotates every 90 days";
const OTHERS = [
  "Lunch is served at noon in the kitchen",
  "The office wifi password is on the fridge",
  "Our team meets on Mondays",
];
const CLEAR = "\r\x1b[K";

async function vecFiles(dir: string): Promise<number> {
  return await Array.fromAsync(Deno.readDir(`${dir}/.memo/cache/embeddings`)).then(
    (entries) => entries.filter((e) => e.name.endsWith(".vec")).length,
    () => 0,
  );
}

Deno.test("memo embed and memo recall --engine hybrid with use-lite: progress bar, results, cache", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-cli-embed-" });
  const run = async (argv: string[], terminal = false) => {
    const io = recordingIO(dir);
    io.env = { MEMO_RUNTIME: "local" };
    io.stderrIsTerminal = terminal;
    const code = await runCli(argv, io);
    return { code, out: io.out.join(""), err: io.err.join("") };
  };
  try {
    for (const text of [KEY, ...OTHERS]) {
      const r = await run(["remember", text], true);
      assert.equal(r.code, 0, r.err);
      assert.equal(r.err, "", "a short command shows no progress");
    }
    assert.equal((await run(["recall", "deploy key", "--engine", "lexical"])).code, 0);
    assert.equal(await vecFiles(dir), 0, "remember and a lexical recall computed no embedding");

    const embed = await run(["embed"], true);
    assert.equal(embed.code, 0, embed.err);
    assert.equal(embed.out, "embedded 4 of 4 notes (4 computed) with use-lite\n");
    assert.ok(embed.err.includes(`${CLEAR}memo: model ready 100%`), JSON.stringify(embed.err));
    assert.ok(embed.err.includes(`${CLEAR}memo: embedding [${"#".repeat(20)}] 4/4`));
    assert.ok(embed.err.endsWith(CLEAR), "the line is cleared at the end");
    assert.equal(await vecFiles(dir), 1);

    const hybrid = await run(["recall", "staging deploy key", "--engine", "hybrid", "--explain"]);
    assert.equal(hybrid.code, 0, hybrid.err);
    assert.equal(hybrid.err, "", "no progress bar off a terminal");
    assert.match(hybrid.out, new RegExp(`^1\\. ${KEY} `));
    assert.match(
      hybrid.out,
      /\n {3}parts: lexical #1 \d+\.\d{3}, vector #1 0\.\d{3}, fused 0\.\d{4}\n/,
    );
    assert.match(hybrid.out, /\nengine: hybrid, 4\/4 notes embedded\n$/);

    assert.equal((await run(["remember", "Backups of the staging database run nightly"])).code, 0);
    const json = await run(["embed", "--json"]);
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
