/** @jsxImportSource npm:preact@11.2.0 */
/**
 * The token form: shown when the endpoint requires a bearer token and the page has none, or the one
 * it had was refused. The field is a password field, and the page never shows the token.
 *
 * @module
 */

// deno-lint-ignore no-import-prefix -- bundled by scripts/build_web.ts
import { useState } from "npm:preact@11.2.0/hooks";
import type { WebPageOAuthConfig } from "../page.ts";
import { canSignIn, startSignIn } from "./oauth.ts";

/** The sign-in form: OAuth's button when the page has a client id, else the token field. */
export function SignIn(
  { refused, onSubmit, oauth, problem }: {
    refused: boolean;
    onSubmit: (token: string) => void;
    oauth?: WebPageOAuthConfig;
    problem?: string | null;
  },
) {
  const [value, setValue] = useState("");
  const [going, setGoing] = useState(false);
  if (canSignIn(oauth)) {
    const host = new URL(oauth.authorizationEndpoint).host;
    return (
      <section class="card sign-in" aria-label="Sign in">
        <h2>Sign in</h2>
        <p>
          This memo server signs you in with{" "}
          <strong>{host}</strong>. The access token it gets is kept in this tab only, and sent only
          to this memo server.
        </p>
        {refused && <p role="alert" class="alert">The token was refused: sign in again.</p>}
        {problem && <p role="alert" class="alert">{problem}</p>}
        <button
          type="button"
          disabled={going}
          onClick={() => {
            setGoing(true);
            startSignIn(oauth).catch(() => setGoing(false));
          }}
        >
          Sign in
        </button>
      </section>
    );
  }
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
      {oauth
        ? (
          <p>
            This memo server takes OAuth access tokens from{" "}
            <strong>{oauth.issuer}</strong>, and has no client id for this page (<code>
              MEMO_OAUTH_PAGE_CLIENT_ID
            </code>): paste an access token. It is kept in this tab only, and sent only in the
            Authorization header.
          </p>
        )
        : (
          <p>
            This memo server needs its bearer token (<code>MEMO_MCP_BEARER_TOKEN</code>). It is kept
            in this tab only, and sent only in the Authorization header.
          </p>
        )}
      {problem && <p role="alert" class="alert">{problem}</p>}
      {refused && <p role="alert" class="alert">The token was refused.</p>}
      <label>
        {oauth ? "Access token" : "Bearer token"}
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
