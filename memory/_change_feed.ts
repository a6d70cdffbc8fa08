/**
 * Internal: the listeners of `Memo.watch()` and the poll that notices other processes' writes
 * while at least one listener exists.
 *
 * The poll is a timer that, every `intervalMs`, asks the client to catch up with its store
 * (for the file store: one `stat` of notes.md, and a reload only when it changed). The next
 * tick is scheduled when the previous one has finished, so a slow reload never piles up ticks.
 * Without listeners there is no timer and nothing is tracked.
 *
 * @module
 */

import { MemoryValidationError } from "./errors.ts";
import { type Note, sameNote } from "./notes/note.ts";
import type { MemoChange } from "./memo_types.ts";

/** A set of listeners and the poll that runs while the set is not empty. */
export class ChangeFeed {
  readonly #listeners = new Set<(change: MemoChange) => void>();
  readonly #poll: () => Promise<void>;
  readonly #intervalMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #polling = false;

  /** `poll` catches up with the store (and emits what it finds); it runs every `intervalMs`. */
  constructor(poll: () => Promise<void>, intervalMs: number) {
    if (typeof intervalMs !== "number" || !(intervalMs > 0) || !Number.isFinite(intervalMs)) {
      throw new MemoryValidationError(
        "Cannot create memory client: watchIntervalMs must be a positive number",
      );
    }
    this.#poll = poll;
    this.#intervalMs = intervalMs;
  }

  /** Whether anyone listens (changes are tracked only then). */
  get active(): boolean {
    return this.#listeners.size > 0;
  }

  /** Adds a listener; returns the function that removes it (idempotent). */
  add(listener: (change: MemoChange) => void): () => void {
    // A wrapper, so that the same function added twice is two listeners.
    const entry = (change: MemoChange) => listener(change);
    this.#listeners.add(entry);
    this.#schedule();
    return () => {
      this.#listeners.delete(entry);
      if (!this.#listeners.size) this.#stop();
    };
  }

  /** Calls every listener; one that throws does not keep the others from being called. */
  emit(change: MemoChange): void {
    for (const listener of [...this.#listeners]) {
      // A listener removed by an earlier one during this emit is not called.
      if (!this.#listeners.has(listener)) continue;
      try {
        listener(change);
      } catch {
        // A listener's failure is its own; the client and the other listeners go on.
      }
    }
  }

  clear(): void {
    this.#listeners.clear();
    this.#stop();
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#polling || !this.#listeners.size) return;
    this.#timer = setTimeout(this.#tick, this.#intervalMs);
  }

  #stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #tick = (): void => {
    this.#timer = undefined;
    if (!this.#listeners.size) return;
    this.#polling = true;
    // A failed poll (the file briefly unreadable) is tried again at the next tick; the
    // client's own calls report such failures.
    this.#poll().catch(() => {}).finally(() => {
      this.#polling = false;
      this.#schedule();
    });
  };
}

/** Collects what one catch-up with the store changed, as the listeners see it. */
export class ChangeTally {
  readonly created: string[] = [];
  readonly updated: string[] = [];
  readonly removed: string[] = [];

  /** A note now held: `before` is what was held under its id before (if anything). */
  upserted(note: Note, before: Note | undefined): void {
    if (!before) this.created.push(note.id);
    else if (!unchanged(before, note)) this.updated.push(note.id);
  }

  /** The change, or `undefined` when nothing changed. */
  change(): MemoChange | undefined {
    if (!this.created.length && !this.updated.length && !this.removed.length) return undefined;
    return { created: this.created, updated: this.updated, removed: this.removed };
  }
}

/** Whether a note held before is the same as now (history fields included). */
function unchanged(a: Note, b: Note): boolean {
  return a === b || sameNote(a, b);
}
