import assert from "node:assert/strict";
import { requestLine } from "./access_log.ts";

Deno.test("requestLine() writes each request's own time, also when many share a millisecond", () => {
  const at = (ms: number) => requestLine("memo", new Date(ms), "POST", "/mcp", 200, 1);
  assert.equal(at(0), "memo: 1970-01-01T00:00:00.000Z POST /mcp 200 1ms");
  assert.equal(at(0), "memo: 1970-01-01T00:00:00.000Z POST /mcp 200 1ms");
  assert.equal(at(1), "memo: 1970-01-01T00:00:00.001Z POST /mcp 200 1ms");
  assert.equal(at(0), "memo: 1970-01-01T00:00:00.000Z POST /mcp 200 1ms", "an earlier time again");
  assert.throws(() => at(NaN), RangeError, "an invalid date throws, as toISOString does");
  assert.equal(at(1), "memo: 1970-01-01T00:00:00.001Z POST /mcp 200 1ms");
});
