import assert from "node:assert/strict";
import { MemoRuntimeError, type MemoRuntimeErrorCode } from "../../runtimes/errors.ts";
import type { MemoMcpRuntime } from "../../runtimes/types.ts";
import { createFakeRuntime } from "../../tests/fixtures/mcp_fake_runtime.ts";
import { call, type Json } from "../../tests/fixtures/mcp_protocol_calls.ts";
import { McpNotFoundError, McpValidationError, MemoMcpError } from "../errors.ts";
import { createMemoMcpProtocolServer } from "../protocol_server.ts";
import { mcpErrorOf } from "./_runtime_errors.ts";
import { PLAIN_TIMER, sanitizedTest as test } from "../../testing/sanitized.ts";

test("mcpErrorOf() maps each runtime code to its MCP error", async (t) => {
  const cases: [MemoRuntimeErrorCode, Record<string, unknown> | undefined, string, unknown][] = [
    ["INVALID_INPUT", undefined, "McpValidationError", undefined],
    ["CONFIG", undefined, "McpValidationError", undefined],
    ["NOTE_NOT_FOUND", { id: "n1" }, "McpNotFoundError", { kind: "note", id: "n1" }],
    ["CONNECTOR_NOT_FOUND", { ids: ["x"] }, "McpNotFoundError", { kind: "connector", ids: ["x"] }],
    ["UNAVAILABLE", undefined, "MemoMcpError", undefined],
  ];
  for (const [code, details, name, mcpDetails] of cases) {
    await t.step(code, () => {
      const source = new MemoRuntimeError(code, `Cannot do it: ${code}`, { details });
      const mapped = mcpErrorOf(source) as MemoMcpError;
      assert.ok(mapped instanceof MemoMcpError);
      assert.equal(mapped.name, name);
      assert.equal(mapped.message, `Cannot do it: ${code}`);
      assert.deepEqual(mapped.details, mcpDetails);
      assert.equal(mapped.cause, source);
    });
  }
  await t.step("a MemoMcpError and anything else pass through unchanged", () => {
    const own = new McpValidationError("Cannot do it: mine");
    assert.equal(mcpErrorOf(own), own);
    const io = new Error("EIO");
    assert.equal(mcpErrorOf(io), io);
    // A look-alike from another copy of the package is matched by name and code.
    const copy = Object.assign(new Error("Cannot find note z"), {
      name: "MemoRuntimeError",
      code: "NOTE_NOT_FOUND",
      details: { id: "z" },
    });
    assert.ok(mcpErrorOf(copy) instanceof McpNotFoundError);
  });
});

/** A fake runtime whose `get` throws `error`. */
function throwing(error: unknown): MemoMcpRuntime {
  const runtime = createFakeRuntime(1);
  runtime.get = () => Promise.reject(error);
  return runtime;
}

test("the protocol server answers runtime errors as MCP errors", async (t) => {
  const getNote = async (runtime: MemoMcpRuntime): Promise<Json> =>
    await call(createMemoMcpProtocolServer({ runtime, timer: PLAIN_TIMER }), "tools/call", {
      name: "get_note",
      arguments: { id: "n1" },
    });
  await t.step("NOTE_NOT_FOUND is a tool error with MCP_NOT_FOUND", async () => {
    const reply = await getNote(
      throwing(
        new MemoRuntimeError("NOTE_NOT_FOUND", "Cannot find note n1", { details: { id: "n1" } }),
      ),
    );
    assert.equal(reply.result.isError, true);
    assert.equal(reply.result.structuredContent.error.code, "MCP_NOT_FOUND");
    assert.deepEqual(reply.result.structuredContent.error.details, { kind: "note", id: "n1" });
  });
  await t.step("INVALID_INPUT is a tool error with MCP_VALIDATION_ERROR", async () => {
    const reply = await getNote(
      throwing(new MemoRuntimeError("INVALID_INPUT", "Cannot get it: bad id")),
    );
    assert.equal(reply.result.structuredContent.error.code, "MCP_VALIDATION_ERROR");
  });
  await t.step("CONFLICT is a tool error with MCP_CONFLICT (409)", async () => {
    const message = "Cannot write notes: notes.md has an unresolved merge; run `memo resolve`";
    const reply = await getNote(throwing(new MemoRuntimeError("CONFLICT", message)));
    assert.equal(reply.result.isError, true);
    assert.equal(reply.result.structuredContent.error.code, "MCP_CONFLICT");
    assert.equal(reply.result.structuredContent.error.status, 409);
    assert.match(reply.result.structuredContent.error.message, /memo resolve/);
  });
  await t.step("UNAVAILABLE is -32603 with MEMO_MCP_ERROR", async () => {
    const reply = await getNote(
      throwing(new MemoRuntimeError("UNAVAILABLE", "Cannot use the memory: closed")),
    );
    assert.equal(reply.error.code, -32603);
    assert.equal(reply.error.data.code, "MEMO_MCP_ERROR");
    assert.equal(reply.error.message, "Cannot use the memory: closed");
  });
  await t.step("a resource read of an unknown note is -32002", async () => {
    const runtime = throwing(new MemoRuntimeError("NOTE_NOT_FOUND", "Cannot find note n1"));
    const reply = await call(
      createMemoMcpProtocolServer({ runtime, timer: PLAIN_TIMER }),
      "resources/read",
      {
        uri: "memo://notes/n1",
      },
    );
    assert.equal(reply.error.code, -32002);
  });
  await t.step("a caller's own MemoMcpError passes through unchanged", async () => {
    const reply = await getNote(
      throwing(
        new McpNotFoundError("Cannot find it here", { details: { kind: "note", id: "mine" } }),
      ),
    );
    assert.equal(reply.result.structuredContent.error.message, "Cannot find it here");
    assert.deepEqual(reply.result.structuredContent.error.details, { kind: "note", id: "mine" });
  });
});
