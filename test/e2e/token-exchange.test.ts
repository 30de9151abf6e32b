/**
 * The workload token exchange against a real upstream issuer (oidc-provider on loopback), on
 * every engine: a token that matches an identity becomes an Arbor token that lists exactly what
 * the identity's role binding allows; GET and POST forms; the registry audience; key rotation at
 * the issuer; patterns, custom claims and static keys.
 */
import { createLocalJWKSet, decodeJwt, exportJWK, generateKeyPair, jwtVerify, SignJWT, type CryptoKey, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { engines } from "../support/engines.js";
import {
  callExchange,
  CUSTOM_AUDIENCE,
  expectRefused,
  loggedReason,
  publicFor,
  REGISTRY_HOST,
  startExchangeSetup,
  type ExchangeSetup,
} from "../support/exchange.js";
import { restClient, type RestClient } from "../support/rest.js";

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MAIN = "repo:acme/app:ref:refs/heads/main";

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`the token exchange [${engine.name}]`, () => {
    let s: ExchangeSetup;
    let admin: RestClient;
    let org: string;
    let team: string;
    let squad: string;
    let sibling: string;
    let ci: string;

    const identity = async (parent: string, body: Record<string, unknown>) => {
      const res = await admin.post(`/iam/v2beta1/identities/${parent}`, body);
      expect(res.status).toBe(200);
      return res.body.uid as string;
    };
    const exchanged = async (res: Response) => {
      const body = (await res.json()) as { token: string; expiry: string };
      expect(res.status, JSON.stringify(body)).toBe(200);
      return body;
    };

    beforeAll(async () => {
      s = await startExchangeSetup(engine);
      const made = await s.t.organization("exchange");
      org = made.org.uid;
      admin = restClient(s.t, made.token);
      team = (await admin.post(`/iam/v2beta1/groups/${org}`, { name: "team" })).body.uid;
      squad = (await admin.post(`/iam/v2beta1/groups/${team}`, { name: "squad" })).body.uid;
      sibling = (await admin.post(`/iam/v2beta1/groups/${org}`, { name: "sibling" })).body.uid;
      ci = await identity(team, { name: "ci", claimMatch: { issuer: s.issuer.url, subject: MAIN } });
      const bound = await admin.post(`/iam/v2beta1/roleBindings/${team}`, { identityUid: ci, roleUid: builtinRoleUid("viewer") });
      expect(bound.status).toBe(200);
    });
    afterAll(() => s?.close());

    it("exchanges a matching token for a one-hour Arbor token naming the identity and the upstream token", async () => {
      const upstream = await s.issuer.mint(MAIN, s.t.url);
      const res = await callExchange(s, { token: upstream, aud: s.t.url, identity: ci });
      expect(res.headers.get("cache-control")).toBe("no-store");
      const { token, expiry } = await exchanged(res);
      expect(expiry).toMatch(TIME);
      const discovery = (await (await s.t.fetch("/.well-known/openid-configuration")).json()) as { jwks_uri: string };
      const jwks = (await (await fetch(discovery.jwks_uri)).json()) as { keys: JWK[] };
      const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), {
        issuer: s.t.url,
        audience: s.t.url,
        algorithms: ["ES256"],
        currentDate: new Date(s.clock.now()),
      });
      expect(protectedHeader.alg).toBe("ES256");
      expect(payload.sub).toBe(ci);
      expect(payload.exp! - payload.iat!).toBe(3600);
      expect(new Date(payload.exp! * 1000).toISOString()).toBe(expiry);
      expect(payload.act).toEqual({ iss: s.issuer.url, sub: MAIN, aud: s.t.url });
      expect(Object.keys(payload).sort()).toEqual(["act", "aud", "exp", "iat", "iss", "jti", "sub"]);
      const seen = await admin.get(`/iam/v2beta1/identities/${ci}`);
      expect(seen.body.lastSeenTime).toMatch(TIME);
      expect(Math.abs(Date.parse(seen.body.lastSeenTime) - s.clock.now())).toBeLessThan(10_000);
    });

    it("gives a token that lists exactly what the identity's viewer binding allows", async () => {
      const { token } = await exchanged(await callExchange(s, { token: await s.issuer.mint(MAIN, s.t.url), aud: s.t.url, identity: ci }));
      const workload = restClient(s.t, token);
      const groups = await workload.get("/iam/v2beta1/groups");
      expect(groups.status).toBe(200);
      expect((groups.body.groups as { uid: string }[]).map((g) => g.uid).sort()).toEqual([team, squad].sort());
      expect(groups.body.totalCount).toBe("2");
      expect((await workload.get(`/iam/v2beta1/groups/${sibling}`)).status).toBe(403);
      expect((await workload.post(`/iam/v2beta1/groups/${team}`, { name: "nope" })).status).toBe(403);
    });

    it("takes aud and identity from a form body on POST", async () => {
      const res = await callExchange(s, { token: await s.issuer.mint(MAIN, s.t.url), aud: s.t.url, identity: ci, method: "POST" });
      expect(decodeJwt((await exchanged(res)).token).sub).toBe(ci);
    });

    it("issues a token for the registry host", async () => {
      const { token } = await exchanged(
        await callExchange(s, { token: await s.issuer.mint(MAIN, s.t.url), aud: REGISTRY_HOST, identity: ci }),
      );
      expect(decodeJwt(token).aud).toBe(REGISTRY_HOST);
      // A registry token is no API token.
      expect((await restClient(s.t, token).get("/iam/v2beta1/groups")).status).toBe(401);
    });

    it("follows a key rotation at the issuer, refetching its keys for the new kid", async () => {
      await exchanged(await callExchange(s, { token: await s.issuer.mint(MAIN, s.t.url), aud: s.t.url, identity: ci }));
      const before = s.issuer.requests.filter((p) => p === "/jwks").length;
      await s.issuer.rotate();
      s.clock.advance(31_000);
      const rotated = await s.issuer.mint(MAIN, s.t.url);
      expect(decodeJwt(rotated).iss).toBe(s.issuer.url);
      await exchanged(await callExchange(s, { token: rotated, aud: s.t.url, identity: ci }));
      expect(s.issuer.requests.filter((p) => p === "/jwks").length).toBe(before + 1);
    });

    it("refuses a kid the issuer does not publish, refetching its keys at most once per 30 seconds", async () => {
      s.clock.advance(31_000);
      const before = s.issuer.requests.filter((p) => p === "/jwks").length;
      for (const kid of ["made-up-1", "made-up-2"]) {
        const forged = await s.issuer.sign(claims(s, MAIN), { kid });
        await expectRefused(
          await callExchange(s, { token: forged, aud: s.t.url, identity: ci }),
          publicFor("signature: the token's signing key is unknown to its issuer"),
        );
        expect(await loggedReason(s)).toBe("signature: the token's signing key is unknown to its issuer");
      }
      expect(s.issuer.requests.filter((p) => p === "/jwks").length).toBe(before + 1);
    });

    it("matches subjects by anchored pattern", async () => {
      const branches = await identity(team, {
        name: "branches",
        claimMatch: { issuer: s.issuer.url, subjectPattern: "repo:acme/app:ref:refs/heads/.+" },
      });
      for (const subject of ["repo:acme/app:ref:refs/heads/main", "repo:acme/app:ref:refs/heads/feature/x"]) {
        await exchanged(await callExchange(s, { token: await s.issuer.mint(subject, s.t.url), aud: s.t.url, identity: branches }));
      }
      for (const subject of ["repo:acme/app:ref:refs/tags/v1", "xrepo:acme/app:ref:refs/heads/main", "repo:acme/app:ref:refs/heads/"]) {
        await expectRefused(
          await callExchange(s, { token: await s.issuer.mint(subject, s.t.url), aud: s.t.url, identity: branches }),
          publicFor("subject: the token's subject does not match the identity"),
        );
        expect(await loggedReason(s)).toBe("subject: the token's subject does not match the identity");
      }
    });

    it("matches custom claims exactly and by pattern; numbers and booleans by their JSON text", async () => {
      const owned = await identity(team, {
        name: "owned",
        claimMatch: {
          issuer: s.issuer.url,
          subject: MAIN,
          claims: { repository_owner: "acme", run_attempt: "1", protected: "true" },
          claimPatterns: { ref: "refs/heads/(main|release-.*)" },
        },
      });
      const good = { repository_owner: "acme", run_attempt: 1, protected: true, ref: "refs/heads/release-2" };
      await exchanged(await callExchange(s, { token: await s.issuer.mint(MAIN, s.t.url, good), aud: s.t.url, identity: owned }));
      const bad: [Record<string, unknown>, string][] = [
        [
          { ...good, repository_owner: "evil" },
          'claims.repository_owner: the token\'s claim "repository_owner" does not match the identity',
        ],
        [
          { ...good, repository_owner: ["acme"] },
          'claims.repository_owner: the token\'s claim "repository_owner" is not a string, number or boolean',
        ],
        [{ ...good, run_attempt: 2 }, 'claims.run_attempt: the token\'s claim "run_attempt" does not match the identity'],
        [{ ...good, ref: "refs/heads/feature" }, 'claimPatterns.ref: the token\'s claim "ref" does not match the identity'],
        [{ ...good, ref: "xrefs/heads/main" }, 'claimPatterns.ref: the token\'s claim "ref" does not match the identity'],
        [{ repository_owner: "acme", run_attempt: 1, protected: true }, 'claimPatterns.ref: the token has no claim "ref"'],
      ];
      for (const [extra, reason] of bad) {
        await expectRefused(
          await callExchange(s, { token: await s.issuer.mint(MAIN, s.t.url, extra), aud: s.t.url, identity: owned }),
          publicFor(reason),
        );
        expect(await loggedReason(s)).toBe(reason);
      }
    });

    it("matches claim patterns in linear time: a pattern that backtracks for 25 s in JavaScript holds nothing up", async () => {
      const hostile = await identity(team, {
        name: "hostile",
        claimMatch: { issuer: s.issuer.url, subject: MAIN, claimPatterns: { ref: "(a|a)*b" } },
      });
      const token = await s.issuer.mint(MAIN, s.t.url, { ref: "a".repeat(31) });
      const started = Date.now();
      const [res, health] = await Promise.all([callExchange(s, { token, aud: s.t.url, identity: hostile }), s.t.fetch("/healthz")]);
      await expectRefused(res, publicFor('claimPatterns.ref: the token\'s claim "ref" does not match the identity'));
      expect(await loggedReason(s)).toBe('claimPatterns.ref: the token\'s claim "ref" does not match the identity');
      expect(health.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(5_000);
    }, 60_000);

    it("runs no claim pattern for a token that failed an earlier check", async () => {
      const hostile = await identity(team, {
        name: "hostile-late",
        claimMatch: { issuer: s.issuer.url, subject: MAIN, claimPatterns: { ref: "refs/heads/.*" } },
      });
      for (const token of [
        await s.issuer.mint("repo:acme/other", s.t.url, { ref: "x" }),
        await s.issuer.mint(MAIN, "https://elsewhere.example", { ref: "x" }),
      ]) {
        const res = await admin.post(`/iam/v2beta1/identities/${hostile}:explainExchange`, { token });
        const checks = res.body.checks as { check: string; passed: boolean }[];
        expect(checks.at(-1)?.passed).toBe(false);
        expect(checks.map((c) => c.check)).not.toContain("claimPatterns.ref");
      }
    });

    it("accepts the identity's own audience instead of the issuer URL of Arbor", async () => {
      const custom = await identity(team, {
        name: "custom-aud",
        claimMatch: { issuer: s.issuer.url, subject: MAIN, audience: CUSTOM_AUDIENCE },
      });
      await exchanged(await callExchange(s, { token: await s.issuer.mint(MAIN, CUSTOM_AUDIENCE), aud: s.t.url, identity: custom }));
      await expectRefused(
        await callExchange(s, { token: await s.issuer.mint(MAIN, s.t.url), aud: s.t.url, identity: custom }),
        publicFor("audience: the token's audience is not accepted"),
      );
      expect(await loggedReason(s)).toBe("audience: the token's audience is not accepted");
      const pattern = await identity(team, {
        name: "aud-pattern",
        claimMatch: { issuer: s.issuer.url, subject: MAIN, audiencePattern: "arbor-(ci|cd)" },
      });
      await exchanged(await callExchange(s, { token: await s.issuer.mint(MAIN, CUSTOM_AUDIENCE), aud: s.t.url, identity: pattern }));
    });

    describe("static keys", () => {
      const K8S = "https://kubernetes.default.svc";
      const DEPLOYER = "system:serviceaccount:ci:deployer";
      let key: CryptoKey;
      let kid: string;
      let staticIdentity: string;
      const sign = (payload: Record<string, unknown>, signingKey = key) =>
        new SignJWT({ iss: K8S, sub: DEPLOYER, aud: s.t.url, ...payload })
          .setProtectedHeader({ alg: "ES256", kid })
          .setIssuedAt(Math.floor(s.clock.now() / 1000))
          .setExpirationTime(Math.floor(s.clock.now() / 1000) + 600)
          .sign(signingKey);

      beforeAll(async () => {
        const pair = await generateKeyPair("ES256", { extractable: true });
        key = pair.privateKey;
        kid = "k8s-1";
        const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid, alg: "ES256", use: "sig" }] });
        staticIdentity = await identity(team, {
          name: "kind",
          staticKeys: {
            issuer: K8S,
            subject: DEPLOYER,
            issuerKeys: jwks,
            expirationTime: new Date(s.clock.now() + 3_600_000).toISOString(),
          },
        });
      });

      it("exchanges a token signed by a stored key, for {auth_url} as audience, without fetching anything", async () => {
        const { token } = await exchanged(await callExchange(s, { token: await sign({}), aud: s.t.url, identity: staticIdentity }));
        expect(decodeJwt(token).act).toEqual({ iss: K8S, sub: DEPLOYER, aud: s.t.url });
      });

      it("refuses another key, another subject, another audience", async () => {
        const other = (await generateKeyPair("ES256")).privateKey;
        const cases: [Promise<string>, string][] = [
          [sign({}, other), "signature: the token's signature is not valid"],
          [sign({ sub: "system:serviceaccount:ci:other" }), "subject: the token's subject does not match the identity"],
          [sign({ aud: "https://elsewhere.example" }), "audience: the token's audience is not accepted"],
          [sign({ iss: "https://kubernetes.other.svc" }), "issuer: the token's issuer does not match the identity"],
        ];
        for (const [token, reason] of cases) {
          await expectRefused(await callExchange(s, { token: await token, aud: s.t.url, identity: staticIdentity }), publicFor(reason));
          expect(await loggedReason(s)).toBe(reason);
        }
      });

      it("refuses once the keys have expired", async () => {
        s.clock.advance(3_600_000 + 1000);
        await expectRefused(
          await callExchange(s, { token: await sign({}), aud: s.t.url, identity: staticIdentity }),
          publicFor("expirationTime: the identity's keys have expired"),
        );
        expect(await loggedReason(s)).toBe("expirationTime: the identity's keys have expired");
      });
    });
  });
}

/** The claims of a token for subject from the test issuer, for Arbor's URL, valid now on Arbor's clock. */
function claims(s: ExchangeSetup, subject: string): Record<string, unknown> {
  const now = Math.floor(s.clock.now() / 1000);
  return { iss: s.issuer.url, sub: subject, aud: s.t.url, iat: now, exp: now + 600 };
}
