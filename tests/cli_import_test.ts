/**
 * `memo import` of a real `memory.jsonl`: the official MCP memory server
 * (`@modelcontextprotocol/server-memory` from npm) runs as a stdio
 * subprocess driven by the SDK client, then memo imports what it wrote,
 * through the CLI process once and in process after; `memo forget --source`
 * undoes it.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
import { recordingIO } from "../testing/cli_io.ts";
import { runCli } from "../cli/main.ts";
import { runProcess } from "./_run_process.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SERVER_MEMORY = "npm:@modelcontextprotocol/server-memory@2026.8.31";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Runs the official memory server on `file` and builds a small graph through its tools. */
async function writeGraph(file: string): Promise<void> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", `--lock=${join(ROOT, "deno.dev.lock")}`, SERVER_MEMORY],
    cwd: ROOT,
    stderr: "pipe",
    env: { ...Deno.env.toObject(), MEMORY_FILE_PATH: file, NO_COLOR: "1" },
  });
  const client = new Client({ name: "memo-import-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      assert.notEqual(result.isError, true, JSON.stringify(result));
    };
    await call("create_entities", {
      entities: [
        { name: "Ada Lovelace", entityType: "person", observations: ["Wrote the first program"] },
        { name: "Analytical Engine", entityType: "machine", observations: ["Designed by Babbage"] },
        { name: "London", entityType: "city", observations: ["Capital of England"] },
      ],
    });
    await call("create_relations", {
      relations: [
        { from: "Ada Lovelace", to: "Analytical Engine", relationType: "programmed" },
        { from: "Ada Lovelace", to: "London", relationType: "lived_in" },
      ],
    });
    await call("add_observations", {
      observations: [{ entityName: "Ada Lovelace", contents: ["Born in 1815"] }],
    });
  } finally {
    await client.close();
  }
}

Deno.test("memo import reads the memory.jsonl the official MCP memory server wrote; forget --source undoes it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-import-server-memory-" });
  try {
    const file = join(dir, "memory.jsonl");
    await writeGraph(file);
    const project = join(dir, "project");
    await Deno.mkdir(project);

    // Through the CLI process, as a user runs it (stdin is not a terminal).
    const cli = (...args: string[]) =>
      runProcess(Deno.execPath(), ["run", "-A", "--quiet", join(ROOT, "cli.ts"), ...args], {
        cwd: project,
        env: { NO_COLOR: "1" },
      });
    const first = await cli("import", file, "--json");
    assert.equal(first.code, 0, first.err);
    assert.equal(first.err, "");
    assert.deepEqual(JSON.parse(first.out), {
      source: file,
      format: "server-memory",
      written: 3,
      updated: 0,
      unchanged: 0,
      skipped: [],
      unread: 0,
    });

    const list = recordingIO(project);
    assert.equal(await runCli(["list", "--json"], list), 0);
    const notes: Json[] = JSON.parse(list.out.join("")).notes;
    const byTitle = Object.fromEntries(notes.map((n) => [n.title, n]));
    assert.deepEqual(Object.keys(byTitle).sort(), ["Ada Lovelace", "Analytical Engine", "London"]);
    const ada = byTitle["Ada Lovelace"];
    assert.deepEqual(ada.labels, ["person"]);
    assert.equal(ada.source, "server-memory:Ada%20Lovelace");
    assert.equal(
      ada.body,
      "- Wrote the first program\n- Born in 1815\n\nRelations:\n" +
        "- Ada Lovelace lived_in London\n- Ada Lovelace programmed Analytical Engine",
    );
    assert.deepEqual(byTitle["Analytical Engine"].labels, ["machine"]);
    assert.equal(
      byTitle["Analytical Engine"].body,
      "- Designed by Babbage\n\nRelations:\n- Ada Lovelace programmed Analytical Engine",
    );
    assert.equal(byTitle["London"].source, "server-memory:London");

    // The same file again: every note is already there as it is.
    const again = recordingIO(project);
    assert.equal(await runCli(["import", file, "--json"], again), 0);
    const summary = JSON.parse(again.out.join(""));
    assert.deepEqual([summary.written, summary.updated, summary.unchanged], [0, 0, 3]);

    // Undo: off a terminal --yes is needed; with it, exactly the imported notes go.
    const mine = recordingIO(project);
    assert.equal(await runCli(["remember", "Kept: my own note", "--source", "wiki:own"], mine), 0);
    const refused = await cli("forget", "--source", "server-memory:");
    assert.equal(refused.code, 2);
    assert.match(refused.err, /needs --yes when not on a terminal/);
    const undo = recordingIO(project);
    assert.equal(
      await runCli(["forget", "--source", "server-memory:", "--yes", "--json"], undo),
      0,
    );
    assert.deepEqual(
      JSON.parse(undo.out.join("")).ids.sort(),
      notes.map((n) => n.id).sort(),
    );
    const left = recordingIO(project);
    assert.equal(await runCli(["list", "--json"], left), 0);
    assert.deepEqual(JSON.parse(left.out.join("")).notes.map((n: Json) => n.title), [
      "Kept: my own note",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
