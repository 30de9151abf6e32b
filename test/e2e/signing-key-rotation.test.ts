/**
 * Rotating the token signing key while a server runs (`arbor admin rotate-signing-key` is another
 * process with its own key ring over the same store): tokens signed before still verify, new ones
 * carry the new kid once the server has looked again, the JWKS lists both, and once the old key's
 * tokens have all expired it is gone from the JWKS, from verification and from the store.
 */
import { decodeProtectedHeader, importJWK, SignJWT, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyRing, ROTATION_MARGIN_MS, SIGNING_REFRESH_MS, TOKEN_TTL_MS } from "../../src/auth/key-ring.js";
import { adminIdentityUid } from "../../src/domain/identities.js";
import { engines, type EngineContext, type TestLocation } from "../support/engines.js";
import { movableClock } from "../support/exchange.js";
import { rawRows } from "../support/raw-sql.js";
import { startTestServer, type TestServer, storeAt } from "../support/server.js";

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`signing key rotation [${engine.name}]`, () => {
    const clock = movableClock();
    let t: TestServer;
    let location: TestLocation;
    const raw = () => ({ engine: engine.name, options: () => location.options }) as EngineContext;

    beforeAll(async () => {
      location = await engine.location();
      const o = location.options;
      t = await startTestServer(engine, storeAt(o), { clock });
    });
    afterAll(async () => {
      await t?.close();
      await location?.dispose();
    });

    const kidOf = (token: string) => decodeProtectedHeader(token).kid;
    const jwksKids = async () =>
      ((await (await t.fetch("/.well-known/jwks.json")).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
    const call = async (token: string) => {
      const res = await t.fetch("/iam/v2beta1/groups?uidp.in_root=true", { token });
      return { status: res.status, body: (await res.json()) as { message?: string } };
    };

    it("keeps the old key verifying until its tokens expire, then drops it", async () => {
      const { org, token: before } = await t.organization("rotated");
      const oldKid = kidOf(before);
      const oldRecord = (await t.server.store.keys.live(clock.now())).find((k) => k.kid === oldKid);
      expect(oldRecord).toBeDefined();

      // The admin command: another key ring over the same store.
      const started = clock.now();
      const rotation = await new KeyRing(t.server.store.keys, clock, { rotationMs: 30 * 86_400_000 }).rotate();
      expect(rotation.kid).not.toBe(oldKid);
      const lifetime = SIGNING_REFRESH_MS + TOKEN_TTL_MS + ROTATION_MARGIN_MS;
      expect(rotation.retireTime).toBeGreaterThanOrEqual(started + lifetime);
      expect(rotation.retireTime).toBeLessThanOrEqual(clock.now() + lifetime);

      // Within SIGNING_REFRESH_MS the running server signs with the new key.
      clock.advance(SIGNING_REFRESH_MS + 1);
      const after = (await t.server.tokens.issue(adminIdentityUid(org.uid), t.url)).token;
      expect(kidOf(after)).toBe(rotation.kid);
      expect((await jwksKids()).sort()).toEqual([oldKid, rotation.kid].sort());
      expect((await call(before)).status).toBe(200);
      expect((await call(after)).status).toBe(200);

      // A token the old key signs just before its retirement, as a thief of it would: as long-lived
      // as the server accepts (an hour), so it would outlive the key but for the retirement.
      clock.advance(rotation.retireTime - clock.now() - 2_000);
      const oldKey = await importJWK(JSON.parse(oldRecord?.privateJwk ?? "{}") as JWK, "ES256");
      const lasting = await new SignJWT({})
        .setProtectedHeader({ alg: "ES256", kid: oldKid, typ: "JWT" })
        .setIssuer(t.url)
        .setSubject(adminIdentityUid(org.uid))
        .setAudience(t.url)
        .setIssuedAt(Math.floor(clock.now() / 1000))
        .setExpirationTime(Math.floor(clock.now() / 1000) + 3600)
        .sign(oldKey);
      expect((await call(lasting)).status).toBe(200);

      clock.advance(rotation.retireTime - clock.now() + 1);
      expect(await jwksKids()).toEqual([rotation.kid]);
      expect(await call(lasting)).toEqual({
        status: 401,
        body: expect.objectContaining({ code: 16, message: "Unauthenticated: the token was not signed by a key of this issuer" }),
      });
      expect((await call(before)).status).toBe(401);
      expect(await rawRows(raw(), `select kid from signing_keys where kid = '${oldKid}'`)).toEqual([]);
      expect(kidOf((await t.server.tokens.issue("0".repeat(40), t.url)).token)).toBe(rotation.kid);
    });
  });
}
