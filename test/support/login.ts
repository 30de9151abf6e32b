/**
 * People's login for end-to-end tests: an Arbor server whose default login provider, and an
 * organization's identity provider, are one real OIDC provider on loopback; and a login driven
 * through it over plain HTTP, as a browser and the CLI would.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Config } from "../../src/config.js";
import type { Clock } from "../../src/domain/clock.js";
import type { GroupRecord } from "../../src/domain/groups.js";
import type { StoreOptions } from "../../src/store/create-store.js";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { TestBrowser, type Walk } from "./browser.js";
import type { TestEngine } from "./engines.js";
import { startLoginIssuer, type LoginIssuer, type TestPerson } from "./oidc-login-issuer.js";
import { restClient, type RestClient } from "./rest.js";
import { startTestServer, type TestServer, storeAt } from "./server.js";

/** The default login provider's client at the test provider. */
export const DEFAULT_CLIENT = { id: "arbor-default", secret: "default-client-secret" };
/** The organization's identity provider's client: public, PKCE alone. */
export const ORG_CLIENT = "arbor-org";
/** Where the CLI would listen; nothing does, the walk stops there. */
export const CLI_REDIRECT = "http://127.0.0.1:1/callback";
/** The registry host tokens may also be issued for. */
export const REGISTRY_HOST = "registry.test:5000";

/** A server, its provider, and an organization whose identity provider grants viewer. */
export interface LoginWorld {
  t: TestServer;
  issuer: LoginIssuer;
  org: GroupRecord;
  /** The organization's administrator. */
  admin: RestClient;
  /** The uid of the organization's identity provider. */
  providerUid: string;
  /** Where the server's store is, for a second replica on the same data. */
  location: StoreOptions;
  /**
   * Every secret the logins here handled: states, nonces and codes from the URLs the browser
   * visited, and the tokens the token endpoint answered with (to look for in the logs).
   */
  secrets: string[];
  close(): Promise<void>;
}

/** Starts the world on engine; env.clock replaces the server's clock. */
export async function startLoginWorld(
  engine: TestEngine,
  settings: Partial<Config> = {},
  env: { clock?: Clock } = {},
): Promise<LoginWorld> {
  const issuer = await startLoginIssuer();
  const location = await engine.location();
  const o = location.options;
  const t = await startTestServer(
    engine,
    {
      ...storeAt(o),
      loginIssuer: issuer.url,
      loginClientId: DEFAULT_CLIENT.id,
      loginClientSecret: DEFAULT_CLIENT.secret,
      allowHttpLoopbackIssuers: true,
      registryHost: REGISTRY_HOST,
      ...settings,
    },
    env,
  );
  const callback = `${t.url}/oauth/callback`;
  await issuer.configure([
    {
      client_id: DEFAULT_CLIENT.id,
      client_secret: DEFAULT_CLIENT.secret,
      redirect_uris: [callback],
      token_endpoint_auth_method: "client_secret_basic",
    },
    { client_id: ORG_CLIENT, redirect_uris: [callback], token_endpoint_auth_method: "none" },
  ]);
  const { org, token } = await t.organization("acme");
  const admin = restClient(t, token);
  const provider = await admin.post(`/iam/v2beta1/identityProviders/${org.uid}`, {
    name: "corp",
    defaultRole: builtinRoleUid("viewer"),
    oidc: { issuer: issuer.url, clientId: ORG_CLIENT },
  });
  if (provider.status !== 200) throw new Error(`identity provider: ${JSON.stringify(provider.body)}`);
  return {
    t,
    issuer,
    org,
    admin,
    providerUid: provider.body.uid as string,
    location: o,
    secrets: [],
    async close() {
      await t.close();
      await issuer.close();
      await location.dispose();
    },
  };
}

/** A PKCE verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** What a browser login came to at the CLI's redirect URI. */
export interface BrowserLogin {
  walk: Walk;
  /** The query the browser arrived at the CLI with (code and state, or error and error_description). */
  result: URLSearchParams;
  verifier: string;
}

/** Options of a browser login. */
export interface BrowserLoginOptions {
  org?: string;
  invite?: string;
  state?: string;
  redirectUri?: string;
  /** Rewrites each URL before the browser requests it. */
  rewrite?: (url: string) => string;
}

/** A browser login stopped where the provider sends the browser back to Arbor. */
export interface PendingLogin {
  browser: TestBrowser;
  /** Arbor's callback URL with the provider's code and state; undefined when Arbor never sent the browser to the provider. */
  callback: string | undefined;
  walk: Walk;
  verifier: string;
  redirectUri: string;
  /** Where the secrets seen go (the world's). */
  secrets: string[];
}

/** Logs person in at the provider, stopping before Arbor's callback (so callbacks can race). */
export async function startBrowserLogin(w: LoginWorld, person: TestPerson, options: BrowserLoginOptions = {}): Promise<PendingLogin> {
  const { verifier, challenge } = pkce();
  const redirectUri = options.redirectUri ?? CLI_REDIRECT;
  const query = new URLSearchParams({
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: options.state ?? "cli-state",
  });
  if (options.org !== undefined) query.set("org", options.org);
  if (options.invite !== undefined) query.set("invite", options.invite);
  w.issuer.loginAs(person);
  const browser = new TestBrowser();
  const callbackPrefix = `${w.t.url}/oauth/callback?`;
  const walk = await browser.walk(
    `${w.t.url}/oauth/login?${query}`,
    (u) => u.startsWith(redirectUri) || u.startsWith(callbackPrefix),
    options.rewrite,
  );
  return { browser, callback: walk.url.startsWith(callbackPrefix) ? walk.url : undefined, walk, verifier, redirectUri, secrets: w.secrets };
}

/** Follows a pending login from Arbor's callback to the CLI's redirect URI. */
export async function finishBrowserLogin(pending: PendingLogin, rewrite?: (url: string) => string): Promise<BrowserLogin> {
  const walk =
    pending.callback === undefined
      ? pending.walk
      : await pending.browser.walk(pending.callback, (u) => u.startsWith(pending.redirectUri), rewrite);
  for (const url of [...pending.walk.visited, ...walk.visited]) {
    for (const [k, v] of new URL(url).searchParams)
      if (["code", "state", "nonce", "code_challenge"].includes(k) && v.length >= 16) pending.secrets.push(v);
  }
  return {
    walk: { ...walk, visited: [...pending.walk.visited, ...walk.visited] },
    result: new URL(walk.url).searchParams,
    verifier: pending.verifier,
  };
}

/** Logs person in through the browser flow as far as the CLI's redirect URI. */
export async function browserLogin(w: LoginWorld, person: TestPerson, options: BrowserLoginOptions = {}): Promise<BrowserLogin> {
  return finishBrowserLogin(await startBrowserLogin(w, person, options), options.rewrite);
}

/** POSTs a form to one of Arbor's /oauth endpoints; status and parsed JSON body. */
export async function oauthPost(
  w: LoginWorld,
  endpoint: "token" | "revoke" | "device_authorization" | "preflight",
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, any> }> {
  const res = await w.t.fetch(`/oauth/${endpoint}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** Logs person in and redeems the code: the token endpoint's answer. */
export async function login(w: LoginWorld, person: TestPerson, options: BrowserLoginOptions = {}): Promise<Record<string, any>> {
  const { result, verifier } = await browserLogin(w, person, options);
  const code = result.get("code");
  if (code === null) throw new Error(`the login failed: ${result.get("error")}: ${result.get("error_description")}`);
  const res = await oauthPost(w, "token", {
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    redirect_uri: options.redirectUri ?? CLI_REDIRECT,
  });
  if (res.status !== 200) throw new Error(`the token request failed: ${JSON.stringify(res.body)}`);
  w.secrets.push(res.body.access_token, res.body.refresh_token, verifier);
  return res.body;
}
