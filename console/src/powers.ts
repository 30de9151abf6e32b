/**
 * What the signed-in person may do at a group, worked out from their own role bindings (at the
 * group or above it) and their roles' capabilities, so the console can disable what the API
 * would refuse and say why. The API stays the judge: this only decides what to offer.
 */
import { Capability } from "../../src/client/index.js";
import { allPages, api, type Role } from "./api.js";

export interface Powers {
  /** The capabilities held at the group. */
  capabilities: Set<Capability>;
  /** The names of the roles that give them, for the reasons shown. */
  roleNames: string[];
}

/** Whether group is at or below ancestor. */
export function atOrBelow(group: string, ancestor: string): boolean {
  return group === ancestor || group.startsWith(`${ancestor}/`);
}

/** The roles that exist at a group: the built-in ones and the custom roles of it and its ancestors. */
export function rolesAt(roles: readonly Role[], group: string): Role[] {
  return roles.filter((r) => !r.uid.includes("/") || atOrBelow(group, r.uid.slice(0, r.uid.lastIndexOf("/"))));
}

/** Every role the caller can see. */
export function listRoles(): Promise<Role[]> {
  return allPages(async (pageToken) => {
    const r = await api.iam.v2beta1.roles.listRoles({ pageSize: 200, pageToken });
    return { items: r.roles, next: r.nextPageToken };
  });
}

/** The caller's powers at group. */
export async function powersAt(identity: string, group: string, roles: readonly Role[]): Promise<Powers> {
  const mine = await allPages(async (pageToken) => {
    const r = await api.iam.v2beta1.roleBindings.listRoleBindings({ identity, pageSize: 200, pageToken });
    return { items: r.roleBindings, next: r.nextPageToken };
  });
  const capabilities = new Set<Capability>();
  const roleNames: string[] = [];
  for (const b of mine) {
    if (b.group === undefined || !atOrBelow(group, b.group.uid)) continue;
    const role = roles.find((r) => r.uid === b.role?.uid);
    roleNames.push(b.role?.name ?? "?");
    for (const c of role?.capabilities ?? []) capabilities.add(c);
  }
  return { capabilities, roleNames: [...new Set(roleNames)] };
}

/** Why the caller may not bind role at the group (undefined: they may). */
export function whyNotBind(powers: Powers, role: Role): string | undefined {
  if (!powers.capabilities.has(Capability.CAP_IAM_ROLE_BINDINGS_CREATE))
    return `you may not bind roles here (${describeRoles(powers)} without role_bindings.create)`;
  if (role.capabilities.some((c) => !powers.capabilities.has(c)))
    return `it grants capabilities you do not hold here (${describeRoles(powers)})`;
  return undefined;
}

/** Why the caller may not unbind at the group (undefined: they may). */
export function whyNotUnbind(powers: Powers): string | undefined {
  return powers.capabilities.has(Capability.CAP_IAM_ROLE_BINDINGS_DELETE)
    ? undefined
    : `you may not remove bindings here (${describeRoles(powers)} without role_bindings.delete)`;
}

function describeRoles(powers: Powers): string {
  return powers.roleNames.length === 0 ? "you hold no role here" : `your roles here: ${powers.roleNames.join(", ")}`;
}
