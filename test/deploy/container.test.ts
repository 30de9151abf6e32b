/**
 * The container image (docs/operations.md, Running in a container): the repository's
 * Containerfile built with podman on a base made from Debian packages and the npm registry's
 * Node.js (no public image registry is reachable where this runs), then run: it answers /ping,
 * runs as a user of its own with its data on a volume, is healthy by its HEALTHCHECK on /readyz,
 * and stops at once on SIGTERM. Then the image goes through Arbor's own registry flow: pushed
 * with podman to CNCF Distribution behind an Arbor (a workload logged in with `arbor auth login
 * --identity`, docker's config from `arbor auth configure-docker`, docker-credential-arbor),
 * indexed as a tag with its digest, and pulled back by another identity, same digest, same image.
 *
 * Durations on the 2-core machine: 2 min 14 s the first time (base image 50 s, once per Node.js
 * and npm version; image build 61 s with nothing cached), 47 s after (build 31 s, layers cached).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { engines, type TestLocation } from "../support/engines.js";
import { startTestIssuer, type TestIssuer } from "../support/oidc-issuer.js";
import { missingContainerTools, must, podman, run, testBaseImage, ULIMITS } from "../support/podman.js";
import { runArbor, type RunResult } from "../support/process.js";
import { freePort, startRegistry, type TestRegistry } from "../support/registry.js";
import { restClient, type RestClient } from "../support/rest.js";
import { startTestServer, storeAt, type TestServer } from "../support/server.js";

const ROOT = join(import.meta.dirname, "../..");
const HELPER = join(ROOT, "bin/docker-credential-arbor.js");
const IMAGE = "localhost/arbor-test:latest";
const missing = missingContainerTools();
const engine = engines[0] as (typeof engines)[number];

describe("container tools", () => {
  it.runIf(process.env.CI === "true")("are installed under CI", () => {
    expect(missing).toBeUndefined();
  });
});

describe.skipIf(missing !== undefined)("the container image", () => {
  const suffix = `${process.pid}-${Date.now()}`;
  const container = `arbor-test-${suffix}`;
  const volume = `arbor-test-data-${suffix}`;
  const commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
  const timings: Record<string, number> = {};
  let imageId: string;
  let port: number;

  const timed = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    const start = Date.now();
    try {
      return await fn();
    } finally {
      timings[what] = Math.round((Date.now() - start) / 1000);
    }
  };

  beforeAll(async () => {
    const base = await timed("base image", testBaseImage);
    const previous = (await podman(["image", "inspect", "--format", "{{.Id}}", IMAGE])).stdout.trim();
    // Behind a TLS-intercepting proxy npm needs its CA: the one this process was told to trust.
    const ca = process.env.NODE_EXTRA_CA_CERTS;
    const caArgs =
      ca === undefined || ca === ""
        ? []
        : ["--volume", `${ca}:/run/extra-ca.crt:ro`, "--build-arg", "NODE_EXTRA_CA_CERTS=/run/extra-ca.crt"];
    await timed("image build", () =>
      must(
        podman([
          "build",
          "--format",
          "docker",
          ...ULIMITS,
          ...caArgs,
          "--build-arg",
          `BASE=${base.name}`,
          "--build-arg",
          `ARBOR_COMMIT=${commit}`,
          "-t",
          IMAGE,
          "-f",
          join(ROOT, "Containerfile"),
          ROOT,
        ]),
        "podman build",
      ),
    );
    imageId = (await must(podman(["image", "inspect", "--format", "{{.Id}}", IMAGE]), "podman image inspect")).trim();
    // The image this one replaced is nobody's now (its layers stay cached for the next build).
    if (previous !== "" && previous !== imageId) await podman(["rmi", previous]);
    port = await freePort();
    await must(podman(["volume", "create", volume]), "podman volume create");
    await must(
      podman(["run", "-d", "--name", container, ...ULIMITS, "-p", `127.0.0.1:${port}:8080`, "-v", `${volume}:/var/lib/arbor`, IMAGE]),
      "podman run",
    );
    console.warn(`container test timings (s): ${JSON.stringify(timings)}, base image ${base.built ? "built" : "reused"}`);
  }, 900_000);

  afterAll(async () => {
    await podman(["rm", "-f", "-t", "0", container]);
    await podman(["volume", "rm", "-f", volume]);
  });

  it("answers /ping, and says its version and commit", async () => {
    let ping: unknown;
    for (let i = 0; i < 150 && ping === undefined; i++) {
      ping = await fetch(`http://127.0.0.1:${port}/ping/v2beta1/ping`).then(
        (r) => r.json(),
        () => undefined,
      );
      if (ping === undefined) await new Promise((r) => setTimeout(r, 200));
    }
    expect(ping, (await podman(["logs", container])).stderr).toEqual({ response: "pong" });
    expect(await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()).toMatchObject({ status: "SERVING", commit });
    const logs = await podman(["logs", container]);
    expect(logs.stderr).toMatch(
      /^arbor \S+ \(commit [0-9a-f]{12}, node v24\.\S+\) listening on http:\/\/\*:8080; store SQLite \/var\/lib\/arbor\/arbor\.db; issuer http:\/\/localhost:8080$/m,
    );
  });

  it("runs arbor serve as PID 1, as a user that is not root, with its data on the volume", async () => {
    const exec = (args: string[]) => must(podman(["exec", container, ...args]), `podman exec ${args.join(" ")}`);
    expect((await exec(["id", "-u"])).trim()).toBe("10001");
    expect((await exec(["id", "-un"])).trim()).toBe("arbor");
    expect((await exec(["cat", "/proc/1/cmdline"])).split("\0")).toEqual(expect.arrayContaining(["serve"]));
    expect((await exec(["cat", "/proc/1/status"])).match(/^Uid:\s+(\d+)/m)?.[1]).toBe("10001");
    expect((await exec(["ls", "/var/lib/arbor"])).split("\n")).toContain("arbor.db");
    const mounts = JSON.parse(await must(podman(["inspect", "--format", "{{json .Mounts}}", container]), "podman inspect")) as {
      Name?: string;
      Destination: string;
    }[];
    expect(mounts).toEqual(expect.arrayContaining([expect.objectContaining({ Name: volume, Destination: "/var/lib/arbor" })]));
    expect(JSON.parse(await must(podman(["image", "inspect", "--format", "{{json .Config.Volumes}}", IMAGE]), "image inspect"))).toEqual({
      "/var/lib/arbor": {},
    });
  });

  it("is healthy by its HEALTHCHECK on /readyz", async () => {
    const test = JSON.parse(
      await must(podman(["image", "inspect", "--format", "{{json .Config.Healthcheck.Test}}", IMAGE]), "image inspect"),
    ) as string[];
    expect(test.join(" ")).toContain("/readyz");
    const check = await podman(["healthcheck", "run", container]);
    expect(check.code, check.stderr + check.stdout).toBe(0);
  });

  it("stops within a few seconds of SIGTERM, exiting 0", async () => {
    const start = Date.now();
    // SIGTERM, then SIGKILL after 10 s: a process that ignored SIGTERM would exit 137, late.
    await must(podman(["stop", "-t", "10", container]), "podman stop");
    const seconds = (Date.now() - start) / 1000;
    const code = (await must(podman(["inspect", "--format", "{{.State.ExitCode}}", container]), "podman inspect")).trim();
    expect(code).toBe("0");
    expect(seconds).toBeLessThan(5);
    expect((await podman(["logs", container])).stdout).toContain('"msg":"stopped"');
  });

  describe("through Arbor's registry", () => {
    let t: TestServer;
    let location: TestLocation;
    let registry: TestRegistry;
    let issuer: TestIssuer;
    let admin: RestClient;
    let work: string;
    let host: string;
    let authfile: string;
    const machines: Record<string, NodeJS.ProcessEnv> = {};
    const ok = (r: RunResult) => {
      expect(r.code, r.stderr).toBe(0);
      return r;
    };

    beforeAll(async () => {
      work = await mkdtemp(join(tmpdir(), "arbor-container-registry-"));
      host = `127.0.0.1:${await freePort()}`;
      location = await engine.location();
      const o = location.options;
      t = await startTestServer(engine, { ...storeAt(o), registryHost: host, allowHttpLoopbackIssuers: true });
      const yml = ok(
        await runArbor([
          "admin",
          "registry-config",
          "--listen",
          host,
          "--storage",
          join(work, "storage"),
          "--data-dir",
          o.dataDir as string,
          "--base-url",
          t.url,
          "--registry-host",
          host,
        ]),
      );
      await writeFile(join(work, "registry.yml"), yml.stdout, { mode: 0o600 });
      registry = await startRegistry(join(work, "registry.yml"), host);
      issuer = await startTestIssuer([t.url]);
      const acme = await t.organization("acme");
      admin = restClient(t, acme.token);
      const bin = join(work, "bin");
      await mkdir(bin);
      await symlink(HELPER, join(bin, "docker-credential-arbor"));
      authfile = join(work, "docker", "config.json");
      for (const [who, role] of [
        ["publisher", "registry.push"],
        ["deployer", "registry.pull"],
      ] as const) {
        const made = await admin.post(`/iam/v2beta1/identities/${acme.org.uid}`, {
          name: who,
          claimMatch: { issuer: issuer.url, subject: who },
        });
        expect(made.status, JSON.stringify(made.body)).toBe(200);
        const bound = await admin.post(`/iam/v2beta1/roleBindings/${acme.org.uid}`, {
          identityUid: made.body.uid,
          roleUid: builtinRoleUid(role),
        });
        expect(bound.status, JSON.stringify(bound.body)).toBe(200);
        const home = join(work, who);
        await mkdir(home, { recursive: true });
        const env = {
          ...process.env,
          XDG_CACHE_HOME: join(home, "cache"),
          XDG_CONFIG_HOME: join(home, "config"),
          ARBOR_API_URL: t.url,
          PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH}`,
        };
        machines[who] = env;
        await writeFile(join(home, "oidc-token"), await issuer.mint(who, t.url));
        ok(
          await runArbor(
            ["auth", "login", "--identity", made.body.uid as string, "--identity-token", join(home, "oidc-token")],
            env as Record<string, string>,
          ),
        );
        ok(await runArbor(["auth", "configure-docker", "--registry", host, "--docker-config", authfile], env as Record<string, string>));
      }
    }, 120_000);

    afterAll(async () => {
      await podman(["rmi", "-f", `${host}/acme/arbor:test`]);
      await registry?.stop();
      await issuer?.close();
      await t?.close();
      await location?.dispose();
      if (work) await rm(work, { recursive: true, force: true });
    });

    it("pushes the image with podman as the identity bound to registry.push, pulls it back as the one bound to registry.pull", async () => {
      const ref = `${host}/acme/arbor:test`;
      const digestFile = join(work, "digest");
      await must(
        podman(
          ["push", "--tls-verify=false", "--authfile", authfile, "--digestfile", digestFile, IMAGE, `docker://${ref}`],
          machines.publisher,
        ),
        "podman push",
      );
      const digest = (await readFile(digestFile, "utf8")).trim();
      expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      // Arbor indexed it from the registry's notification: a repo and a tag with that digest.
      let tags: Record<string, unknown>[] = [];
      for (let i = 0; i < 50 && tags.length === 0; i++) {
        const repo = ((await admin.get("/registry/v2beta1/repos")).body.repos as { name: string; uid: string }[]).find(
          (r) => r.name === "arbor",
        );
        if (repo !== undefined)
          tags = (await admin.get(`/registry/v2beta1/tags?uidp.children_of=${repo.uid}`)).body.tags as Record<string, unknown>[];
        if (tags.length === 0) await new Promise((r) => setTimeout(r, 100));
      }
      expect(tags).toMatchObject([{ name: "test", digest }]);

      // Every blob downloaded (skopeo checks each against its digest), the manifest as pushed.
      const copy = join(work, "pulled");
      const copied = await run(
        "skopeo",
        ["copy", "--src-tls-verify=false", "--authfile", authfile, `docker://${ref}`, `dir:${copy}`],
        machines.deployer,
      );
      expect(copied.code, copied.stderr).toBe(0);
      const manifest = await readFile(join(copy, "manifest.json"));
      expect(`sha256:${createHash("sha256").update(manifest).digest("hex")}`).toBe(digest);
      expect((JSON.parse(manifest.toString()) as { config: { digest: string } }).config.digest).toBe(`sha256:${imageId}`);
      // And podman's own pull: the same image, known by the pushed digest.
      const pulled = await podman(["pull", "--tls-verify=false", "--authfile", authfile, `docker://${ref}`], machines.deployer);
      expect(pulled.code, pulled.stderr).toBe(0);
      const [back] = JSON.parse(await must(podman(["image", "inspect", ref]), "image inspect")) as { Id: string; RepoDigests: string[] }[];
      expect(back?.Id).toBe(imageId);
      expect(back?.RepoDigests).toContain(`${host}/acme/arbor@${digest}`);
      // The identity that may only pull may not push.
      const refused = await podman(
        ["push", "--tls-verify=false", "--authfile", authfile, IMAGE, `docker://${host}/acme/other:test`],
        machines.deployer,
      );
      expect(refused.code).not.toBe(0);
    });
  });
});
