/**
 * Who can do what in one organization, read straight from the store: the escalation suite's
 * oracle, written apart from the guard it checks. A grant is `capability@group`; it reaches the
 * group and everything below it.
 *
 * - Each identity's grants come from its bindings; how it authenticates is a fingerprint of its
 *   relationship (whoever can change that can become it).
 * - Invites and identity providers hand their role out later, to whoever redeems the code or
 *   logs in: their grants are latent, and their fingerprint is what decides who gets them.
 */
import { capabilityName } from "../../src/domain/capabilities.js";
import { roleCapabilities } from "../../src/domain/role-rules.js";
import type { Store } from "../../src/store/store.js";
import { key, window } from "./lists.js";

/** Grants and what decides who exercises them, by holder (an identity, invite or provider uid). */
export interface Powers {
  grants: Map<string, Set<string>>;
  fingerprints: Map<string, string>;
}

const ALL = window([key("uid")], { limit: 100_000 });

/** The powers in org and below. */
export async function powersIn(store: Store, org: string): Promise<Powers> {
  const uidp = { descendantsOf: org };
  const [roles, bindings, identities, providers, invites] = await Promise.all([
    store.roles.list({ uidp }, ALL),
    store.bindings.list({ uidp }, ALL),
    store.identities.list({ uidp }, ALL),
    store.identityProviders.list({ uidp }, ALL),
    store.groupInvites.list({ uidp }, ALL),
  ]);
  const stored = new Map(roles.map((r) => [r.uid, r.capabilities]));
  const grantsOf = (roleUid: string, groupUid: string) =>
    [...roleCapabilities(roleUid, stored.get(roleUid) ?? [])].map((cap) => `${capabilityName(cap)}@${groupUid}`);
  const powers: Powers = { grants: new Map(), fingerprints: new Map() };
  const add = (holder: string, grants: readonly string[]) => {
    const set = powers.grants.get(holder) ?? new Set<string>();
    for (const g of grants) set.add(g);
    powers.grants.set(holder, set);
  };
  for (const b of bindings) add(b.identityUid, grantsOf(b.roleUid, b.groupUid));
  for (const i of identities) {
    add(i.uid, []);
    powers.fingerprints.set(i.uid, JSON.stringify(i.relationship));
  }
  for (const p of providers) {
    add(p.uid, grantsOf(p.defaultRole, p.parentUid));
    powers.fingerprints.set(p.uid, JSON.stringify({ defaultRole: p.defaultRole, oidc: p.oidc }));
  }
  for (const i of invites) {
    if (i.redeemTime !== null && i.singleUse) continue;
    add(i.uid, grantsOf(i.roleUid, i.parentUid));
    powers.fingerprints.set(i.uid, JSON.stringify({ email: i.email, singleUse: i.singleUse, expirationTime: i.expirationTime }));
  }
  return powers;
}

/** Whether grants hold `capability@group`: the capability held at the group or above it. */
export function holds(grants: ReadonlySet<string>, grant: string): boolean {
  const at = grant.indexOf("@");
  const cap = grant.slice(0, at);
  const group = grant.slice(at + 1);
  for (const g of grants) {
    const gAt = g.indexOf("@");
    if (g.slice(0, gAt) !== cap) continue;
    const scope = g.slice(gAt + 1);
    if (group === scope || group.startsWith(`${scope}/`)) return true;
  }
  return false;
}

/**
 * What the change from before to after handed out that the caller (holding `held` before it)
 * did not hold: every new grant of a holder, and every grant of a holder whose fingerprint
 * changed (whoever changed it decides who exercises them now). Empty when there is none.
 */
export function escalations(before: Powers, after: Powers, held: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const [holder, grants] of after.grants) {
    const had = before.grants.get(holder) ?? new Set<string>();
    const rekeyed = after.fingerprints.get(holder) !== before.fingerprints.get(holder);
    const unheld = [...grants].filter((grant) => (rekeyed || !had.has(grant)) && !holds(held, grant));
    if (unheld.length > 0)
      out.push(`${holder} ${rekeyed ? "re-keyed, holding" : "gained"} ${unheld.length} grants the caller lacks, such as ${unheld[0]}`);
  }
  return out;
}
