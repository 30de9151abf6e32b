/**
 * A real upstream OIDC provider for login tests: `oidc-provider` on loopback (port 0) doing the
 * authorization code flow with PKCE, whose interaction pages log in whichever test person is
 * set, and consent to whatever is asked, without a form: a plain HTTP client following
 * redirects and cookies (test/support/browser.ts) goes through it as a browser would.
 *
 * It listens before it is configured, so a server can be started with its URL and the clients
 * registered with that server's callback afterwards.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK, type JWTPayload } from "jose";
import Provider, { type ClientMetadata } from "oidc-provider";

/** A person the provider knows: their subject and the claims their ID tokens carry. */
export interface TestPerson {
  sub: string;
  claims?: Record<string, unknown>;
}

/** The running provider. */
export interface LoginIssuer {
  /** The issuer URL (`http://127.0.0.1:<port>`). */
  readonly url: string;
  /** Registers the clients; the provider serves from then on. */
  configure(clients: ClientMetadata[]): Promise<void>;
  /** The person the next interaction logs in. */
  loginAs(person: TestPerson): void;
  /**
   * Signs payload with the provider's published key (ES256, its kid): a token the provider issued
   * with an audience of the requester's choosing, as its token-exchange or client grants do.
   */
  sign(payload: JWTPayload): Promise<string>;
  /** Every path requested, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

/** The kid the provider signs with. */
const KID = "login-key";

/** Starts listening; configure() before the first login. */
export async function startLoginIssuer(): Promise<LoginIssuer> {
  const requests: string[] = [];
  let person: TestPerson = { sub: "nobody" };
  const people = new Map<string, TestPerson>();
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const privateJwk: JWK = { ...(await exportJWK(privateKey)), kid: KID, alg: "ES256", use: "sig" };
  let provider: Provider | undefined;
  // Koa's callback answers its own errors, so its promise is left to settle on its own.
  let callback: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined;
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] as string;
    requests.push(path);
    if (provider === undefined || callback === undefined) {
      res.writeHead(503).end("not configured");
      return;
    }
    if (path.startsWith("/interaction/")) {
      interact(provider, person, req, res).catch((e: unknown) => {
        res.writeHead(500).end(String(e));
      });
      return;
    }
    void callback(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    async configure(clients) {
      provider = providerOf(url, clients, people, privateJwk);
      callback = provider.callback();
    },
    async sign(payload) {
      return new SignJWT(payload).setProtectedHeader({ alg: "ES256", kid: KID, typ: "JWT" }).sign(await importJWK(privateJwk, "ES256"));
    },
    loginAs(p) {
      person = p;
      people.set(p.sub, p);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}

function providerOf(url: string, clients: ClientMetadata[], people: ReadonlyMap<string, TestPerson>, privateJwk: JWK): Provider {
  const provider = new Provider(url, {
    clients: clients.map((c) => ({
      grant_types: ["authorization_code"],
      response_types: ["code"],
      id_token_signed_response_alg: "ES256",
      ...c,
    })),
    jwks: { keys: [privateJwk] },
    enabledJWA: { idTokenSigningAlgValues: ["ES256"] },
    cookies: { keys: ["a test cookie key, long enough to sign with"] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["preferred_username", "name"] },
    // The ID token carries the scopes' claims (as most providers do), not only the userinfo endpoint.
    conformIdTokenClaims: false,
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub, ...people.get(sub)?.claims }) }),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 600, Grant: 600 },
  });
  provider.on("server_error", (_ctx: unknown, err: Error) => console.error(err));
  return provider;
}

/** Finishes an interaction at once: the login prompt logs in person, the consent prompt grants what is missing. */
async function interact(provider: Provider, person: TestPerson, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === "login") {
    await provider.interactionFinished(req, res, { login: { accountId: person.sub } }, { mergeWithLastSubmission: false });
    return;
  }
  const accountId = details.session?.accountId as string;
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId, clientId: details.params.client_id as string });
  if (grant === undefined) throw new Error("the interaction's grant is gone");
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}
