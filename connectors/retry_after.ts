/**
 * `Retry-After` (RFC 9110, section 10.2.3) as a number of seconds to wait: the header holds either
 * a delay in seconds or an HTTP date.
 *
 * @module
 */

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAY = "(?:mon|tue|wed|thu|fri|sat|sun)";
const LONG_DAY = "(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)";
const MONTH = "(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)";
const TIME = "(\\d{2}):(\\d{2}):(\\d{2})";
/** `Sun, 06 Nov 1994 08:49:37 GMT` (the preferred form). */
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`, "i");
/** `Sunday, 06-Nov-94 08:49:37 GMT` (obsolete, still to be accepted). */
const RFC850_DATE = new RegExp(`^${LONG_DAY}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`, "i");
/** `Sun Nov  6 08:49:37 1994` (obsolete, still to be accepted). */
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`, "i");

/**
 * The seconds to wait that a `Retry-After` header value asks for, or `undefined` when the value
 * cannot be read.
 *
 * - A delay in seconds (`"120"`) is returned as it is. A decimal delay (`"1.5"`) is rounded up
 *   (`2`), so that a retry never comes early. A negative or otherwise malformed number is
 *   unreadable.
 * - An HTTP date (`"Wed, 21 Oct 2026 07:28:00 GMT"`, or either obsolete form RFC 9110 still
 *   accepts) gives the seconds from `now` until that date, rounded up; a date that is now or past
 *   gives `0`. A two-digit year is read in the latest century that puts the date at most 50 years
 *   after `now`.
 * - Anything else (`null`, `""`, `"soon"`, a date that does not exist such as 31 February) gives
 *   `undefined`.
 *
 * @param value The header value, as `Headers.get("retry-after")` returns it.
 * @param now The current time, as epoch milliseconds or a `Date`.
 *   @default Date.now()
 * @returns Whole seconds to wait (0 or more), or `undefined`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseRetryAfter } from "@memo/connectors";
 *
 * assert.equal(parseRetryAfter("120"), 120);
 * const now = Date.parse("2026-10-21T07:27:58.800Z");
 * assert.equal(parseRetryAfter("Wed, 21 Oct 2026 07:28:00 GMT", now), 2);
 * assert.equal(parseRetryAfter("Wed, 21 Oct 2026 07:28:00 GMT", new Date("2027-01-01")), 0);
 * assert.equal(parseRetryAfter("soon"), undefined);
 * ```
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number | Date = Date.now(),
): number | undefined {
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) {
    const seconds = Math.ceil(Number(text));
    return Number.isSafeInteger(seconds) ? seconds : undefined;
  }
  const nowMs = now instanceof Date ? now.getTime() : now;
  const at = parseHttpDate(text, nowMs);
  if (at === undefined || !Number.isFinite(nowMs)) return undefined;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/** Epoch milliseconds of an HTTP date in any of its three forms, or undefined. */
function parseHttpDate(text: string, nowMs: number): number | undefined {
  let m: RegExpExecArray | null;
  if ((m = IMF_FIXDATE.exec(text))) return utc(+m[3], m[2], +m[1], m[4], m[5], m[6]);
  if ((m = ASCTIME_DATE.exec(text))) return utc(+m[6], m[1], +m[2].trim(), m[3], m[4], m[5]);
  if ((m = RFC850_DATE.exec(text))) {
    if (!Number.isFinite(nowMs)) return undefined;
    // A two-digit year: the latest century that puts the date at most 50 years ahead.
    const limit = new Date(nowMs);
    limit.setUTCFullYear(limit.getUTCFullYear() + 50);
    const century = Math.floor(new Date(nowMs).getUTCFullYear() / 100) * 100;
    let result: number | undefined;
    for (const year of [century + 100, century, century - 100].map((c) => c + Number(m![3]))) {
      result = utc(year, m[2], +m[1], m[4], m[5], m[6]);
      if (result === undefined || result <= limit.getTime()) break;
    }
    return result;
  }
  return undefined;
}

/** Epoch milliseconds of a UTC date and time, or undefined when it does not exist. */
function utc(
  year: number,
  month: string,
  day: number,
  hours: string,
  minutes: string,
  seconds: string,
): number | undefined {
  const monthIndex = MONTHS.indexOf(month.toLowerCase());
  const [h, min, s] = [Number(hours), Number(minutes), Number(seconds)];
  if (h > 23 || min > 59 || s > 60) return undefined; // 60: a leap second
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, day);
  // A day the month does not have (31 Feb, day 00) rolls over: refuse it.
  if (date.getUTCMonth() !== monthIndex || date.getUTCDate() !== day) return undefined;
  return date.getTime() + ((h * 60 + min) * 60 + s) * 1000;
}
