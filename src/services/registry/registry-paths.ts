/**
 * Registry paths of groups (DESIGN 1.9): a group's path is the names from its organization down
 * (`acme/backend-team`). A path that held content stays bound to the group that held it
 * (`registry_paths`), so groups consult the bindings before they take a name: no group may take
 * a path bound to another, and a bound group keeps its name, because the registry keeps the
 * content under the path and cannot move it.
 */
import { failedPrecondition } from "../../domain/errors.js";
import { isPathComponent } from "../../domain/repos.js";
import { selfAndAncestors } from "../../domain/uid.js";
import { reserved, type RegistryPath } from "../../store/registry-path-store.js";
import type { Store, Stores } from "../../store/store.js";

/**
 * The paths of uid's organization and every group down to uid, by their current names, as far
 * as each name is a Docker path component (below a name that is not, no client can reach).
 */
export async function currentPaths(store: Pick<Stores, "groups">, uid: string): Promise<RegistryPath[]> {
  const chain = selfAndAncestors(uid).reverse();
  const names = new Map((await store.groups.getMany(chain)).map((g) => [g.uid, g.name]));
  const out: RegistryPath[] = [];
  for (const groupUid of chain) {
    const name = names.get(groupUid);
    if (name === undefined || !isPathComponent(name)) break;
    const above = out.at(-1);
    out.push({ path: above === undefined ? name : `${above.path}/${name}`, groupUid });
  }
  return out;
}

/**
 * Refuses to let a group take name under parent (null for an organization) when that makes a
 * path bound to another group its own: FAILED_PRECONDITION REGISTRY_PATH_RESERVED. For a rename
 * (self given), also refuses to move a group whose path is bound away from it:
 * FAILED_PRECONDITION REGISTRY_PATH_BOUND. A check that may race; the registry index resolves
 * bound paths by their binding, so a group that slips past it still reaches nothing bound.
 */
export async function checkRegistryPath(
  store: Pick<Stores, "groups" | "registryPaths">,
  parent: string | null,
  name: string,
  self?: string,
): Promise<void> {
  const above = parent === null ? undefined : (await currentPaths(store, parent)).find((p) => p.groupUid === parent);
  const reachable = (parent === null || above !== undefined) && isPathComponent(name);
  const path = above === undefined ? name : `${above.path}/${name}`;
  const held = await store.registryPaths.lookup({ paths: reachable ? [path] : [], groups: self === undefined ? [] : [self] });
  const own = held.find((h) => h.groupUid === self);
  if (own !== undefined && own.path.split("/").at(-1) !== name) {
    throw failedPrecondition(
      "REGISTRY_PATH_BOUND",
      self as string,
      `the registry holds content under ${own.path}, which stays bound to this group: a group holding registry content keeps its name`,
    );
  }
  const holder = held.find((h) => h.path === path && h.groupUid !== self);
  if (holder === undefined) return;
  // The group bound there still has the name: the store's ALREADY_EXISTS says it better.
  const bound = await store.groups.get(holder.groupUid);
  if (bound?.parentUid !== parent || bound.name !== name) throw reserved(path);
}

/**
 * Binds the path of group (and of every group above it) by their current names, unless it is
 * bound already or no client could reach it. REGISTRY_PATH_RESERVED when a part of it is bound to
 * another group.
 */
export async function bindCurrentPath(store: Store, group: string): Promise<void> {
  if ((await store.registryPaths.lookup({ groups: [group] })).length > 0) return;
  const paths = await currentPaths(store, group);
  if (paths.at(-1)?.groupUid !== group) return;
  await store.atomically((tx) => tx.registryPaths.bind(paths));
}
