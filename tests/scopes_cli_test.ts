/**
 * Scopes (issue 32) through the CLI, in process: `memo export` keeps each note's scope (a
 * project note's is implicit), `memo import` puts each note back into its scope, an import whose
 * id another scope holds is refused with nothing written, and `memo list --scope` narrows.
 *
 * @module
 */

import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCli } from "../cli/main.ts";
import { recordingIO } from "../testing/cli_io.ts";
import { tempDir } from "../testing/temp_dir.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

Deno.test("memo export and import keep the scope; an import of an id another scope holds is refused", async () => {
  await using a = await tempDir("memo-scopes-cli-a-");
  await using b = await tempDir("memo-scopes-cli-b-");
  const run = (root: string, memoHome: string) => async (...args: string[]) => {
    const io = recordingIO(root);
    io.env = { MEMO_HOME: memoHome };
    const code = await runCli(args, io);
    return { code, out: io.out.join(""), err: io.err.join("") };
  };
  const memoA = run(a.path, join(a.path, "home"));
  const memoB = run(b.path, join(b.path, "home"));
  const ok = async (p: Promise<{ code: number; out: string; err: string }>) => {
    const r = await p;
    assert.equal(r.code, 0, r.err);
    return r.out;
  };
  await ok(memoA("remember", "Deploys run with make deploy"));
  await ok(memoA("remember", "This checkout serves on port 8081", "--scope", "local"));
  await ok(memoA("remember", "Ada prefers tabs", "--scope", "user"));
  const exported = await ok(memoA("export", "--format", "jsonl"));
  const rows = exported.trim().split("\n").map((l) => JSON.parse(l));
  // A project note carries no scope (an export stays importable by a memo without scopes).
  assert.deepEqual(rows.map((r) => r.scope ?? "project").sort(), ["local", "project", "user"]);
  const file = join(b.path, "export.jsonl");
  await writeFile(file, exported);

  // Into another project and home: each note lands in its scope, with its id.
  await ok(memoB("import", file, "--json"));
  const listed: Json = JSON.parse(await ok(memoB("list", "--json")));
  assert.deepEqual(
    listed.notes.map((n: Json) => [n.id, n.scope]).sort(),
    rows.map((r) => [r.id, r.scope ?? "project"]).sort(),
  );
  const user: Json = JSON.parse(await ok(memoB("list", "--scope", "user", "--json")));
  assert.deepEqual(user.notes.map((n: Json) => n.body), ["Ada prefers tabs"]);
  assert.match(await readFile(join(b.path, "home", "memory", "notes.md"), "utf8"), /Ada prefers/);

  // The same file forced into the project: the user and local ids are held elsewhere.
  const files = [
    join(b.path, ".memo", "memory", "notes.md"),
    join(b.path, ".memo", "memory", "notes.local.md"),
    join(b.path, "home", "memory", "notes.md"),
  ];
  const before = await Promise.all(files.map((f) => readFile(f, "utf8")));
  const forced = await memoB("import", file, "--scope", "project", "--json");
  assert.notEqual(forced.code, 0);
  assert.match(forced.err, /its id is held by the (user|local) scope/);
  assert.deepEqual(await Promise.all(files.map((f) => readFile(f, "utf8"))), before);
});

Deno.test("memo export --format md keeps the scope too: a local note never lands in the shared file", async () => {
  await using a = await tempDir("memo-scopes-md-a-");
  await using b = await tempDir("memo-scopes-md-b-");
  const run = (root: string) => async (...args: string[]) => {
    const io = recordingIO(root);
    io.env = { MEMO_HOME: join(root, "home") };
    const code = await runCli(args, io);
    assert.equal(code, 0, io.err.join(""));
    return io.out.join("");
  };
  const memoA = run(a.path);
  const memoB = run(b.path);
  await memoA("remember", "Deploys run with make deploy");
  await memoA("remember", "My VPN password hint is the dog's name", "--scope", "local");
  await memoA("remember", "Ada prefers tabs", "--scope", "user");
  const file = join(b.path, "export.md");
  await writeFile(file, await memoA("export", "--format", "md"));
  await memoB("import", file);
  const listed: Json = JSON.parse(await memoB("list", "--json"));
  assert.deepEqual(listed.notes.map((n: Json) => [n.body, n.scope]).sort(), [
    ["Ada prefers tabs", "user"],
    ["Deploys run with make deploy", "project"],
    ["My VPN password hint is the dog's name", "local"],
  ]);
  const shared = await readFile(join(b.path, ".memo", "memory", "notes.md"), "utf8");
  assert.doesNotMatch(shared, /VPN|Ada/);
  assert.doesNotMatch(shared, /"scope"/, "notes.md itself never names a scope");
});

Deno.test("memo doctor reports an id that an outside edit brought back into the project", async () => {
  await using dir = await tempDir("memo-scopes-cli-doctor-");
  const root = dir.path;
  const memo = async (...args: string[]) => {
    const io = recordingIO(root);
    io.env = { MEMO_HOME: join(root, "home") };
    const code = await runCli(args, io);
    return { code, out: io.out.join(""), err: io.err.join("") };
  };
  const written = JSON.parse((await memo("remember", "The API base path is /v2", "--json")).out);
  const id: string = written.note?.id ?? written.id;
  const notes = join(root, ".memo", "memory", "notes.md");
  const committed = await readFile(notes, "utf8");
  assert.equal((await memo("doctor")).out.includes("id-in-two-scopes"), false);
  assert.equal((await memo("update", id, "--scope", "local")).code, 0);
  await writeFile(notes, committed); // a git checkout brings the project's copy back
  const doctor = await memo("doctor");
  assert.notEqual(doctor.code, 0, doctor.out);
  assert.match(
    doctor.out + doctor.err,
    new RegExp(`id-in-two-scopes: note ${id} is in the project scope and in the local scope`),
  );
  const listed = JSON.parse((await memo("list", "--json")).out);
  assert.deepEqual(listed.notes.map((n: Json) => [n.id, n.scope]), [[id, "project"]]);
});
