import assert from "node:assert/strict";
import type { CommitResult, Note, NoteDraft } from "@memo/memory";
import { RepoHostRateLimitError, WorkspaceAuthError } from "./errors.ts";
import { describeError } from "./describe_error.ts";
import { runConnectors } from "./runner.ts";
import type { ConnectorStateEntry, ConnectorStateStore } from "./state.ts";
import type { Connector, ConnectorRecord, PullContext } from "./types.ts";

function record(n: number, updatedAt = `2024-05-0${n}T00:00:00Z`): ConnectorRecord {
  return {
    source: `test:item/${n}`,
    title: `Item ${n}`,
    text: `Text ${n}`,
    url: `https://example.com/${n}`,
    createdAt: "2024-05-01T00:00:00Z",
    updatedAt,
    metadata: { labels: ["test"] },
  };
}

/** A memo that records each commit. */
function recordingMemo(fail?: Error) {
  const commits: NoteDraft[][] = [];
  return {
    commits,
    rememberMany(drafts: readonly NoteDraft[]): Promise<CommitResult> {
      if (fail) return Promise.reject(fail);
      commits.push([...drafts]);
      const notes = drafts.map((d) => ({ id: d.source } as unknown as Note));
      return Promise.resolve({ written: notes, updated: [], unchanged: [], bytesWritten: 100 });
    },
  };
}

function memoryState(): ConnectorStateStore & { entries: Map<string, ConnectorStateEntry> } {
  const entries = new Map<string, ConnectorStateEntry>();
  return {
    entries,
    read: (id) => Promise.resolve(entries.get(id)),
    write: (id, e) => Promise.resolve(void entries.set(id, e)),
  };
}

const connector = (
  id: string,
  pull: (c: PullContext) => Promise<ConnectorRecord[]>,
  scope = "s",
): Connector => ({
  id,
  type: "test",
  scope,
  pull,
});

Deno.test("runConnectors() commits each pass once, after it completed, and moves the state", async () => {
  const memo = recordingMemo();
  const state = memoryState();
  const seen: (string | undefined)[] = [];
  const a = connector("a", (c) => {
    seen.push(c.since);
    return Promise.resolve([
      record(2),
      record(1),
      record(3, "2024-05-01T00:00:00Z"),
      record(3, "2024-05-04T00:00:00Z"),
    ]);
  });
  const result = await runConnectors([a], memo, { state });
  assert.equal(memo.commits.length, 1);
  assert.deepEqual(memo.commits[0].map((d) => [d.source, d.updated]), [
    ["test:item/2", "2024-05-02T00:00:00Z"],
    ["test:item/1", "2024-05-01T00:00:00Z"],
    ["test:item/3", "2024-05-04T00:00:00Z"],
  ]);
  assert.deepEqual(memo.commits[0][0], {
    text: "Text 2",
    title: "Item 2",
    labels: ["test"],
    source: "test:item/2",
    created: "2024-05-01T00:00:00Z",
    updated: "2024-05-02T00:00:00Z",
  });
  assert.deepEqual(result.connectors, [{
    id: "a",
    type: "test",
    fetched: 3,
    written: 3,
    updated: 0,
    unchanged: 0,
  }]);
  assert.deepEqual(state.entries.get("a"), {
    type: "test",
    scope: "s",
    since: "2024-05-04T00:00:00Z",
  });
  await runConnectors([a], memo, { state });
  await runConnectors([a], memo, { state, full: true });
  assert.deepEqual(seen, [undefined, "2024-05-04T00:00:00Z", undefined]);
  await runConnectors(
    [connector("a", (c) => (seen.push(c.since), Promise.resolve([])), "other")],
    memo,
    { state },
  );
  assert.equal(seen.at(-1), undefined, "another scope starts over");
});

Deno.test("runConnectors() writes nothing of a failed pass and runs the next connector", async () => {
  const memo = recordingMemo();
  const state = memoryState();
  const failing = connector("bad", (c) => {
    c.onProgress?.({ connector: "bad", type: "test", phase: "fetching", pages: 1, records: 25 });
    return Promise.reject(
      new RepoHostRateLimitError("Cannot read: rate limited", {
        status: 403,
        resetEpoch: 1717203600,
      }),
    );
  });
  const good = connector("good", () => Promise.resolve([record(1)]));
  const phases: string[] = [];
  const result = await runConnectors([failing, good], memo, {
    state,
    onProgress: (p) => phases.push(`${p.connector}:${p.phase}`),
  });
  assert.equal(memo.commits.length, 1);
  assert.equal(memo.commits[0][0].source, "test:item/1");
  assert.deepEqual(result.errors, [{
    connector: "bad",
    type: "test",
    error: {
      name: "RepoHostRateLimitError",
      message: "Cannot read: rate limited",
      code: "REPO_HOST_RATE_LIMITED",
      status: 403,
      resetEpoch: 1717203600,
    },
  }]);
  assert.deepEqual(result.connectors[0], {
    id: "bad",
    type: "test",
    fetched: 0,
    written: 0,
    updated: 0,
    unchanged: 0,
  });
  assert.equal(state.entries.get("bad"), undefined);
  assert.deepEqual(phases, ["bad:fetching", "bad:failed", "good:committing", "good:committed"]);
});

Deno.test("runConnectors() records a failed commit and leaves the state where it was", async () => {
  const memo = recordingMemo(new Error("Cannot lock notes.md: held by pid 42"));
  const state = memoryState();
  const result = await runConnectors([connector("a", () => Promise.resolve([record(1)]))], memo, {
    state,
  });
  assert.equal(result.errors[0].error.message, "Cannot lock notes.md: held by pid 42");
  assert.equal(state.entries.size, 0);
});

Deno.test("runConnectors() stops at the caller's abort and skips empty commits", async () => {
  const memo = recordingMemo();
  const controller = new AbortController();
  const reason = new DOMException("cancelled", "AbortError");
  const first = connector("a", () => {
    controller.abort(reason);
    return Promise.reject(reason);
  });
  const second = connector("b", () => Promise.resolve([record(1)]));
  await assert.rejects(
    runConnectors([first, second], memo, { signal: controller.signal }),
    (e) => e === reason,
  );
  assert.equal(memo.commits.length, 0);
  const empty = await runConnectors([connector("e", () => Promise.resolve([]))], memo);
  assert.equal(memo.commits.length, 0);
  assert.deepEqual(empty.connectors[0].fetched, 0);
});

Deno.test("describeError() keeps name, message and plain fields, and scrubs secrets", () => {
  const info = describeError(new WorkspaceAuthError(401, "unauthorized"), ["unauthorized"]);
  assert.deepEqual(info, {
    name: "WorkspaceAuthError",
    message:
      "authorization failed (401/403): Notion answered HTTP 401 [redacted]; the token is invalid, or the page or database is not shared with the integration",
    code: "WORKSPACE_AUTH",
    status: 401,
    apiCode: "[redacted]",
  });
  assert.deepEqual(describeError("plain"), { name: "Error", message: "plain" });
  const e = Object.assign(new Error("m"), { nested: { token: "x" }, list: ["a"], fn: () => {} });
  assert.deepEqual(describeError(e), { name: "Error", message: "m", list: ["a"] });
});

Deno.test("runConnectors(): a state write that fails after the commit leaves the pass committed, not failed", async () => {
  const memo = recordingMemo();
  const state = memoryState();
  state.write = () => Promise.reject(new Error("ENOSPC: no space left on device"));
  const phases: string[] = [];
  const result = await runConnectors([connector("a", () => Promise.resolve([record(1)]))], memo, {
    state,
    onProgress: (p) => phases.push(p.phase),
  });
  assert.equal(memo.commits.length, 1, "the notes were committed");
  assert.equal(result.written, 1);
  // The pass is both "committed" (counts, written notes) and in `errors` with "failed" progress:
  assert.deepEqual(result.errors, [], "a committed pass is not a failed pass");
  assert.deepEqual(phases, ["committing", "committed"]);
});
