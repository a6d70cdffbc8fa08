/**
 * Internal: the few path operations of `memo hook`, without `node:path` (loading it costs a fresh
 * Deno process about 10 ms of CPU). Paths keep the separator they come with: `\` when the base
 * holds one and no `/` (Windows), else `/`.
 *
 * @module
 */

function separator(path: string): string {
  return path.includes("\\") && !path.includes("/") ? "\\" : "/";
}

/** `base` and the parts, one separator between each. */
export function join(base: string, ...parts: string[]): string {
  const sep = separator(base);
  return [base.replace(/[\\/]+$/, ""), ...parts].join(sep) || sep;
}

/** Whether a path is absolute (`/x`, `C:\x`, `\\server\x`). */
export function isAbsolute(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}

/** `path` against `cwd`, without `.` and `..` parts. */
export function resolve(cwd: string, path: string): string {
  const full = isAbsolute(path) ? path : join(cwd, path);
  const sep = separator(full);
  const [head, ...rest] = full.split(/[\\/]/);
  const out: string[] = [];
  for (const part of rest) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return `${head}${sep}${out.join(sep)}`;
}

/** The folder holding `path` (the root is its own). */
export function dirname(path: string): string {
  const at = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  if (at <= 0) return at === 0 ? path.slice(0, 1) : path;
  const parent = path.slice(0, at);
  return /^[A-Za-z]:$/.test(parent) ? parent + path[at] : parent;
}
