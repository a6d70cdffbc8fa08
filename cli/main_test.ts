import assert from "node:assert/strict";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCli } from "./main.ts";
import { recordingIO } from "../testing/cli_io.ts";
import { sanitizedTest as test } from "../testing/sanitized.ts";
import { tempDir } from "../testing/temp_dir.ts";

async function run(cwd: string, argv: string[], stdinText = "") {
  const io = recordingIO(cwd, stdinText);
  const code = await runCli(argv, io);
  return { code, out: io.out.join(""), err: io.err.join("") };
}

function notesPath(dir: string) {
  return join(dir, ".memo", "memory", "notes.md");
}

test("runCli() remember then recall, get, list, update, forget, stats", async () => {
  await using dirTmp = await tempDir("memo-cli-");
  const dir = dirTmp.path;
  const r1 = await run(dir, [
    "remember",
    "Deploys run with make deploy on the bastion host",
    "--label",
    "ops",
    "--json",
  ]);
  assert.equal(r1.code, 0, r1.err);
  const first = JSON.parse(r1.out);
  assert.equal(first.status, "written");
  const id = first.note.id as string;

  const again = JSON.parse(
    (await run(dir, [
      "remember",
      "Deploys run with make deploy on the bastion host",
      "--label",
      "ops",
      "--json",
    ])).out,
  );
  assert.equal(again.status, "unchanged");
  assert.equal(again.note.id, id);

  const recall = await run(dir, ["recall", "how do deploys run", "--json"]);
  assert.equal(recall.code, 0, recall.err);
  const hits = JSON.parse(recall.out).hits;
  assert.equal(hits[0].note.id, id);
  assert.ok(hits[0].matched.length > 0);
  assert.equal(typeof hits[0].score, "number");

  const human = await run(dir, ["recall", "deploy"]);
  assert.match(human.out, /1\. Deploys run with make deploy/);

  const got = await run(dir, ["get", id, "--json"]);
  assert.equal(JSON.parse(got.out).body, "Deploys run with make deploy on the bastion host");

  const listed = JSON.parse((await run(dir, ["list", "--json"])).out);
  assert.equal(listed.notes.length, 1);

  const upd = await run(dir, ["update", id, "--title", "Deploy steps", "--json"]);
  assert.equal(upd.code, 0, upd.err);
  assert.equal(JSON.parse(upd.out).title, "Deploy steps");

  const st = JSON.parse((await run(dir, ["stats", "--json"])).out);
  assert.equal(st.notes, 1);
  assert.deepEqual(st.labels, { ops: 1 });

  const fg = await run(dir, ["forget", id]);
  assert.equal(fg.code, 0, fg.err);
  assert.match(fg.out, /^forgot /);
  assert.equal(JSON.parse((await run(dir, ["stats", "--json"])).out).notes, 0);
});

test("runCli() --json prints exactly one JSON document", async () => {
  await using dirTmp = await tempDir("memo-cli-");
  const dir = dirTmp.path;
  for (
    const argv of [["remember", "one note", "--json"], ["list", "--json"], ["stats", "--json"]]
  ) {
    const r = await run(dir, argv);
    assert.equal(r.code, 0, r.err);
    JSON.parse(r.out); // throws when there is anything else
    assert.equal(r.err, "");
  }
});

test("runCli() list pages with --cursor", async () => {
  await using dirTmp = await tempDir("memo-cli-");
  const dir = dirTmp.path;
  for (let i = 0; i < 5; i++) {
    assert.equal((await run(dir, ["remember", `note number ${i}`])).code, 0);
  }
  const p1 = JSON.parse((await run(dir, ["list", "--limit", "2", "--json"])).out);
  assert.equal(p1.notes.length, 2);
  assert.ok(p1.nextCursor);
  const p2 = JSON.parse(
    (await run(dir, ["list", "--limit", "2", "--cursor", p1.nextCursor, "--json"])).out,
  );
  assert.equal(p2.notes[0].body, "note number 2");
  const text = (await run(dir, ["list", "--limit", "2"])).out;
  assert.match(text, /more: memo list --limit 2 --cursor /);
});

test("runCli() list --order newest pages newest first", async () => {
  await using dirTmp = await tempDir("memo-cli-");
  const dir = dirTmp.path;
  for (let i = 0; i < 3; i++) {
    assert.equal((await run(dir, ["remember", `note number ${i}`])).code, 0);
  }
  const args = ["list", "--order", "newest", "--limit", "2"];
  const p1 = JSON.parse((await run(dir, [...args, "--json"])).out);
  assert.deepEqual(p1.notes.map((n: { body: string }) => n.body), [
    "note number 2",
    "note number 1",
  ]);
  const p2 = JSON.parse((await run(dir, [...args, "--cursor", p1.nextCursor, "--json"])).out);
  assert.deepEqual(p2.notes.map((n: { body: string }) => n.body), ["note number 0"]);
  assert.equal(p2.nextCursor, undefined);
  const oldest = JSON.parse((await run(dir, ["list", "--order", "oldest", "--json"])).out);
  assert.equal(oldest.notes[0].body, "note number 0");
  const text = (await run(dir, args)).out;
  assert.match(text, /more: memo list --order newest --limit 2 --cursor /);
  const help = await run(dir, ["help", "list"]);
  assert.match(help.out, /--order oldest\|newest/);
});

test("runCli() remember --file reads a file and - reads stdin", async () => {
  await using dirTmp = await tempDir("memo-cli-");
  const dir = dirTmp.path;
  await writeFile(join(dir, "n.md"), "# From a file\nbody text");
  const r = JSON.parse((await run(dir, ["remember", "--file", "n.md", "--json"])).out);
  assert.equal(r.note.title, "From a file");
  const s = JSON.parse((await run(dir, ["remember", "--file", "-", "--json"], "from stdin")).out);
  assert.equal(s.note.body, "from stdin");
});

test("runCli() bad input gets one error line, a non-zero exit and changes nothing", async (t) => {
  await using dirTmp = await tempDir("memo-cli-");
  const dir = dirTmp.path;
  const kept = await run(dir, ["remember", "keep me", "--label", "ops", "--json"]);
  assert.equal(kept.code, 0);
  const id = JSON.parse(kept.out).note.id;
  const before = await readFile(notesPath(dir), "utf8");
  const cases: [string, string[], number, RegExp][] = [
    ["empty label", ["remember", "x", "--label", " "], 2, /--label is empty/],
    [
      "a --dir that does not exist (not made)",
      ["remember", "x", "--dir", "no/such/folder"],
      1,
      /Cannot use --dir no\/such\/folder: no such folder \(create it, or run `memo init/,
    ],
    [
      "empty label on update (it would clear them)",
      ["update", id, "--label", ""],
      2,
      /--label is empty/,
    ],
    ["unknown flag", ["remember", "x", "--bogus"], 2, /unknown flag --bogus/],
    ["empty text", ["remember", "   "], 2, /text is empty/],
    ["missing text", ["remember"], 2, /missing text/],
    ["missing id", ["get"], 2, /missing id/],
    ["unknown id", ["get", "nope"], 1, /Cannot find note nope/],
    ["update unknown id", ["update", "nope", "--title", "x"], 1, /Cannot find note nope/],
    ["forget unknown id", ["forget", "nope"], 1, /Cannot find note nope/],
    ["update nothing", ["update", "nope"], 2, /nothing to change/],
    [
      "unreadable file",
      ["remember", "--file", "does-not-exist.md"],
      1,
      /Cannot read does-not-exist.md: ENOENT/,
    ],
    ["bad limit", ["list", "--limit", "0"], 2, /--limit must be an integer from 1 to 1000/],
    ["bad engine", ["recall", "x", "--engine", "magic"], 2, /--engine must be one of/],
    ["bad order", ["list", "--order", "random"], 2, /flag --order must be one of oldest, newest/],
    ["forged cursor", ["list", "--cursor", "Zm9yZ2Vk"], 2, /invalid cursor/],
    ["unknown command", ["frobnicate"], 2, /unknown command frobnicate/],
    ["empty query", ["recall", " "], 2, /query is empty/],
  ];
  for (const [name, argv, code, pattern] of cases) {
    await t.step(name, async () => {
      const r = await run(dir, argv);
      assert.equal(r.code, code);
      assert.equal(r.out, "");
      assert.match(r.err, pattern);
      assert.match(r.err, /^memo: [^\n]+\n$/);
    });
  }
  // A token given where an id goes is not echoed back.
  const token = "ghp_ZK2vNTaIlzUaP8YUAZtvaJko1sGEultVpJkQ";
  for (
    const argv of [
      ["get", token],
      ["correct", token, "x"],
      ["supersede", token, "--by", id],
      [token],
    ]
  ) {
    await t.step(`a token in ${argv[0] === token ? "the command" : argv[0]}`, async () => {
      const r = await run(dir, argv);
      assert.notEqual(r.code, 0);
      assert.match(r.err, /^memo: [^\n]+\n$/);
      assert.ok(!r.err.includes(token.slice(4)), r.err);
      assert.match(r.err, /\[redacted:github-token\]/);
    });
  }
  assert.equal(await readFile(notesPath(dir), "utf8"), before);
  await assert.rejects(stat(join(dir, "no")), { code: "ENOENT" });
});

test("runCli() help and --help print usage", async () => {
  await using dirTmp = await tempDir("memo-cli-");
  const dir = dirTmp.path;
  for (const argv of [["help"], ["--help"]]) {
    const r = await run(dir, argv);
    assert.equal(r.code, 0);
    for (
      const c of ["remember", "recall", "get", "list", "update", "forget", "stats", "replicate"]
    ) {
      assert.match(r.out, new RegExp(`\\n  ${c} `));
    }
  }
  const one = await run(dir, ["help", "recall"]);
  assert.match(one.out, /^Usage: memo recall "query"/);
  const flag = await run(dir, ["recall", "--help"]);
  assert.match(flag.out, /^Usage: memo recall/);
});

test("runCli() finds the project in an ancestor holding .memo/", async () => {
  await using dirTmp = await tempDir("memo-cli-");
  const dir = dirTmp.path;
  assert.equal((await run(dir, ["remember", "root note"])).code, 0);
  const sub = join(dir, "a", "b");
  await mkdir(sub, { recursive: true });
  const st = JSON.parse((await run(sub, ["stats", "--json"])).out);
  assert.equal(st.notes, 1);
  await assert.rejects(stat(join(sub, ".memo")));
});

test("runCli() read-only commands on a new project create no files", async () => {
  await using dirTmp = await tempDir("memo-cli-");
  const dir = dirTmp.path;
  assert.equal((await run(dir, ["list"])).code, 0);
  assert.equal((await run(dir, ["stats"])).code, 0);
  assert.equal((await run(dir, ["recall", "anything"])).code, 0);
  await assert.rejects(stat(join(dir, ".memo")));
});

test("runCli() takes --dir and --json before the command, and help takes any topic", async () => {
  await using dirTmp = await tempDir("memo-cli-");
  const dir = dirTmp.path;
  await using elsewhereTmp = await tempDir("memo-cli-");
  const elsewhere = elsewhereTmp.path;
  const r = await run(elsewhere, ["--dir", dir, "--json", "remember", "rate_limit is 100"]);
  assert.equal(r.code, 0, r.err);
  assert.equal(JSON.parse(r.out).status, "written");
  const listed = await run(elsewhere, [`--dir=${dir}`, "list", "--json"]);
  assert.equal(JSON.parse(listed.out).notes.length, 1);
  assert.match((await run(dir, ["help", "help"])).out, /^memo \d/);
  assert.match((await run(dir, ["help", "--json"])).out, /^memo \d/);
  assert.match((await run(dir, ["help", "recall", "--json"])).out, /^Usage: memo recall/);
  assert.equal((await run(dir, ["help", "nope"])).code, 2);
});

test("runCli() recall --explain shows each term's part of the score", async () => {
  await using dirTmp = await tempDir("memo-cli-");
  const dir = dirTmp.path;
  assert.equal((await run(dir, ["remember", "The rateLimit is 100 per minute"])).code, 0);
  const plain = await run(dir, ["recall", "rate limits"]);
  const explained = await run(dir, ["recall", "rate limits", "--explain"]);
  assert.doesNotMatch(plain.out, /why:/);
  assert.match(explained.out, /why: .*limits→limit in body \d/);
});

test("runCli() stats lists the damaged sections of notes.md", async () => {
  await using dirTmp = await tempDir("memo-cli-");
  const dir = dirTmp.path;
  assert.equal((await run(dir, ["remember", "a good note"])).code, 0);
  const file = notesPath(dir);
  await writeFile(file, (await readFile(file, "utf8")) + "<!-- memo:note {oops -->\n## x\ny\n\n");
  const human = await run(dir, ["stats"]);
  assert.equal(human.code, 0);
  assert.match(human.out, /notes: 1\n/);
  assert.match(
    human.out,
    /issues: 1\n {2}line \d+: Cannot read note: its marker is not valid JSON/,
  );
  const json = JSON.parse((await run(dir, ["stats", "--json"])).out);
  assert.equal(json.issues[0].kind, "damaged-note");
});

test("runCli() builds every command's runtime from MEMO_RUNTIME and MEMO_ROOT_DIR, as memo mcp does", async (t) => {
  await using rootTmp = await tempDir("memo-cli-");
  const root = rootTmp.path;
  await using elsewhereTmp = await tempDir("memo-cli-");
  const elsewhere = elsewhereTmp.path;
  const withEnv = async (env: Record<string, string>, argv: string[]) => {
    const io = recordingIO(elsewhere);
    io.env = env;
    const code = await runCli(argv, io);
    return { code, out: io.out.join(""), err: io.err.join("") };
  };
  await t.step("MEMO_ROOT_DIR chooses the project when --dir is missing", async () => {
    const r = await withEnv({ MEMO_ROOT_DIR: root }, ["remember", "Rooted by the environment"]);
    assert.equal(r.code, 0, r.err);
    assert.match(await readFile(notesPath(root), "utf8"), /Rooted by the environment/);
    await assert.rejects(stat(notesPath(elsewhere)));
  });
  await t.step("--dir wins over MEMO_ROOT_DIR", async () => {
    const r = await withEnv({ MEMO_ROOT_DIR: root }, ["stats", "--dir", elsewhere, "--json"]);
    assert.equal(JSON.parse(r.out).notes, 0);
  });
  await t.step(
    "MEMO_RUNTIME=hybrid reaches every command, and needs no API key to work locally",
    async () => {
      await using hybridTmp = await tempDir("memo-cli-");
      const hybrid = hybridTmp.path;
      // A base URL where nothing listens, and no API key.
      const env = {
        MEMO_ROOT_DIR: hybrid,
        MEMO_RUNTIME: "hybrid",
        MEMO_CLOUD_BASE_URL: "http://127.0.0.1:9",
      };
      const remembered = await withEnv(env, [
        "remember",
        "Hybrid notes stay local first",
        "--json",
      ]);
      assert.equal(remembered.code, 0, remembered.err);
      const id = JSON.parse(remembered.out).note.id as string;
      assert.match(await readFile(notesPath(hybrid), "utf8"), /Hybrid notes stay local first/);
      for (
        const argv of [
          ["recall", "hybrid"],
          ["get", id],
          ["list"],
          ["update", id, "--title", "Local first"],
          ["sync"],
          ["stats"],
          ["forget", id],
        ]
      ) {
        const r = await withEnv(env, argv);
        assert.equal(r.code, 0, `memo ${argv[0]}: ${r.err}`);
      }
      const stats = await withEnv(env, ["stats", "--json"]);
      assert.equal(
        typeof JSON.parse(stats.out).replica?.outbox,
        "number",
        "the hybrid runtime's stats",
      );
      assert.match((await withEnv(env, ["stats"])).out, /\nreplica: outbox \d+, last push /);
      const replicate = await withEnv(env, ["replicate"]);
      assert.equal(replicate.code, 1, "no API key: the cloud cannot be reached");
      assert.match(replicate.err, /^memo: .*no API key/);
    },
  );
  await t.step("a malformed MEMO_RUNTIME is refused", async () => {
    const r = await withEnv({ MEMO_RUNTIME: "mars" }, ["stats"]);
    assert.equal(r.code, 1);
    assert.match(
      r.err,
      /^memo: Cannot read MEMO_RUNTIME: expected local, hybrid or cloud, got mars\n$/,
    );
  });
});

test("runCli() recall and stats say which engine ran and how many notes are embedded", async () => {
  await using dirTmp = await tempDir("memo-cli-");
  const dir = dirTmp.path;
  const io = (argv: string[]) => {
    const recording = recordingIO(dir);
    recording.env = { MEMO_LOCAL_EMBEDDINGS: "false" };
    return runCli(argv, recording).then((code) => ({
      code,
      out: recording.out.join(""),
      err: recording.err.join(""),
    }));
  };
  assert.equal((await io(["remember", "Deploys run with make deploy"])).code, 0);
  const json = await io(["recall", "deploy", "--json"]);
  assert.equal(json.code, 0, json.err);
  const result = JSON.parse(json.out);
  assert.deepEqual(Object.keys(result), ["hits", "engine", "coverage"]);
  assert.equal(result.engine, "lexical");
  assert.equal(result.coverage.embedded, 0);
  const human = await io(["recall", "deploy"]);
  assert.match(
    human.out,
    /^1\. Deploys run with make deploy .*\n.*\nengine: lexical(, 0\/1 notes embedded)?\n$/,
  );
  const stats = await io(["stats"]);
  assert.match(stats.out, /\nembeddings: 0\/1 notes \(use-lite, off\)\n/);
  assert.equal(JSON.parse((await io(["stats", "--json"])).out).embeddings.state, "off");
  // Embeddings off: vector is refused by the recall, in its own words, and embed says why.
  const vector = await io(["recall", "deploy", "--engine", "vector"]);
  assert.equal(vector.code, 1);
  assert.match(vector.err, /^memo: Cannot recall with the vector engine: /);
  const embed = await io(["embed"]);
  assert.equal(embed.code, 1);
  assert.match(embed.err, /^memo: Cannot embed.*local embeddings are off/);
});

test("runCli() embed needs the local or hybrid runtime", async () => {
  await using dirTmp = await tempDir("memo-cli-");
  const dir = dirTmp.path;
  const io = recordingIO(dir);
  // The cloud runtime builds without the network; embed is refused before any request.
  io.env = {
    MEMO_RUNTIME: "cloud",
    MEMO_CLOUD_BASE_URL: "http://127.0.0.1:9",
    MEMO_CLOUD_API_KEY: "mk_test",
  };
  assert.equal(await runCli(["embed"], io), 2);
  assert.deepEqual(io.err, ["memo: embed needs the local or hybrid runtime\n"]);
  assert.deepEqual(io.out, []);
});

test("runCli() bad recall settings in the environment name the variable", async () => {
  await using dirTmp = await tempDir("memo-cli-");
  const dir = dirTmp.path;
  for (
    const [env, message] of [
      [{ MEMO_RECALL_ENGINE: "semantic" }, /^memo: Cannot read MEMO_RECALL_ENGINE: expected /],
      [{ MEMO_LOCAL_EMBEDDINGS: "maybe" }, /^memo: Cannot read MEMO_LOCAL_EMBEDDINGS: expected /],
    ] as const
  ) {
    const io = recordingIO(dir);
    io.env = env;
    assert.equal(await runCli(["stats"], io), 1);
    assert.match(io.err.join(""), message);
  }
});

test("runCli(): -- ends the options, so -h after it is text, not a help request", async () => {
  await using dirTmp = await tempDir("memo-cli-");
  const dir = dirTmp.path;
  const r = await run(dir, ["remember", "--json", "--", "-h"]);
  assert.equal(r.code, 0, r.err);
  assert.equal(JSON.parse(r.out).note.body, "-h");
  const help = await run(dir, ["remember", "-h"]);
  assert.equal(help.code, 0);
  assert.match(help.out, /^Usage: memo remember/m);
});

test("memo list: the more: line asks what this page asked (--label, --source, --limit)", async () => {
  await using dirTmp = await tempDir("memo-cli-");
  const dir = dirTmp.path;
  for (let i = 0; i < 4; i++) {
    assert.equal((await run(dir, ["remember", `infra note ${i}`, "--label", "infra ops"])).code, 0);
    assert.equal((await run(dir, ["remember", `other note ${i}`])).code, 0);
  }
  const first = (await run(dir, ["list", "--label", "infra ops", "--limit", "2"])).out;
  const more = first.match(/^more: memo (.+)$/m)?.[1];
  assert.ok(more, first);
  assert.match(more, / --label 'infra ops'/);
  // The printed line, as a shell splits it.
  const argv = more.match(/'[^']*'|\S+/g)!.map((w) => w.replace(/^'(.*)'$/, "$1"));
  const next = await run(dir, argv);
  assert.equal(next.code, 0, next.err);
  assert.doesNotMatch(next.out, /other note/);
  assert.match(next.out, /infra note 2/);
  assert.equal(next.out.split("\n").filter((l) => /infra note/.test(l)).length, 2);
});
