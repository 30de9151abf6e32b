/**
 * The web console behind a real HAProxy that terminates TLS and mounts Arbor at a path
 * (https://localhost:<port>/arbor), once forwarding the prefix and once stripping it, on every
 * engine: a person opens the site's path, accepts an invite link and signs in through the
 * organization's identity provider (a real oidc-provider), creates a group, and signs out, which
 * revokes the login. Every request the page makes to Arbor's origin stays below the prefix
 * (HAProxy answers anything else with its own 404), over TLS. Without Chromium or HAProxy the
 * cases are skipped, except under CI=true, where they fail.
 */
import { getCACertificates, setDefaultCACertificates } from "node:tls";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { launchChromium, skipBrowser } from "../support/console-browser.js";
import { engines } from "../support/engines.js";
import { freePort, haveHaproxy, startPrefixProxy, type PrefixMode, type TestHaproxy } from "../support/haproxy.js";
import { startLoginWorld, type LoginWorld } from "../support/login.js";
import { selfSignedCertificate } from "../support/tls.js";

const PREFIX = "/arbor";
const skipProxy = !skipBrowser && !haveHaproxy();
if (skipProxy) console.warn("haproxy not found: skipping the console behind a proxy");

for (const engine of engines) {
  for (const mode of ["keeps", "strips"] as PrefixMode[]) {
    describe.skipIf(skipBrowser || skipProxy || engine.skipReason !== undefined)(
      `the web console behind HAProxy with TLS at ${PREFIX}, which ${mode} the prefix [${engine.name}]`,
      () => {
        let proxy: TestHaproxy;
        let w: LoginWorld;
        let browser: Browser;
        let page: Page;
        const defaultCAs = getCACertificates("default");
        /** Every URL the page went to or fetched, and the answers' statuses. */
        const requests: { url: string; status: number }[] = [];

        beforeAll(async () => {
          const cert = await selfSignedCertificate();
          // The test's own requests (the world's setup, through the proxy) trust the proxy's certificate.
          setDefaultCACertificates([...defaultCAs, cert.certPem]);
          const [proxyPort, serverPort] = [await freePort(), await freePort()];
          proxy = await startPrefixProxy(proxyPort, cert, PREFIX, mode, serverPort);
          w = await startLoginWorld(engine, { baseUrl: proxy.url, port: serverPort });
          browser = await launchChromium();
          // The self-signed certificate: Chromium is told to accept it, as a browser trusting the site's CA would.
          const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1200, height: 800 } });
          context.setDefaultTimeout(10_000);
          page = await context.newPage();
          page.on("response", (r) => requests.push({ url: r.url(), status: r.status() }));
        }, 60_000);
        afterAll(async () => {
          await browser?.close();
          await w?.close();
          await proxy?.close();
          setDefaultCACertificates(defaultCAs);
        });

        it("opens at the site's path on the sign-in page, under the prefix", async () => {
          expect(w.t.url).toBe(proxy.url);
          await page.goto(`${proxy.url}/`);
          await page.getByRole("heading", { name: "Sign in to Arbor" }).waitFor();
          expect(new URL(page.url()).pathname).toBe(`${PREFIX}/console/`);
        });

        it("signs a person in from an invite link, creates a group, and signs out, revoking the login", async () => {
          const invite = await w.admin.post(`/iam/v2beta1/groupInvites/${w.org.uid}`, { roleUid: builtinRoleUid("owner"), ttl: "3600s" });
          expect(invite.status, JSON.stringify(invite.body)).toBe(200);
          w.issuer.loginAs({ sub: "alice", claims: { preferred_username: "alice", email: "alice@example.com", email_verified: true } });
          await page.goto(`${proxy.url}/console/invite?code=${encodeURIComponent(invite.body.code as string)}`);
          await page.getByRole("heading", { name: "Accept an invite to Arbor" }).waitFor();
          await page.getByLabel(/Organization/).fill("acme");
          await page.getByRole("button", { name: "Sign in" }).click();
          await page.getByRole("heading", { name: "Organizations" }).waitFor();
          expect(new URL(page.url()).pathname).toBe(`${PREFIX}/console/`);

          await page.getByRole("link", { name: "acme" }).click();
          await page.getByRole("tree", { name: "Groups of acme" }).waitFor();
          const form = page.getByRole("form", { name: /New group below acme/ });
          await form.getByLabel("Name").fill("platform");
          await form.getByRole("button", { name: "Create group" }).click();
          await page.getByRole("status").filter({ hasText: "Created platform." }).waitFor();
          await page.getByRole("link", { name: "platform", exact: true }).click();
          await page.getByRole("heading", { name: "platform", level: 2 }).waitFor();
          expect(new URL(page.url()).pathname).toMatch(new RegExp(`^${PREFIX}/console/groups/${w.org.uid}/[0-9a-z]+$`));
          const groups = await w.admin.get(`/iam/v2beta1/groups?uidp.children_of=${encodeURIComponent(w.org.uid)}`);
          expect((groups.body.groups as { name: string }[]).map((g) => g.name)).toEqual(["platform"]);

          const revoked = page.waitForResponse((r) => r.url().endsWith("/oauth/revoke"));
          await page.getByRole("button", { name: "Sign out" }).click();
          expect((await revoked).status()).toBe(200);
          await page.getByRole("heading", { name: "Sign in to Arbor" }).waitFor();
        });

        it("kept every request to Arbor's origin below the prefix, over TLS, and none was refused as unknown", () => {
          const origin = new URL(proxy.url).origin;
          const arbor = requests.filter((r) => new URL(r.url).origin === origin);
          expect(arbor.length).toBeGreaterThan(10);
          expect(arbor.filter((r) => !new URL(r.url).pathname.startsWith(`${PREFIX}/`))).toEqual([]);
          expect(arbor.filter((r) => r.status === 404)).toEqual([]);
          // The sign-in went to the identity provider and came back through the login endpoints under the prefix.
          expect(arbor.some((r) => new URL(r.url).pathname === `${PREFIX}/oauth/callback`)).toBe(true);
          expect(arbor.some((r) => new URL(r.url).pathname === `${PREFIX}/oauth/token`)).toBe(true);
        });
      },
    );
  }
}
