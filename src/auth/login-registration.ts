/**
 * What a successful upstream login does to the store, in one transaction: registers the person
 * on their first login (a root-level identity whose uid is derived from issuer and subject),
 * grants a new person the provider's default role, and redeems an invite given at login. If any
 * part fails, none of it happened.
 */
import type { Clock } from "../domain/clock.js";
import { Code, failedPrecondition, isApiError } from "../domain/errors.js";
import { userIdentityUid, type IdentityRecord } from "../domain/identities.js";
import { inviteRefusal, personName } from "../domain/login-rules.js";
import { newChildUid, type IdSource } from "../domain/uid.js";
import type { Store, Stores } from "../store/types.js";
import type { LoginProvider } from "./login-provider.js";

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
  const run = () => deps.store.transaction((tx) => register(deps, tx, person, provider, inviteCodeHash));
  try {
    return await run();
  } catch (e) {
    // Two first logins of one person at once: the loser's insert collided; now it is a returning person.
    if (isApiError(e) && e.code === Code.ALREADY_EXISTS) return run();
    throw e;
  }
}

async function register(deps: RegistrationDeps, tx: Stores, person: UpstreamPerson, provider: LoginProvider, inviteCodeHash: string | null): Promise<Registration> {
  const now = deps.clock.now();
  const uid = userIdentityUid(person.issuer, person.subject);
  const firstLogin = (await tx.identities.get(uid)) === undefined;
  if (firstLogin) {
    await tx.identities.insert(newPerson(uid, person, now));
    if (provider.defaultGrant !== undefined) await grant(deps, tx, uid, provider.defaultGrant.groupUid, provider.defaultGrant.roleUid);
  } else {
    await tx.identities.touch(uid, now);
  }
  if (inviteCodeHash !== null) await redeem(deps, tx, uid, person, inviteCodeHash);
  return { identityUid: uid, firstLogin };
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
  await grant(deps, tx, uid, invite.parentUid, invite.roleUid);
}

/** An invite code no invite has (never issued, or deleted with its invite or group). */
export function unknownInvite() {
  return failedPrecondition("INVITE_UNKNOWN", "", "the invite code is not valid (it may have been deleted); ask for a new one");
}

async function grant(deps: RegistrationDeps, tx: Stores, identityUid: string, groupUid: string, roleUid: string): Promise<void> {
  if (await tx.bindings.find(groupUid, identityUid, roleUid)) return;
  await tx.bindings.insert({ uid: newChildUid(deps.ids, groupUid), groupUid, identityUid, roleUid, createTime: deps.clock.now() });
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
