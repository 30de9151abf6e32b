/**
 * The routes of the registry, identity providers, account associations, roles and effective
 * access views, and their entries in the navigation: kept here so that the shell (app.tsx) only asks this module for a
 * view and a few links.
 */
import type { VNode } from "preact";
import type { Route } from "./router.js";
import { Link } from "./ui.js";
import { AssociationsView } from "./views/associations.js";
import { EffectiveAccessView } from "./views/effective.js";
import { ProvidersView } from "./views/providers.js";
import { RegistryView, RepoView } from "./views/registry.js";
import { RolesView } from "./views/roles.js";

/** The part of path after prefix, decoded; undefined when path is not under prefix. */
function under(path: string, prefix: string): string | undefined {
  return path.startsWith(prefix) && path.length > prefix.length ? decodeURIComponent(path.slice(prefix.length)) : undefined;
}

/** The view of a route of this module's, or undefined when the route is another's. */
export function moreView(route: Route): VNode | undefined {
  const { path, query } = route;
  let arg: string | undefined;
  if ((arg = under(path, "/registry/")) !== undefined) return <RegistryView key={arg} group={arg} query={query} />;
  if ((arg = under(path, "/repos/")) !== undefined) return <RepoView key={arg} uid={arg} query={query} />;
  if ((arg = under(path, "/identity-providers/")) !== undefined) return <ProvidersView key={arg} group={arg} query={query} />;
  if ((arg = under(path, "/account-associations/")) !== undefined) return <AssociationsView key={arg} group={arg} query={query} />;
  if ((arg = under(path, "/roles/")) !== undefined) return <RolesView key={arg} group={arg} query={query} />;
  if (path === "/effective-access") return <EffectiveAccessView query={query} />;
  return undefined;
}

/** The organization a route of this module's is about, for the navigation. */
export function moreOrg(path: string): string | undefined {
  for (const prefix of ["/registry/", "/repos/", "/identity-providers/", "/account-associations/", "/roles/"]) {
    const arg = under(path, prefix);
    if (arg !== undefined) return arg.split("/")[0];
  }
  return undefined;
}

/** The navigation entries of this module's views; those of an organization when one is chosen. */
export function MoreNav({ path, org: shellOrg }: { path: string; org: string | undefined }) {
  const org = shellOrg ?? moreOrg(path);
  const current = (...prefixes: string[]) => (prefixes.some((p) => path.startsWith(p)) ? "page" : undefined);
  return (
    <ul>
      {org && (
        <li>
          <Link to={`/roles/${org}`} aria-current={current("/roles/")}>
            Roles
          </Link>
        </li>
      )}
      {org && (
        <li>
          <Link to={`/registry/${org}`} aria-current={current("/registry/", "/repos/")}>
            Registry
          </Link>
        </li>
      )}
      {org && (
        <li>
          <Link to={`/identity-providers/${org}`} aria-current={current("/identity-providers/")}>
            Identity providers
          </Link>
        </li>
      )}
      {org && (
        <li>
          <Link to={`/account-associations/${org}`} aria-current={current("/account-associations/")}>
            Accounts
          </Link>
        </li>
      )}
    </ul>
  );
}
