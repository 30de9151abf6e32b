/**
 * Events survive kill -9 (issue 21): the built server on each engine, a subscription to a slow
 * receiver, groups created one after another, SIGKILL at a random moment while events are
 * committed but not yet delivered, restart on the same store. Every acknowledged change's event
 * must reach the receiver (at least once), first deliveries in the order of the changes.
 * Needs the build (`npm test` builds first).
 */
import { createLocalJWKSet, type JSONWebKeySet } from "jose";
import { describe, expect, it } from "vitest";
import { engines } from "../support/engines.js";
import { startEventReceiver } from "../support/event-receiver.js";
import { runArbor, serveArbor } from "../support/process.js";
import { seededRandom } from "../support/crash/writers.js";
import { runSeed } from "../support/run-seed.js";

const ROUNDS = 2;
const SEED = runSeed("CRASH_SEED", process.env.CRASH_SEED, 20_261_126);
const ISSUER = "http://events-crash.test";

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`events through kill -9 [${engine.name}]`, () => {
    it(`delivers every acknowledged change's event over ${ROUNDS} kills (seed ${SEED})`, async () => {
      const location = await engine.location();
      const store = location.options;
      const env: Record<string, string> = {
        ARBOR_DATA_DIR: store.dataDir,
        ARBOR_BASE_URL: ISSUER,
        ARBOR_ALLOW_HTTP_LOOPBACK_SINKS: "true",
        ...(store.databaseUrl !== undefined && { ARBOR_DATABASE_URL: store.databaseUrl }),
        ...(store.schema !== undefined && { ARBOR_DATABASE_SCHEMA: store.schema }),
      };
      const random = seededRandom(SEED);
      const acknowledged: string[] = [];
      let backlog = 0;
      let receiver: Awaited<ReturnType<typeof startEventReceiver>> | undefined;
      try {
        const made = await runArbor(["admin", "bootstrap", "--org", "crash"], env);
        expect(made.code, made.stderr).toBe(0);
        const org = (JSON.parse(made.stdout) as { uid: string }).uid;
        const token = (await runArbor(["admin", "token", "--org", "crash"], env)).stdout.trim();
        const call = (base: string, path: string, body: unknown) =>
          fetch(`${base}${path}`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: JSON.stringify(body),
          });

        for (let round = 0; round <= ROUNDS; round++) {
          const served = await serveArbor([], env);
          const base = `http://127.0.0.1:${served.port}`;
          if (receiver === undefined) {
            // The keys live in the store, so those of the first run verify every later run's tokens.
            const jwks = (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
            receiver = await startEventReceiver(ISSUER, "/crash", createLocalJWKSet(jwks), 20);
            const sub = await call(base, `/events/v2beta1/subscriptions/${org}`, {
              sink: receiver.url,
              types: ["dev.arbor.api.iam.group."],
              includeDescendants: true,
            });
            expect(sub.status, await sub.clone().text()).toBe(200);
          }
          if (round === ROUNDS) {
            // The last run writes nothing: it only has to deliver what the kills left behind.
            const seen = receiver;
            const missing = () => {
              const got = new Set(seen.accepted.map((r) => r.event.subject));
              return acknowledged.filter((uid) => !got.has(uid));
            };
            await expect.poll(missing, { timeout: 30_000, interval: 100 }).toEqual([]);
            served.child.kill("SIGTERM");
            await served.exited;
            break;
          }
          let killed = false;
          const writing = (async () => {
            for (let i = 0; !killed; i++) {
              try {
                const res = await call(base, `/iam/v2beta1/groups/${org}`, { name: `r${round}-${i}` });
                if (res.status === 200) acknowledged.push(((await res.json()) as { uid: string }).uid);
              } catch {
                return;
              }
            }
          })();
          await new Promise((r) => setTimeout(r, 400 + random() * 800));
          killed = true;
          served.child.kill("SIGKILL");
          await served.exited;
          await writing;
          // Committed before the kill, not yet delivered: the backlog the next run must send.
          backlog += acknowledged.length - new Set(receiver.accepted.map((r) => r.event.subject)).size;
        }
        // A change killed between its commit and its answer was made but never acknowledged:
        // its event may come too, in its place.
        const firsts: string[] = [];
        for (const r of receiver?.accepted ?? []) if (!firsts.includes(r.event.subject as string)) firsts.push(r.event.subject as string);
        expect(firsts.filter((uid) => acknowledged.includes(uid))).toEqual(acknowledged);
        expect(firsts.length - acknowledged.length).toBeLessThanOrEqual(ROUNDS);
        expect(receiver?.refused).toEqual([]);
        // The kills did come between commits and deliveries (the receiver is slower than the writes).
        expect(backlog).toBeGreaterThan(0);
      } finally {
        await receiver?.close();
        await location.dispose();
      }
    }, 120_000);
  });
}
