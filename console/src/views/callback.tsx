/** Where a login comes back: the code is redeemed, the address bar cleared of it, and the person sent on. */
import { useEffect, useState } from "preact/hooks";
import { completeLogin } from "../auth.js";
import { navigate } from "../router.js";

export function Callback({ query }: { query: URLSearchParams }) {
  const [error, setError] = useState<string>();
  useEffect(() => {
    // The code and state leave the address bar (and history) at once.
    history.replaceState(null, "", location.pathname);
    completeLogin(query)
      .then((returnTo) => navigate(returnTo, true))
      .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)));
    // Runs once: the query is the one the page was opened with.
  }, []);
  return (
    <main id="main" class="centered">
      <section class="card">
        <h1>Signing in</h1>
        {error === undefined ? (
          <p role="status">Finishing the sign-in…</p>
        ) : (
          <>
            <div class="problem" role="alert">
              <p>
                <strong>{error}</strong>
              </p>
            </div>
            <button type="button" class="primary" onClick={() => navigate("/signin", true)}>
              Sign in again
            </button>
          </>
        )}
      </section>
    </main>
  );
}
