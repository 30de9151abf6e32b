/**
 * Roles: what a role grants, which capabilities a custom role may name, and what may be sorted
 * and updated. Built-in roles' capabilities are code (roles.ts); custom roles store dotted names.
 */
import { namedSortValue } from "./named-sort-value.js";
import { ALL_CAPABILITIES, Capability, capabilityByName, capabilityName } from "./capabilities.js";
import { invalidArgument } from "./errors.js";
import type { Updatable } from "./field-mask.js";
import { groupSortable } from "./groups.js";
import type { Sortable } from "./list.js";
import type { RoleRecord } from "./roles.js";
import { builtinRoleByUid } from "./roles.js";

const CATALOGUE: ReadonlySet<number> = new Set(ALL_CAPABILITIES);

/**
 * The capabilities a role grants: a built-in role's from code, a custom role's from its stored
 * dotted names. A name the catalogue no longer knows grants nothing.
 */
export function roleCapabilities(roleUid: string, storedNames: readonly string[]): ReadonlySet<Capability> {
  const builtin = builtinRoleByUid(roleUid);
  if (builtin) return builtin.capabilities;
  const out = new Set<Capability>();
  for (const name of storedNames) {
    const cap = capabilityByName(name);
    if (cap !== undefined) out.add(cap);
  }
  return out;
}

/**
 * Checks a custom role's capabilities (at least one, each a value of the catalogue) and returns
 * them as dotted names, once each, in catalogue order. INVALID_ARGUMENT names `capabilities`.
 */
export function customRoleCapabilities(caps: readonly number[]): string[] {
  if (caps.length === 0) throw invalidArgument("capabilities", "a role needs at least one capability");
  for (const cap of caps) {
    if (!CATALOGUE.has(cap)) throw invalidArgument("capabilities", `${cap} is not a capability`);
  }
  const wanted = new Set(caps);
  return ALL_CAPABILITIES.filter((c) => wanted.has(c)).map(capabilityName);
}

/** Tells whether uid is a built-in role's. */
export function isBuiltinRole(uid: string): boolean {
  return builtinRoleByUid(uid) !== undefined;
}

/**
 * Sortable fields of roles: the same as groups' (name, create_time, update_time, uid and their
 * aliases); default order name ascending (DESIGN 1.4).
 */
export const roleSortable: Sortable = groupSortable;

/** What an update may change on a role. */
export const roleUpdatable: Updatable = {
  mutable: ["name", "description", "capabilities"],
  outputOnly: ["uid", "create_time", "update_time"],
};

/** The value of a role's sort field. */
export const roleSortValue: (record: RoleRecord, field: string) => string | number = namedSortValue("roles");
