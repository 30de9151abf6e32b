/**
 * A mixed load for the soak run, in a worker thread: reads (get a group, list a page), writes
 * (create, rename, delete groups, so the store neither grows nor empties) and token exchanges,
 * 70/20/10. Closed loop (`connections` clients back to back) to measure capacity, or open loop
 * (`rate` requests a second, whatever the answers do) to hold a load. Reports every window.
 */
import http from "node:http";
import { parentPort, workerData } from "node:worker_threads";

/** What to run. */
export interface MixedLoadSpec {
  base: string;
  token: string;
  org: string;
  /** Upstream ID token and identity for the exchanges. */
  exchange: { upstreamToken: string; identity: string };
  seconds: number;
  /** Open loop at this many requests a second; else closed loop with `connections` clients. */
  rate?: number;
  connections: number;
  windowMs: number;
}

/** One window's figures. */
export interface LoadWindow {
  /** Seconds since the start, at the window's end. */
  t: number;
  requests: number;
  errors: number;
  /** Requests the open loop could not send because too many were in flight. */
  shed: number;
  p50: number;
  p99: number;
  /** A few of the window's errors (status and start of the body). */
  samples: string[];
}

const MAX_IN_FLIGHT = 512;

function run(spec: MixedLoadSpec): Promise<void> {
  // A timeout makes Node's agent heed the server's `Keep-Alive: timeout=5`: an idle socket is
  // dropped a second before the time the server announced. Without one the agent keeps idle sockets for
  // ever and, now and then, sends on one the server is closing (ECONNRESET after 6 s idle): a
  // client's race, not the server's error.
  const agent = new http.Agent({ keepAlive: true, maxSockets: Math.max(spec.connections, 64), timeout: 60_000 });
  const created: string[] = [];
  let counter = 0;
  let inFlight = 0;
  // Names unique to this run: runs against one store never collide.
  const run = `soak-${Math.random().toString(36).slice(2, 8)}`;
  let window = fresh();
  const start = performance.now();
  const auth = { authorization: `Bearer ${spec.token}` };

  function fresh() {
    return { requests: 0, errors: 0, shed: 0, latencies: [] as number[], samples: [] as string[] };
  }

  function request(method: string, path: string, headers: Record<string, string>, body?: string): Promise<void> {
    inFlight++;
    const t0 = performance.now();
    return new Promise((resolve) => {
      const done = (status: number, text: string) => {
        inFlight--;
        window.requests++;
        window.latencies.push(performance.now() - t0);
        if (status !== 200) {
          window.errors++;
          if (window.samples.length < 3) window.samples.push(`${method} ${path.split("?")[0]} -> ${status} ${text.slice(0, 160)}`);
        }
        resolve();
      };
      const req = http.request(
        `${spec.base}${path}`,
        { method, headers: { ...headers, ...(body && { "content-type": "application/json" }) }, agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString();
            // A group is back in the pool once its create or rename has answered.
            if (res.statusCode === 200 && (method === "POST" || method === "PATCH") && path.startsWith("/iam/v2beta1/groups/"))
              created.push((JSON.parse(text) as { uid: string }).uid);
            done(res.statusCode ?? 0, text);
          });
        },
      );
      req.on("error", (e) => done(0, e.message));
      req.end(body);
    });
  }

  function next(): Promise<void> {
    const i = counter++;
    const kind = i % 10;
    if (kind < 7) {
      return i % 2 === 0
        ? request("GET", `/iam/v2beta1/groups/${spec.org}`, auth)
        : request("GET", `/iam/v2beta1/groups?uidp.children_of=${spec.org}&page_size=20`, auth);
    }
    if (kind < 9) {
      const pick = i % 3;
      if (pick === 0 || created.length < 20)
        return request("POST", `/iam/v2beta1/groups/${spec.org}`, auth, JSON.stringify({ name: `${run}-${i}` }));
      // Taken out of the pool while in flight, so no two requests race on one group.
      const uid = created.shift() as string;
      if (pick === 1) return request("PATCH", `/iam/v2beta1/groups/${uid}`, auth, JSON.stringify({ description: `seen ${i}` }));
      return request("DELETE", `/iam/v2beta1/groups/${uid}`, auth);
    }
    const q = `aud=${encodeURIComponent(spec.base)}&identity=${encodeURIComponent(spec.exchange.identity)}`;
    return request("GET", `/sts/exchange?${q}`, { authorization: `Bearer ${spec.exchange.upstreamToken}` });
  }

  const flush = () => {
    const w = window;
    window = fresh();
    w.latencies.sort((a, b) => a - b);
    const pct = (p: number) => w.latencies[Math.min(w.latencies.length - 1, Math.floor(p * w.latencies.length))] ?? 0;
    const out: LoadWindow = {
      t: (performance.now() - start) / 1000,
      requests: w.requests,
      errors: w.errors,
      shed: w.shed,
      p50: pct(0.5),
      p99: pct(0.99),
      samples: w.samples,
    };
    parentPort?.postMessage({ window: out });
  };
  const report = setInterval(flush, spec.windowMs);

  const until = start + spec.seconds * 1000;
  const finished = (async () => {
    if (spec.rate === undefined) {
      await Promise.all(
        Array.from({ length: spec.connections }, async () => {
          while (performance.now() < until) await next();
        }),
      );
      return;
    }
    // Open loop: send what the schedule says is due every tick, whatever came back.
    let sent = 0;
    while (performance.now() < until) {
      const due = Math.floor(((performance.now() - start) / 1000) * spec.rate);
      for (; sent < due; sent++) {
        if (inFlight >= MAX_IN_FLIGHT) window.shed++;
        else void next();
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    while (inFlight > 0) await new Promise((r) => setTimeout(r, 10));
  })();
  return finished.finally(() => {
    clearInterval(report);
    // The last, partial window (a whole run shorter than a window is one).
    if (window.requests > 0 || window.shed > 0) flush();
    agent.destroy();
  });
}

if (parentPort) {
  await run(workerData as MixedLoadSpec);
  parentPort.postMessage({ done: true });
}
