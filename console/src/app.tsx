/** The console's shell: who is signed in, the organization switcher, navigation, and the views by route. */
import { useEffect, useState } from "preact/hooks";
import { api } from "./api.js";
import { MoreNav, moreView } from "./more-routes.js";
import { currentSession, onSessionChange, signOut } from "./auth.js";
import { navigate, useRoute } from "./router.js";
import { Link } from "./ui.js";
import { Callback } from "./views/callback.js";
import { GroupsView } from "./views/groups.js";
import { InviteView } from "./views/invite.js";
import { Organizations } from "./views/organizations.js";
import { SignIn } from "./views/sign-in.js";

function useSession() {
  const [session, setSession] = useState(currentSession);
  useEffect(() => onSessionChange(() => setSession(currentSession())), []);
  return session;
}

/** The signed-in person's name, looked up once. */
function useMyName(identity: string | undefined): string | undefined {
  const [name, setName] = useState<string>();
  useEffect(() => {
    if (identity === undefined) return;
    api.iam.v2beta1.identities
      .getIdentity({ uid: identity })
      .then((i) => setName(i.name))
      .catch(() => setName(undefined));
  }, [identity]);
  return name;
}

export function App() {
  const route = useRoute();
  const session = useSession();
  const name = useMyName(session?.identity);
  // The pages that work signed out: the callback and the invite link.
  if (route.path === "/callback") return <Callback query={route.query} />;
  if (route.path === "/invite") return <InviteView query={route.query} signedIn={session !== undefined} />;
  if (session === undefined) return <SignIn returnTo={route.path === "/signin" ? "/" : `${route.path}${location.search}`} />;
  const org = /^\/groups\/([^/]+)/.exec(route.path)?.[1];
  let view;
  if (route.path === "/" || route.path === "/signin") view = <Organizations />;
  else if (route.path.startsWith("/groups/")) view = <GroupsView uid={decodeURIComponent(route.path.slice("/groups/".length))} />;
  else
    view = (
      <section>
        <h1>Not found</h1>
        <p>The console has no page at this address.</p>
        <Link to="/">Organizations</Link>
      </section>
    );
  // The registry, advisories, audit log and identity providers views (more-routes.tsx).
  view = moreView(route) ?? view;
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link to="/" class="brand">
          Arbor
        </Link>
        <nav aria-label="Main">
          <ul>
            <li>
              <Link to="/" aria-current={route.path === "/" ? "page" : undefined}>
                Organizations
              </Link>
            </li>
            {org && (
              <li>
                <Link to={`/groups/${org}`} aria-current={route.path.startsWith("/groups/") ? "page" : undefined}>
                  Groups
                </Link>
              </li>
            )}
          </ul>
          <MoreNav path={route.path} org={org} />
        </nav>
        <div class="who">
          <span>
            Signed in as <strong data-testid="me">{name ?? session.identity}</strong>
          </span>
          <button
            type="button"
            onClick={() => {
              void signOut().then(() => navigate("/signin", true));
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {view}
      </main>
    </div>
  );
}
