/**
 * The exchange without `identity` (DESIGN 1.7): an upstream token matched to a registered person
 * (a root-level identity whose uid is derived from issuer and subject) instead of a named
 * workload identity.
 *
 * Whose tokens are believed: only those of the issuers people log in through, the organizations'
 * login providers and the server's default one. Anyone can put any `iss` in a token, so the
 * issuer is checked against that list before anything is fetched: no discovery document or key
 * set is ever requested from an issuer an operator did not configure for login. The audience must
 * list {auth_url}, as for a workload identity that names none: an ID token a provider issued to
 * another application (its client id as audience) is that application's, and must not become the
 * person at Arbor.
 *
 * What an anonymous caller is told: checks on the token alone (its form, times and audience)
 * keep their reasons; an issuer that is no login provider, no such person and a signature that
 * does not verify answer one message, so neither which people are registered nor which issuers
 * are trusted can be probed. The failed check's own reason is the error's cause, for the log.
 */
import { UnauthenticatedError } from "../domain/errors.js";
import { userIdentityUid, type IdentityRecord } from "../domain/identities.js";
import { reasonSentence, type PlainReason } from "../domain/unauthenticated-reasons.js";
import type { IdentityStore } from "../store/identity-store.js";
import type { DecodedUpstream } from "./upstream-token.js";
import type { UpstreamVerifier, VerifiedUpstream } from "./upstream-verifier.js";

/** The answer for an issuer that is no login provider, no such person, or a signature that does not verify. */
export const PERSON_NOT_TRUSTED = reasonSentence("EXCHANGE_PERSON_NOT_TRUSTED");

/** What matching a person needs. */
export interface PersonMatchDeps {
  identities: Pick<IdentityStore, "get">;
  verifier: UpstreamVerifier;
  /** Whether people log in through issuer (an organization's login provider or the default one). */
  isLoginIssuer: (issuer: string) => Promise<boolean>;
  /** {auth_url}: the audience a person's token must list. */
  authUrl: () => string;
}

/** A verified token and the registered person it names. */
export interface MatchedPerson {
  person: IdentityRecord;
  upstream: VerifiedUpstream;
}

/** The registered person token names, its signature verified; UNAUTHENTICATED otherwise, the failed check as cause. */
export async function matchPerson(deps: PersonMatchDeps, token: string): Promise<MatchedPerson> {
  let decoded: DecodedUpstream;
  try {
    decoded = deps.verifier.decode(token);
  } catch (e) {
    // Checks on the token alone keep their reasons: they tell nothing of who is registered.
    const { reason, why } = refusalOf(e);
    throw new UnauthenticatedError(reason, why, { cause: `token: ${why}` });
  }
  if (!decoded.audience.includes(deps.authUrl())) throw refusal("UPSTREAM_AUDIENCE", `audience: ${reasonSentence("UPSTREAM_AUDIENCE")}`);
  const { iss, sub } = decoded.claims;
  if (!(await deps.isLoginIssuer(iss)))
    throw refusal("EXCHANGE_PERSON_NOT_TRUSTED", "issuer: the token's issuer is no login provider of this server");
  const person = await deps.identities.get(userIdentityUid(iss, sub));
  if (!isPersonOf(person, iss, sub))
    throw refusal("EXCHANGE_PERSON_NOT_TRUSTED", "person: no person is registered with the token's issuer and subject");
  try {
    return { person, upstream: await deps.verifier.verify(token, { issuer: iss }) };
  } catch (e) {
    throw refusal("EXCHANGE_PERSON_NOT_TRUSTED", `signature: ${refusalOf(e).why}`);
  }
}

/** Whether record is the person (root-level, logged in) the issuer knows as subject. */
function isPersonOf(record: IdentityRecord | undefined, issuer: string, subject: string): record is IdentityRecord {
  const r = record?.relationship;
  return record?.parentUid === null && r?.kind === "user" && r.issuer === issuer && r.subject === subject;
}

/** The refusal told (its sentence the caller's answer), with logged as its cause. */
function refusal(told: PlainReason, logged: string): UnauthenticatedError {
  return new UnauthenticatedError(told, reasonSentence(told), { cause: logged });
}

/** e, a refusal of the verifier; anything else is no refusal and goes on up. */
function refusalOf(e: unknown): UnauthenticatedError {
  if (e instanceof UnauthenticatedError) return e;
  throw e;
}
