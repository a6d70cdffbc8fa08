/** @jsxImportSource npm:preact@11.2.0 */
/**
 * The token form: shown when the endpoint requires a bearer token and the
 * page has none, or the one it had was refused. The field is a password
 * field, and the page never shows the token.
 *
 * @module
 */

// deno-lint-ignore no-import-prefix -- bundled by scripts/build_web.ts
import { useState } from "npm:preact@11.2.0/hooks";

/** The sign-in form. */
export function SignIn(
  { refused, onSubmit }: { refused: boolean; onSubmit: (token: string) => void },
) {
  const [value, setValue] = useState("");
  return (
    <form
      class="card sign-in"
      aria-label="Sign in"
      onSubmit={(e) => {
        e.preventDefault();
        if (value.trim() !== "") onSubmit(value.trim());
        setValue("");
      }}
    >
      <h2>Sign in</h2>
      <p>
        This memo server needs its bearer token (<code>MEMO_MCP_BEARER_TOKEN</code>). It is kept in
        this tab only, and sent only in the Authorization header.
      </p>
      {refused && <p role="alert" class="alert">The token was refused.</p>}
      <label>
        Bearer token
        <input
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          value={value}
          onInput={(e) => setValue((e.target as HTMLInputElement).value)}
        />
      </label>
      <button type="submit">Sign in</button>
    </form>
  );
}
