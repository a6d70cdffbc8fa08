/**
 * The secrets guard on every local way in: the MCP tools (over the protocol server's stdio core
 * and over HTTP), the `memo` commands that write, `memo import` from each format, both
 * connectors' sync passes (against their fakes), and `memo scan` over a store seeded with
 * secrets, a hand edit among them. A fresh corpus of realistic secrets goes through each; none
 * reaches `notes.md`, the embedding cache, the index snapshot, an answer, a log line or the
 * `--json` output; the look-alikes pass untouched; `refuse` leaves `notes.md` byte-identical.
 * `correct` (the SDK client over HTTP, and `memo correct`) is guarded as `remember` is.
 */

import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { contentHash, embeddingKey, embeddingText, memoPaths } from "@memo/memory";
import { createMemoMcpProtocolServer, createMemoMcpRuntimeFromConfig } from "../mod.ts";
import { handleMemoMcpRequest } from "../http.ts";
import { runCli } from "../cli/main.ts";
import { recordingIO } from "../testing/cli_io.ts";
import { lookAlikeCorpus, secretCorpus } from "../testing/secrets_corpus.ts";
import {
  assertNoSecret,
  assertNoSecretOnDisk,
  TOY_EMBEDDER,
  toyCacheKeys,
} from "./_secrets_check.ts";
import { discussion, startFakeGithub } from "./connectors_fake_github.ts";
import { startFakeNotion } from "./connectors_fake_notion.ts";
import { blocks, text } from "./fixtures/notion/objects.ts";
import { DATABASE_ID, PAGE, sampleWorkspace } from "./fixtures/notion/workspace.ts";

const corpus = secretCorpus();
const lookAlikes = lookAlikeCorpus();

const notesOf = (rootDir: string) => readFile(memoPaths(rootDir).notes, "utf8").catch(() => "");

function call(id: number, name: string, args: Record<string, unknown>) {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args },
  });
}

Deno.test("MCP remember and update_note redact every secret of the corpus, over stdio's core and HTTP; nothing reaches a file, an answer or a log", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-secrets-mcp-" });
  const logs: string[] = [];
  const runtime = createMemoMcpRuntimeFromConfig({
    rootDir,
    embedder: TOY_EMBEDDER,
    embedInBackground: false,
    recall: { engine: "lexical" },
  });
  const server = createMemoMcpProtocolServer({
    runtime,
    logger: (record) => logs.push(JSON.stringify(record)),
  });
  try {
    const answers: string[] = [];
    let id = 0;
    for (const s of corpus) {
      // Text, then the same secret in a title, a label and a source.
      const reply = (await server.handle(call(++id, "remember", { text: s.text })))!;
      answers.push(reply);
      const result = JSON.parse(reply).result;
      assert.ok(
        result.structuredContent.redacted.some((r: { rule: string }) => r.rule === s.rule),
        s.name,
      );
    }
    const s0 = corpus[0];
    const http = await handleMemoMcpRequest(
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          "mcp-protocol-version": "2025-06-18",
        },
        body: call(++id, "remember", {
          text: "labelled",
          title: `t ${s0.value}`,
          labels: [s0.value],
          source: `wiki:${s0.value}`,
        }),
      }),
      { runtime },
    );
    const httpText = await http.text();
    answers.push(httpText);
    assert.deepEqual(
      JSON.parse(httpText).result.structuredContent.redacted.map((r: { field: string }) => r.field)
        .sort(),
      ["labels", "source", "title"],
    );
    // update_note: the patch is guarded too.
    const noteId = JSON.parse(answers[0]).result.structuredContent.note.id;
    const updated = (await server.handle(
      call(++id, "update_note", { id: noteId, text: corpus[1].text, title: corpus[2].value }),
    ))!;
    answers.push(updated);
    assert.deepEqual(
      JSON.parse(updated).result.structuredContent.redacted.map((r: { field: string }) => r.field),
      ["title", "text"],
    );
    // Look-alikes pass untouched.
    for (const l of lookAlikes) {
      const reply = JSON.parse((await server.handle(call(++id, "remember", { text: l.text })))!);
      assert.equal(reply.result.structuredContent.note.body, l.text, l.name);
      assert.equal(reply.result.structuredContent.redacted, undefined, l.name);
    }
    await runtime.embed!();
    const stats = JSON.parse((await server.handle(call(++id, "memory_stats", {})))!);
    assert.deepEqual(stats.result.structuredContent.secrets, { policy: "redact", findings: 0 });
    assertNoSecret(answers.join("\n"), corpus, "an MCP answer");
    assertNoSecret(logs.join("\n"), corpus, "a log line");
    assert.ok(logs.some((l) => l.includes("[redacted:")), "the logged arguments are scrubbed");
    await runtime.close();
    await assertNoSecretOnDisk(rootDir, corpus);
    // The embedding cache holds vectors of the stored (redacted) texts only.
    const keys = await toyCacheKeys(rootDir);
    const notes = await notesOf(rootDir);
    for (const s of corpus) {
      const raw = embeddingKey(embeddingText({ title: "", body: s.text }));
      assert.ok(!keys.includes(raw), `no vector of the raw ${s.name}`);
    }
    assert.ok(keys.length > 0 && notes.includes("[redacted:"));
  } finally {
    await runtime.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});

Deno.test("MCP read tools and unknown methods never echo a token-shaped value into a log line or an error", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-secrets-reads-" });
  const logs: string[] = [];
  const runtime = createMemoMcpRuntimeFromConfig({ rootDir, recall: { engine: "lexical" } });
  const server = createMemoMcpProtocolServer({
    runtime,
    logger: (record) => logs.push(JSON.stringify(record)),
  });
  const token = "ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2";
  try {
    const answers = [
      await server.handle(call(1, "recall", { query: `what is ${token}` })),
      await server.handle(call(2, "get_note", { id: token })),
      await server.handle(call(3, "list_notes", { source: token })),
      await server.handle(JSON.stringify({ jsonrpc: "2.0", id: 4, method: token })),
    ];
    assert.equal(JSON.parse(answers[3]!).error.code, -32601);
    assert.ok(logs.some((l) => l.includes("tools/call recall")), "the calls are logged");
    for (const text of [...answers.map(String), ...logs]) {
      assert.ok(!text.includes(token), text);
    }
  } finally {
    await runtime.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});

Deno.test("MCP under refuse: a tool error with MCP_VALIDATION_ERROR naming the rules, notes.md byte-identical", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-secrets-refuse-" });
  const runtime = createMemoMcpRuntimeFromConfig({ rootDir, secrets: "refuse" });
  const server = createMemoMcpProtocolServer({ runtime });
  try {
    const kept = JSON.parse((await server.handle(call(1, "remember", { text: "A plain note" })))!);
    const before = await readFile(memoPaths(rootDir).notes);
    for (const s of corpus) {
      const reply = (await server.handle(call(2, "remember", { text: s.text })))!;
      const result = JSON.parse(reply).result;
      assert.equal(result.isError, true, s.name);
      assert.equal(result.structuredContent.error.code, "MCP_VALIDATION_ERROR");
      assert.match(result.structuredContent.error.message, new RegExp(s.rule));
      assertNoSecret(reply, corpus, "a refusal");
    }
    const noteId = kept.result.structuredContent.note.id;
    const reply = JSON.parse(
      (await server.handle(
        call(3, "update_note", { id: noteId, text: corpus[0].text }),
      ))!,
    );
    assert.equal(reply.result.isError, true);
    assert.deepEqual(await readFile(memoPaths(rootDir).notes), before);
  } finally {
    await runtime.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});

Deno.test("MCP correct, with the SDK client over HTTP: redact answers the rules, refuse is an MCP_VALIDATION_ERROR with notes.md byte-identical; no value in an answer, a log line or a file", async () => {
  const [gh, jwt, npm] = ["github-token", "jwt", "npm-token"].map((rule) =>
    corpus.find((s) => s.rule === rule)!
  );
  for (const secrets of ["redact", "refuse"] as const) {
    const rootDir = await Deno.makeTempDir({ prefix: `memo-secrets-correct-${secrets}-` });
    const runtime = createMemoMcpRuntimeFromConfig({
      rootDir,
      secrets,
      recall: { engine: "lexical", localEmbeddings: false },
    });
    const logs: string[] = [];
    const options = { runtime, logger: (r: unknown) => void logs.push(JSON.stringify(r)) };
    const client = new Client({ name: "memo-secrets-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL("http://127.0.0.1/mcp"), {
      fetch: (input: string | URL | Request, init?: RequestInit) =>
        handleMemoMcpRequest(new Request(input, init), options),
    });
    try {
      await client.connect(transport);
      // deno-lint-ignore no-explicit-any
      const call = async (name: string, args: Record<string, unknown>): Promise<any> =>
        await client.callTool({ name, arguments: args });
      const answers: unknown[] = [];
      const old = (await call("remember", { text: "Releases are signed by the CI bot" }))
        .structuredContent.note;
      const twin = (await call("remember", { text: "Releases get signed by the CI bot" }))
        .structuredContent.note;
      const before = await readFile(memoPaths(rootDir).notes);
      const fix = await call("correct", {
        id: old.id,
        text: `Releases are signed with ${gh.text}`,
        title: `Signing ${npm.value}`,
        labels: ["ci", jwt.value],
      });
      answers.push(fix);
      if (secrets === "redact") {
        assert.equal(fix.isError, undefined, JSON.stringify(fix));
        assert.deepEqual(fix.structuredContent.redacted, [
          { rule: npm.rule, field: "title" },
          { rule: gh.rule, field: "text" },
          { rule: jwt.rule, field: "labels" },
        ]);
        assert.deepEqual(fix.structuredContent.superseded, [old.id]);
        // supersede links stored notes only: no text, so nothing for the guard.
        const linked = await call("supersede", {
          ids: [twin.id],
          by: fix.structuredContent.note.id,
        });
        assert.equal(linked.isError, undefined);
        assert.equal(linked.structuredContent.redacted, undefined);
        answers.push(linked);
        assert.match(
          await notesOf(rootDir),
          /Releases are signed with .*\[redacted:github-token\]/,
        );
      } else {
        assert.equal(fix.isError, true);
        assert.equal(fix.structuredContent.error.code, "MCP_VALIDATION_ERROR");
        assert.match(
          fix.structuredContent.error.message,
          /^Cannot correct the note: .*jwt in labels/,
        );
        assert.deepEqual(await readFile(memoPaths(rootDir).notes), before, "byte-identical");
      }
      assertNoSecret(JSON.stringify(answers), corpus, "an MCP answer");
      assertNoSecret(logs.join("\n"), corpus, "a log line");
      assert.ok(
        logs.some((l) => l.includes("[redacted:jwt]")),
        "the logged arguments are scrubbed",
      );
      await client.close();
      await runtime.close();
      await assertNoSecretOnDisk(rootDir, corpus);
    } finally {
      await client.close();
      await runtime.close();
      await Deno.remove(rootDir, { recursive: true });
    }
  }
});

/** The four import formats, each holding every secret of the corpus (and, for markdown, the look-alikes). */
async function importSources(dir: string): Promise<Record<string, string>> {
  const at = (p: string) => join(dir, p);
  await mkdir(at("md"), { recursive: true });
  await mkdir(at("claude"), { recursive: true });
  await writeFile(
    at("memory.jsonl"),
    corpus.map((s, i) =>
      JSON.stringify({
        type: "entity",
        name: `Entity ${i}`,
        entityType: "ops",
        observations: [s.text],
      })
    ).join("\n") + "\n",
  );
  await writeFile(
    at("claude/CLAUDE.md"),
    "# Project\n\n" + corpus.map((s, i) => `## Section ${i}\n\n${s.text}\n`).join("\n"),
  );
  for (const [i, s] of corpus.entries()) {
    await writeFile(at(`md/secret-${i}.md`), `---\ntags: [ops]\n---\n# Note ${i}\n\n${s.text}\n`);
  }
  for (const [i, l] of lookAlikes.entries()) await writeFile(at(`md/plain-${i}.md`), l.text + "\n");
  const jsonl = corpus.map((s, i) => {
    const note = {
      id: `0${String(i).padStart(2, "0")}secretsimport00000`.slice(0, 20),
      title: `Export ${i}`,
      body: s.text,
      labels: ["ops"],
      hash: "",
      created: "2026-01-01T00:00:00.000Z",
      updated: "2026-01-01T00:00:00.000Z",
    };
    note.hash = contentHash(note);
    return JSON.stringify(note);
  });
  await writeFile(at("export.jsonl"), jsonl.join("\n") + "\n");
  return {
    "server-memory": at("memory.jsonl"),
    claude: at("claude"),
    markdown: at("md"),
    "memo-jsonl": at("export.jsonl"),
  };
}

Deno.test("memo remember, update, correct and import (every format) redact, or under --secrets refuse change nothing; no output carries a value", async () => {
  const work = await Deno.makeTempDir({ prefix: "memo-secrets-cli-" });
  try {
    const sources = await importSources(work);
    for (const [format, source] of Object.entries(sources)) {
      const rootDir = join(work, `p-${format}`);
      await mkdir(join(rootDir, ".memo"), { recursive: true });
      const io = recordingIO(rootDir);
      // refuse first: nothing written, exit 2, the message names rules only.
      await runCli(["remember", "A plain note", "--dir", rootDir], io);
      const before = await readFile(memoPaths(rootDir).notes);
      assert.equal(
        await runCli(
          ["import", source, "--from", format, "--secrets", "refuse", "--dir", rootDir],
          io,
        ),
        2,
        format,
      );
      assert.deepEqual(await readFile(memoPaths(rootDir).notes), before, `${format}: refused`);
      assert.equal(
        await runCli(["remember", corpus[0].text, "--secrets", "refuse", "--dir", rootDir], io),
        2,
      );
      assert.deepEqual(await readFile(memoPaths(rootDir).notes), before);
      // redact (the default): written, each redaction named by file and line.
      assert.equal(
        await runCli(["import", source, "--from", format, "--json", "--dir", rootDir], io),
        0,
      );
      const summary = JSON.parse(io.out[io.out.length - 1]);
      assert.ok(summary.redacted.length >= corpus.length, `${format}: ${summary.redacted.length}`);
      assert.equal(await runCli(["import", source, "--from", format, "--dir", rootDir], io), 0);
      assert.equal(await runCli(["remember", corpus[1].text, "--json", "--dir", rootDir], io), 0);
      const remembered = JSON.parse(io.out[io.out.length - 1]);
      assert.equal(remembered.redacted[0].rule, corpus[1].rule);
      assert.equal(
        await runCli(
          ["update", remembered.note.id, "--title", corpus[2].value, "--dir", rootDir],
          io,
        ),
        0,
      );
      assert.match(io.out[io.out.length - 1], /redacted: .* in title/);
      if (format === "markdown") {
        // memo correct: refused under --secrets refuse (exit 2, notes.md unchanged), else redacted.
        const fix = ["correct", remembered.note.id, `Now: ${corpus[3].text}`, "--dir", rootDir];
        const kept = await readFile(memoPaths(rootDir).notes);
        assert.equal(await runCli([...fix, "--secrets", "refuse"], io), 2);
        assert.match(io.err[io.err.length - 1], new RegExp(`${corpus[3].rule} in text`));
        assert.deepEqual(await readFile(memoPaths(rootDir).notes), kept);
        assert.equal(await runCli(fix, io), 0);
        assert.match(io.out[io.out.length - 1], new RegExp(`redacted: ${corpus[3].rule} in text`));
      }
      assertNoSecret(io.out.join("") + io.err.join(""), corpus, `${format}: the output`);
      await assertNoSecretOnDisk(rootDir, corpus);
      if (format === "markdown") {
        const notes = await notesOf(rootDir);
        for (const l of lookAlikes) assert.ok(notes.includes(l.text.split("\n")[0]), l.name);
      }
    }
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

const GITHUB_TOKEN = "ghp_SECRETSguardTESTtoken00000000000000009";
const NOTION_TOKEN = "ntn_SECRETSguardTESTtoken000000000000000009";

Deno.test("both connectors' sync passes redact each record before the pass commits; under refuse the pass is refused and writes nothing", async () => {
  const [gh, jwt, slack] = [corpus[0], corpus.find((s) => s.rule === "jwt")!, corpus[7]];
  const github = startFakeGithub([{
    nameWithOwner: "octo-org/hello-world",
    discussions: [
      discussion(1, "2024-05-01T10:00:00Z", { body: `CI: ${gh.text}` }),
      discussion(2, "2024-05-02T10:00:00Z", { title: `Token ${slack.value}` }),
    ],
  }], { token: GITHUB_TOKEN });
  const model = sampleWorkspace();
  model.children.get(PAGE.runbook)!.push(
    blocks.paragraph("d1000000-0000-4000-8000-0000000000ff", PAGE.runbook, [text(jwt.text)]),
  );
  const notion = startFakeNotion(model, { token: NOTION_TOKEN });
  const config = {
    connectors: [
      { id: "gh", type: "discussions", repositories: ["octo-org/hello-world"], apiUrl: github.url },
      { id: "wiki", type: "pages", databaseId: DATABASE_ID.replace(/-/g, ""), apiUrl: notion.url },
    ],
  };
  const env = { GITHUB_TOKEN, MEMO_NOTION_TOKEN: NOTION_TOKEN };
  const project = async (secrets: string) => {
    const rootDir = await Deno.makeTempDir({ prefix: "memo-secrets-sync-" });
    await mkdir(join(rootDir, ".memo"), { recursive: true });
    await writeFile(join(rootDir, ".memo", "config.json"), JSON.stringify({ ...config, secrets }));
    return rootDir;
  };
  const refused = await project("refuse");
  const redacted = await project("redact");
  try {
    const io = { ...recordingIO(refused), env };
    await runCli(["remember", "A plain note", "--dir", refused], io);
    const before = await readFile(memoPaths(refused).notes);
    assert.equal(await runCli(["sync", "--json", "--dir", refused], io), 1);
    const result = JSON.parse(io.out[io.out.length - 1]);
    assert.deepEqual(result.errors.map((e: { connector: string }) => e.connector), ["gh", "wiki"]);
    assert.match(result.errors[0].error.message, /github-token|slack-token/);
    assert.deepEqual(
      await readFile(memoPaths(refused).notes),
      before,
      "a refused pass writes nothing",
    );
    await assert.rejects(readFile(join(refused, ".memo", "connectors", "state.json")));
    assertNoSecret(io.out.join("") + io.err.join(""), corpus, "sync output");

    const io2 = { ...recordingIO(redacted), env };
    assert.equal(await runCli(["sync", "--json", "--dir", redacted], io2), 0);
    const notes = await notesOf(redacted);
    for (const rule of [gh.rule, slack.rule, jwt.rule]) {
      assert.ok(notes.includes(`[redacted:${rule}]`));
    }
    // A second pass finds the redacted notes unchanged: nothing is written twice.
    assert.equal(await runCli(["sync", "--json", "--dir", redacted], io2), 0);
    assert.equal(JSON.parse(io2.out[io2.out.length - 1]).written, 0);
    assertNoSecret(io2.out.join("") + io2.err.join(""), corpus, "sync output");
    await assertNoSecretOnDisk(redacted, corpus);
  } finally {
    await github.close();
    await notion.close();
    await Deno.remove(refused, { recursive: true });
    await Deno.remove(redacted, { recursive: true });
  }
});

Deno.test("memo scan finds every secret of a seeded store, a hand edit included, with its line; --redact removes them all in one rewrite, and again finds none", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-secrets-scan-" });
  try {
    // Seeded before the guard: written with allow, embedded, and one secret added by hand.
    const runtime = createMemoMcpRuntimeFromConfig({
      rootDir,
      secrets: "allow",
      embedder: TOY_EMBEDDER,
      embedInBackground: false,
    });
    for (const s of corpus.slice(0, 10)) await runtime.remember({ text: s.text, labels: ["ops"] });
    await runtime.remember({ text: "Hand edits land here" });
    await runtime.embed!();
    await runtime.close();
    const hand = corpus.find((s) => s.rule === "stripe-key")!;
    const path = memoPaths(rootDir).notes;
    const seeded = (await readFile(path, "utf8")).replace(
      "Hand edits land here",
      `Hand edits land here\nand then ${hand.text}`,
    );
    await writeFile(path, seeded);
    const handLine = seeded.split("\n").findIndex((l) => l.includes(hand.value)) + 1;

    const io = recordingIO(rootDir);
    assert.equal(await runCli(["scan", "--json"], io), 1);
    const found = JSON.parse(io.out[io.out.length - 1]);
    assert.ok(found.findings.length >= 11);
    assert.ok(
      found.findings.some((f: { line: number; rule: string }) =>
        f.line === handLine && f.rule === hand.rule
      ),
    );
    assert.equal(await runCli(["scan"], io), 1);
    assert.match(io.out[io.out.length - 1], /secrets? found; memo scan --redact replaces them/);
    const stats = (await (async () => {
      const r = createMemoMcpRuntimeFromConfig({ rootDir, embedInBackground: false });
      try {
        return await r.stats();
      } finally {
        await r.close();
      }
    })()).secrets;
    assert.equal(stats?.findings, found.findings.length);

    assert.equal(await runCli(["scan", "--redact", "--json"], io), 0);
    const redacted = JSON.parse(io.out[io.out.length - 1]);
    assert.equal(redacted.redacted.length, 11);
    assert.equal(await runCli(["scan", "--json"], io), 0);
    assert.deepEqual(JSON.parse(io.out[io.out.length - 1]).findings, []);
    assertNoSecret(io.out.join("") + io.err.join(""), corpus, "scan output");
    await assertNoSecretOnDisk(rootDir, corpus);
    // The vectors of the old texts are gone from the cache.
    const keys = await toyCacheKeys(rootDir);
    assert.equal(keys.length, 1, "only the one note without a secret keeps its vector");
  } finally {
    await Deno.remove(rootDir, { recursive: true });
  }
});

Deno.test("memo scan finds a secret in a section of notes.md that is no note; --redact leaves it, says so and exits 1", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-secrets-damaged-" });
  try {
    const hand = corpus.find((s) => s.rule === "stripe-key")!;
    const io = recordingIO(rootDir);
    assert.equal(await runCli(["remember", "A plain note"], io), 0);
    const path = memoPaths(rootDir).notes;
    const text = (await readFile(path, "utf8")) +
      `<!-- memo:note {"id":"broken -->\n## Broken\nAlso ${hand.text}\n\n`;
    await writeFile(path, text);
    const line = text.split("\n").findIndex((l) => l.includes(hand.value)) + 1;
    const scan = recordingIO(rootDir);
    assert.equal(await runCli(["scan", "--json"], scan), 1);
    assert.deepEqual(JSON.parse(scan.out.join("")).findings, [
      { id: "", rule: hand.rule, field: "text", line },
    ]);
    const redact = recordingIO(rootDir);
    assert.equal(await runCli(["scan", "--redact"], redact), 1);
    assert.match(redact.out.join(""), /1 could not be redacted .*: edit them by hand/);
    assert.equal(await readFile(path, "utf8"), text, "the section is left as it is");
    assertNoSecret(scan.out.join("") + redact.out.join("") + redact.err.join(""), corpus, "scan");
  } finally {
    await Deno.remove(rootDir, { recursive: true });
  }
});

Deno.test("the Cloud API's OpenAPI document and the docs carry no detected value", async () => {
  const { findSecrets } = await import("@memo/memory");
  for (
    const file of ["docs/cloud-api.openapi.json", "docs/cloud-api.md", "docs/configuration.md"]
  ) {
    const doc = await readFile(new URL(`../${file}`, import.meta.url), "utf8");
    assert.deepEqual(await findSecrets(doc), [], file);
  }
});
