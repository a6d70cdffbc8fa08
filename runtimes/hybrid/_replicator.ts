/**
 * The hybrid runtime's replicator: one replication at a time, each a pull (the change feed from the
 * persisted token, applied to `notes.md` through the store) then a push (forgets, updates with
 * `If-Match`, creates in batches that carry the local ids), with idempotency keys derived from each
 * request, so that a retried push writes nothing twice. Decisions are in `_replica_plan.ts`, the
 * state file in `_replica_state.ts`, the copy of the local notes in `_local_mirror.ts`.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { unrefTimer } from "../../platform/mod.ts";
import {
  type Memo,
  type Note,
  NotesConflictError,
  type ReplicaStatus,
  sameNote,
} from "@memo/memory";
import { MemoRuntimeError } from "../errors.ts";
import { isMemoCloudError } from "../cloud/errors.ts";
import type { MemoCloudClient, MemoCloudNote } from "../cloud/client.ts";
import {
  draftOf,
  fingerprint,
  noteIn,
  outboxSize,
  patchOf,
  plainNote,
  planPull,
  type PullPlan,
} from "./_replica_plan.ts";
import { type PushedEntry, type ReplicaStateData, ReplicaStateFile } from "./_replica_state.ts";
import { LocalMirror, type ReplicaScope, scopeStoreOf } from "./_local_mirror.ts";
import type { ReplicateOptions, ReplicateResult } from "../types.ts";

/** Notes per `notes:batch` request of a push. */
const PUSH_BATCH = 500;
/** Change-feed page size of a pull. */
const PULL_PAGE = 1000;
/** Delay between a write and the replication it starts. */
const KICK_MS = 50;
/** After a failed replication, writes start none for this long (the timer still runs). */
const COOLDOWN_MS = 5_000;

/** What the replicator needs from its runtime. */
export interface ReplicatorOptions {
  rootDir: string;
  /** The scope replicated (default `project`). */
  scope?: ReplicaScope;
  /** Folder of the state (default `<rootDir>/.memo/replica`). */
  stateDir?: string;
  /** The local memory client (shared with the local runtime). */
  memo: () => Promise<Memo>;
  /** The Cloud API client; throws (a `config` MemoCloudError) when it cannot be built. */
  client: () => MemoCloudClient;
  pullIntervalMs: number;
  /** Clock, in milliseconds. */
  now?: () => number;
}

interface CycleOptions extends ReplicateOptions {
  /** Wait for another process's replication instead of skipping. */
  wait?: boolean;
  /** Push only (the drain at close). */
  pushOnly?: boolean;
}

/** What a pull and a push of one cycle work on. */
interface Cycle {
  client: MemoCloudClient;
  state: ReplicaStateData;
  memo: Memo;
  result: ReplicateResult;
  options: CycleOptions;
}

function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s+/g, " ").trim().slice(0, 500) || "replication failed";
}

/** The replicator of one hybrid runtime. */
export class Replicator {
  readonly #options: ReplicatorOptions;
  readonly #file: ReplicaStateFile;
  readonly #now: () => number;
  #state: ReplicaStateData | undefined;
  readonly #mirror: LocalMirror;
  /** Hash this process last sent per id (its own writes' echoes are not conflicts). */
  #sent = new Map<string, string>();
  #running: Promise<ReplicateResult | undefined> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #kickTimer: ReturnType<typeof setTimeout> | undefined;
  #again = false;
  #started = false;
  #closed = false;
  #failedAt = -Infinity;
  #error: string | undefined;
  #abort: AbortController | undefined;
  #draining = false;
  #saved = { scalars: "", pulledAt: 0 };
  /** Pushed-map changes not saved yet. */
  #changedIds = new Set<string>();
  #changedAll = false;

  constructor(options: ReplicatorOptions) {
    this.#options = options;
    this.#file = new ReplicaStateFile(options.rootDir, options.stateDir);
    this.#mirror = new LocalMirror(options.scope);
    this.#now = options.now ?? Date.now;
  }

  /** Starts replicating in the background: now, then every `pullIntervalMs`. */
  start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    this.#schedule(0);
  }

  /** A local write happened: replicate soon (unless the last attempt failed just now). */
  kick(): void {
    if (this.#closed) return;
    if (!this.#started) return this.start();
    if (this.#now() - this.#failedAt < COOLDOWN_MS) return;
    this.#again = true; // a replication running now may have missed the write: one more after it
    if (!this.#running && this.#kickTimer === undefined) {
      // Unref'd: a process that is done (a server stopped) exits; the outbox stays on disk.
      this.#kickTimer = unrefTimer(setTimeout(() => {
        this.#kickTimer = undefined;
        void this.#background();
      }, KICK_MS));
    }
  }

  /** A connection was refused: a drain gives up at once. */
  refused(): void {
    if (this.#draining) {
      this.#abort?.abort(new Error("Cannot drain the outbox: connection refused"));
    }
  }

  /** Replicates now, waiting for a replication already running (here or in another process). */
  async replicate(options: ReplicateOptions = {}): Promise<ReplicateResult> {
    this.start();
    for (;;) {
      options.signal?.throwIfAborted();
      await this.#running?.catch(() => {});
      if (this.#running) continue;
      const result = await this.#run({ ...options, wait: true });
      if (result) return result;
    }
  }

  /** The replication state, as stats report it. */
  async status(): Promise<ReplicaStatus> {
    const state = await this.#load();
    let outbox = 0;
    try {
      const memo = await this.#options.memo();
      await this.#mirror.refresh(memo);
      outbox = outboxSize(this.#mirror.outbox(state.pushed));
    } catch {
      // the local notes cannot be read now: the stats call reports that itself
    }
    const lastPull = state.lastPull;
    const status: ReplicaStatus = {
      outbox,
      lastPush: state.lastPush,
      lastPull,
      lagMs: lastPull ? Math.max(0, this.#now() - Date.parse(lastPull)) : null,
      conflicts: state.conflicts,
    };
    const error = this.#error ?? state.error;
    if (error) status.error = error;
    return status;
  }

  /**
   * Stops the timers and pushes what is left for at most `drainMs` (a refused connection ends it at
   * once). Never throws for the cloud.
   */
  async close(drainMs: number): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    clearTimeout(this.#kickTimer);
    if (!this.#started) return;
    const deadline = AbortSignal.timeout(Math.max(0, drainMs));
    const stop = () => this.#abort?.abort(deadline.reason);
    deadline.addEventListener("abort", stop, { once: true });
    try {
      const running = this.#running;
      if (running) {
        await Promise.race([running.catch(() => {}), aborted(deadline)]);
      }
      // A cloud that just refused the connection is down: nothing to wait for.
      const refusedJustNow = this.#now() - this.#failedAt < COOLDOWN_MS &&
        /refused/.test(this.#error ?? "");
      if (!deadline.aborted && !this.#running && !refusedJustNow) {
        const memo = await this.#options.memo().catch(() => undefined);
        if (memo && this.#state) {
          await this.#mirror.refresh(memo);
          if (!outboxSize(this.#mirror.outbox(this.#state.pushed))) return;
        }
        await Promise.race([
          this.#run({ pushOnly: true, signal: deadline, refusedEnds: true }).catch(() => {}),
          aborted(deadline),
        ]);
      }
    } finally {
      deadline.removeEventListener("abort", stop);
      this.#abort?.abort(new Error("closed"));
      // An aborted replication ends at once; let it record its state and release the lock.
      await this.#running?.catch(() => {});
    }
  }

  #schedule(ms: number): void {
    clearTimeout(this.#timer);
    if (this.#closed) return;
    this.#timer = unrefTimer(setTimeout(() => void this.#background(), ms));
  }

  async #background(): Promise<void> {
    if (this.#closed) return;
    if (this.#running) {
      // `replicate()` (or a drain) is running: the timer resumes when it ends.
      void this.#running.catch(() => {}).finally(() => this.#schedule(KICK_MS));
      return;
    }
    this.#again = false;
    try {
      await this.#run({});
    } catch {
      // kept in the status; the timer tries again
    }
    if (this.#closed) return;
    const soon = this.#again && this.#now() - this.#failedAt >= COOLDOWN_MS;
    this.#schedule(soon ? KICK_MS : this.#options.pullIntervalMs);
  }

  /** One replication, unless another one runs (then undefined). */
  #run(options: CycleOptions & { refusedEnds?: boolean }): Promise<ReplicateResult | undefined> {
    if (this.#running) return Promise.resolve(undefined);
    const controller = new AbortController();
    const outer = options.signal;
    const onAbort = () => controller.abort(outer!.reason);
    if (outer?.aborted) controller.abort(outer.reason);
    outer?.addEventListener("abort", onAbort, { once: true });
    this.#abort = controller;
    this.#draining = options.refusedEnds === true;
    const run = this.#cycle({ ...options, signal: controller.signal }).finally(() => {
      outer?.removeEventListener("abort", onAbort);
      if (this.#running === run) this.#running = undefined;
      // A write during a `replicate()`: the background goes on soon after it.
      if (this.#again && !options.pushOnly && this.#started) this.#schedule(KICK_MS);
      if (this.#abort === controller) {
        this.#abort = undefined;
        this.#draining = false;
      }
    });
    this.#running = run;
    return run;
  }

  async #cycle(options: CycleOptions & { refusedEnds?: boolean }) {
    const signal = options.signal!;
    const release = await this.#lock(options.wait === true, signal);
    if (!release) return undefined;
    let state: ReplicaStateData | undefined;
    const result: ReplicateResult = { pushed: 0, pulled: 0, conflicts: 0, outbox: 0 };
    try {
      // The state as it is, so that a failure before the target is known is recorded too.
      state = await this.#load();
      const client = this.#options.client();
      if (client.workspaceId === undefined) await client.stats({ signal });
      state = await this.#load(`${client.baseUrl} ${client.workspaceId} ${client.projectId}`);
      const memo = await this.#options.memo();
      // An unresolved git merge: the notes read are a merge not yet in the file; neither way.
      await this.#mirror.refresh(memo);
      const merge = (await scopeStoreOf(memo, this.#mirror.scope)).unresolvedMerge;
      if (merge) {
        const refused = new NotesConflictError(merge.path);
        throw new MemoRuntimeError("CONFLICT", refused.message, { details: { path: merge.path } });
      }
      const cycle: Cycle = { client, state, memo, result, options };
      if (!options.pushOnly) await this.#pull(cycle);
      await this.#push(cycle);
      await this.#mirror.refresh(memo);
      result.outbox = outboxSize(this.#mirror.outbox(state.pushed));
      delete state.error;
      this.#error = undefined;
      this.#failedAt = -Infinity;
      return result;
    } catch (e) {
      const message = oneLine(e);
      this.#error = message;
      this.#failedAt = this.#now();
      if (state) state.error = message;
      throw e;
    } finally {
      if (state) {
        state.conflicts += result.conflicts;
        await this.#save(state).catch(() => {});
        this.#state = state;
      }
      await release().catch(() => {});
    }
  }

  /**
   * Writes what changed in the state; a pull that brought nothing moves only `lastPull`, which is
   * written at most once a minute (the process itself reports it fresh).
   */
  async #save(state: ReplicaStateData): Promise<void> {
    const { pushed: _pushed, lastPull, ...rest } = state;
    const scalars = JSON.stringify(rest);
    const pulledAt = lastPull ? Date.parse(lastPull) : 0;
    if (
      !this.#changedIds.size && !this.#changedAll && scalars === this.#saved.scalars &&
      pulledAt - this.#saved.pulledAt < 60_000 && !await this.#file.changed()
    ) {
      return;
    }
    await this.#file.save(state, { ids: this.#changedIds, all: this.#changedAll });
    this.#changedIds = new Set();
    this.#changedAll = false;
    this.#saved = { scalars, pulledAt };
  }

  /** Sets (or, with undefined, drops) a note's pushed entry. */
  #setPushed(state: ReplicaStateData, id: string, entry: PushedEntry | undefined): void {
    if (entry) state.pushed.set(id, entry);
    else state.pushed.delete(id);
    this.#changedIds.add(id);
    this.#mirror.touch(id);
  }

  async #lock(wait: boolean, signal: AbortSignal): Promise<(() => Promise<void>) | undefined> {
    for (;;) {
      const release = await this.#file.tryLock();
      if (release || !wait) return release;
      await new Promise((resolve) => setTimeout(resolve, 50));
      signal.throwIfAborted();
    }
  }

  /** The state for `target` (undefined: whatever is there), from disk when it changed there. */
  async #load(target?: string): Promise<ReplicaStateData> {
    const known = this.#state;
    if (
      known && (target === undefined || known.target === target) && !await this.#file.changed()
    ) {
      return known;
    }
    const loaded = await this.#file.load(target);
    this.#state = loaded;
    this.#mirror.touchAll();
    this.#changedIds.clear();
    this.#changedAll = false;
    return loaded;
  }

  async #pull({ client, state, memo, result, options }: Cycle): Promise<void> {
    const signal = options.signal;
    let restarted = false;
    let done = 0;
    for (;;) {
      let page;
      try {
        page = await client.changes({ since: state.feed, limit: PULL_PAGE, signal });
      } catch (e) {
        // A token the cloud never gave (its data was reset, or another server): start over,
        // and push everything again (the cloud recognises what it has by identity).
        if (
          !restarted && isMemoCloudError(e, "invalid_request") &&
          (e.details as { parameter?: unknown } | undefined)?.parameter === "since"
        ) {
          restarted = true;
          state.feed = undefined;
          state.pushed = new Map();
          this.#changedAll = true;
          this.#mirror.touchAll();
          continue;
        }
        throw e;
      }
      if (page.changes.length) {
        for (let attempt = 0;; attempt++) {
          await this.#mirror.refresh(memo);
          const plan = planPull(page.changes, this.#mirror.view(), state.pushed, this.#sent);
          if (await this.#applyPlan(memo, state, plan, result)) {
            result.pulled += plan.applied;
            break;
          }
          if (attempt >= 5) {
            throw new Error("Cannot apply the pulled changes: notes.md keeps changing");
          }
        }
      }
      state.feed = page.next;
      done += page.changes.length;
      options.onProgress?.({ phase: "pull", done });
      if (!page.hasMore) break;
    }
    state.lastPull = new Date(this.#now()).toISOString();
  }

  #key(state: ReplicaStateData, ...parts: unknown[]): string {
    const digest = createHash("sha256").update(JSON.stringify(parts)).digest("hex").slice(0, 40);
    return `memo-replica-${state.replicaId}-${digest}`;
  }

  async #push({ client, state, memo, result, options }: Cycle): Promise<void> {
    const signal = options.signal;
    let done = 0;
    for (let round = 0; round < 4; round++) {
      await this.#mirror.refresh(memo);
      const box = this.#mirror.outbox(state.pushed);
      const total = outboxSize(box);
      if (!total) break;
      const progress = (n: number) => {
        done += n;
        options.onProgress?.({ phase: "push", done, total: done - n + total });
      };
      // Forgets first, then updates, then creates: an identity is freed before it is claimed.
      for (const id of box.deletes) {
        const [, revision] = state.pushed.get(id)!;
        try {
          await client.forget(id, {
            ifMatch: revision,
            idempotencyKey: this.#key(state, "DELETE", id, revision),
            signal,
          });
          this.#setPushed(state, id, undefined);
          result.pushed++;
        } catch (e) {
          if (isMemoCloudError(e, "not_found")) this.#setPushed(state, id, undefined);
          else if (isMemoCloudError(e, "conflict") && noteIn(e.details)) {
            // Changed in the cloud since: the update wins over the forget.
            await this.#takeCloud(memo, state, noteIn(e.details)!, result);
          } else throw e;
        }
        progress(1);
      }
      for (const note of box.updates) {
        const [, revision] = state.pushed.get(note.id)!;
        const patch = patchOf(note);
        this.#sent.set(note.id, fingerprint(note));
        try {
          const cloud = await client.update(note.id, patch, {
            ifMatch: revision,
            idempotencyKey: this.#key(state, "PATCH", note.id, revision, patch),
            signal,
          });
          this.#setPushed(state, note.id, [cloud.hash, cloud.revision]);
          result.pushed++;
          await this.#settle(memo, note, cloud);
        } catch (e) {
          // Forgotten in the cloud: the update wins, and the next round re-creates it.
          if (isMemoCloudError(e, "not_found")) this.#setPushed(state, note.id, undefined);
          else if (isMemoCloudError(e, "conflict") && noteIn(e.details)) {
            await this.#takeCloud(memo, state, noteIn(e.details)!, result);
          } else throw e;
        }
        progress(1);
      }
      for (let i = 0; i < box.creates.length; i += PUSH_BATCH) {
        const chunk = box.creates.slice(i, i + PUSH_BATCH);
        const drafts = chunk.map(draftOf);
        for (const note of chunk) this.#sent.set(note.id, fingerprint(note));
        const answer = await client.upsertBatch(drafts, {
          idempotencyKey: this.#key(state, "BATCH", drafts),
          signal,
        });
        const put: Note[] = [];
        const remove: string[] = [];
        answer.results.forEach(({ note: cloud }, k) => {
          const mine = chunk[k];
          this.#setPushed(state, cloud.id, [cloud.hash, cloud.revision]);
          const plain = plainNote(cloud);
          if (cloud.id !== mine.id) {
            // The cloud holds this identity under another id: its id wins.
            remove.push(mine.id);
            if (!put.some((n) => n.id === cloud.id)) put.push(plain);
          } else if (!sameNote(mine, plain)) put.push(plain);
        });
        // If a note changed here meanwhile, it stays dirty and goes out next round.
        await this.#mirror.apply(memo, put.filter((n) => !remove.includes(n.id)), remove);
        result.pushed += chunk.length;
        progress(chunk.length);
      }
      state.lastPush = new Date(this.#now()).toISOString();
    }
  }

  /** After a push: take the cloud's copy when it differs only in what the cloud normalised. */
  async #settle(memo: Memo, mine: Note, cloud: MemoCloudNote): Promise<void> {
    const plain = plainNote(cloud);
    if (!sameNote(mine, plain)) await this.#mirror.apply(memo, [plain], []);
  }

  /** A 409 brought the cloud's current copy: resolve it as a pull would. */
  async #takeCloud(
    memo: Memo,
    state: ReplicaStateData,
    cloud: MemoCloudNote,
    result: ReplicateResult,
  ): Promise<void> {
    const change = {
      seq: 0,
      op: "upsert" as const,
      id: cloud.id,
      revision: cloud.revision,
      note: cloud,
    };
    await this.#mirror.refresh(memo);
    await this.#applyPlan(
      memo,
      state,
      planPull([change], this.#mirror.view(), state.pushed, this.#sent),
      result,
    );
  }

  /** Applies a plan to the notes, then (when it held) to the pushed map and the counts. */
  async #applyPlan(
    memo: Memo,
    state: ReplicaStateData,
    plan: PullPlan,
    result: ReplicateResult,
  ): Promise<boolean> {
    if (!await this.#mirror.apply(memo, [...plan.put.values()], [...plan.remove])) return false;
    for (const [id, entry] of plan.pushed) this.#setPushed(state, id, entry);
    result.conflicts += plan.conflicts;
    return true;
  }
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener("abort", () => resolve(), { once: true })
  );
}
