/**
 * The bearer token of an event delivery (docs/events.md): signed with Arbor's signing keys
 * (ES256, published at {auth_url}/.well-known/jwks.json), issuer Arbor, audience the sink URL,
 * subject the subscription's uid, living a few minutes. A receiver checks it with any OIDC
 * library and nothing else to configure. It opens nothing at Arbor: its audience is never
 * Arbor's, and its subject is no identity.
 */
import { randomUUID } from "node:crypto";
import { SignJWT } from "jose";
import type { Clock } from "../domain/clock.js";
import type { KeyRing } from "./key-ring.js";

/** How long a delivery's token lives: enough for the request, retries get a new one. */
export const DELIVERY_TOKEN_TTL_S = 300;

/** Signs delivery tokens. */
export type DeliverySigner = (subscriptionUid: string, sink: string) => Promise<string>;

/** A signer with keys' current signing key, as issuer. */
export function createDeliverySigner(keys: Pick<KeyRing, "signingKey">, clock: Clock, issuer: () => string): DeliverySigner {
  return async (subscriptionUid, sink) => {
    const { kid, key } = await keys.signingKey();
    const iat = Math.floor(clock.now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: "ES256", kid, typ: "JWT" })
      .setIssuer(issuer())
      .setSubject(subscriptionUid)
      .setAudience(sink)
      .setIssuedAt(iat)
      .setExpirationTime(iat + DELIVERY_TOKEN_TTL_S)
      .setJti(randomUUID())
      .sign(key);
  };
}
