/**
 * The console's registry, identity providers, account associations, roles and effective access
 * views in headless Chromium against a real server on every engine and a real OIDC provider, as
 * console-browser.test.ts drives the rest: a person signs in from an invite link as an owner, the
 * data is seeded through the API and the registry's notifications endpoint, and each view shows
 * it a page at a time, with its filters and page token in a URL that can be shared; custom roles
 * are made with the capability picker (the capabilities the person lacks disabled with the
 * reason, once the owner binding is swapped for a narrower role, the last case); an identity's
 * effective access is shown by group. axe-core finds no serious or critical violation on any
 * view; UPDATE_SCREENSHOTS=1 writes each (from the first engine's run) to docs/console/ for
 * docs/console.md. Without Chromium the cases are skipped, except under CI=true, where they fail.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registryNotificationsSecret } from "../../src/auth/registry-keys.js";
import { userIdentityUid } from "../../src/domain/identities.js";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { launchChromium, skipBrowser, view } from "../support/console-browser.js";
import { engines } from "../support/engines.js";
import { REGISTRY_HOST, startLoginWorld, type LoginWorld } from "../support/login.js";

const D = (c: string) => `sha256:${c.repeat(64)}`;

for (const engine of engines) {
  describe.skipIf(skipBrowser || engine.skipReason !== undefined)(`the console's registry and provider views [${engine.name}]`, () => {
    let w: LoginWorld;
    let browser: Browser;
    let page: Page;
    const alice = { sub: "alice", claims: { preferred_username: "alice", email: "alice@example.com", email_verified: true } };

    /** Delivers manifest pushes to the notifications endpoint, as the registry would. */
    async function pushed(...targets: { repository: string; tag: string; digest: string }[]): Promise<void> {
      const events = targets.map((target, i) => ({
        id: `e${i}`,
        timestamp: "2026-01-02T03:04:05Z",
        action: "push",
        target: { mediaType: "application/vnd.oci.image.manifest.v1+json", ...target },
      }));
      const res = await fetch(`${w.t.url}/registry/notifications`, {
        method: "POST",
        headers: { authorization: `Bearer ${await registryNotificationsSecret(w.t.server.store.settings)}` },
        body: JSON.stringify({ events }),
      });
      expect(res.status).toBe(200);
    }

    beforeAll(async () => {
      w = await startLoginWorld(engine);
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
      context.setDefaultTimeout(10_000);
      page = await context.newPage();
      const created = await w.admin.post(`/iam/v2beta1/groups/${w.org.uid}`, { name: "backend-team" });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      // Alice accepts an owner's invite and signs in through the organization's provider.
      const invite = await w.admin.post(`/iam/v2beta1/groupInvites/${w.org.uid}`, { roleUid: builtinRoleUid("owner"), ttl: "3600s" });
      expect(invite.status, JSON.stringify(invite.body)).toBe(200);
      w.issuer.loginAs(alice);
      await page.goto(`${w.t.url}/console/invite?code=${encodeURIComponent(invite.body.code as string)}`);
      await page.getByLabel(/Organization/).fill("acme");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Organizations" }).waitFor();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await w?.close();
    });

    it("shows a group's repos a page at a time, and a repo's tags with digests, times and pull commands", async () => {
      // 23 repos in the team (two pages of 20), one with three tags.
      const names = Array.from({ length: 23 }, (_, i) => `svc-${String(i).padStart(2, "0")}`);
      await pushed(...names.map((n) => ({ repository: `acme/backend-team/${n}`, tag: "latest", digest: D("a") })));
      await pushed(
        { repository: "acme/backend-team/svc-00", tag: "v1.0.0", digest: D("b") },
        { repository: "acme/backend-team/svc-00", tag: "v1.1.0", digest: D("c") },
      );
      await page.getByRole("link", { name: "acme" }).click();
      await page.getByRole("link", { name: "Registry" }).click();
      await page.getByRole("heading", { name: "Registry of acme" }).waitFor();
      await page.getByText("No repos in this group.").waitFor();
      await page.getByRole("navigation", { name: "Registries of the groups below" }).getByRole("link", { name: "backend-team" }).click();
      await page.getByRole("heading", { name: "Registry of acme/backend-team" }).waitFor();
      const repos = page.getByRole("table", { name: "Repos" });
      await repos.getByRole("link", { name: "svc-00" }).waitFor();
      expect(await repos.getByRole("row").count()).toBe(21);
      expect(await page.getByRole("navigation", { name: "Pages" }).textContent()).toContain("20 shown of 23");
      await view(page, "registry", engine.name);
      // The next page's token is in the URL, which can be shared.
      await page.getByRole("link", { name: "Next page" }).click();
      await repos.getByRole("link", { name: "svc-22" }).waitFor();
      expect(await repos.getByRole("row").count()).toBe(4);
      expect(new URL(page.url()).searchParams.get("page")).toBeTruthy();
      await page.goto(page.url());
      await page.getByRole("button", { name: "Sign in" }).click();
      await repos.getByRole("link", { name: "svc-22" }).waitFor();
      expect(await repos.getByRole("row").count()).toBe(4);
      // Filtered by name.
      await page.getByLabel("Repo name").fill("svc-00");
      await page.getByRole("button", { name: "Apply" }).click();
      await page.waitForURL(/\?name=svc-00$/);
      // The URL changes before the filtered page arrives (the list shows loading meanwhile).
      await expect.poll(() => repos.getByRole("row").count()).toBe(2);
      await repos.getByRole("link", { name: "svc-00" }).click();
      await page.getByRole("heading", { name: "svc-00", level: 1 }).waitFor();
      const tags = page.getByRole("table", { name: "Tags" });
      await tags.getByText("v1.1.0", { exact: true }).waitFor();
      expect(await tags.getByRole("row").count()).toBe(4);
      const row = tags.getByRole("row").filter({ hasText: "v1.1.0" });
      expect(await row.textContent()).toContain(D("c"));
      expect(await row.textContent()).toContain(`docker pull ${REGISTRY_HOST}/acme/backend-team/svc-00@${D("c")}`);
      expect(await row.textContent()).toContain(`docker pull ${REGISTRY_HOST}/acme/backend-team/svc-00:v1.1.0`);
      expect(await row.textContent()).toMatch(/2026-01-02T03:04:05Z/);
      await view(page, "registry-repo", engine.name);
      // A digest's tags: the tags pointing at one manifest.
      await tags.getByRole("link", { name: D("a") }).click();
      await page.waitForURL(/digest=sha256/);
      await tags.getByText("latest", { exact: true }).waitFor();
      expect(await tags.getByRole("row").count()).toBe(2);
    });

    it("lists, creates and edits identity providers, the client secret write-only", async () => {
      const secretOf = async (uid: string) => (await w.t.server.store.identityProviders.get(uid))?.oidc.clientSecret;
      await page.getByRole("link", { name: "Organizations" }).click();
      await page.getByRole("link", { name: "acme" }).click();
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Identity providers" }).click();
      const table = page.getByRole("table", { name: "Identity providers" });
      const corp = table.getByRole("row").filter({ hasText: "corp" });
      await corp.waitFor();
      expect(await corp.textContent()).toContain(w.issuer.url);
      expect(await corp.textContent()).toContain("arbor-org");
      expect(await corp.textContent()).toContain("viewer");
      // A new provider, with a secret that the page never shows again.
      const form = page.getByRole("form", { name: "New identity provider" });
      await form.getByLabel("Name").fill("partner");
      await form.getByLabel("Issuer URL").fill("https://login.partner.example");
      await form.getByLabel("Client id").fill("arbor-at-partner");
      await form.getByLabel("Client secret").fill("first-secret");
      await form.getByLabel("Additional scopes").fill("groups offline_access");
      await form.getByLabel("Groups claim").fill("groups");
      await form.getByRole("button", { name: "Create identity provider" }).click();
      await form.getByRole("status").filter({ hasText: "Created partner." }).waitFor();
      expect(await form.getByLabel("Client secret").inputValue()).toBe("");
      const partner = table.getByRole("row").filter({ hasText: "partner" });
      await partner.waitFor();
      expect(await partner.textContent()).toContain("scopes: groups offline_access");
      const providers = await w.admin.get(`/iam/v2beta1/identityProviders?name=partner`);
      const uid = providers.body.identityProviders[0].uid as string;
      expect(await secretOf(uid)).toBe("first-secret");
      // An issuer the API refuses: its message and the field.
      await form.getByLabel("Name").fill("broken");
      await form.getByLabel("Issuer URL").fill("http://login.broken.example");
      await form.getByLabel("Client id").fill("x");
      await form.getByRole("button", { name: "Create identity provider" }).click();
      expect(await form.getByRole("alert").textContent()).toMatch(/issuer.*Field: .*issuer/);
      await view(page, "identity-providers", engine.name);
      // Edited with the secret left empty: it is kept; the form never held it.
      await partner.getByRole("link", { name: "Edit partner" }).click();
      await page.waitForURL(/\?edit=/);
      const edit = page.getByRole("form", { name: "Edit partner" });
      expect(await edit.getByLabel("Client secret", { exact: true }).inputValue()).toBe("");
      await edit.getByLabel("Description").fill("the partner's login");
      await edit.getByRole("button", { name: "Save" }).click();
      await edit.getByRole("status").filter({ hasText: "Saved partner." }).waitFor();
      await partner.filter({ hasText: "the partner's login" }).waitFor();
      expect(await secretOf(uid)).toBe("first-secret");
      await view(page, "identity-provider-edit", engine.name);
      // A new secret replaces it; removing it makes a public client.
      await edit.getByLabel("Client secret", { exact: true }).fill("second-secret");
      await edit.getByRole("button", { name: "Save" }).click();
      await edit.getByRole("status").filter({ hasText: "Saved partner." }).waitFor();
      expect(await secretOf(uid)).toBe("second-secret");
      expect(await page.content()).not.toMatch(/first-secret|second-secret/);
      await edit.getByLabel("Remove the client secret").check();
      await edit.getByRole("button", { name: "Save" }).click();
      await edit.getByRole("status").filter({ hasText: "Saved partner." }).waitFor();
      expect(await secretOf(uid)).toBe("");
      // The edit's URL can be shared; deleting it goes back to the list.
      await page.goto(page.url());
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("button", { name: "Delete partner…" }).click();
      await page.getByRole("button", { name: "Delete", exact: true }).click();
      await page.waitForURL(/identity-providers\/[0-9a-f]+$/);
      await page.getByRole("form", { name: "New identity provider" }).waitFor();
      // The list shown before is there until the new one is read: wait for the row to go.
      await table.getByRole("row").filter({ hasText: "partner" }).waitFor({ state: "detached" });
      expect(await table.getByRole("row").filter({ hasText: "partner" }).count()).toBe(0);
    });

    it("creates, edits and deletes a group's account association, and lists those below", async () => {
      const groups = await w.admin.get(`/iam/v2beta1/groups?uidp.children_of=${w.org.uid}&name=backend-team`);
      const team = groups.body.groups[0].uid as string;
      const teams = await w.admin.post(`/iam/v2beta1/accountAssociations/${team}`, {
        name: "backend accounts",
        amazon: { account: "210987654321" },
      });
      expect(teams.status, JSON.stringify(teams.body)).toBe(200);
      const stored = async () => (await w.admin.get(`/iam/v2beta1/accountAssociations/${w.org.uid}`)).body;
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Accounts" }).click();
      await page.getByRole("heading", { name: "Account associations of acme" }).waitFor();
      const below = page.getByRole("table", { name: "Account associations below" });
      expect(await below.getByRole("row").filter({ hasText: "backend accounts" }).textContent()).toContain("AWS 210987654321");
      // A new association: an invalid account is refused with the API's message and field.
      const create = page.getByRole("form", { name: "New association for acme" });
      await create.getByLabel("AWS account").fill("12345");
      await create.getByLabel("App installations").fill("42 acme-ci");
      await create.getByRole("button", { name: "Create association" }).click();
      expect(await create.getByRole("alert").textContent()).toMatch(/12 digits.*Field: .*amazon\.account/);
      await create.getByLabel("AWS account").fill("123456789012");
      await create.getByRole("button", { name: "Create association" }).click();
      await page.getByRole("status").filter({ hasText: "Created acme." }).waitFor();
      const edit = page.getByRole("form", { name: "Association of acme" });
      expect(await edit.getByLabel("AWS account").inputValue()).toBe("123456789012");
      expect(await stored()).toMatchObject({
        amazon: { account: "123456789012" },
        github: { installations: [{ installationId: "42", name: "acme-ci" }] },
      });
      await view(page, "account-associations", engine.name);
      // Edited: AWS emptied (removed), Google Cloud added.
      await edit.getByLabel("AWS account").fill("");
      await edit.getByLabel("Project number").fill("1234567");
      await edit.getByLabel("Project id").fill("acme-prod");
      await edit.getByRole("button", { name: "Save" }).click();
      await page.getByRole("status").filter({ hasText: "Saved acme." }).waitFor();
      const saved = await stored();
      expect(saved).toMatchObject({ google: { projectId: "acme-prod", projectNumber: "1234567" } });
      expect(saved.amazon).toBeUndefined();
      // The group below, from its link; then the organization's association deleted.
      await below.getByRole("link", { name: "backend accounts" }).click();
      await page.getByRole("form", { name: "Association of backend-team" }).waitFor();
      await page.getByRole("link", { name: "Up to the parent group" }).click();
      await page.getByRole("button", { name: "Delete the association of acme…" }).click();
      await page.getByRole("button", { name: "Delete", exact: true }).click();
      await page.getByRole("status").filter({ hasText: "Deleted the association of acme." }).waitFor();
      await page.getByRole("form", { name: "New association for acme" }).waitFor();
      expect((await w.admin.get(`/iam/v2beta1/accountAssociations/${w.org.uid}`)).status).toBe(404);
    });
    it("lists a group's roles, the built-in ones read-only, and makes custom roles with the capability picker", async () => {
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Roles" }).click();
      await page.getByRole("heading", { name: "Roles", level: 1 }).waitFor();
      await page.getByText("No custom role in this group.").waitFor();
      const builtIn = page.getByRole("table", { name: "Built-in roles" });
      expect(await builtIn.getByRole("row").filter({ hasText: "viewer" }).textContent()).toContain("built-in, read-only");
      const form = page.getByRole("form", { name: "New custom role" });
      // The picker groups the catalogue by resource.
      const registry = form.getByRole("group", { name: "registry" });
      expect(await registry.getByRole("checkbox").count()).toBe(2);
      await registry.getByLabel("registry.pull").check();
      await registry.getByLabel("registry.push").check();
      // A name the API refuses: its message and field.
      await form.getByLabel("Name", { exact: true }).fill("Pusher!");
      await form.getByRole("button", { name: "Create role" }).click();
      expect(await form.getByRole("alert").textContent()).toMatch(/Field: name/);
      await form.getByLabel("Name", { exact: true }).fill("pusher");
      await form.getByRole("button", { name: "Create role" }).click();
      await form.getByRole("status").filter({ hasText: "Created pusher." }).waitFor();
      const custom = page.getByRole("table", { name: "Custom roles" });
      expect(await custom.getByRole("row").filter({ hasText: "pusher" }).textContent()).toContain("registry: pull, push");
      await view(page, "roles", engine.name);
      // Another, edited and deleted.
      await form.getByLabel("Name", { exact: true }).fill("temp");
      await form.getByLabel("groups.list").check();
      await form.getByRole("button", { name: "Create role" }).click();
      await form.getByRole("status").filter({ hasText: "Created temp." }).waitFor();
      await custom.getByRole("link", { name: "Edit temp" }).click();
      await page.waitForURL(/\?edit=/);
      const edit = page.getByRole("form", { name: "Edit temp" });
      expect(await edit.getByLabel("groups.list").isChecked()).toBe(true);
      await edit.getByLabel("repo.list").check();
      await edit.getByLabel("Description").fill("for a while");
      await edit.getByRole("button", { name: "Save" }).click();
      await edit.getByRole("status").filter({ hasText: "Saved temp." }).waitFor();
      const temp = custom.getByRole("row").filter({ hasText: "temp" });
      await temp.filter({ hasText: "for a while" }).waitFor();
      expect(await temp.textContent()).toContain("repo: list");
      await page.getByRole("button", { name: "Delete temp…" }).click();
      await page.getByRole("button", { name: "Delete", exact: true }).click();
      await page.waitForURL(/\/roles\/[0-9a-f]+$/);
      await form.waitFor();
      await custom.getByRole("row").filter({ hasText: "pusher" }).waitFor();
      // The list shown before (pusher and temp) is there until the new one is read: wait for temp to go.
      await custom.getByRole("row").filter({ hasText: "temp" }).waitFor({ state: "detached" });
      expect(await custom.getByRole("row").filter({ hasText: "temp" }).count()).toBe(0);
    });

    it("shows one identity's effective access, by the group where each binding applies", async () => {
      const team = (await w.admin.get(`/iam/v2beta1/groups?uidp.children_of=${w.org.uid}&name=backend-team`)).body.groups[0].uid as string;
      const pusher = (await w.admin.get(`/iam/v2beta1/roles?uidp.children_of=${w.org.uid}&name=pusher`)).body.roles[0].uid as string;
      const claimMatch = { issuer: "https://issuer.example", subject: "deployer" };
      const deployer = (await w.admin.post(`/iam/v2beta1/identities/${team}`, { name: "deployer", claimMatch })).body.uid as string;
      for (const [group, roleUid] of [
        [w.org.uid, builtinRoleUid("viewer")],
        [team, pusher],
      ] as const) {
        const bound = await w.admin.post(`/iam/v2beta1/roleBindings/${group}`, { identityUid: deployer, roleUid });
        expect(bound.status, JSON.stringify(bound.body)).toBe(200);
      }
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Access" }).click();
      await page.getByRole("link", { name: "effective access of deployer" }).first().click();
      await page.getByRole("heading", { name: "Effective access of deployer", level: 1 }).waitFor();
      const groups = page.getByTestId("effective-group");
      await groups.nth(1).waitFor();
      expect(await groups.count()).toBe(2);
      expect(await groups.nth(0).getByRole("heading", { level: 2 }).textContent()).toBe("At acme and below");
      expect(await groups.nth(0).getByRole("table").textContent()).toContain("viewer");
      expect(await groups.nth(1).getByRole("heading", { level: 2 }).textContent()).toBe("At backend-team and below");
      expect(await groups.nth(1).getByRole("list", { name: "Capabilities of pusher" }).textContent()).toBe("registry: pull, push");
      // The union at the team counts the viewer binding above it.
      const union = await groups.nth(1).getByRole("list", { name: "Effective capabilities at backend-team" }).textContent();
      expect(union).toContain("groups: list");
      expect(union).toContain("registry: pull, push");
      await view(page, "effective-access", engine.name);
      // The URL can be shared; the identity's page links to it too.
      await page.goto(page.url());
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("link", { name: "deployer", exact: true }).click();
      await page.getByRole("link", { name: "Effective access of deployer" }).click();
      await groups.nth(1).waitFor();
      // A role still bound cannot be deleted: the API's reason is shown.
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Roles" }).click();
      await page.getByRole("link", { name: "Edit pusher" }).click();
      await page.getByRole("button", { name: "Delete pusher…" }).click();
      await page.getByRole("button", { name: "Delete", exact: true }).click();
      expect(await page.getByRole("alert").textContent()).toMatch(/bound/);
    });

    it("disables in the picker the capabilities the person does not hold, with the reason", async () => {
      // Alice's owner binding swapped for a role that may manage roles (she keeps the viewer role
      // her first login gave her).
      const alice = userIdentityUid(w.issuer.url, "alice");
      const roleAdmin = await w.admin.post(`/iam/v2beta1/roles/${w.org.uid}`, {
        name: "role-admin",
        capabilities: ["CAP_IAM_ROLES_CREATE", "CAP_IAM_ROLES_LIST", "CAP_IAM_ROLES_UPDATE", "CAP_IAM_GROUPS_LIST"],
      });
      expect(roleAdmin.status, JSON.stringify(roleAdmin.body)).toBe(200);
      const bound = await w.admin.post(`/iam/v2beta1/roleBindings/${w.org.uid}`, { identityUid: alice, roleUid: roleAdmin.body.uid });
      expect(bound.status, JSON.stringify(bound.body)).toBe(200);
      const owner = (await w.admin.get(`/iam/v2beta1/roleBindings?identity=${alice}&role=${builtinRoleUid("owner")}`)).body.roleBindings[0];
      expect((await w.admin.del(`/iam/v2beta1/roleBindings/${owner.uid}`)).status).toBe(200);
      await page.goto(`${w.t.url}/console/roles/${w.org.uid}`);
      await page.getByRole("button", { name: "Sign in" }).click();
      const form = page.getByRole("form", { name: "New custom role" });
      await form.getByTestId("why-identity.create").waitFor();
      expect(await form.getByLabel("identity.create").isDisabled()).toBe(true);
      expect(await form.getByTestId("why-identity.create").textContent()).toBe("Not available: you do not hold identity.create here");
      await form.getByText(/only hand out what you hold here yourself \(your roles here: .*role-admin.*\)/).waitFor();
      expect(await form.getByLabel("groups.list").isDisabled()).toBe(false);
      await view(page, "roles-picker-limited", engine.name);
      await form.getByLabel("Name", { exact: true }).fill("group-reader");
      await form.getByLabel("groups.list").check();
      await form.getByRole("button", { name: "Create role" }).click();
      await form.getByRole("status").filter({ hasText: "Created group-reader." }).waitFor();
      // Editing pusher, whose capabilities she lacks: they stay free to take away, not to add back.
      await page.getByRole("link", { name: "Edit pusher" }).click();
      const edit = page.getByRole("form", { name: "Edit pusher" });
      expect(await edit.getByLabel("registry.push").isDisabled()).toBe(false);
      expect(await edit.getByLabel("identity.delete").isDisabled()).toBe(true);
      // Without roles.delete, delete is disabled with the reason.
      expect(await page.getByRole("button", { name: "Delete pusher…" }).isDisabled()).toBe(true);
      await page.getByText(/Deleting is disabled: you may not delete roles here/).waitFor();
    });
  });
}
