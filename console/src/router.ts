/**
 * History routing under the console's path: every view has a URL of its own (shareable, and
 * reloadable, since the server answers index.html for any route under /console/).
 */
import { useEffect, useState } from "preact/hooks";
import { CONSOLE_PATH } from "./config.js";

/** The current route: the path under the console (`/groups/...`) and its query. */
export interface Route {
  path: string;
  query: URLSearchParams;
}

function current(): Route {
  const path = location.pathname.startsWith(CONSOLE_PATH) ? location.pathname.slice(CONSOLE_PATH.length) : location.pathname;
  return { path: path === "" ? "/" : path, query: new URLSearchParams(location.search) };
}

const listeners = new Set<() => void>();
addEventListener("popstate", () => listeners.forEach((l) => l()));

/** The console URL of a route path (`/groups/x` -> `/console/groups/x`). */
export function href(path: string): string {
  return `${CONSOLE_PATH}${path}`;
}

/** Goes to a route of the console; replace leaves no history entry (after a login, a redirect). */
export function navigate(path: string, replace = false): void {
  if (replace) history.replaceState(null, "", href(path));
  else history.pushState(null, "", href(path));
  listeners.forEach((l) => l());
  if (!replace) window.scrollTo(0, 0);
}

/** The current route, re-rendering on every navigation. */
export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const update = () => setRoute(current());
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return route;
}

/** The current route path and query, for code outside components. */
export function currentRoute(): Route {
  return current();
}
