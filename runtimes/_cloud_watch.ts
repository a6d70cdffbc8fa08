/**
 * Internal: the cloud runtime's `watch`. While someone listens, it polls the
 * project's change feed from the head it found when it started, so that only
 * new changes are reported, one call per check. Writes made through the
 * runtime are reported at once by the runtime; the poller skips them when the
 * feed shows them again. A check that reads the feed while one of the runtime's
 * writes is still waiting for its answer holds what it read until the write is
 * answered (the write may be among it), so that the runtime's own write is never
 * reported as another writer's.
 *
 * @module
 */

import type { MemoCloudClient } from "./cloud_client.ts";
import type { RuntimeChange } from "./types.ts";

/** Checks a tombstone of one of our deletes may take to show up in the feed. */
const DELETE_SKIP_TICKS = 5;

/** Polls the change feed while started. */
export class CloudChangePoller {
  readonly #client: MemoCloudClient;
  readonly #intervalMs: number;
  readonly #deliver: (change: RuntimeChange) => void;
  #running = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #abort: AbortController | undefined;
  /** Token of the next read; undefined until the head is known. */
  #since: string | undefined;
  /** Highest sequence number reported (or found at the start). */
  #head = -1;
  /** Sequence numbers of our own writes, already reported. */
  readonly #ownSeqs = new Set<number>();
  /** Ids of our own deletes, already reported, with the checks left to see their tombstone. */
  readonly #ownDeletes = new Map<string, number>();
  /** The runtime's writes waiting for their answer. */
  #writes = 0;
  /** Upserts read while a write of ours was running (seq → id), not reported yet. */
  readonly #heldUpserts = new Map<number, string>();
  /** Deletes read while a write of ours was running, not reported yet. */
  readonly #heldDeletes = new Set<string>();

  constructor(
    client: MemoCloudClient,
    intervalMs: number,
    deliver: (change: RuntimeChange) => void,
  ) {
    this.#client = client;
    this.#intervalMs = intervalMs;
    this.#deliver = deliver;
  }

  /** Whether the poller runs. */
  get running(): boolean {
    return this.#running;
  }

  /** Starts polling (no-op when running): the first check finds the head. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#since = undefined;
    this.#head = -1;
    this.#schedule(0);
  }

  /** Stops polling and forgets where it was. */
  stop(): void {
    this.#running = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#abort?.abort();
    this.#abort = undefined;
    this.#ownSeqs.clear();
    this.#ownDeletes.clear();
    this.#heldUpserts.clear();
    this.#heldDeletes.clear();
  }

  /**
   * A write of the runtime starts; call the function returned once it is answered (after
   * {@linkcode ownUpserts} or {@linkcode ownDelete}): what the feed showed meanwhile and was not
   * the runtime's is reported then.
   */
  writing(): () => void {
    this.#writes++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#writes--;
      if (this.#writes === 0) this.#release();
    };
  }

  /** Reports what was held while writes ran. */
  #release(): void {
    const ids = new Set([...this.#heldUpserts.values(), ...this.#heldDeletes]);
    this.#heldUpserts.clear();
    this.#heldDeletes.clear();
    if (ids.size && this.#running) this.#deliver({ ids: [...ids], listChanged: true });
  }

  /**
   * Notes upserts this runtime made (their ids and revisions): returns the
   * ids to report now, leaving out those the feed has already reported, and
   * remembers the others so that the feed does not report them again.
   */
  ownUpserts(notes: readonly { id: string; revision: number }[]): string[] {
    if (!this.#running) return notes.map((n) => n.id);
    const ids: string[] = [];
    for (const note of notes) {
      if (this.#heldUpserts.get(note.revision) === note.id) {
        this.#heldUpserts.delete(note.revision); // read meanwhile: ours, reported now
        ids.push(note.id);
        continue;
      }
      if (this.#since !== undefined && note.revision <= this.#head) continue;
      this.#ownSeqs.add(note.revision);
      ids.push(note.id);
    }
    return ids;
  }

  /** Notes a delete this runtime made, so that the feed does not report it again. */
  ownDelete(id: string): void {
    if (!this.#running) return;
    if (!this.#heldDeletes.delete(id)) this.#ownDeletes.set(id, DELETE_SKIP_TICKS);
  }

  /**
   * Notes ids the runtime changed without knowing their revisions (a correction's old note):
   * what the feed showed of them while the write ran is not reported again.
   */
  ownIds(ids: readonly string[]): void {
    for (const [seq, id] of this.#heldUpserts) if (ids.includes(id)) this.#heldUpserts.delete(seq);
  }

  #schedule(ms: number): void {
    if (!this.#running) return;
    this.#timer = setTimeout(() => void this.#tick(), ms);
  }

  async #tick(): Promise<void> {
    this.#timer = undefined;
    const abort = new AbortController();
    this.#abort = abort;
    try {
      if (this.#since === undefined) {
        const stats = await this.#client.stats({ signal: abort.signal });
        if (abort.signal.aborted) return;
        this.#since = String(stats.revision);
        this.#head = stats.revision;
      } else {
        await this.#read(abort.signal);
      }
    } catch {
      // The feed is out of reach for now: the next check tries again from the same token.
    } finally {
      if (this.#abort === abort) this.#abort = undefined;
    }
    if (!abort.signal.aborted) this.#schedule(this.#intervalMs);
  }

  async #read(signal: AbortSignal): Promise<void> {
    const ids = new Set<string>();
    let hasMore = true;
    while (hasMore) {
      const page = await this.#client.changes({ since: this.#since, limit: 1000, signal });
      if (signal.aborted) return;
      for (const change of page.changes) {
        this.#head = Math.max(this.#head, change.seq);
        if (change.op === "delete" && this.#ownDeletes.delete(change.id)) continue;
        if (change.op === "upsert" && this.#ownSeqs.delete(change.seq)) continue;
        if (this.#writes > 0) {
          // One of our writes may be among these: held until it is answered.
          if (change.op === "upsert") this.#heldUpserts.set(change.seq, change.id);
          else this.#heldDeletes.add(change.id);
          continue;
        }
        ids.add(change.id);
      }
      this.#since = page.next;
      hasMore = page.hasMore && page.changes.length > 0;
    }
    for (const seq of this.#ownSeqs) if (seq <= this.#head) this.#ownSeqs.delete(seq);
    for (const [id, left] of this.#ownDeletes) {
      if (left <= 1) this.#ownDeletes.delete(id);
      else this.#ownDeletes.set(id, left - 1);
    }
    // The feed does not tell a new note from a changed one: the list may have changed.
    if (ids.size) this.#deliver({ ids: [...ids], listChanged: true });
  }
}
