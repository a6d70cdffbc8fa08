import assert from "node:assert/strict";
import type { MemoMcpRuntime, RuntimeChange } from "../../runtimes/types.ts";
import { createFakeRuntime } from "../../tests/fixtures/mcp_fake_runtime.ts";
import { MemoMcpError } from "../errors.ts";
import { withMcpErrors } from "./_runtime_errors.ts";

Deno.test("withMcpErrors() forwards watch and its unsubscribe to the runtime", async () => {
  const inner = createFakeRuntime(0);
  const runtime = withMcpErrors(inner);
  const seen: RuntimeChange[] = [];
  const stop = runtime.watch!((change) => void seen.push(change));
  assert.equal(inner.watchers, 1);
  const { note } = await runtime.remember({ text: "one" });
  inner.emitChange({ ids: ["x1"], listChanged: false });
  assert.deepEqual(seen, [{ ids: [note.id], listChanged: true }, {
    ids: ["x1"],
    listChanged: false,
  }]);
  stop();
  assert.equal(inner.watchers, 0);
  await runtime.close();
});

Deno.test("withMcpErrors() maps watch's refusal of a closed runtime to MemoMcpError", async () => {
  const runtime = withMcpErrors(createFakeRuntime(0));
  await runtime.close();
  assert.throws(
    () => runtime.watch!(() => {}),
    (e) =>
      e instanceof MemoMcpError && e.name === "MemoMcpError" && /runtime is closed/.test(e.message),
  );
});

Deno.test("withMcpErrors() has watch only when the runtime has it", () => {
  const { watch: _, ...withoutWatch } = createFakeRuntime(0);
  const runtime = withMcpErrors(withoutWatch as MemoMcpRuntime);
  assert.equal("watch" in runtime, false);
  assert.equal(typeof withMcpErrors(createFakeRuntime(0)).watch, "function");
});
