/**
 * `arbor __complete`, which the completion scripts call for names only the server knows: against
 * a real server it offers the groups, identities and roles the login sees, keeps the answer 30 s
 * (per server and identity: another login never gets it), gives up after its timeout, and offers
 * nothing, silently, when offline or logged out, never renewing a token to get one.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completeValues, type CompleteRequest } from "../../src/cli/completion/complete-values.js";
import { engines } from "../support/engines.js";
import { runArbor } from "../support/process.js";
import { startTestServer, type TestServer } from "../support/server.js";

const T0 = Date.parse("2026-11-26T12:00:00Z");
const engine = engines[0] as (typeof engines)[number];

describe("arbor __complete", { timeout: 60_000 }, () => {
  let t: TestServer;
  let token: string;
  let home: string;
  let blackhole: Server;
  const held: Socket[] = [];
  let blackholeUrl: string;
  /** A machine of its own: settings and cache folders. */
  let n = 0;
  const machine = async (more: Record<string, string> = {}) => {
    const dir = join(home, `m${++n}`);
    await mkdir(dir);
    return { HOME: dir, XDG_CONFIG_HOME: join(dir, "config"), XDG_CACHE_HOME: join(dir, "cache"), ...more };
  };
  const ask = (env: CompleteRequest["env"], kind: CompleteRequest["kind"], at: number, prefix = "", line = "arbor iam groups get ") =>
    completeValues({ kind, prefix, line, env, now: () => at });
  const createGroup = async (name: string) => {
    const r = await t.fetch(`/iam/v2beta1/groups/${org}`, { method: "POST", token, body: JSON.stringify({ name }) });
    expect(r.status, await r.clone().text()).toBe(200);
  };
  let org: string;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "arbor-complete-"));
    t = await startTestServer(engine);
    const o = await t.organization("acme");
    token = o.token;
    org = o.org.uid;
    await createGroup("engineering");
    await createGroup("sales");
    // Takes connections and never answers: a server that hangs.
    blackhole = createServer((socket) => held.push(socket));
    await new Promise<void>((done) => blackhole.listen(0, "127.0.0.1", done));
    blackholeUrl = `http://127.0.0.1:${(blackhole.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const s of held) s.destroy();
    await new Promise((done) => blackhole?.close(done));
    await t?.close();
    await rm(home, { recursive: true, force: true });
  });

  it("offers the names of groups, roles and identities the token sees, starting with the prefix", async () => {
    const env = await machine({ ARBOR_API_URL: t.url, ARBOR_TOKEN: token });
    expect(await ask(env, "groups", T0)).toEqual(["acme", "engineering", "sales"]);
    expect(await ask(env, "groups", T0, "en")).toEqual(["engineering"]);
    expect(await ask(env, "roles", T0)).toEqual(expect.arrayContaining(["owner", "editor", "viewer"]));
    expect(await ask(env, "identities", T0, "zz")).toEqual([]);
  });

  it("keeps an answer 30 s, in a 0600 file of a 0700 folder, for that server and identity only", async () => {
    const env = await machine({ ARBOR_API_URL: t.url, ARBOR_TOKEN: token });
    expect(await ask(env, "groups", T0)).toEqual(["acme", "engineering", "sales"]);
    await createGroup("support");
    expect(await ask(env, "groups", T0 + 29_000), "from the cache").toEqual(["acme", "engineering", "sales"]);
    expect(await ask(env, "groups", T0 + 30_000), "asked again").toEqual(["acme", "engineering", "sales", "support"]);
    const dir = join(env.XDG_CACHE_HOME, "arbor", "completion");
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    expect((await stat(join(dir, files[0] as string))).mode & 0o777).toBe(0o600);
    // Someone else on the same machine and server sees only what they may list.
    const stranger = { ...env, ARBOR_TOKEN: await t.strangerToken() };
    expect(await ask(stranger, "groups", T0 + 31_000)).toEqual([]);
  });

  it("uses the cached login of the context on the command line, without renewing it", async () => {
    const env = await machine();
    const ok = await runArbor(["config", "create-context", "here", "--api", t.url], env);
    expect(ok.code, ok.stderr).toBe(0);
    const login = join(env.XDG_CACHE_HOME, "arbor", "contexts", "here", encodeURIComponent(t.url));
    await mkdir(join(login, "tokens"), { recursive: true });
    const session = JSON.stringify({
      kind: "person",
      api: t.url,
      issuer: t.url,
      identity: "someone",
      refreshToken: "arbrt_not-to-be-used",
    });
    await writeFile(join(login, "session.json"), session);
    const tokenFile = join(login, "tokens", `${encodeURIComponent(t.url)}.json`);
    await writeFile(tokenFile, JSON.stringify({ token, expiry: new Date(T0 + 600_000).toISOString() }));
    expect(await ask(env, "groups", T0, "", "arbor --context here iam groups get ")).toContain("engineering");
    // The current context (default) has no login: nothing.
    expect(await ask(env, "groups", T0)).toEqual([]);
    // An expired token is not renewed: nothing, and the login untouched.
    expect(await ask(env, "roles", T0 + 700_000, "", "arbor --context=here iam roles get ")).toEqual([]);
    expect(await readFile(join(login, "session.json"), "utf8")).toBe(session);
  });

  it("gives up on a server that does not answer within the timeout, and one that is not there", async () => {
    const env = await machine({ ARBOR_API_URL: blackholeUrl, ARBOR_TOKEN: token });
    const started = Date.now();
    expect(await completeValues({ kind: "groups", prefix: "", line: "", env, now: Date.now, timeoutMs: 300 })).toEqual([]);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await ask({ ...env, ARBOR_API_URL: "http://127.0.0.1:1" }, "groups", T0)).toEqual([]);
  });

  it("as a command, prints the names, and prints nothing at all when it cannot (exit 0)", async () => {
    const env = await machine({ ARBOR_API_URL: t.url, ARBOR_TOKEN: token });
    const r = await runArbor(["__complete", "--", "groups", "s", "arbor iam groups get --group x s"], env);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, "sales\nsupport\n", ""]);
    const started = Date.now();
    const hung = await runArbor(["__complete", "--", "groups", "", "arbor iam groups get "], { ...env, ARBOR_API_URL: blackholeUrl });
    expect([hung.code, hung.stdout, hung.stderr]).toEqual([0, "", ""]);
    expect(Date.now() - started, "the 1 s timeout").toBeLessThan(5_000);
    const loggedOut = await runArbor(["__complete", "--", "roles", "", "arbor iam roles get "], await machine({ ARBOR_API_URL: t.url }));
    expect([loggedOut.code, loggedOut.stdout, loggedOut.stderr]).toEqual([0, "", ""]);
    const badContext = await runArbor(["__complete", "--", "roles", "", "arbor --context nope iam roles get "], env);
    expect([badContext.code, badContext.stdout, badContext.stderr]).toEqual([0, "", ""]);
  });
});
