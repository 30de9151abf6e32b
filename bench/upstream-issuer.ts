/**
 * A minimal upstream OIDC issuer for load runs: discovery and JWKS on loopback, and ES256 ID
 * tokens signed with jose. The tests use oidc-provider; under load its token endpoint would be
 * the thing measured, so benchmarks mint their tokens up front here instead.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";

/** A running issuer. */
export interface BenchIssuer {
  readonly url: string;
  /** An ID token for subject and audience, valid for lifetimeS seconds. */
  mint(subject: string, audience: string, lifetimeS?: number): Promise<string>;
  close(): Promise<void>;
}

/** Starts an issuer on a free loopback port. */
export async function startBenchIssuer(): Promise<BenchIssuer> {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "bench-1", alg: "ES256", use: "sig" };
  let url = "";
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    const body =
      path === "/.well-known/openid-configuration"
        ? { issuer: url, jwks_uri: `${url}/jwks`, id_token_signing_alg_values_supported: ["ES256"] }
        : path === "/jwks"
          ? { keys: [jwk] }
          : undefined;
    res.writeHead(body ? 200 : 404, { "content-type": "application/json", "cache-control": "max-age=3600" });
    res.end(JSON.stringify(body ?? { error: "not found" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    mint: (subject, audience, lifetimeS = 7_200) =>
      new SignJWT({})
        .setProtectedHeader({ alg: "ES256", kid: jwk.kid })
        .setIssuer(url)
        .setSubject(subject)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime(`${lifetimeS}s`)
        .sign(privateKey),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
