/**
 * The scopes of the Docker token protocol (`repository:acme/team/nginx:pull,push`) and the rule
 * that turns a requested scope into granted actions (DESIGN 1.9): each action needs capabilities
 * on the group that holds (or would hold, on first push) the repo, read from the caller's role
 * bindings. What is not allowed is left out, so a partial grant is a normal answer; the registry
 * refuses what the token does not carry. Granting a push binds the path to its group first
 * (content may land there from then on), and a path bound to another group grants nothing.
 */
import { Capability } from "../domain/capabilities.js";
import { invalidArgument } from "../domain/errors.js";
import type { Permissions } from "../domain/permissions.js";

/** One resource and its actions, as requested in a scope and as carried in a token's `access`. */
export interface RegistryAccess {
  type: string;
  /** The resource class of `repository(plugin)`, when one was given. */
  class?: string;
  name: string;
  actions: string[];
}

/** What each repository action needs on the repo's group; `*` needs all of them. */
const ACTION_CAPABILITIES: Readonly<Record<string, readonly Capability[]>> = {
  pull: [Capability.CAP_REGISTRY_PULL],
  push: [Capability.CAP_REGISTRY_PUSH],
  // Deleting manifests removes content: a pusher who may also delete repos.
  delete: [Capability.CAP_REGISTRY_PUSH, Capability.CAP_REPO_DELETE],
};

const SCOPE = /^([a-z0-9]+)(?:\(([a-z0-9]+)\))?:(.+):([a-z*]+(?:,[a-z*]+)*)$/;
const MAX_SCOPES = 32;

/**
 * Parses the `scope` parameters; each may hold several scopes separated by spaces (the OAuth2
 * form). INVALID_ARGUMENT naming `scope` for one that is not `type:name:actions`.
 */
export function parseScopes(values: readonly string[]): RegistryAccess[] {
  const out: RegistryAccess[] = [];
  for (const text of values.flatMap((v) => v.split(" ")).filter((s) => s !== "")) {
    const m = SCOPE.exec(text);
    if (m === null)
      throw invalidArgument("scope", `"${text.slice(0, 200)}" is not of the form type:name:actions (repository:acme/team/nginx:pull,push)`);
    const [, type, cls, name, actions] = m as unknown as [string, string, string | undefined, string, string];
    const same = out.find((a) => a.type === type && a.class === cls && a.name === name);
    const list = [...new Set(actions.split(","))];
    if (same !== undefined) same.actions = [...new Set([...same.actions, ...list])];
    else out.push({ type, ...(cls !== undefined && { class: cls }), name, actions: list });
  }
  if (out.length > MAX_SCOPES) throw invalidArgument("scope", `at most ${MAX_SCOPES} scopes may be requested at once`);
  return out;
}

/** Where a repository path lands: the group whose capabilities decide (services/registry/registry-index.ts resolves it). */
export interface ResolvedPath {
  groupUid: string;
}

/**
 * What the grant needs of the registry index (services/registry/registry-index.ts, RegistryIndex): auth
 * depends on this shape, not on the service (the layers of docs/architecture.md).
 */
export interface RepositoryResolver<R extends ResolvedPath> {
  resolve(repository: string): Promise<R | null>;
  claim(at: R): Promise<boolean>;
}

/**
 * The actions granted for each requested scope, in request order. Only repositories are granted
 * anything: `registry:catalog:*` would list every organization's repos, so it is never granted.
 */
export async function grantAccess<R extends ResolvedPath>(
  requested: readonly RegistryAccess[],
  permissions: Permissions,
  index: RepositoryResolver<R>,
): Promise<RegistryAccess[]> {
  const out: RegistryAccess[] = [];
  for (const access of requested) {
    const resolved = access.type === "repository" ? await index.resolve(access.name) : null;
    const allowed = (action: string) => {
      const caps = ACTION_CAPABILITIES[action];
      return resolved !== null && caps !== undefined && permissions.allows(caps, resolved.groupUid);
    };
    const actions = access.actions.filter((action) => (action === "*" ? Object.keys(ACTION_CAPABILITIES).every(allowed) : allowed(action)));
    const pushes = actions.includes("push") || actions.includes("*");
    // A claim lost to another group (a race on a freed name) leaves the path to that group.
    const claimed = resolved === null || !pushes || (await index.claim(resolved));
    out.push({ ...access, actions: claimed ? actions : [] });
  }
  return out;
}
