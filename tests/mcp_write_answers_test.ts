/**
 * A write tool's answer says what it did. One that runs into `requestTimeoutMs` while another
 * process holds `notes.md`'s lock answers MCP_TIMEOUT and writes nothing, then or later (the
 * runtime's signal reaches the store, which gives up waiting for the lock); one whose answer would
 * be over `maxOutputBytes` is refused before it writes.
 */

import assert from "node:assert/strict";
import { readFile, rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { createMemoMcpRuntimeFromConfig } from "../runtimes/mod.ts";
import { createMemoMcpProtocolServer } from "../server/protocol_server.ts";
import { FileMemoryStore } from "@memo/memory";

// deno-lint-ignore no-explicit-any
type Json = any;

const tool = (name: string, args: unknown, id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

/** A lock held by a live process of this host (the test's parent): never stale. */
const liveLock = () =>
  JSON.stringify({
    pid: Deno.ppid,
    host: hostname(),
    created: new Date().toISOString(),
    size: 0,
    ino: 0,
    nonce: "held-by-another-process",
  });

Deno.test("a write past requestTimeoutMs behind another process's lock answers MCP_TIMEOUT and writes nothing", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-write-timeout-" });
  const notesPath = `${rootDir}/.memo/memory/notes.md`;
  const lockPath = `${notesPath}.lock`;
  try {
    const runtime = createMemoMcpRuntimeFromConfig({ rootDir, prewarm: false });
    const server = createMemoMcpProtocolServer({ runtime, requestTimeoutMs: 200 });
    const send = async (msg: unknown): Promise<Json> =>
      JSON.parse((await server.handle(JSON.stringify(msg)))!);
    const kept = await send(tool("remember", { text: "Deploys run with make deploy" }, 1));
    const id = kept.result.structuredContent.note.id;
    const before = await readFile(notesPath);

    await writeFile(lockPath, liveLock());
    const calls = [
      tool("remember", { text: "written while another process held the lock" }, 2),
      tool("update_note", { id, text: "Deploys run with make ship" }, 3),
      tool("forget", { id }, 4),
    ];
    for (const call of calls) {
      const answer = await send(call);
      assert.equal(answer.error?.data?.code, "MCP_TIMEOUT", JSON.stringify(answer));
    }
    // The other process lets go; nothing of the three may be written after that either.
    await rm(lockPath);
    await runtime.close(); // waits for the store's queue
    assert.deepEqual(await readFile(notesPath), before);

    const again = createMemoMcpRuntimeFromConfig({ rootDir, prewarm: false });
    try {
      const { notes } = await again.list({ limit: 10 });
      assert.deepEqual(notes.map((n) => n.body), ["Deploys run with make deploy"]);
    } finally {
      await again.close();
    }
  } finally {
    await Deno.remove(rootDir, { recursive: true });
  }
});

Deno.test("the file store's update and remove stop waiting for the lock when their signal aborts", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-write-timeout-" });
  const store = new FileMemoryStore({ rootDir });
  try {
    const { written } = await store.commit({ notes: [{ text: "one" }] });
    const id = written[0].id;
    const path = `${rootDir}/.memo/memory/notes.md`;
    const before = await readFile(path);
    await writeFile(`${path}.lock`, liveLock());
    for (
      const write of [
        (signal: AbortSignal) => store.update(id, { text: "two" }, { signal }),
        (signal: AbortSignal) => store.remove(id, { signal }),
        (signal: AbortSignal) => store.commit({ notes: [{ text: "three" }] }, { signal }),
      ]
    ) {
      const stop = new AbortController();
      const pending = write(stop.signal);
      stop.abort(new Error("stopped by the test"));
      await assert.rejects(pending, /stopped by the test/);
    }
    // Aborted before they start, they never wait at all.
    await assert.rejects(store.remove(id, { signal: AbortSignal.abort() }));
    await rm(`${path}.lock`);
    assert.deepEqual(await readFile(path), before);
    assert.equal((await store.get(id))?.body, "one");
  } finally {
    await store.close?.();
    await Deno.remove(rootDir, { recursive: true });
  }
});

Deno.test("a write whose answer would be over maxOutputBytes is refused before it writes", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-write-answer-" });
  try {
    const runtime = createMemoMcpRuntimeFromConfig({ rootDir, prewarm: false });
    const server = createMemoMcpProtocolServer({ runtime });
    const send = async (msg: unknown): Promise<Json> =>
      JSON.parse((await server.handle(JSON.stringify(msg)))!);
    // Within every input limit, but each quote is escaped once in structuredContent and twice in
    // the text content: the answer would be about 0.7 MB.
    const quotes = "A title\n" + '"'.repeat(110_000);
    const answer = await send(tool("remember", { text: quotes }, 1));
    assert.equal(answer.error?.code, -32012, JSON.stringify(answer).slice(0, 300));
    assert.equal(answer.error.data.code, "MCP_OUTPUT_LIMIT");
    assert.match(answer.error.message, /nothing was written/);
    assert.equal((await runtime.list({ limit: 10 })).notes.length, 0, "nothing written");

    // A large note whose answer fits is written as before.
    const plain = "A long note\n" + "word ".repeat(30_000);
    const kept = await send(tool("remember", { text: plain }, 2));
    assert.equal(kept.result?.structuredContent.status, "written");
    const noteId = kept.result.structuredContent.note.id;
    const before = await runtime.get(noteId);
    const refused = await send(tool("update_note", { id: noteId, text: quotes }, 3));
    assert.equal(refused.error?.data?.code, "MCP_OUTPUT_LIMIT");
    assert.deepEqual(await runtime.get(noteId), before, "the note is unchanged");
    assert.equal((await runtime.list({ limit: 10 })).notes.length, 1);
    await runtime.close();
  } finally {
    await Deno.remove(rootDir, { recursive: true });
  }
});
