/**
 * A real upstream OIDC issuer for tests: `oidc-provider` on loopback (port 0), serving its
 * discovery document and JWKS, with a custom grant that mints ID tokens for any subject, audience
 * (one client per audience) and extra claims through its token endpoint.
 *
 * Tokens the provider will not mint (expired, not yet valid, made-up kid, wrong algorithm) are
 * signed by `sign` with the provider's own private key, as a compromised or broken issuer would.
 * `rotate` replaces the provider's key behind the same URL.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK, type JWTPayload } from "jose";
import Provider, { type KoaContextWithOIDC } from "oidc-provider";

/** The custom grant that mints ID tokens. */
const MINT_GRANT = "urn:arbor:test:mint";
const CLIENT_SECRET = "test-secret-of-every-client";

/** What the test issuer can do. */
export interface TestIssuer {
  /** The issuer URL (`http://127.0.0.1:<port>`). */
  readonly url: string;
  /** The kid the provider signs with now. */
  readonly kid: string;
  /** Every path requested from the issuer, in order. */
  readonly requests: string[];
  /** Mints an ID token through the token endpoint: aud = audience (one of the configured ones). */
  mint(subject: string, audience: string, claims?: Record<string, unknown>): Promise<string>;
  /** Signs payload with the provider's current private key (header defaults: ES256 and its kid). */
  sign(payload: JWTPayload, header?: { alg?: string; kid?: string }): Promise<string>;
  /** The provider's current public JWK. */
  publicJwk(): JWK;
  /** A new signing key, published in place of the old one. */
  rotate(): Promise<void>;
  close(): Promise<void>;
}

interface KeyPair {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

/** Starts an issuer whose clients are the given audiences. */
export async function startTestIssuer(audiences: readonly string[]): Promise<TestIssuer> {
  const requests: string[] = [];
  // Koa's callback answers its own errors, so its promise is left to settle on its own.
  let handler: (req: IncomingMessage, res: ServerResponse) => Promise<void> = async (_req, res) => void res.end();
  const server = createServer((req, res) => {
    requests.push((req.url ?? "/").split("?")[0] as string);
    void handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let key = await newKey(1);
  let generation = 1;
  handler = providerOf(url, audiences, key).callback();
  return {
    url,
    get kid() {
      return key.kid;
    },
    requests,
    async mint(subject, audience, claims = {}) {
      const res = await fetch(`${url}/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: MINT_GRANT,
          client_id: audience,
          client_secret: CLIENT_SECRET,
          subject,
          claims: JSON.stringify(claims),
        }),
      });
      const body = (await res.json()) as { id_token?: string; error?: string; error_description?: string };
      if (body.id_token === undefined) throw new Error(`the test issuer refused to mint: ${body.error}: ${body.error_description}`);
      return body.id_token;
    },
    async sign(payload, header = {}) {
      const alg = header.alg ?? "ES256";
      return new SignJWT(payload)
        .setProtectedHeader({ alg, kid: header.kid ?? key.kid, typ: "JWT" })
        .sign(await importJWK(key.privateJwk, alg));
    },
    publicJwk: () => key.publicJwk,
    async rotate() {
      key = await newKey(++generation);
      handler = providerOf(url, audiences, key).callback();
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}

async function newKey(generation: number): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  const kid = `test-key-${generation}`;
  return {
    kid,
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: "ES256", use: "sig" },
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" },
  };
}

function providerOf(url: string, audiences: readonly string[], key: KeyPair): Provider {
  const provider = new Provider(url, {
    clients: audiences.map((aud) => ({
      client_id: aud,
      client_secret: CLIENT_SECRET,
      grant_types: [MINT_GRANT],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: "client_secret_post",
      id_token_signed_response_alg: "ES256",
    })),
    jwks: { keys: [key.privateJwk] },
    enabledJWA: { idTokenSigningAlgValues: ["ES256"] },
    ttl: { IdToken: 600 },
    features: { devInteractions: { enabled: false } },
    // The mint grant stores nothing; an adapter that keeps nothing spares the in-memory warning.
    adapter: NoStorage,
  });
  provider.registerGrantType(MINT_GRANT, mint, ["subject", "claims"]);
  provider.on("server_error", (_ctx: unknown, err: Error) => console.error(err));
  return provider;
}

/** The grant: an ID token for params.subject with params.claims, for the authenticated client. */
async function mint(ctx: KoaContextWithOIDC): Promise<void> {
  const params = ctx.oidc.params as { subject?: string; claims?: string };
  const token = new ctx.oidc.provider.IdToken({ sub: params.subject as string }, { ctx });
  (token as unknown as { scope: string }).scope = "openid";
  for (const [name, value] of Object.entries(JSON.parse(params.claims ?? "{}") as Record<string, unknown>)) token.set(name, value);
  ctx.body = { id_token: await token.issue({ use: "idtoken" }) };
}

/** A storage adapter that keeps nothing (the mint grant never reads back what it issues). */
class NoStorage {
  async upsert(): Promise<void> {}
  async find(): Promise<undefined> {
    return undefined;
  }
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }
  async findByUid(): Promise<undefined> {
    return undefined;
  }
  async consume(): Promise<void> {}
  async destroy(): Promise<void> {}
  async revokeByGrantId(): Promise<void> {}
}
