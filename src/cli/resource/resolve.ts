/**
 * Names to uids. An argument that names a resource is a uid when it has a uid's shape
 * (domain/uid.ts); else, with a `/`, a path of names from the organization down, as the registry
 * writes repository paths (`acme/engineering/web`, `acme/backend-team/nginx`), looked up one level
 * at a time (children_of and name) from the organization; else a name, looked up with the list's
 * name filter among what the caller may see, kept to the default group's subtree when one is
 * set. No match and several matches are errors that say what was searched (for a path, the level
 * not found) and, for several, which uids to choose from. Names never hold a `/`
 * (domain/names.ts, domain/repos.ts), so a path cannot be mistaken for one.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { isSelfOrDescendant, isRoot, isUid, parentOf } from "../../domain/uid.js";
import type { CommandContext } from "./context.js";
import { pluralOf } from "./help-text.js";
import { GROUP_LOOKUP } from "./group-lookup.js";
import { walkList } from "./paging.js";
import type { Lookup } from "./spec.js";

/** A name that names nothing, or more than one thing: exit code 1 with this message. */
export class ResolveError extends Error {
  override readonly name = "ResolveError";
}

/** The most same-named items a lookup reads: names are unique among siblings, so more means a very wide tree. */
const MAX_CANDIDATES = 1000;

/** The uid text names: text itself when it is a uid (or the resource has no names), else the one item of that name. */
export async function resolveUid(ctx: CommandContext, lookup: Lookup, text: string): Promise<string> {
  if (!lookup.named || isUid(text)) return text;
  if (lookup.hierarchical && text.includes("/")) return findByPath(ctx, lookup, pathOf(text, ""), "");
  return findByName(ctx, lookup, text, await ctx.defaultGroup(), "");
}

/** The uid of the default group named by text (from --group, ARBOR_GROUP or the settings file). */
export async function resolveDefaultGroup(ctx: CommandContext, text: string): Promise<string> {
  if (isUid(text)) return text;
  const origin = " (the default group: --group, ARBOR_GROUP or the settings file)";
  if (text.includes("/")) return findByPath(ctx, GROUP_LOOKUP, pathOf(text, origin), origin);
  return findByName(ctx, GROUP_LOOKUP, text, undefined, origin);
}

/** The names of a path, organization first; a ResolveError for an empty level (`acme//web`). */
function pathOf(text: string, origin: string): string[] {
  const names = text.split("/");
  if (names.some((n) => n === ""))
    throw new ResolveError(`"${text}"${origin} is neither a uid nor a path of names such as acme/engineering/web`);
  return names;
}

/**
 * The uid at the end of path: its last name among the children of the rest, which names items of
 * lookup's parent kind (groups, or repos for tags); a path of one name is an organization.
 */
async function findByPath(ctx: CommandContext, lookup: Lookup, path: readonly string[], origin: string): Promise<string> {
  const name = path[path.length - 1] as string;
  if (path.length === 1) {
    const found = await walkList(ctx, GROUP_LOOKUP, { name, pageSize: 200 }, { limit: MAX_CANDIDATES });
    const org = found.items.map((i) => String(i.uid)).find(isRoot);
    if (org === undefined) throw new ResolveError(`no organization named "${name}"${origin}`);
    return org;
  }
  const parents = path.slice(0, -1);
  const parent = await findByPath(ctx, lookup.parentLookup ?? GROUP_LOOKUP, parents, origin);
  const request: JsonObject = { name, pageSize: 2, uidp: { childrenOf: parent } };
  const found = await walkList(ctx, lookup, request, { limit: 2 });
  const uid = found.items.map((i) => String(i.uid)).find((u) => parentOf(u) === parent);
  if (uid === undefined) throw new ResolveError(`no ${lookup.singular} named "${name}" in ${parents.join("/")}${origin}`);
  return uid;
}

async function findByName(ctx: CommandContext, lookup: Lookup, name: string, scope: string | undefined, origin: string): Promise<string> {
  const found = await walkList(ctx, lookup, { name, pageSize: 200 }, { limit: MAX_CANDIDATES });
  const uids = found.items.map((i) => String(i.uid)).filter((uid) => scope === undefined || inScope(lookup, uid, scope));
  const where = scope === undefined ? "" : ` in group ${scope} or below`;
  if (uids.length === 0) throw new ResolveError(`no ${lookup.singular} named "${name}"${where}${origin}`);
  if (uids.length > 1) {
    const hint = scope === undefined ? "give a uid, or a default group (--group) to narrow the search" : "give a uid";
    throw new ResolveError(
      `the name "${name}"${origin} matches ${uids.length} ${pluralOf(lookup)}${where}: ${hint}:\n${uids.map((u) => `  ${u}`).join("\n")}`,
    );
  }
  return uids[0] as string;
}

/** Tells whether uid is among what the default group scope can mean for lookup. */
function inScope(lookup: Lookup, uid: string, scope: string): boolean {
  if (isSelfOrDescendant(uid, scope)) return true;
  if (lookup.scope !== "role") return false;
  // Built-in roles, and roles of the group's ancestors, can be bound in the group.
  const home = parentOf(uid);
  return isRoot(uid) || (home !== undefined && isSelfOrDescendant(scope, home));
}
