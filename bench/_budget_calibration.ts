/**
 * Calibration of the index budget's accounting (issue 35): projects of several sizes loaded into
 * one in-process `PostgresCloudStore` with no eviction, and for each size what the process holds
 * after a full collection (V8's heap plus the memory outside it that JavaScript objects own) grows
 * by per project, against what the budget accounts for. Run under `--v8-flags=--expose-gc`.
 *
 * @module
 */

import { PostgresCloudStore } from "../cloud/postgres/store.ts";
import { corpus } from "./index_scale.ts";

const WORKSPACE = "bench";

/** A full collection, then V8's heap and external bytes. */
export function heldAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run with --v8-flags=--expose-gc");
  gc();
  gc();
  const { heapUsed, external } = Deno.memoryUsage();
  return heapUsed + external;
}

/** Writes `projects` projects of `notes` short notes (about 240 characters) named `prefix…`. */
export async function seedProjects(
  url: string,
  prefix: string,
  projects: number,
  notes: number,
  offset = 0,
): Promise<string[]> {
  const { note } = corpus(50_000);
  const loader = await PostgresCloudStore.open({ url, max: 4, snapshots: false });
  const names: string[] = [];
  try {
    for (let p = 0; p < projects; p++) {
      const name = `${prefix}${p}`;
      names.push(name);
      const project = await loader.project(WORKSPACE, name);
      const drafts = Array.from({ length: notes }, (_, i) => {
        const n = note(offset + p * notes + i);
        const cut = n.body.length > 240 ? n.body.slice(0, n.body.lastIndexOf(" ", 240)) : n.body;
        return { text: cut, title: n.title, labels: n.labels };
      });
      for (let i = 0; i < drafts.length; i += 5000) await project.upsert(drafts.slice(i, i + 5000));
    }
  } finally {
    await loader.close();
  }
  return names;
}

/**
 * Loads `names` through one store (an unbounded budget) and returns the growth of what the
 * process holds per project against the bytes the budget accounts for per project.
 */
export async function measure(url: string, names: string[], snapshots: boolean) {
  const store = await PostgresCloudStore.open({
    url,
    max: 4,
    snapshots: false,
    indexBudgetMb: 100_000,
  });
  try {
    // Warm: the first project pays for code and caches.
    const warm = await store.project(WORKSPACE, names[0]);
    await warm.recall("warm up", { limit: 10 });
    const before = heldAfterGc();
    const accountedBefore = store.stats().index.bytes;
    for (const name of names.slice(1)) {
      const project = await store.project(WORKSPACE, name);
      await project.recall("deploy the service", { limit: 10 });
    }
    const after = heldAfterGc();
    const n = names.length - 1;
    const accounted = (store.stats().index.bytes - accountedBefore) / n;
    const held = (after - before) / n;
    return {
      snapshots,
      projects: n,
      heldPerProject: held,
      accountedPerProject: accounted,
      ratio: held / accounted,
    };
  } finally {
    await store.close();
  }
}

/** Writes the snapshot of each of `names` (one store, snapshots of every project of 100 notes up). */
export async function writeSnapshots(url: string, names: string[]): Promise<void> {
  const store = await PostgresCloudStore.open({
    url,
    max: 4,
    snapshots: { minNotes: 100, minChanges: 1, changeRatio: 0, delayMs: 0 },
    indexBudgetMb: 100_000,
  });
  try {
    for (const name of names) {
      await (await store.project(WORKSPACE, name)).recall("warm up", { limit: 10 });
    }
    const deadline = Date.now() + 600_000;
    while (store.stats().snapshots!.written + store.stats().snapshots!.skipped < names.length) {
      if (Date.now() > deadline) throw new Error("the snapshots were not written");
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await store.close();
  }
}
