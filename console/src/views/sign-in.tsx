/** The sign-in page: Arbor's people's login, through an organization's identity provider or the server's default one. */
import { useState } from "preact/hooks";
import { beginLogin } from "../auth.js";

export function SignIn({ returnTo, invite, title }: { returnTo: string; invite?: string; title?: string }) {
  const [org, setOrg] = useState("");
  const [busy, setBusy] = useState(false);
  return (
    <main id="main" class="centered">
      <section class="card" aria-labelledby="signin-title">
        <h1 id="signin-title">{title ?? "Sign in to Arbor"}</h1>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            setBusy(true);
            void beginLogin({ returnTo, ...(org.trim() && { org: org.trim() }), ...(invite !== undefined && { invite }) });
          }}
        >
          <label for="org">
            Organization <span class="muted">(optional: name or uid, to use its identity provider)</span>
          </label>
          <input id="org" name="org" value={org} onInput={(e) => setOrg(e.currentTarget.value)} autoComplete="organization" />
          <button type="submit" class="primary" disabled={busy}>
            {busy ? "Signing in…" : "Sign in"}
          </button>
        </form>
        <p class="muted">You sign in at your identity provider; Arbor never sees your password.</p>
      </section>
    </main>
  );
}
