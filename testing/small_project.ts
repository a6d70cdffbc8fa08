/**
 * Test and benchmark helper: a project of three notes (about deploys, the staging database and
 * lunch), written with embeddings off, for the processes that `tests/start_modules_test.ts` and
 * `bench/idle_bench.ts` start on it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "../memory/mod.ts";
 * import { seedSmallProject } from "./small_project.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await seedSmallProject(dir);
 * const memo = await openMemo({ rootDir: dir, localEmbeddings: false });
 * assert.equal((await memo.stats()).notes, 3);
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @module
 */

import { openMemo } from "../memory/mod.ts";

/** Writes the three notes into the project at `dir` (created when missing). */
export async function seedSmallProject(dir: string): Promise<void> {
  const memo = await openMemo({ rootDir: dir, localEmbeddings: false });
  await memo.rememberMany([
    { text: "Deploys run with make deploy from main", labels: ["ops"] },
    { text: "The staging database is db-stage-2", labels: ["infra"] },
    { text: "Lunch is at noon on Fridays" },
  ]);
  await memo.close();
}
