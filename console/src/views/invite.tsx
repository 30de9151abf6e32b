/** An invite link (`/console/invite?code=...`): signing in with the invite redeems it. */
import { navigate } from "../router.js";
import { SignIn } from "./sign-in.js";

export function InviteView({ query, signedIn }: { query: URLSearchParams; signedIn: boolean }) {
  const code = query.get("code") ?? "";
  if (code === "")
    return (
      <main id="main" class="centered">
        <section class="card">
          <h1>Invite</h1>
          <p>This invite link has no code. Ask for the link again.</p>
        </section>
      </main>
    );
  return (
    <>
      {signedIn && (
        <p class="banner">
          You are signed in; accepting the invite signs you in again as whoever your identity provider says you are.{" "}
          <button type="button" onClick={() => navigate("/")}>
            Back to the console
          </button>
        </p>
      )}
      <SignIn returnTo="/" invite={code} title="Accept an invite to Arbor" />
    </>
  );
}
