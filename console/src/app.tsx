/** The console's shell: who is signed in, the organization switcher, navigation, and the views by route. */
import { useEffect, useState } from "preact/hooks";
import { api } from "./api.js";
import { MoreNav, moreView } from "./more-routes.js";
import { currentSession, onSessionChange, signOut } from "./auth.js";
import { navigate, useRoute } from "./router.js";
import { Link } from "./ui.js";
import { AccessView } from "./views/access.js";
import { AdvisoriesView, AdvisoryView } from "./views/advisories.js";
import { AuditView } from "./views/audit.js";
import { Callback } from "./views/callback.js";
import { GroupsView } from "./views/groups.js";
import { IdentitiesView, IdentityView } from "./views/identities.js";
import { InviteView } from "./views/invite.js";
import { InvitesView } from "./views/invites.js";
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
  const org = /^\/(?:groups|identities|access|invites|audit|roles)\/([^/]+)/.exec(route.path)?.[1] ?? route.query.get("uid")?.split("/")[0];
  const under = (prefix: string) => decodeURIComponent(route.path.slice(prefix.length));
  let view;
  if (route.path === "/" || route.path === "/signin") view = <Organizations />;
  else if (route.path.startsWith("/groups/")) view = <GroupsView uid={under("/groups/")} />;
  else if (route.path.startsWith("/identities/")) view = <IdentitiesView group={under("/identities/")} />;
  else if (route.path.startsWith("/access/")) view = <AccessView group={under("/access/")} />;
  else if (route.path.startsWith("/invites/")) view = <InvitesView group={under("/invites/")} />;
  else if (route.path.startsWith("/audit/")) view = <AuditView group={under("/audit/")} query={route.query} />;
  else if (route.path === "/advisories") view = <AdvisoriesView query={route.query} />;
  else if (route.path === "/advisory") view = <AdvisoryView id={route.query.get("id") ?? ""} />;
  else if (route.path === "/identity") view = <IdentityView uid={route.query.get("uid") ?? ""} />;
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
            <li>
              <Link to="/advisories" aria-current={route.path.startsWith("/advisor") ? "page" : undefined}>
                Advisories
              </Link>
            </li>
            {org &&
              (
                [
                  ["/groups/", "Groups"],
                  ["/identities/", "Identities"],
                  ["/access/", "Access"],
                  ["/invites/", "Invites"],
                  ["/audit/", "Audit log"],
                ] as const
              ).map(([prefix, label]) => (
                <li key={prefix}>
                  <Link to={`${prefix}${org}`} aria-current={route.path.startsWith(prefix) ? "page" : undefined}>
                    {label}
                  </Link>
                </li>
              ))}
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
