import assert from "node:assert/strict";
import { parseRetryAfter } from "./retry_after.ts";

const NOW = Date.parse("2026-10-21T07:28:00.000Z");
const DATE = "Wed, 21 Oct 2026 07:28:00 GMT";

Deno.test("parseRetryAfter() reads a delay in seconds", () => {
  assert.equal(parseRetryAfter("120", NOW), 120);
  assert.equal(parseRetryAfter("0", NOW), 0);
  assert.equal(parseRetryAfter("007", NOW), 7);
  assert.equal(parseRetryAfter(" 17 ", NOW), 17, "white space around the value");
  assert.equal(parseRetryAfter("120"), 120, "seconds need no clock");
});

Deno.test("parseRetryAfter() rounds a decimal delay up and refuses a negative one", () => {
  assert.equal(parseRetryAfter("1.5", NOW), 2);
  assert.equal(parseRetryAfter("0.2", NOW), 1);
  assert.equal(parseRetryAfter("2.0", NOW), 2);
  for (const value of ["-5", "-0.5", "+5", ".5", "1.", "1e3", "1,5", "Infinity", "NaN"]) {
    assert.equal(parseRetryAfter(value, NOW), undefined, value);
  }
  assert.equal(parseRetryAfter("9".repeat(30), NOW), undefined, "beyond a safe integer");
});

Deno.test("parseRetryAfter() reads an HTTP date as the seconds until it, rounded up", () => {
  assert.equal(parseRetryAfter(DATE, NOW - 1_200), 2, "1.2 s ahead");
  assert.equal(parseRetryAfter(DATE, NOW - 1_000), 1, "exactly 1 s ahead");
  assert.equal(parseRetryAfter(DATE, NOW - 1), 1, "1 ms ahead");
  assert.equal(parseRetryAfter(DATE, NOW), 0, "exactly now");
  assert.equal(parseRetryAfter(DATE, NOW + 1), 0, "1 ms past");
  assert.equal(parseRetryAfter(DATE, NOW + 86_400_000), 0, "a day past");
  assert.equal(parseRetryAfter(DATE, NOW - 90_000), 90);
  assert.equal(parseRetryAfter(DATE, new Date(NOW - 1_200)), 2, "now as a Date");
  assert.equal(
    parseRetryAfter("Thu, 01 Jan 2099 00:00:00 GMT"),
    Math.ceil((Date.parse("2099-01-01T00:00:00Z") - Date.now()) / 1000),
    "the system clock by default",
  );
});

Deno.test("parseRetryAfter() accepts the obsolete HTTP date forms", () => {
  assert.equal(parseRetryAfter("Wednesday, 21-Oct-26 07:29:00 GMT", NOW), 60, "RFC 850");
  assert.equal(parseRetryAfter("Wed Oct 21 07:29:00 2026", NOW), 60, "asctime");
  assert.equal(parseRetryAfter("Wed Oct  1 07:28:00 2026", NOW), 0, "asctime, one-digit day");
  assert.equal(parseRetryAfter("wed, 21 oct 2026 07:29:00 gmt", NOW), 60, "any letter case");
  // Two-digit years: the latest century that puts the date at most 50 years ahead.
  assert.equal(parseRetryAfter("Friday, 01-Jan-77 00:00:00 GMT", NOW), 0, "1977, not 2077");
  assert.equal(
    parseRetryAfter("Wednesday, 01-Jan-76 00:00:00 GMT", NOW),
    Math.ceil((Date.parse("2076-01-01T00:00:00Z") - NOW) / 1000),
    "2076 is less than 50 years ahead",
  );
  assert.equal(
    parseRetryAfter("Friday, 01-Jan-00 00:00:01 GMT", Date.parse("2099-12-31T23:59:59Z")),
    2,
    "read late in a century, 00 is the next one's",
  );
});

Deno.test("parseRetryAfter() leaves out what it cannot read", () => {
  for (
    const value of [
      null,
      undefined,
      "",
      "   ",
      "soon",
      "Wed, 21 Oct 2026 07:28:00", // no GMT
      "Wed, 21 Oct 2026 07:28:00 UTC",
      "Wed, 21 Oct 2026 07:28:00 +0000",
      "2026-10-21T07:28:00Z", // ISO 8601 is not an HTTP date
      "Wed, 31 Feb 2026 07:28:00 GMT", // no such day
      "Wed, 00 Oct 2026 07:28:00 GMT",
      "Wed, 21 Foo 2026 07:28:00 GMT",
      "Wed, 21 Oct 2026 24:00:00 GMT",
      "Wed, 21 Oct 2026 07:60:00 GMT",
      "Wed, 21 Oct 2026 07:28:61 GMT",
      "Wed, 21 Oct 2026 07:28:00 GMT, 120",
      "120, 60",
    ]
  ) {
    assert.equal(parseRetryAfter(value, NOW), undefined, String(value));
  }
  assert.equal(parseRetryAfter(DATE, NaN), undefined, "a date against a broken clock");
});

Deno.test("parseRetryAfter() counts a leap second", () => {
  const endOf2016 = Date.parse("2016-12-31T23:59:59Z");
  assert.equal(parseRetryAfter("Sat, 31 Dec 2016 23:59:60 GMT", endOf2016), 1);
});
