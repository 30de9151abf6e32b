/**
 * No escalation (DESIGN 1.8): a change may never let any identity exercise a capability, at any
 * scope, that the caller does not hold there itself. The invoker runs every mutating call in one
 * transaction, the stores report each write that changes who can do what (domain/authority.ts),
 * and before the transaction commits this guard finds, for each, what it hands out and where:
 *
 * - a binding or an invite: its role's capabilities at its group;
 * - an identity provider's default role: its capabilities at the provider's group, whenever who
 *   logs in through it or what they are given changes;
 * - a custom role's new capabilities: each, at every group where the role is bound, offered by an
 *   invite or given by a provider (capabilities taken away hand out nothing);
 * - how an identity authenticates: every capability of every binding it has, at that binding's
 *   group (whoever can now become it holds all of them).
 *
 * The caller must hold each at that group, or the call fails with PERMISSION_DENIED and nothing
 * of it lands. The one grant nobody held before is the owner binding of an organization the
 * caller has just made.
 */
import type { AuthorityChange } from "../../domain/authority.js";
import { capabilityName, type Capability } from "../../domain/capabilities.js";
import { ApiError, Code } from "../../domain/errors.js";
import type { Permissions } from "../../domain/permissions.js";
import type { RoleRecord } from "../../domain/roles.js";
import { roleCapabilities } from "../../domain/role-rules.js";
import type { Stores } from "../../store/store.js";

/** Who is making the change. */
export interface Actor {
  uid: string;
  permissions: Permissions;
}

/** What one change hands out, where, and how to say so when the caller may not. */
interface Handout {
  groupUid: string;
  capabilities: Iterable<Capability>;
  /** Why the change hands these out, for the refusal's message. */
  because: string;
  metadata: Record<string, string>;
}

/** The escalation guard over the stores a change is made in. */
export interface EscalationGuard {
  /** Throws PERMISSION_DENIED unless the actor holds everything the changes hand out. */
  check(actor: Actor, changes: readonly AuthorityChange[]): Promise<void>;
}

/** The guard, reading what it needs through stores (inside the change's transaction). */
export function createEscalationGuard(stores: Pick<Stores, "roles" | "bindings">): EscalationGuard {
  const capabilitiesOf = async (roleUid: string) => {
    const role = await stores.roles.get(roleUid);
    // A role that is gone hands nothing out; the write naming it has failed already.
    return role ? roleCapabilities(role.uid, role.capabilities) : new Set<Capability>();
  };

  async function handouts(actor: Actor, change: AuthorityChange, newOrganizations: ReadonlySet<string>): Promise<Handout[]> {
    switch (change.kind) {
      case "binding":
        if (change.identityUid === actor.uid && newOrganizations.has(change.groupUid)) return [];
        return [
          {
            groupUid: change.groupUid,
            capabilities: await capabilitiesOf(change.roleUid),
            because: "",
            metadata: { role: change.roleUid, identity: change.identityUid },
          },
        ];
      case "invite":
        return [
          {
            groupUid: change.groupUid,
            capabilities: await capabilitiesOf(change.roleUid),
            because: ` (an invite to role ${change.roleUid} hands them out)`,
            metadata: { role: change.roleUid },
          },
        ];
      case "login-provider":
        return [
          {
            groupUid: change.groupUid,
            capabilities: await capabilitiesOf(change.defaultRoleUid),
            because: ` (everyone who logs in through this identity provider is given its default role ${change.defaultRoleUid})`,
            metadata: { role: change.defaultRoleUid },
          },
        ];
      case "role-capabilities": {
        const added = addedCapabilities(change);
        if (added.length === 0) return [];
        return (await stores.roles.placesOf(change.roleUid)).map((groupUid) => ({
          groupUid,
          capabilities: added,
          because: ` (role ${change.roleUid} is handed out there)`,
          metadata: { role: change.roleUid },
        }));
      }
      case "authentication":
        return (await stores.bindings.grantsOf(change.identityUid)).map((grant) => ({
          groupUid: grant.groupUid,
          capabilities: roleCapabilities(grant.roleUid, grant.capabilities),
          because: ` (identity ${change.identityUid} is bound to them there, and this changes who can act as it)`,
          metadata: { identity: change.identityUid, role: grant.roleUid },
        }));
      case "organization":
        return [];
    }
  }

  return {
    async check(actor, changes) {
      if (changes.length === 0) return;
      // Read under the generation's row, which every write of a role or binding holds: a call
      // racing this one cannot pass on a role's old capabilities while this one grows them, nor
      // grow a role this one hands out before it commits (invites and identity providers take no
      // other lock a role's update would wait for).
      await stores.bindings.holdGeneration();
      const newOrganizations = new Set(changes.flatMap((c) => (c.kind === "organization" ? [c.groupUid] : [])));
      for (const change of changes) {
        for (const handout of await handouts(actor, change, newOrganizations)) {
          const missing = missingAt(actor.permissions, handout.capabilities, handout.groupUid);
          if (missing.length > 0) throw cannotGrant(change, handout, missing);
        }
      }
    },
  };
}

/**
 * PERMISSION_DENIED unless perms hold every capability of role at groupUid: the early form of the
 * guard's check, for services that must refuse before they reveal whether something exists.
 */
export function requireGrantable(perms: Permissions, role: RoleRecord, groupUid: string, as: "binding" | "invite"): void {
  const capabilities = roleCapabilities(role.uid, role.capabilities);
  const missing = missingAt(perms, capabilities, groupUid);
  if (missing.length === 0) return;
  const change: AuthorityChange =
    as === "binding" ? { kind: "binding", groupUid, identityUid: "", roleUid: role.uid } : { kind: "invite", groupUid, roleUid: role.uid };
  const because = as === "invite" ? ` (an invite to role ${role.uid} hands them out)` : "";
  throw cannotGrant(change, { groupUid, capabilities, because, metadata: { role: role.uid } }, missing);
}

function missingAt(perms: Permissions, capabilities: Iterable<Capability>, groupUid: string): Capability[] {
  return [...capabilities].filter((cap) => !perms.allows([cap], groupUid));
}

/** The capabilities after has that before had not, by the catalogue's names. */
function addedCapabilities(change: Extract<AuthorityChange, { kind: "role-capabilities" }>): Capability[] {
  const before = roleCapabilities(change.roleUid, change.before);
  return [...roleCapabilities(change.roleUid, change.after)].filter((cap) => !before.has(cap));
}

function cannotGrant(change: AuthorityChange, handout: Handout, missing: readonly Capability[]): ApiError {
  const names = missing.map(capabilityName).join(",");
  const metadata: Record<string, string> = { change: change.kind, group: handout.groupUid, ...handout.metadata, missing: names };
  if (metadata.identity === "") delete metadata.identity;
  return new ApiError(
    Code.PERMISSION_DENIED,
    `Permission denied: the caller cannot grant capabilities it does not hold${handout.because}`,
    {
      metadata,
    },
  );
}
