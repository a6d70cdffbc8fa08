/**
 * A first start downloads only what it runs (issue 34): `deno task start` caches every npm package
 * of `deno.lock` before it runs, so `deno.lock` holds only what memo's own module graphs name, and
 * the tests, benchmarks and scripts lock the rest in `deno.dev.lock` (`scripts/runtime_lock.ts`).
 */

import assert from "node:assert/strict";
import { expectedRuntimeLock, type Lockfile } from "../scripts/runtime_lock.ts";

const ROOT = new URL("..", import.meta.url).pathname;

const readLock = async (name: string): Promise<Lockfile> =>
  JSON.parse(await Deno.readTextFile(`${ROOT}${name}`));

Deno.test("the module graph of `cli.ts serve` names no test or bench dependency", async () => {
  // With deno.lock alone (frozen): a package it lacks fails the command.
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "cli.ts"],
    cwd: ROOT,
    stdin: "null",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const graph: { modules: { specifier: string }[] } = JSON.parse(
    new TextDecoder().decode(out.stdout),
  );
  const root = new URL("..", import.meta.url).href;
  const tooling = graph.modules.map((m) => m.specifier).filter((s) =>
    s.startsWith(root) && /^(tests|bench|testing|scripts)\/|_test\.ts$/.test(s.slice(root.length))
  );
  assert.deepEqual(tooling, []);
  // The serve command itself is in the graph (a lazy import of cli/serve/).
  assert.ok(graph.modules.some((m) => m.specifier === `${root}cli/serve/serve.ts`));

  const runtime = new Set(Object.keys((await readLock("deno.lock")).npm ?? {}));
  const devOnly = Object.keys((await readLock("deno.dev.lock")).npm ?? {}).filter((id) =>
    !runtime.has(id)
  );
  assert.ok(devOnly.some((id) => id.startsWith("playwright-core@")), "deno.dev.lock locks more");
  const named = graph.modules.map((m) => m.specifier).filter((s) => s.startsWith("npm:"))
    .map((s) => s.slice("npm:/".length));
  const devNamed = named.filter((p) => devOnly.some((id) => id === p || id.startsWith(`${p}_`)));
  assert.deepEqual(devNamed, []);
});

Deno.test("deno.lock is deno.dev.lock cut down to what memo runs, and only the start runs on it", async () => {
  assert.equal(
    await Deno.readTextFile(`${ROOT}deno.lock`),
    await expectedRuntimeLock(ROOT),
    "run `deno run -A --lock=deno.dev.lock scripts/runtime_lock.ts`",
  );
  const { tasks } = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  assert.doesNotMatch(tasks.start, /--lock/);
  for (const task of ["test", "ok", "bench", "build:npm", "build:web"]) {
    for (const command of tasks[task].split("&&")) {
      assert.match(command, /--lock=deno\.dev\.lock/, `task ${task}: ${command}`);
    }
  }
});
