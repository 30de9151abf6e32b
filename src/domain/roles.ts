/**
 * Built-in roles: the same uids on every installation (derived from the name), so scripts can
 * hard-code them.
 */
import { createHash } from "node:crypto";
import { ALL_CAPABILITIES, Capability, capabilityName } from "./capabilities.js";

/** A role: built-in (no parent, capabilities from code) or custom (in a group). */
export interface RoleRecord {
  uid: string;
  /** The group's uid; null for a built-in role. */
  parentUid: string | null;
  name: string;
  description: string;
  /** Dotted capability names; empty for built-in roles, whose capabilities are code. */
  capabilities: string[];
  createTime: number;
  updateTime: number;
}

/** A role as authorization sees it. */
export interface RoleDefinition {
  uid: string;
  name: string;
  description: string;
  capabilities: ReadonlySet<Capability>;
}

/** The uid of the built-in role with this name. */
export function builtinRoleUid(name: string): string {
  return createHash("sha1").update(`arbor/builtin-role/${name}`).digest("hex");
}

const reads = ALL_CAPABILITIES.filter((c) => capabilityName(c).endsWith(".list"));
const writes = (...families: string[]) => ALL_CAPABILITIES.filter((c) => families.some((f) => capabilityName(c).startsWith(`${f}.`)));

function role(name: string, title: string, caps: readonly Capability[]): RoleDefinition {
  return { uid: builtinRoleUid(name), name, description: `${title} Role (built-in)`, capabilities: new Set(caps) };
}

/** The built-in roles, by name. */
export const BUILTIN_ROLES: ReadonlyMap<string, RoleDefinition> = new Map(
  [
    role("owner", "Owner", ALL_CAPABILITIES),
    role("editor", "Editor", [
      ...reads,
      ...writes("groups", "identity", "repo", "subscriptions"),
      Capability.CAP_REGISTRY_PULL,
      Capability.CAP_REGISTRY_PUSH,
    ]),
    role("viewer", "Viewer", reads),
    role("registry.pull", "Registry Pull", [Capability.CAP_REGISTRY_PULL, Capability.CAP_REPO_LIST, Capability.CAP_TAG_LIST]),
    role("registry.push", "Registry Push", [
      Capability.CAP_REGISTRY_PULL,
      Capability.CAP_REGISTRY_PUSH,
      Capability.CAP_REPO_LIST,
      Capability.CAP_TAG_LIST,
    ]),
  ].map((r) => [r.name, r]),
);

/** The built-in role with this uid, or undefined. */
export function builtinRoleByUid(uid: string): RoleDefinition | undefined {
  for (const r of BUILTIN_ROLES.values()) if (r.uid === uid) return r;
  return undefined;
}

/** The owner role, which holds every capability. */
export const OWNER_ROLE: RoleDefinition = BUILTIN_ROLES.get("owner") as RoleDefinition;
