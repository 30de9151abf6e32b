/**
 * Three `arbor serve` processes (the built dist) on one fresh PostgreSQL database behind a real
 * HAProxy, as docs/operations.md "Several replicas behind a load balancer" sets them up: the
 * advisories feed is synced by one replica, a revoked binding is refused on the next request
 * through every other replica, a login begun on one finishes on another, racing creates of one
 * name have one winner, gRPC passes, refused credentials are throttled per client address at
 * HAProxy, and kill -9 of a replica under load loses no acknowledged write while the others keep
 * serving, and another replica takes over the feed.
 */
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinRoleUid } from "../../src/domain/roles.js";
import * as grpc from "@grpc/grpc-js";
import { TestBrowser } from "../support/browser.js";
import { call as grpcCall, loadProtos } from "../support/grpc.js";
import { printFigures } from "../support/figures.js";
import { fetchFrom } from "../support/from-address.js";
import { freePort, haveHaproxy, startHaproxy, type TestHaproxy } from "../support/haproxy.js";
import { startLoginIssuer, type LoginIssuer } from "../support/oidc-login-issuer.js";
import { folderEntries, OSV, writeZip } from "../support/osv.js";
import { runArbor, serveArbor, type ServeProcess } from "../support/process.js";

const POSTGRES = process.env.ARBOR_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const CLI_REDIRECT = "http://127.0.0.1:1/callback";
const ORG_CLIENT = "arbor-org";
const grpcPackage = loadProtos(["arbor/iam/v2beta1/groups.proto"]);

/**
 * The feed: a zip of the OSV fixtures, answered slowly (so overlapping syncs would show), with an
 * ETag. It has no modified_id.csv (404), so every sync imports the archive; requests lists the
 * archive's.
 */
interface Feed {
  url: string;
  /** Each request: whether it carried If-None-Match (a replica that synced before). */
  requests: { conditional: boolean }[];
  maxConcurrent: number;
  close(): Promise<void>;
}

async function startFeed(dir: string): Promise<Feed> {
  const file = join(dir, "feed.zip");
  await writeZip(file, folderEntries(OSV.feed, "feed/"));
  const zip = readFileSync(file);
  const feed = { requests: [] as { conditional: boolean }[], maxConcurrent: 0 };
  let running = 0;
  const server: Server = createServer((req, res) => {
    if (req.url !== "/all.zip") return void res.writeHead(404).end();
    feed.requests.push({ conditional: req.headers["if-none-match"] !== undefined });
    feed.maxConcurrent = Math.max(feed.maxConcurrent, ++running);
    setTimeout(() => {
      running--;
      if (req.headers["if-none-match"] === '"v1"') res.writeHead(304).end();
      else res.writeHead(200, { "content-type": "application/zip", etag: '"v1"', "content-length": zip.length }).end(zip);
    }, 500);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/all.zip`,
    requests: feed.requests,
    get maxConcurrent() {
      return feed.maxConcurrent;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function psql(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

const until = async (what: string, ok: () => boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

const synced = (r: ServeProcess) => r.lines.filter((l) => l.msg === "advisories synced").length;

describe.skipIf(!haveHaproxy())("three replicas on one PostgreSQL behind HAProxy", () => {
  const dir = mkdtempSync(join(tmpdir(), "arbor-replicas-"));
  const database = `arbor_replicas_${process.pid}_${randomBytes(4).toString("hex")}`;
  const databaseUrl = Object.assign(new URL(POSTGRES), { pathname: `/${database}` }).href;
  let feed: Feed;
  let issuer: LoginIssuer;
  let haproxy: TestHaproxy;
  let replicas: ServeProcess[] = [];
  let env: Record<string, string>;
  let org: string;
  let token: string;
  const direct = (r: ServeProcess) => `http://127.0.0.1:${r.port}`;
  const call = async (base: string, method: string, path: string, bearer: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, any> };
  };

  beforeAll(async () => {
    await psql(POSTGRES, `create database "${database}"`);
    feed = await startFeed(dir);
    issuer = await startLoginIssuer();
    const port = await freePort();
    env = {
      ARBOR_DATABASE_URL: databaseUrl,
      ARBOR_SECRETS_KEY: randomBytes(32).toString("base64"),
      ARBOR_BASE_URL: `http://127.0.0.1:${port}`,
      ARBOR_HOST: "127.0.0.1",
      ARBOR_DATA_DIR: join(dir, "data"),
      ARBOR_ADVISORIES_FEED_URL: feed.url,
      ARBOR_ADVISORIES_SYNC_INTERVAL: "1m",
      ARBOR_ALLOW_HTTP_LOOPBACK_ISSUERS: "true",
      // Every connection comes from HAProxy, which says whose request it is in X-Forwarded-For.
      ARBOR_TRUSTED_PROXIES: "127.0.0.1",
    };
    // All three at once on an empty database: they wait for each other's migrations.
    replicas = await Promise.all([1, 2, 3].map(() => serveArbor([], env)));
    haproxy = await startHaproxy(
      port,
      replicas.map((r) => r.port),
    );
    await issuer.configure([
      { client_id: ORG_CLIENT, redirect_uris: [`${haproxy.url}/oauth/callback`], token_endpoint_auth_method: "none" },
    ]);
    const made = await runArbor(["admin", "bootstrap", "--org", "acme"], env);
    expect(made.code, made.stderr).toBe(0);
    org = (JSON.parse(made.stdout) as { uid: string }).uid;
    token = (await runArbor(["admin", "token", "--org", "acme"], env)).stdout.trim();
  });

  afterAll(async () => {
    await haproxy?.close();
    for (const r of replicas) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill("SIGTERM");
    await Promise.all(replicas.map((r) => r.exited.catch(() => undefined)));
    await issuer?.close();
    await feed?.close();
    await psql(POSTGRES, `drop database if exists "${database}" with (force)`);
    rmSync(dir, { recursive: true, force: true });
  });

  it("syncs the advisories feed on one replica only", async () => {
    await until("a sync", () => replicas.some((r) => synced(r) > 0), 30_000);
    // Time for the others' first turns to have come and gone.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(replicas.map(synced).sort()).toEqual([0, 0, 1]);
    expect(feed.requests).toEqual([{ conditional: false }]);
    expect(feed.maxConcurrent).toBe(1);
  });

  it("refuses a binding revoked through one replica on the next request through each other one", async () => {
    const ci = await call(haproxy.url, "POST", `/iam/v2beta1/identities/${org}`, token, {
      name: "ci",
      claimMatch: { issuer: "https://issuer.example", subject: "ci" },
    });
    expect(ci.status, JSON.stringify(ci.body)).toBe(200);
    const binding = await call(haproxy.url, "POST", `/iam/v2beta1/roleBindings/${org}`, token, {
      identityUid: ci.body.uid,
      roleUid: builtinRoleUid("viewer"),
    });
    expect(binding.status).toBe(200);
    const ciToken = (await runArbor(["admin", "token", "--identity", ci.body.uid as string], env)).stdout.trim();
    // Each replica has served the identity (and cached what it may do) before the revocation.
    for (const r of replicas) expect((await call(direct(r), "GET", `/iam/v2beta1/groups/${org}`, ciToken)).status).toBe(200);
    const [first, ...others] = replicas as [ServeProcess, ...ServeProcess[]];
    expect((await call(direct(first), "DELETE", `/iam/v2beta1/roleBindings/${binding.body.uid}`, token)).status).toBe(200);
    for (const r of [...others, first]) expect((await call(direct(r), "GET", `/iam/v2beta1/groups/${org}`, ciToken)).status).toBe(403);
    expect((await call(haproxy.url, "GET", `/iam/v2beta1/groups/${org}`, ciToken)).status).toBe(403);
  });

  it("finishes a login begun on one replica on another, and redeems its code on a third", async () => {
    const [r1, r2, r3] = replicas as [ServeProcess, ServeProcess, ServeProcess];
    const idp = await call(haproxy.url, "POST", `/iam/v2beta1/identityProviders/${org}`, token, {
      name: "corp",
      defaultRole: builtinRoleUid("viewer"),
      oidc: { issuer: issuer.url, clientId: ORG_CLIENT },
    });
    expect(idp.status, JSON.stringify(idp.body)).toBe(200);
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    issuer.loginAs({ sub: "dana", claims: { preferred_username: "dana", email: "dana@example.com", email_verified: true } });
    const browser = new TestBrowser();
    const query = new URLSearchParams({
      redirect_uri: CLI_REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "cli-state",
      org: "acme",
    });
    const callbackAt = `${haproxy.url}/oauth/callback?`;
    const begun = await browser.walk(`${direct(r1)}/oauth/login?${query}`, (u) => u.startsWith(callbackAt) || u.startsWith(CLI_REDIRECT));
    expect(begun.url.startsWith(callbackAt), begun.url).toBe(true);
    // The provider sends the browser to the public URL; this one lands on the second replica.
    const back = await browser.walk(begun.url.replace(haproxy.url, direct(r2)), (u) => u.startsWith(CLI_REDIRECT));
    const result = new URL(back.url).searchParams;
    expect(result.get("state")).toBe("cli-state");
    const code = result.get("code");
    expect(code, back.url).not.toBeNull();
    const res = await fetch(`${direct(r3)}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: code as string,
        code_verifier: verifier,
        redirect_uri: CLI_REDIRECT,
      }),
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { access_token: string };
    for (const r of replicas) expect((await call(direct(r), "GET", `/iam/v2beta1/groups/${org}`, answer.access_token)).status).toBe(200);
  });

  it("passes gRPC through to every replica", async () => {
    const client = new grpcPackage.arbor.iam.v2beta1.GroupsService(new URL(haproxy.url).host, grpc.credentials.createInsecure());
    try {
      for (let i = 0; i < replicas.length; i++)
        expect(await grpcCall(client, "getGroup", { uid: org }, token)).toMatchObject({ uid: org, name: "acme" });
    } finally {
      client.close();
    }
  });

  it("gives creates of one name through different replicas exactly one winner", async () => {
    for (let round = 0; round < 5; round++) {
      const statuses = await Promise.all(
        replicas.map((r) => call(direct(r), "POST", `/iam/v2beta1/groups/${org}`, token, { name: `race-${round}` }).then((a) => a.status)),
      );
      expect(statuses.sort()).toEqual([200, 409, 409]);
    }
  });

  it(
    "throttles refused credentials per client address behind HAProxy, " + "each replica its own budget, leaving other addresses alone",
    async () => {
      const exchange = (from: string) =>
        fetchFrom(from, `${haproxy.url}/sts/exchange?${new URLSearchParams({ aud: haproxy.url, identity: org })}`, {
          headers: { authorization: "Bearer not-a-token" },
        });
      // 100 a minute per address in each replica (refilling at under 2 a second), HAProxy spreading
      // the requests over three, not always evenly: no replica throttles before its 100th refusal,
      // and once all three have spent theirs every request is throttled, after about 300 refusals.
      const statuses: number[] = [];
      while (statuses.length < 500 && (statuses.length < 20 || !statuses.slice(-20).every((s) => s === 429)))
        statuses.push((await exchange("127.0.0.2")).status);
      expect(new Set(statuses)).toEqual(new Set([401, 429]));
      expect(statuses.indexOf(429)).toBeGreaterThanOrEqual(100);
      expect(statuses.slice(-20)).toEqual(Array(20).fill(429));
      const refused = statuses.filter((s) => s === 401).length;
      expect(refused).toBeGreaterThanOrEqual(300);
      expect(refused).toBeLessThanOrEqual(330);
      // Another client, through the same HAProxy: its own budget.
      expect((await exchange("127.0.0.3")).status).toBe(401);
    },
  );

  it("loses no acknowledged write when a replica is killed with SIGKILL under load, and the others keep serving", async () => {
    const writers = 6;
    const acked = new Map<string, string>(); // group uid -> its last acknowledged description
    const unsure = new Map<string, string>(); // group uid -> a description whose update failed (it may have landed)
    const errors: number[] = [];
    let servedAfterKill = 0;
    let killedAt = Infinity;
    let stop = false;
    let n = 0;
    const writer = async (w: number) => {
      while (!stop) {
        const created = await call(haproxy.url, "POST", `/iam/v2beta1/groups/${org}`, token, { name: `load-${w}-${n++}` }).catch(() => ({
          status: 0,
          body: {} as Record<string, any>,
        }));
        if (created.status !== 200) {
          errors.push(Date.now());
          continue;
        }
        if (Date.now() > killedAt) servedAfterKill++;
        acked.set(created.body.uid as string, "");
        for (let u = 0; u < 3 && !stop; u++) {
          const description = `update ${u}`;
          const updated = await call(haproxy.url, "PATCH", `/iam/v2beta1/groups/${created.body.uid}`, token, { description }).catch(() => ({
            status: 0,
          }));
          if (updated.status !== 200) {
            errors.push(Date.now());
            unsure.set(created.body.uid as string, description);
            break;
          }
          if (Date.now() > killedAt) servedAfterKill++;
          acked.set(created.body.uid as string, description);
        }
      }
    };
    const leader = replicas.find((r) => synced(r) > 0) as ServeProcess;
    const load = Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
    await new Promise((r) => setTimeout(r, 2_000));
    killedAt = Date.now();
    leader.child.kill("SIGKILL");
    await leader.exited;
    await new Promise((r) => setTimeout(r, 4_000));
    stop = true;
    await load;
    const survivors = replicas.filter((r) => r !== leader);
    printFigures("replicas kill -9", {
      acknowledged: acked.size,
      errors: errors.length,
      errorsAfterKillMs: errors.map((t) => t - killedAt),
      servedAfterKill,
    });
    // What fails is what was in flight on the killed replica (one request per writer at most) and
    // what HAProxy sent over a kept-alive connection to it before noticing it died (a writer's
    // next request, once): at most two per writer, all within the health checks' two seconds.
    expect(errors.length).toBeLessThanOrEqual(2 * writers);
    expect(errors.every((t) => t >= killedAt && t - killedAt < 2_500)).toBe(true);
    expect(servedAfterKill).toBeGreaterThan(50);
    let i = 0;
    for (const [uid, description] of acked) {
      const survivor = survivors[i++ % survivors.length] as ServeProcess;
      const got = await call(direct(survivor), "GET", `/iam/v2beta1/groups/${uid}`, token);
      expect(got.status).toBe(200);
      expect([description, unsure.get(uid)]).toContain(got.body.description);
    }
  });

  it("has another replica take over the feed sync once the one syncing died", async () => {
    const survivors = replicas.filter((r) => r.child.exitCode === null && r.child.signalCode === null);
    expect(survivors).toHaveLength(2);
    // A survivor's next turn comes within the one-minute interval after its last.
    await until("a survivor's sync", () => survivors.some((r) => synced(r) > 0), 75_000);
    expect(survivors.map(synced).sort()).toEqual([0, 1]);
    // The new leader finds the dead one's cursor in the database, but the feed has no index; it
    // never synced before, so it downloads the whole archive (no If-None-Match).
    expect(feed.requests.at(-1)).toEqual({ conditional: false });
    expect(feed.maxConcurrent).toBe(1);
  });
});
