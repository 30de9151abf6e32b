/**
 * The web console in headless Chromium against a real server and a real OIDC provider
 * (oidc-provider, test/support/oidc-login-issuer.ts), on every engine as the other end-to-end
 * tests: a person accepts an invite link and signs in through the organization's identity
 * provider; builds a group tree (create, rename, describe, a delete refused with the API's reason,
 * then allowed; arrow keys in the tree); creates a GitHub Actions identity from its preset and
 * tries a failing and a passing token in the exchange tester; binds it viewer; makes an invite
 * that a second person redeems in a browser of their own and, as a viewer, finds binding
 * disabled with the reason; reads the audit log and advisories; and signs out, which revokes the
 * login. Tokens never appear in a URL nor in storage; the page's CSP refuses inline script in the
 * browser itself; axe-core finds no serious or critical accessibility violation on any view.
 * With UPDATE_SCREENSHOTS=1 the views are written to docs/console/ for docs/console.md;
 * otherwise nothing is written, so the suite leaves the tree clean. Without Chromium the cases
 * are skipped, except under CI=true, where they fail.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { userIdentityUid } from "../../src/domain/identities.js";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { launchChromium, skipBrowser, view } from "../support/console-browser.js";
import { engines } from "../support/engines.js";
import { oauthPost, startLoginWorld, type LoginWorld } from "../support/login.js";
import { importPaths, OSV } from "../support/osv.js";

for (const engine of engines) {
  describe.skipIf(skipBrowser || engine.skipReason !== undefined)(`the web console in headless Chromium [${engine.name}]`, () => {
    let w: LoginWorld;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    /** Every URL the page's frames went to or fetched. */
    const urls: string[] = [];
    const refreshTokens: string[] = [];
    const alice = { sub: "alice", claims: { preferred_username: "alice", email: "alice@example.com", email_verified: true } };

    beforeAll(async () => {
      w = await startLoginWorld(engine);
      await importPaths(w.t.server.store, [OSV.feed]);
      browser = await launchChromium();
      context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
      context.setDefaultTimeout(10_000);
      page = await context.newPage();
      page.on("request", (r) => urls.push(r.url()));
      // The refresh tokens the token endpoint gave the page, to try after signing out.
      page.on("response", (r) => {
        if (r.url().endsWith("/oauth/token") && r.ok())
          void r.json().then((body: { refresh_token?: string }) => body.refresh_token && refreshTokens.push(body.refresh_token));
      });
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await w?.close();
    });

    it("opens at the server's root on the sign-in page, whose CSP refuses inline script in the browser", async () => {
      await page.goto(`${w.t.url}/`);
      await page.getByRole("heading", { name: "Sign in to Arbor" }).waitFor();
      expect(new URL(page.url()).pathname).toBe("/console/");
      const violated = page.evaluate(
        () =>
          new Promise<string>((resolve) =>
            (globalThis as any).document.addEventListener("securitypolicyviolation", (e: any) => resolve(e.effectiveDirective), {
              once: true,
            }),
          ),
      );
      await page.addScriptTag({ content: "globalThis.injected = true;" }).catch(() => undefined);
      expect(await violated).toMatch(/^script-src/);
      expect(await page.evaluate(() => (globalThis as any).injected)).toBeUndefined();
      await view(page, "sign-in", engine.name);
    });

    it(
      "signs a person in from an invite link through the organization's identity provider, " + "keeping tokens out of URLs and storage",
      async () => {
        const invite = await w.admin.post(`/iam/v2beta1/groupInvites/${w.org.uid}`, { roleUid: builtinRoleUid("owner"), ttl: "3600s" });
        expect(invite.status, JSON.stringify(invite.body)).toBe(200);
        w.issuer.loginAs(alice);
        await page.goto(`${w.t.url}/console/invite?code=${encodeURIComponent(invite.body.code as string)}`);
        await page.getByRole("heading", { name: "Accept an invite to Arbor" }).waitFor();
        await view(page, "invite", engine.name);
        await page.getByLabel(/Organization/).fill("acme");
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.getByRole("heading", { name: "Organizations" }).waitFor();
        await page.getByRole("link", { name: "acme" }).waitFor();
        // The name is looked up after sign-in; until then the uid shows.
        await page
          .getByTestId("me")
          .filter({ hasText: /^alice$/ })
          .waitFor();
        expect(new URL(page.url()).pathname).toBe("/console/");
        // The access and refresh tokens were in no URL, and the page keeps neither in storage.
        expect(urls.filter((u) => /eyJ|arbrt_|access_token|refresh_token/.test(u))).toEqual([]);
        const stored = await page.evaluate(
          () =>
            JSON.stringify({ ...(globalThis as any).localStorage }) +
            JSON.stringify({ ...(globalThis as any).sessionStorage }) +
            (globalThis as any).document.cookie,
        );
        expect(stored).not.toMatch(/eyJ|arbrt_/);
        // The invite was redeemed: alice is an owner of the organization.
        const bindings = await w.t.server.store.bindings.forIdentity(userIdentityUid(w.issuer.url, alice.sub));
        expect(bindings.map((b) => [b.groupUid, b.roleUid])).toContainEqual([w.org.uid, builtinRoleUid("owner")]);
        await view(page, "organizations", engine.name);
      },
    );

    it(
      "builds a group tree: create, rename and describe, " + "and a delete refused with the API's reason until the group is empty",
      async () => {
        await page.getByRole("link", { name: "acme" }).click();
        await page.getByRole("tree", { name: "Groups of acme" }).waitFor();
        const createForm = page.getByRole("form", { name: /New group below acme/ });
        await createForm.getByLabel("Name").fill("platform");
        await createForm.getByLabel("Description").fill("the platform team");
        await createForm.getByRole("button", { name: "Create group" }).click();
        await page.getByRole("status").filter({ hasText: "Created platform." }).waitFor();
        await page.getByRole("link", { name: "platform", exact: true }).click();
        await page.getByRole("heading", { name: "platform", level: 2 }).waitFor();
        expect(new URL(page.url()).pathname).toMatch(new RegExp(`^/console/groups/${w.org.uid}/[0-9a-z]+$`));
        const shared = page.url();
        const edit = page.getByRole("form", { name: "Rename or describe" });
        await edit.getByLabel("Name").fill("platform-team");
        await edit.getByLabel("Description").fill("builds the platform");
        await edit.getByRole("button", { name: "Save" }).click();
        await page.getByRole("heading", { name: "platform-team", level: 2 }).waitFor();
        await page.getByRole("link", { name: "platform-team", exact: true }).waitFor();
        const child = page.getByRole("form", { name: /New group below platform-team/ });
        await child.getByLabel("Name").fill("ci");
        await child.getByRole("button", { name: "Create group" }).click();
        await page.getByRole("status").filter({ hasText: "Created ci." }).waitFor();
        // The tree answers arrow keys: down through the visible groups, left to the parent.
        await page.getByRole("link", { name: "ci", exact: true }).waitFor();
        await page.getByRole("tree").getByRole("link", { name: "acme", exact: true }).focus();
        const focused = () => page.evaluate(() => (globalThis as any).document.activeElement?.textContent as string);
        await page.keyboard.press("ArrowDown");
        expect(await focused()).toBe("platform-team");
        await page.keyboard.press("ArrowDown");
        expect(await focused()).toBe("ci");
        await page.keyboard.press("ArrowLeft");
        expect(await focused()).toBe("platform-team");
        // An invalid name: the API's message and the field it names.
        await child.getByLabel("Name").fill("Not Valid!");
        await child.getByRole("button", { name: "Create group" }).click();
        const invalid = page.getByRole("alert");
        await invalid.waitFor();
        expect(await invalid.textContent()).toMatch(/Invalid argument: .*name.*Field: (group\.)?name/);
        await view(page, "groups", engine.name);
        // Deleting a group with a child is refused: the reason, and what to remove, are shown.
        await page.getByRole("button", { name: "Delete platform-team…" }).click();
        await page.getByRole("button", { name: "Delete", exact: true }).click();
        const refusal = page.getByRole("alert");
        await refusal.filter({ hasText: "RESOURCE_NOT_EMPTY" }).waitFor();
        expect(await refusal.textContent()).toMatch(/^Precondition failed: cannot delete group with child groups/);
        await view(page, "groups-delete-refused", engine.name);
        // The selected group's URL can be shared: opened afresh it shows the same group.
        await page.goto(shared);
        // A reload forgets the tokens (they live in memory only): signing in again comes back here.
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.getByRole("heading", { name: "platform-team", level: 2 }).waitFor();
        expect(page.url()).toBe(shared);
        await page.getByRole("link", { name: "ci", exact: true }).click();
        await page.getByRole("heading", { name: "ci", level: 2 }).waitFor();
        await page.getByRole("button", { name: "Delete ci…" }).click();
        await page.getByRole("button", { name: "Delete", exact: true }).click();
        await page.getByRole("heading", { name: "platform-team", level: 2 }).waitFor();
        await page.getByRole("button", { name: "Delete platform-team…" }).click();
        await page.getByRole("button", { name: "Delete", exact: true }).click();
        await page.getByRole("heading", { name: "acme", level: 2 }).waitFor();
        const left = await w.admin.get(`/iam/v2beta1/groups?uidp.children_of=${encodeURIComponent(w.org.uid)}`);
        expect(left.status, JSON.stringify(left.body)).toBe(200);
        expect(left.body.groups ?? []).toEqual([]);
      },
    );

    it("creates a GitHub Actions identity from its preset, and the exchange tester shows a failing and a passing token", async () => {
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Identities" }).click();
      await page.getByRole("heading", { name: "Identities", level: 1 }).waitFor();
      await page.getByText("No identity in this group yet.").waitFor();
      const form = page.getByRole("form", { name: "New identity" });
      await form.getByLabel("Name", { exact: true }).fill("deploy");
      await form.getByLabel("Workload").selectOption({ label: "GitHub Actions" });
      // The test's issuer stands in for GitHub's (as a GitHub Enterprise Server's would).
      await form.getByLabel("Issuer").fill(w.issuer.url);
      await form.getByLabel("Repository").fill("acme/app");
      await form.getByLabel("Runs on").selectOption("branch");
      await form.getByLabel("Branch, environment or tag").fill("main");
      expect(JSON.parse((await page.getByTestId("claim-match").textContent()) ?? "")).toEqual({
        claimMatch: { issuer: w.issuer.url, subject: "repo:acme/app:ref:refs/heads/main" },
      });
      await view(page, "identity-new", engine.name);
      await form.getByRole("button", { name: "Create identity" }).click();
      await page.getByRole("status").filter({ hasText: "Created deploy." }).waitFor();
      await page.getByRole("link", { name: "deploy", exact: true }).click();
      await page.getByRole("heading", { name: "deploy", level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe("/console/identity");
      const now = Math.floor(Date.now() / 1000);
      const token = (sub: string) => w.issuer.sign({ iss: w.issuer.url, sub, aud: w.t.url, iat: now, exp: now + 600 });
      const tester = page.getByRole("form", { name: "Exchange tester" });
      await tester.getByLabel("Upstream token").fill(await token("repo:acme/app:ref:refs/heads/dev"));
      await tester.getByRole("button", { name: "Explain" }).click();
      await page.getByTestId("verdict").filter({ hasText: "would be refused" }).waitFor();
      expect(await page.getByTestId("check-subject").textContent()).toMatch(/failed.*subject/);
      await view(page, "exchange-tester", engine.name);
      await tester.getByLabel("Upstream token").fill(await token("repo:acme/app:ref:refs/heads/main"));
      await tester.getByRole("button", { name: "Explain" }).click();
      await page.getByTestId("verdict").filter({ hasText: "would issue a token" }).waitFor();
      expect(await page.getByTestId("check-signature").textContent()).toMatch(/passed/);
      // Nothing of either token was kept by the page.
      const stored = await page.evaluate(() =>
        JSON.stringify({ ...(globalThis as any).localStorage, ...(globalThis as any).sessionStorage }),
      );
      expect(stored).not.toMatch(/eyJ/);
    });

    it(
      "binds the identity viewer with the roles the person may grant, " +
        "and invites a second person, who sees the controls disabled with the reason",
      async () => {
        await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Access" }).click();
        await page.getByRole("heading", { name: "Access", level: 1 }).waitFor();
        const bind = page.getByRole("form", { name: "Bind a role" });
        await bind.getByLabel("Identity in this group").selectOption({ label: "deploy" });
        await bind.getByRole("radio", { name: "viewer" }).check();
        await bind.getByRole("button", { name: "Bind" }).click();
        await page.getByRole("status").filter({ hasText: "Bound deploy as viewer." }).waitFor();
        await page.getByRole("button", { name: "Unbind deploy (viewer)" }).waitFor();
        await view(page, "access", engine.name);
        const deployUid = (await w.admin.get(`/iam/v2beta1/identities?uidp.children_of=${encodeURIComponent(w.org.uid)}&name=deploy`)).body
          .identities[0].uid as string;
        const deployBindings = await w.t.server.store.bindings.forIdentity(deployUid);
        expect(deployBindings.map((b) => [b.groupUid, b.roleUid])).toEqual([[w.org.uid, builtinRoleUid("viewer")]]);

        // An invite to a team, made here and redeemed by a second person in a browser of their own.
        const team = (await w.admin.post(`/iam/v2beta1/groups/${w.org.uid}`, { name: "team" })).body.uid as string;
        await page.goto(`${w.t.url}/console/invites/${team}`);
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.getByRole("heading", { name: "Invites", level: 1 }).waitFor();
        await page.getByText("No invite to this group.").waitFor();
        const form = page.getByRole("form", { name: "New invite" });
        await form.getByLabel("Role").selectOption({ label: "viewer" });
        await form.getByRole("button", { name: "Create invite" }).click();
        const link = await page.getByTestId("invite-link").inputValue();
        expect(link).toMatch(new RegExp(`^${w.t.url}/console/invite\\?code=`));
        await page.getByRole("button", { name: "Revoke invite for viewer" }).waitFor();
        await view(page, "invites", engine.name);

        const bob = { sub: "bob", claims: { preferred_username: "bob", email: "bob@example.com", email_verified: true } };
        const other = await browser.newContext({ viewport: { width: 1200, height: 800 } });
        other.setDefaultTimeout(10_000);
        try {
          const second = await other.newPage();
          w.issuer.loginAs(bob);
          await second.goto(link);
          await second.getByRole("button", { name: "Sign in" }).click();
          await second.getByRole("heading", { name: "Organizations" }).waitFor();
          // The name is looked up after sign-in; until then the uid shows.
          await second.getByTestId("me").filter({ hasText: /^bob$/ }).waitFor();
          const bobBindings = await w.t.server.store.bindings.forIdentity(userIdentityUid(w.issuer.url, bob.sub));
          expect(bobBindings.map((b) => [b.groupUid, b.roleUid])).toContainEqual([team, builtinRoleUid("viewer")]);
          // A viewer may not bind: every role is disabled, and the page says why.
          await second.goto(`${w.t.url}/console/access/${team}`);
          await second.getByRole("button", { name: "Sign in" }).click();
          await second.getByRole("heading", { name: "Access", level: 1 }).waitFor();
          await second.getByText(/You cannot bind roles here: you may not bind roles here \(your roles here: viewer/).waitFor();
          const viewer = second.getByRole("form", { name: "Bind a role" });
          expect(await viewer.getByRole("radio", { name: "owner" }).isDisabled()).toBe(true);
          expect(await viewer.getByRole("button", { name: "Bind" }).isDisabled()).toBe(true);
          expect(await second.getByTestId("why-owner").textContent()).toMatch(/without role_bindings\.create/);
          await view(second, "access-as-viewer", engine.name);
        } finally {
          await other.close();
        }
      },
    );

    it("shows the audit log, filtered by method and by time in a URL that can be shared", async () => {
      await page.goto(`${w.t.url}/console/groups/${w.org.uid}`);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Audit log" }).click();
      await page.getByRole("heading", { name: "Audit log", level: 1 }).waitFor();
      await page.getByTestId("audit-event").first().waitFor();
      expect(await page.getByTestId("audit-event").count()).toBeGreaterThan(3);
      const filters = page.getByRole("search", { name: "Filter the audit log" });
      await filters.getByLabel("Method").fill("arbor.iam.v2beta1.IdentitiesService/CreateIdentity");
      await filters.getByRole("button", { name: "Filter" }).click();
      await page
        .getByRole("status")
        .filter({ hasText: /^1 events$/ })
        .waitFor();
      expect(await page.getByTestId("audit-event").count()).toBe(1);
      expect(await page.getByTestId("audit-event").textContent()).toContain("CreateIdentity");
      expect(new URL(page.url()).searchParams.get("method")).toBe("arbor.iam.v2beta1.IdentitiesService/CreateIdentity");
      // Filtered by time too: since the day of the change keeps it, before that day leaves none.
      const when = (await page.getByTestId("audit-event").locator("td").first().textContent())!;
      const day = when.slice(0, 10);
      await filters.getByLabel("Since").fill(day);
      await filters.getByRole("button", { name: "Filter" }).click();
      await page.waitForURL(/since=/);
      await page
        .getByRole("status")
        .filter({ hasText: /^1 events$/ })
        .waitFor();
      expect(new URL(page.url()).searchParams.get("since")).toBe(day);
      await view(page, "audit", engine.name);
      await filters.getByLabel("Before").fill(day);
      await filters.getByRole("button", { name: "Filter" }).click();
      await page.getByText("No change matches.").waitFor();
      expect(new URL(page.url()).searchParams.get("before")).toBe(day);
      // The time of the change, to the second, is in a window of two seconds around it.
      const at = Date.parse(when);
      await filters.getByLabel("Since").fill(new Date(at - 1000).toISOString());
      await filters.getByLabel("Before").fill(new Date(at + 1000).toISOString());
      await filters.getByRole("button", { name: "Filter" }).click();
      await page
        .getByRole("status")
        .filter({ hasText: /^1 events$/ })
        .waitFor();
      // A text that is no time is refused with its field, before any call.
      await filters.getByLabel("Since").fill("yesterday");
      await filters.getByRole("button", { name: "Filter" }).click();
      expect(await page.getByRole("alert").textContent()).toMatch(/not a date or time.*Field: since/);
    });

    it("searches advisories with the API's filters and shows one with its affected ranges", async () => {
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Advisories" }).click();
      await page.getByRole("heading", { name: "Advisories", level: 1 }).waitFor();
      await page.getByTestId("advisory").first().waitFor();
      const search = page.getByRole("search", { name: "Search advisories" });
      await search.getByLabel("Text").fill("jinja");
      await search.getByLabel("Ecosystem").fill("PyPI");
      await search.getByRole("button", { name: "Search" }).click();
      await page
        .getByRole("status")
        .filter({ hasText: /^1 advisories$/ })
        .waitFor();
      expect(new URL(page.url()).search).toBe("?q=jinja&ecosystem=PyPI");
      await view(page, "advisories", engine.name);
      await page.getByRole("link", { name: "GHSA-h5c8-rqwp-cp95" }).click();
      await page.getByRole("heading", { name: "GHSA-h5c8-rqwp-cp95", level: 1 }).waitFor();
      expect(await page.getByTestId("affected").first().textContent()).toMatch(/PyPI \/ jinja2.*fixed 3\.1\.3/i);
      await view(page, "advisory", engine.name);
    });

    it("signs out, revoking the login at Arbor", async () => {
      const revoked = page.waitForResponse((r) => r.url().endsWith("/oauth/revoke"));
      await page.getByRole("button", { name: "Sign out" }).click();
      expect((await revoked).status()).toBe(200);
      await page.getByRole("heading", { name: "Sign in to Arbor" }).waitFor();
      // The refresh token the page held no longer refreshes.
      expect(refreshTokens.length).toBeGreaterThan(0);
      const again = await oauthPost(w, "token", { grant_type: "refresh_token", refresh_token: refreshTokens.at(-1)! });
      expect(again.status).toBe(401);
    });
  });
}
