/**
 * `arbor auth` as people run it (the built command in a child process) against a real server and
 * a real OIDC provider: a browser login driven over HTTP from the printed URL, tokens that work
 * against the API, status with the role bindings, renewal through the refresh token, invites,
 * logout, a workload's login with its OIDC token, the cache's permissions and the exit codes.
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { userIdentityUid } from "../../src/domain/identities.js";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { TestBrowser } from "../support/browser.js";
import { engines } from "../support/engines.js";
import { oauthPost, REGISTRY_HOST, startLoginWorld, type LoginWorld } from "../support/login.js";
import { startTestIssuer, type TestIssuer } from "../support/oidc-issuer.js";
import { runArbor, spawnArbor, type RunResult } from "../support/process.js";
import type { TestPerson } from "../support/oidc-login-issuer.js";

const URL_IN_OUTPUT = /(http:\/\/\S+\/oauth\/login\?\S+)/;

describe("arbor auth", () => {
  let w: LoginWorld;
  let mintIssuer: TestIssuer;
  const caches: string[] = [];
  /** A fresh cache folder: one person's machine. */
  const machine = async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-cli-cache-"));
    caches.push(dir);
    return { XDG_CACHE_HOME: dir, ARBOR_API_URL: w.t.url };
  };
  const arbor = (args: string[], env: Record<string, string>) => runArbor(["auth", ...args], env);
  const ok = (r: RunResult) => {
    expect(r.code, r.stderr).toBe(0);
    return r;
  };

  /** Runs `arbor auth login --no-browser` and plays the browser for person from the printed URL. */
  async function cliLogin(
    env: Record<string, string>,
    person: TestPerson,
    more: string[] = [],
  ): Promise<{ run: RunResult; page: Response | undefined }> {
    const cli = spawnArbor(["auth", "login", "--no-browser", "--timeout", "20", ...more], env);
    const [, url] = await cli.stderrMatch(URL_IN_OUTPUT);
    w.issuer.loginAs(person);
    // The walk ends at the CLI's own listener, which answers with a page.
    const walk = await new TestBrowser().walk(url as string);
    return { run: await cli.done, page: walk.response };
  }

  beforeAll(async () => {
    w = await startLoginWorld(engines[0] as (typeof engines)[number]);
    mintIssuer = await startTestIssuer([w.t.url]);
  });
  afterAll(async () => {
    await w?.close();
    await mintIssuer?.close();
    for (const dir of caches) await rm(dir, { recursive: true, force: true });
  });

  describe("a person", () => {
    let env: Record<string, string>;
    const uid = () => userIdentityUid(w.issuer.url, "cli-alice");

    it("logs in through the browser: the URL is printed, the browser lands on the CLI's listener", async () => {
      env = await machine();
      const { run, page } = await cliLogin(env, { sub: "cli-alice", claims: { preferred_username: "alice" } }, ["--org", "acme"]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain(`Logged in to ${w.t.url} as alice (${uid()}).`);
      expect(page?.status).toBe(200);
      expect(await page?.text()).toContain("You are logged in to Arbor");
      expect(run.stdout).toBe("");
    });

    it("keeps the cache private: folders 0700, files 0600", async () => {
      const modes: string[] = [];
      const visit = async (dir: string) => {
        for (const entry of await readdir(dir, { withFileTypes: true })) {
          const path = join(dir, entry.name);
          modes.push(`${entry.isDirectory() ? "d" : "f"} ${((await stat(path)).mode & 0o777).toString(8)}`);
          if (entry.isDirectory()) await visit(path);
        }
      };
      modes.push(`d ${((await stat(join(env.XDG_CACHE_HOME as string, "arbor"))).mode & 0o777).toString(8)}`);
      await visit(join(env.XDG_CACHE_HOME as string, "arbor"));
      expect(new Set(modes)).toEqual(new Set(["d 700", "f 600"]));
      expect(modes.filter((m) => m.startsWith("f"))).toHaveLength(2);
    });

    it("prints a token that works against the API, the same one while it is fresh", async () => {
      const token = ok(await arbor(["token"], env)).stdout.trim();
      expect(decodeJwt(token)).toMatchObject({ sub: uid(), aud: w.t.url });
      expect((await w.t.fetch(`/iam/v2beta1/groups/${w.org.uid}`, { token })).status).toBe(200);
      expect(ok(await arbor(["token"], env)).stdout.trim()).toBe(token);
    });

    it("shows the identity, the expiry and the role bindings", async () => {
      const text = ok(await arbor(["status"], env)).stdout;
      expect(text).toContain(`Identity:   ${uid()}`);
      expect(text).toContain(`as cli-alice at ${w.issuer.url}`);
      expect(text).toMatch(new RegExp(`viewer\\s+acme \\(${w.org.uid}\\)`));
      const json = JSON.parse(ok(await arbor(["status", "--json"], env)).stdout) as Record<string, any>;
      expect(json).toMatchObject({ identity: uid(), upstream: { issuer: w.issuer.url, subject: "cli-alice" } });
      expect(json.roleBindings).toEqual([
        { uid: expect.any(String), group: { uid: w.org.uid, name: "acme" }, role: { uid: builtinRoleUid("viewer"), name: "viewer" } },
      ]);
    });

    it("renews a token that expires within a minute with the refresh token, which rotates", async () => {
      const dir = join(env.XDG_CACHE_HOME as string, "arbor", "contexts", "default", encodeURIComponent(w.t.url));
      const tokenFile = join(dir, "tokens", `${encodeURIComponent(w.t.url)}.json`);
      const cached = JSON.parse(await readFile(tokenFile, "utf8")) as { token: string; expiry: string };
      const before = JSON.parse(await readFile(join(dir, "session.json"), "utf8")) as { refreshToken: string };
      await writeFile(tokenFile, JSON.stringify({ ...cached, expiry: new Date(Date.now() + 30_000).toISOString() }));
      const renewed = ok(await arbor(["token"], env)).stdout.trim();
      expect(renewed).not.toBe(cached.token);
      expect(decodeJwt(renewed).sub).toBe(uid());
      const after = JSON.parse(await readFile(join(dir, "session.json"), "utf8")) as { refreshToken: string };
      expect(after.refreshToken).not.toBe(before.refreshToken);
      // A token for the registry host comes from the same login.
      expect(decodeJwt(ok(await arbor(["token", "--audience", REGISTRY_HOST], env)).stdout.trim()).aud).toBe(REGISTRY_HOST);
    });

    it("logs out: the login is revoked at the server and the cache is gone", async () => {
      const dir = join(env.XDG_CACHE_HOME as string, "arbor", "contexts", "default", encodeURIComponent(w.t.url));
      const { refreshToken } = JSON.parse(await readFile(join(dir, "session.json"), "utf8")) as { refreshToken: string };
      const out = ok(await arbor(["logout"], env));
      expect(out.stderr).toContain(`Logged out of ${w.t.url}.`);
      await expect(stat(dir)).rejects.toMatchObject({ code: "ENOENT" });
      expect((await oauthPost(w, "token", { grant_type: "refresh_token", refresh_token: refreshToken })).status).toBe(401);
      const after = await arbor(["token"], env);
      expect([after.code, after.stderr.trim()]).toEqual([1, `arbor: not logged in to ${w.t.url}; run: arbor auth login`]);
      expect(ok(await arbor(["logout"], env)).stderr).toContain("Not logged in");
    });
  });

  it("redeems an invite given at login: the invited binding shows in the status", async () => {
    const team = (await w.admin.post(`/iam/v2beta1/groups/${w.org.uid}`, { name: "cli-team" })).body.uid as string;
    const invite = await w.admin.post(`/iam/v2beta1/groupInvites/${team}`, {
      roleUid: builtinRoleUid("editor"),
      ttl: "600s",
      singleUse: true,
    });
    const env = await machine();
    const { run } = await cliLogin(env, { sub: "cli-bob" }, ["--invite", invite.body.code]);
    expect(run.code, run.stderr).toBe(0);
    expect(ok(await arbor(["status"], env)).stdout).toMatch(new RegExp(`editor\\s+cli-team \\(${team}\\)`));
    // A second person with the same single-use code: the CLI says why at once, before sending
    // anyone to a browser (the login page's own refusal is test/e2e/login-flow.test.ts's).
    const again = await arbor(["login", "--no-browser", "--timeout", "20", "--invite", invite.body.code], await machine());
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("arbor: login failed: Precondition failed: the invite has already been used; ask for a new one");
    expect(again.stderr).not.toContain("/oauth/login?");
  });

  it("ends the login a new one replaces", async () => {
    const env = await machine();
    const session = join(env.XDG_CACHE_HOME, "arbor", "contexts", "default", encodeURIComponent(w.t.url), "session.json");
    expect((await cliLogin(env, { sub: "cli-dan" })).run.code).toBe(0);
    const { refreshToken } = JSON.parse(await readFile(session, "utf8")) as { refreshToken: string };
    expect((await cliLogin(env, { sub: "cli-dan" })).run.code).toBe(0);
    expect((await oauthPost(w, "token", { grant_type: "refresh_token", refresh_token: refreshToken })).status).toBe(401);
    expect(ok(await arbor(["token"], env)).stdout).toMatch(/^eyJ/);
  });

  it("logs a workload in with its identity and OIDC token file, and exchanges again from the file", async () => {
    const identity = await w.admin.post(`/iam/v2beta1/identities/${w.org.uid}`, {
      name: "cli-ci",
      claimMatch: { issuer: mintIssuer.url, subject: "ci-job" },
    });
    expect(identity.status, JSON.stringify(identity.body)).toBe(200);
    const uid = identity.body.uid as string;
    const env = await machine();
    const file = join(env.XDG_CACHE_HOME, "oidc-token");
    await writeFile(file, `${await mintIssuer.mint("ci-job", w.t.url)}\n`);
    const login = ok(await arbor(["login", "--identity", uid, "--identity-token", file], env));
    expect(login.stderr).toContain(`Logged in to ${w.t.url} as ${uid}.`);
    const token = ok(await arbor(["token"], env)).stdout.trim();
    expect(decodeJwt(token).sub).toBe(uid);
    // Another audience: exchanged anew from the file.
    expect(decodeJwt(ok(await arbor(["token", "--audience", REGISTRY_HOST], env)).stdout.trim())).toMatchObject({
      sub: uid,
      aud: REGISTRY_HOST,
    });
    await writeFile(file, "not a token");
    const refused = await arbor(["token", "--audience", `${w.t.url}/other`], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^arbor: Unauthenticated: .+ \(gRPC code 16 UNAUTHENTICATED\)\n$/);
  });

  it("exits 2 for usage mistakes and 1 when the server cannot be reached", async () => {
    const env = await machine();
    for (const args of [
      ["login", "--identity", "x"],
      ["login", "--identity-token", "f"],
      ["token", "--api", "ftp://x"],
      ["login", "--timeout", "soon"],
      ["login", "--bogus"],
    ]) {
      expect((await arbor(args, env)).code, args.join(" ")).toBe(2);
    }
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const nowhere = `http://127.0.0.1:${closed}`;
    const down = await arbor(["login", "--identity", "0".repeat(40), "--identity-token", "/dev/null"], { ...env, ARBOR_API_URL: nowhere });
    expect([down.code, down.stderr]).toEqual([1, expect.stringMatching(/^arbor: the identity token file \/dev\/null is empty\n$/)]);
    await writeFile(join(env.XDG_CACHE_HOME, "tok"), "x.y.z");
    const unreachable = await arbor(["login", "--identity", "0".repeat(40), "--identity-token", join(env.XDG_CACHE_HOME, "tok")], {
      ...env,
      ARBOR_API_URL: nowhere,
    });
    expect([unreachable.code, unreachable.stderr]).toEqual([1, `arbor: cannot reach ${nowhere}: ECONNREFUSED\n`]);
  });
});
