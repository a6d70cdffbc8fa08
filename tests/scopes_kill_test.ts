/**
 * Scopes (issue 32): a move between scopes killed at random points. A child process moves one
 * note round the project, user and local scopes in a loop (`update(id, { scope })`); it is
 * killed with SIGKILL once a move began, after a random jitter, and the next open must find the
 * note in exactly one scope: never none (the note lost), never two (the note doubled).
 *
 * @module
 */

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { openMemo } from "../memory/memo.ts";
import { parseNotes } from "../memory/store/parse.ts";
import { scopePaths } from "../memory/scopes/mod.ts";
import { tempDir } from "../testing/temp_dir.ts";
import { readUntil } from "../testing/wait.ts";

const MOVER = new URL("./fixtures/scopes_mover.ts", import.meta.url).pathname;
const ROUNDS = 10;

/** How many times each scope's file holds `id`, read straight from the files. */
async function holders(rootDir: string, memoHome: string, id: string) {
  const count = async (scope: "project" | "local" | "user") => {
    const path = scopePaths(scope, { rootDir, memoHome }).notes;
    const text = await readFile(path, "utf8").catch(() => "");
    const parsed = parseNotes(text);
    assert.deepEqual(
      parsed.issues.filter((i) => i.kind === "damaged-note" || i.kind === "duplicate-id"),
      [],
      `${scope}: no torn or doubled note`,
    );
    return parsed.sections.filter((s) => s.note?.id === id).length;
  };
  return {
    project: await count("project"),
    local: await count("local"),
    user: await count("user"),
  };
}

const sum = (h: Record<string, number>) => Object.values(h).reduce((a, b) => a + b, 0);

Deno.test("a move between scopes killed with SIGKILL at random points leaves the note in exactly one scope", async () => {
  await using project = await tempDir("memo-scopes-kill-");
  await using home = await tempDir("memo-scopes-kill-home-");
  const rootDir = project.path;
  const memoHome = home.path;
  const first = await openMemo({ rootDir, scopes: { memoHome }, localEmbeddings: false });
  const { note } = await first.remember({ text: "The note that keeps moving", labels: ["move"] });
  await first.close();

  /** A mover started, its modules loading; it opens the project once told to go. */
  const spawn = () => {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MOVER, rootDir, memoHome],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).spawn();
    return {
      child,
      stdin: child.stdin.getWriter(),
      stderr: new Response(child.stderr).text(),
      reader: child.stdout.pipeThrough(new TextDecoderStream()).getReader(),
    };
  };
  const seen = { both: 0, moves: 0 };
  // The next round's mover loads while this round's runs: one mover at a time opens the project.
  let next = spawn();
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const mover = next;
      next = spawn();
      await runRound(mover, round);
    }
  } finally {
    await next.stdin.close(); // it exits without opening anything
    await next.child.status;
    await next.stderr;
    await readUntil(next.reader, () => false, "the spare mover's output to end");
  }
  assert.ok(seen.moves >= 1, `the movers moved: ${JSON.stringify(seen)}`);
  if (Deno.env.get("MEMO_TEST_VERBOSE")) {
    console.log(
      `scopes_kill: ${seen.moves} moves done, ${seen.both} kills left the note in two scopes`,
    );
  }

  async function runRound(mover: ReturnType<typeof spawn>, round: number): Promise<void> {
    const { child, reader, stderr } = mover;
    await mover.stdin.write(new TextEncoder().encode("go\n"));
    await mover.stdin.close();
    // Kill once move k (from 1 to 4) has begun, after a jitter of 0 to 2 ms (or none at all): the
    // kill lands anywhere in a move (the journal's write, the two stores' writes, its clear) or
    // between two.
    const k = 1 + Math.floor(Math.random() * 4);
    let out: string;
    try {
      const begun = (t: string) => (t.match(/"begin"/g) ?? []).length >= k;
      out = (await readUntil(reader, begun, `the mover's move ${k}`)).text;
    } catch (e) {
      child.kill("SIGKILL");
      await child.status;
      throw new Error(`${(e as Error).message}\nstderr: ${await stderr}`);
    }
    const jitter = Math.floor(Math.random() * 4) - 1;
    if (jitter >= 0) await new Promise((resolve) => setTimeout(resolve, jitter));
    child.kill("SIGKILL");
    out = (await readUntil(reader, () => false, "the killed mover's output to end", { sofar: out }))
      .text;
    const status = await child.status;
    assert.equal(status.signal, "SIGKILL", `round ${round}: ${await stderr}`);
    await stderr;
    assert.match(out, new RegExp(`^\\{"ready":"${note.id}"\\}\n`), `round ${round}`);
    seen.moves += (out.match(/"moved"/g) ?? []).length;

    // Straight after the kill, the files hold the note once or (mid-move) twice: never zero.
    const killed = await holders(rootDir, memoHome, note.id);
    assert.ok(sum(killed) >= 1, `round ${round}: the note is lost: ${JSON.stringify(killed)}`);
    if (sum(killed) === 2) seen.both++;

    // The next open finishes the move: exactly one scope holds it, and reads show it once.
    const memo = await openMemo({ rootDir, scopes: { memoHome }, localEmbeddings: false });
    try {
      const listed = await memo.list();
      assert.deepEqual(listed.notes.map((n) => [n.id, n.body]), [[note.id, note.body]]);
      assert.deepEqual(listed.notes[0].labels, ["move"]);
    } finally {
      await memo.close();
    }
    const after = await holders(rootDir, memoHome, note.id);
    assert.equal(sum(after), 1, `round ${round}: after the open: ${JSON.stringify(after)}`);
    await assert.rejects(
      readFile(join(rootDir, ".memo", "cache", "scope-move.json")),
      { code: "ENOENT" },
      `round ${round}: the open cleared the journal`,
    );
  }
});
