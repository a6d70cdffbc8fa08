/**
 * Internal: the cloud runtime's `watch`. While someone listens, it polls the project's change feed
 * from the head it found when it started, so that only new changes are reported, one call per
 * check. Writes made through the runtime are reported at once by the runtime; the poller skips them
 * when the feed shows them again. The feed can show a write of ours before the runtime has its
 * answer (and so its sequence number): what a check finds while one of our writes is in flight is
 * held until our writes end, then reported without ours.
 *
 * @module
 */

import type { MemoCloudClient } from "./client.ts";
import type { RuntimeChange } from "../types.ts";

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
  /** Writes of this runtime in flight. */
  #writes = 0;
  /** Changes found while writes of ours were in flight: reported when they end, less ours. */
  #held: { op: string; id: string; seq: number }[] = [];

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
    this.#held = [];
  }

  /**
   * Runs one write of this runtime: what the feed shows meanwhile waits for its end, so that the
   * write's own change is told apart by its number.
   */
  async writing<T>(write: () => Promise<T>): Promise<T> {
    this.#writes++;
    try {
      return await write();
    } finally {
      if (--this.#writes === 0 && this.#held.length) {
        const held = this.#held;
        this.#held = [];
        this.#report(held);
      }
    }
  }

  /**
   * Notes upserts this runtime made (their ids and revisions): returns the ids to report now,
   * leaving out those the feed has already reported, and remembers the others so that the feed does
   * not report them again.
   */
  ownUpserts(notes: readonly { id: string; revision: number }[]): string[] {
    if (!this.#running) return notes.map((n) => n.id);
    for (const note of notes) {
      const seen = this.#held.findIndex((c) => c.op === "upsert" && c.seq === note.revision);
      if (seen >= 0) this.#held.splice(seen, 1); // the feed showed it while the write was in flight
      else if (this.#since === undefined || note.revision > this.#head) {
        this.#ownSeqs.add(note.revision); // the feed will show it: skip it there
      } // else the head was found after it: the feed will not show it
    }
    return notes.map((n) => n.id);
  }

  /** Notes a delete this runtime made, so that the feed does not report it again. */
  ownDelete(id: string): void {
    if (!this.#running) return;
    const seen = this.#held.findIndex((c) => c.op === "delete" && c.id === id);
    if (seen >= 0) this.#held.splice(seen, 1);
    else this.#ownDeletes.set(id, DELETE_SKIP_TICKS);
  }

  /**
   * Notes ids the runtime changed without knowing their revisions (a correction's old note): what
   * the feed showed of them while the write ran is not reported again.
   */
  ownIds(ids: readonly string[]): void {
    this.#held = this.#held.filter((c) => c.op !== "upsert" || !ids.includes(c.id));
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
    const found: { op: string; id: string; seq: number }[] = [];
    let hasMore = true;
    while (hasMore) {
      const page = await this.#client.changes({ since: this.#since, limit: 1000, signal });
      if (signal.aborted) return;
      for (const change of page.changes) {
        this.#head = Math.max(this.#head, change.seq);
        if (change.op === "delete" && this.#ownDeletes.delete(change.id)) continue;
        if (change.op === "upsert" && this.#ownSeqs.delete(change.seq)) continue;
        found.push({ op: change.op, id: change.id, seq: change.seq });
      }
      this.#since = page.next;
      hasMore = page.hasMore && page.changes.length > 0;
    }
    for (const seq of this.#ownSeqs) if (seq <= this.#head) this.#ownSeqs.delete(seq);
    for (const [id, left] of this.#ownDeletes) {
      if (left <= 1) this.#ownDeletes.delete(id);
      else this.#ownDeletes.set(id, left - 1);
    }
    if (this.#writes > 0) this.#held.push(...found);
    else this.#report(found);
  }

  #report(changes: readonly { id: string }[]): void {
    const ids = new Set(changes.map((c) => c.id));
    // The feed does not tell a new note from a changed one: the list may have changed.
    if (ids.size) this.#deliver({ ids: [...ids], listChanged: true });
  }
}
