/**
 * Logins in progress are bounded per client address and per organization, on every engine: one
 * client that starts logins it never finishes uses up its own allowance, not everyone's. Clients
 * are told apart by the TCP peer address (sockets bound to 127.0.0.x here).
 */
import { get } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { engines } from "../support/engines.js";
import { CLI_REDIRECT, ORG_CLIENT, pkce, startLoginWorld, type LoginWorld } from "../support/login.js";
import { restClient } from "../support/rest.js";

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`logins in progress, bounded [${engine.name}]`, () => {
    let w: LoginWorld;

    /** Where GET /oauth/login sends a browser connecting from localAddress: the provider, or back to the CLI with an error. */
    const loginFrom = (localAddress: string, org?: string) => {
      const q = new URLSearchParams({
        redirect_uri: CLI_REDIRECT,
        code_challenge: pkce().challenge,
        code_challenge_method: "S256",
        state: "s",
      });
      if (org !== undefined) q.set("org", org);
      return new Promise<{ status: number | undefined; to: string; error: Record<string, string> }>((resolve, reject) => {
        get(`http://127.0.0.1:${w.t.server.port}/oauth/login?${q}`, { localAddress }, (res) => {
          res.resume();
          const location = new URL(res.headers.location ?? "http://none.invalid/");
          const error = location.searchParams.has("error") ? Object.fromEntries(location.searchParams) : {};
          resolve({ status: res.statusCode, to: location.origin + location.pathname, error });
        }).on("error", reject);
      });
    };
    const toProvider = () => ({ status: 302, to: `${w.issuer.url}/auth`, error: {} });
    const refused = (description: string) => ({
      status: 302,
      to: CLI_REDIRECT,
      error: { error: "temporarily_unavailable", error_description: description, state: "s" },
    });

    beforeAll(async () => {
      w = await startLoginWorld(engine, { loginAttemptsPerAddress: 3, loginAttemptsPerOrganization: 5 });
      const { org, token } = await w.t.organization("beta");
      const made = await restClient(w.t, token).post(`/iam/v2beta1/identityProviders/${org.uid}`, {
        name: "beta",
        defaultRole: builtinRoleUid("viewer"),
        oidc: { issuer: w.issuer.url, clientId: ORG_CLIENT },
      });
      expect(made.status, JSON.stringify(made.body)).toBe(200);
    });
    afterAll(async () => w?.close());

    it("refuses one address past its logins in progress, while other addresses and organizations still log in", async () => {
      for (let i = 0; i < 3; i++) expect(await loginFrom("127.0.0.1", "acme")).toEqual(toProvider());
      const fromAddress =
        "Resource exhausted: too many logins are in progress from your network address; finish or abandon them, or try again in 10 minutes";
      // The fourth goes nowhere but back to the CLI, whichever provider it asks for.
      expect(await loginFrom("127.0.0.1", "acme")).toEqual(refused(fromAddress));
      expect(await loginFrom("127.0.0.1", "beta")).toEqual(refused(fromAddress));
      expect(await loginFrom("127.0.0.1")).toEqual(refused(fromAddress));
      expect(w.t.logs.filter((l) => l.rpc === "GET /oauth/login" && l.code === 8)).toHaveLength(3);
      // Someone else, for the same organization and for another.
      expect(await loginFrom("127.0.0.2", "acme")).toEqual(toProvider());
      expect(await loginFrom("127.0.0.2", "beta")).toEqual(toProvider());
    });

    it("refuses an organization past its logins in progress, while other organizations still log in", async () => {
      // acme has four in progress (three from 127.0.0.1, one from 127.0.0.2): one more fits.
      expect(await loginFrom("127.0.0.3", "acme")).toEqual(toProvider());
      expect(await loginFrom("127.0.0.4", "acme")).toEqual(
        refused("Resource exhausted: too many logins are in progress for this organization; try again in a few minutes"),
      );
      expect(await loginFrom("127.0.0.4", "beta")).toEqual(toProvider());
      expect(await loginFrom("127.0.0.4")).toEqual(toProvider());
    });
  });
}
