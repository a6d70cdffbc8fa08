/**
 * Runs a command to its end, with optional text on its stdin, and returns its
 * exit code and decoded stdout and stderr (end-to-end tests).
 *
 * @module
 */

/** Options of {@linkcode runProcess}. */
export interface RunProcessOptions {
  /** Working directory. */
  cwd: string;
  /** Text written to stdin, which is then closed; stdin is null when missing. */
  stdin?: string;
  /** Extra environment variables. */
  env?: Record<string, string>;
}

/** What {@linkcode runProcess} reports. */
export interface ProcessResult {
  code: number;
  out: string;
  err: string;
}

/** Runs `command args` and waits for it to exit. */
export async function runProcess(
  command: string,
  args: string[],
  options: RunProcessOptions,
): Promise<ProcessResult> {
  const { stdin } = options;
  const child = new Deno.Command(command, {
    args,
    cwd: options.cwd,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    env: options.env,
  }).spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(stdin));
    await w.close();
  }
  const { code, stdout, stderr } = await child.output();
  const dec = new TextDecoder();
  return { code, out: dec.decode(stdout), err: dec.decode(stderr) };
}
