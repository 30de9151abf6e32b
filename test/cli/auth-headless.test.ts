/**
 * `arbor auth login --headless` as people run it: the built command in a child process prints a
 * code and a page, a person on "another device" (plain HTTP through the real provider) enters
 * the code, and the command ends logged in with a token that works. Then the polling itself,
 * run in process on the server's movable clock: the interval is honoured, and a slow_down makes
 * every later wait five seconds longer. And the fail-fast path: without a provider, both kinds
 * of login say why at once instead of waiting.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveClientConfig } from "../../src/cli/auth/client-config.js";
import { deviceLogin } from "../../src/cli/auth/device-login.js";
import { userIdentityUid } from "../../src/domain/identities.js";
import { confirmDevice, DEVICE_GRANT } from "../support/device-login.js";
import { engines } from "../support/engines.js";
import { movableClock, type MovableClock } from "../support/exchange.js";
import { startLoginWorld, type LoginWorld } from "../support/login.js";
import { runArbor, spawnArbor } from "../support/process.js";

const engine = engines[0] as (typeof engines)[number];
const caches: string[] = [];
/** A fresh cache folder: one person's machine. */
async function machine(api: string): Promise<Record<string, string>> {
  const dir = await mkdtemp(join(tmpdir(), "arbor-headless-"));
  caches.push(dir);
  return { XDG_CACHE_HOME: dir, ARBOR_API_URL: api };
}
afterAll(async () => {
  for (const dir of caches) await rm(dir, { recursive: true, force: true });
});

describe("arbor auth login --headless", () => {
  let w: LoginWorld;
  let clock: MovableClock;
  beforeAll(async () => {
    clock = movableClock();
    w = await startLoginWorld(engine, {}, { clock });
  });
  afterAll(async () => w?.close());

  it("prints a code and the page to enter it on, waits for the person, then holds a working login", async () => {
    const env = await machine(w.t.url);
    const cli = spawnArbor(["auth", "login", "--headless", "--org", "acme"], env);
    const [, page] = await cli.stderrMatch(/open this page in a browser on any device:\n\n {2}(\S+)\n/);
    const [, code] = await cli.stderrMatch(/enter the code:\n\n {2}([A-Z]{4}-[A-Z]{4})\n/);
    const [, complete] = await cli.stderrMatch(/\(or open (\S+) and check that it shows this code\)/);
    expect(page).toBe(`${w.t.url}/oauth/device`);
    expect(complete).toBe(`${page}?user_code=${code}`);
    const done = await confirmDevice(w, `${page}`, { sub: "headless-alice" }, { userCode: code });
    expect(done.html).toContain("Your device is logged in to Arbor");
    const run = await cli.done;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("");
    // The device code is the CLI's secret: never printed.
    expect(run.stderr).not.toContain("arbdev_");
    const uid = userIdentityUid(w.issuer.url, "headless-alice");
    expect(run.stderr).toContain(`Logged in to ${w.t.url} as headless-alice (${uid}).`);
    // The login works against the API as a browser login's does.
    const status = await runArbor(["auth", "status"], env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`Identity:   ${uid}`);
  });

  it("honours the interval, and waits five seconds longer after each slow_down", async () => {
    const env = await machine(w.t.url);
    const config = resolveClientConfig({}, env);
    const waits: number[] = [];
    let said = "";
    const login = deviceLogin(config, {
      say: (text) => (said += text),
      // The second wait falls short by two seconds (a slow clock): the server says slow_down.
      sleep: async (ms) => {
        waits.push(ms);
        clock.advance(waits.length === 2 ? ms - 2_000 : ms);
        if (waits.length === 4) {
          const code = /enter the code:\n\n {2}(\S+)\n/.exec(said)?.[1] ?? "";
          await confirmDevice(w, `${w.t.url}/oauth/device`, { sub: "headless-bob" }, { userCode: code });
        }
      },
    });
    expect(await login).toBe(userIdentityUid(w.issuer.url, "headless-bob"));
    expect(waits).toEqual([5_000, 5_000, 10_000, 10_000]);
  });

  it("says why when the person's login is refused", async () => {
    const env = await machine(w.t.url);
    let said = "";
    const login = deviceLogin(resolveClientConfig({}, env), {
      say: (text) => (said += text),
      sleep: async (ms) => {
        clock.advance(ms);
        const code = /enter the code:\n\n {2}(\S+)\n/.exec(said)?.[1] ?? "";
        const declined = (u: string) =>
          u.startsWith(`${w.t.url}/oauth/callback?`)
            ? `${w.t.url}/oauth/callback?error=access_denied&state=${new URL(u).searchParams.get("state")}`
            : u;
        await confirmDevice(w, `${w.t.url}/oauth/device`, { sub: "headless-carol" }, { userCode: code, rewrite: declined });
      },
    });
    await expect(login).rejects.toThrow(
      "login failed: Precondition failed: the login was refused: " +
        "Unauthenticated: the identity provider did not log you in (access_denied: )",
    );
  });

  it("stops when the code expires", async () => {
    const env = await machine(w.t.url);
    const login = deviceLogin(resolveClientConfig({}, env), { say: () => undefined, sleep: async (ms) => clock.advance(ms * 200) });
    await expect(login).rejects.toThrow("the code expired before anyone logged in with it; run arbor auth login --headless again");
  });
});

describe("arbor auth login --headless behind a throttled address", () => {
  let w: LoginWorld;
  let clock: MovableClock;
  beforeAll(async () => {
    clock = movableClock();
    clock.freeze();
    w = await startLoginWorld(engine, { authFailuresPerAddress: { count: 1, periodMs: 60_000 } }, { clock });
  });
  afterAll(async () => w?.close());

  it("waits out the server's 429 like a slow_down instead of giving up", async () => {
    const env = await machine(w.t.url);
    let said = "";
    const waits: number[] = [];
    const login = deviceLogin(resolveClientConfig({}, env), {
      say: (text) => (said += text),
      sleep: async (ms) => {
        if (waits.length === 0) {
          const code = /enter the code:\n\n {2}(\S+)\n/.exec(said)?.[1] ?? "";
          await confirmDevice(w, `${w.t.url}/oauth/device`, { sub: "headless-dora" }, { userCode: code });
          // Then someone at the same address spends its budget of refused credentials: polls answer 429 for a minute.
          const spent = await fetch(`${w.t.url}/oauth/token`, {
            method: "POST",
            body: new URLSearchParams({ grant_type: DEVICE_GRANT, device_code: "arbdev_wrong" }),
          });
          expect(spent.status).toBe(401);
        }
        waits.push(ms);
        clock.advance(ms);
      },
    });
    expect(await login).toBe(userIdentityUid(w.issuer.url, "headless-dora"));
    expect(waits.slice(0, 3)).toEqual([5_000, 10_000, 15_000]);
  });
});

describe("arbor auth login without a login provider", () => {
  let w: LoginWorld;
  beforeAll(async () => {
    w = await startLoginWorld(engine, { loginIssuer: undefined, loginClientId: undefined, loginClientSecret: undefined });
    await w.t.organization("bare");
  });
  afterAll(async () => w?.close());

  it.each([["--no-browser"], ["--headless"]])("fails at once with the server's reason (%s)", async (flag) => {
    const env = await machine(w.t.url);
    const started = Date.now();
    const run = await runArbor(["auth", "login", flag, "--org", "bare", "--timeout", "20"], env);
    expect([run.code, run.stderr]).toEqual([
      1,
      "arbor: login failed: Precondition failed: login is not available for this organization; " +
        "ask its administrators (gRPC code 9 FAILED_PRECONDITION)\n",
    ]);
    expect(Date.now() - started).toBeLessThan(15_000);
    const bare = await runArbor(["auth", "login", flag, "--timeout", "20"], env);
    expect(bare.stderr).toContain("this server has no default login provider (ARBOR_LOGIN_ISSUER)");
  });
});
