/**
 * What a successful upstream login does to the store, in one transaction: registers the person
 * on their first login (a root-level identity whose uid is derived from issuer and subject),
 * grants a new person the provider's default role, and redeems an invite given at login. If any
 * part fails, none of it happened.
 */
import type { AuditEventRecord } from "../domain/audit.js";
import type { Clock } from "../domain/clock.js";
import { Code, failedPrecondition, isApiError } from "../domain/errors.js";
import { userIdentityUid, type IdentityRecord } from "../domain/identities.js";
import { inviteRefusal, personName } from "../domain/login-rules.js";
import { newChildUid, rootOf, type IdSource } from "../domain/uid.js";
import type { Store, Stores } from "../store/store.js";
import { providerOfAttempt, type LoginProvider } from "./login-provider.js";

/** The person an upstream token names, as verified. */
export interface UpstreamPerson {
  issuer: string;
  subject: string;
  claims: Readonly<Record<string, unknown>>;
}

/** What registration did. */
export interface Registration {
  identityUid: string;
  /** Whether this was the person's first login (their identity was created). */
  firstLogin: boolean;
}

/** What registration needs. */
export interface RegistrationDeps {
  store: Store;
  clock: Clock;
  ids: IdSource;
}

/**
 * Registers or recognises the person, grants and redeems as above. FAILED_PRECONDITION or
 * PERMISSION_DENIED with the reason when the invite cannot be redeemed.
 */
export async function registerLogin(
  deps: RegistrationDeps,
  person: UpstreamPerson,
  provider: LoginProvider,
  inviteCodeHash: string | null,
): Promise<Registration> {
  const run = () => deps.store.atomically((tx) => register(deps, tx, person, provider, inviteCodeHash));
  try {
    return await run();
  } catch (e) {
    // Two first logins of one person at once: the loser's insert collided; now it is a returning person.
    if (isApiError(e) && e.code === Code.ALREADY_EXISTS) return run();
    throw e;
  }
}

async function register(
  deps: RegistrationDeps,
  tx: Stores,
  person: UpstreamPerson,
  provider: LoginProvider,
  inviteCodeHash: string | null,
): Promise<Registration> {
  // What a login grants (the provider's default role, an invite's role) passes no escalation
  // guard: it redeems what someone who could grant it set up. So it must be what they set up
  // now, not when the login began: the provider was read before the upstream exchange, and a
  // caller could meanwhile point the provider at another role and grow the first (no place
  // handed it out any more), then have this login bind it. Holding the generation row, as every
  // call that changes authority does, no such call commits between the reads below and this
  // commit, and what they read is what was committed before.
  await tx.bindings.holdGeneration();
  const defaultGrant = await currentDefaultGrant(tx, provider);
  const now = deps.clock.now();
  const uid = userIdentityUid(person.issuer, person.subject);
  const firstLogin = (await tx.identities.get(uid)) === undefined;
  if (firstLogin) {
    const identity = newPerson(uid, person, now);
    await tx.identities.insert(identity);
    if (defaultGrant !== undefined) {
      const { groupUid, roleUid } = defaultGrant;
      // The person appears in the audit log under the organization that let them in.
      await tx.audit.insert(
        loginEvent(deps, person, groupUid, "register", "arbor.iam.v2beta1.Identity", uid, {
          uid,
          name: identity.name,
          issuer: person.issuer,
          subject: person.subject,
        }),
      );
      await grant(deps, tx, person, uid, groupUid, roleUid, "DefaultGrant");
    }
  } else {
    await tx.identities.touch(uid, now);
  }
  // Logging in through an organization's own provider joins it: from now on it sees who this is.
  if (provider.uid !== null) await tx.identities.join(rootOf(provider.uid), uid, now);
  if (inviteCodeHash !== null) await redeem(deps, tx, uid, person, inviteCodeHash);
  return { identityUid: uid, firstLogin };
}

/**
 * The default grant of provider as the store has it now: an organization's provider read again
 * (providerOfAttempt: LOGIN_PROVIDER_CHANGED when it is gone or now names another issuer or
 * client); the server's own provider is configuration, which no call changes.
 */
async function currentDefaultGrant(tx: Stores, provider: LoginProvider): Promise<LoginProvider["defaultGrant"]> {
  if (provider.uid === null) return provider.defaultGrant;
  const attempt = { providerUid: provider.uid, issuer: provider.issuer, clientId: provider.clientId };
  return (await providerOfAttempt(tx, undefined, attempt)).defaultGrant;
}

async function redeem(deps: RegistrationDeps, tx: Stores, uid: string, person: UpstreamPerson, codeHash: string): Promise<void> {
  const now = deps.clock.now();
  const invite = await tx.groupInvites.findByCodeHash(codeHash);
  if (invite === undefined) throw unknownInvite();
  const refusal = inviteRefusal(invite, now, person.claims);
  if (refusal !== undefined) throw refusal;
  if ((await tx.roles.get(invite.roleUid)) === undefined) {
    throw failedPrecondition("INVITE_ROLE_GONE", invite.uid, "the invite's role no longer exists; ask for a new invite");
  }
  // The conditional update is what makes a single-use invite single: of two racing logins, one wins.
  if (invite.singleUse && !(await tx.groupInvites.redeem(invite.uid, now))) {
    throw failedPrecondition("INVITE_USED", invite.uid, "the invite has already been used; ask for a new one");
  }
  await grant(deps, tx, person, uid, invite.parentUid, invite.roleUid, "RedeemInvite", invite.uid);
  await tx.identities.join(rootOf(invite.parentUid), uid, now);
}

/** An invite code no invite has (never issued, or deleted with its invite or group). */
export function unknownInvite() {
  return failedPrecondition("INVITE_UNKNOWN", "", "the invite code is not valid (it may have been deleted); ask for a new one");
}

/** Binds the role (unless bound already), recorded in the audit log in the same transaction. */
async function grant(
  deps: RegistrationDeps,
  tx: Stores,
  person: UpstreamPerson,
  identityUid: string,
  groupUid: string,
  roleUid: string,
  how: "DefaultGrant" | "RedeemInvite",
  inviteUid?: string,
): Promise<void> {
  if (await tx.bindings.find(groupUid, identityUid, roleUid)) return;
  const binding = { uid: newChildUid(deps.ids, groupUid), groupUid, identityUid, roleUid, createTime: deps.clock.now() };
  await tx.bindings.insert(binding);
  const after = { uid: binding.uid, identityUid, roleUid, ...(inviteUid !== undefined && { inviteUid }) };
  await tx.audit.insert(loginEvent(deps, person, groupUid, how, "arbor.iam.v2beta1.RoleBinding", binding.uid, after));
}

/**
 * An audit event of a change made by logging in (not through an RPC): its method is
 * `arbor.login/<what>`, its actor the person, as their upstream token named them.
 */
function loginEvent(
  deps: RegistrationDeps,
  person: UpstreamPerson,
  groupUid: string,
  what: string,
  resourceType: string,
  resourceUid: string,
  after: Record<string, unknown>,
): AuditEventRecord {
  return {
    uid: newChildUid(deps.ids, groupUid),
    createTime: deps.clock.now(),
    actor: { uid: userIdentityUid(person.issuer, person.subject), upstreamIssuer: person.issuer, upstreamSubject: person.subject },
    method: `arbor.login/${what.charAt(0).toUpperCase()}${what.slice(1)}`,
    action: "create",
    resourceType,
    resourceUid,
    after,
  };
}

function newPerson(uid: string, person: UpstreamPerson, now: number): IdentityRecord {
  return {
    uid,
    parentUid: null,
    name: personName(person.claims),
    description: "",
    relationship: { kind: "user", issuer: person.issuer, subject: person.subject },
    lastSeenTime: now,
    createTime: now,
    updateTime: now,
  };
}
