/**
 * Helpers for token exchange tests: an Arbor server whose clock can be moved forward, a real
 * upstream issuer on loopback, and calls to `{auth_url}/sts/exchange` that remember every
 * upstream token used (so a test can check none reached the logs).
 */
import { expect } from "vitest";
import { publicReason } from "../../src/auth/exchange.js";
import type { Clock } from "../../src/domain/clock.js";
import type { TestEngine } from "./engines.js";
import { startTestIssuer, type TestIssuer } from "./oidc-issuer.js";
import { detailOf } from "./rest.js";
import { startTestServer, type TestServer } from "./server.js";
import type { Config } from "../../src/config.js";

/** The registry host the exchange servers are configured with. */
export const REGISTRY_HOST = "registry.test:5000";
/** An audience the test issuer mints for that no identity accepts by default. */
export const ELSEWHERE = "https://elsewhere.example";
/** A custom audience the test issuer mints for. */
export const CUSTOM_AUDIENCE = "arbor-ci";

/** The system clock plus an offset that tests move forward, or hold still. */
export interface MovableClock extends Clock {
  advance(ms: number): void;
  /** Stops the clock where it is (advance still moves it), so counts over time are exact. */
  freeze(): void;
  /** Lets it run again from where it stands. */
  thaw(): void;
}

/** The system clock, movable. */
export function movableClock(): MovableClock {
  let offset = 0;
  let frozenAt: number | undefined;
  return {
    now: () => frozenAt ?? Date.now() + offset,
    advance(ms) {
      if (frozenAt === undefined) offset += ms;
      else frozenAt += ms;
    },
    freeze() {
      frozenAt ??= Date.now() + offset;
    },
    thaw() {
      if (frozenAt === undefined) return;
      offset = frozenAt - Date.now();
      frozenAt = undefined;
    },
  };
}

/** An exchange server, its issuer, and a record of the upstream tokens used. */
export interface ExchangeSetup {
  t: TestServer;
  issuer: TestIssuer;
  clock: MovableClock;
  /** Every upstream token sent to the exchange. */
  used: Set<string>;
  /** How many log lines there were when the latest exchange call was made. */
  logMark: number;
  close(): Promise<void>;
}

/** Starts Arbor (http loopback issuers allowed, unless settings say otherwise) and an issuer minting for it. */
export async function startExchangeSetup(engine: TestEngine, settings: Partial<Config> = {}): Promise<ExchangeSetup> {
  const clock = movableClock();
  const t = await startTestServer(engine, { allowHttpLoopbackIssuers: true, registryHost: REGISTRY_HOST, ...settings }, { clock });
  const issuer = await startTestIssuer([t.url, REGISTRY_HOST, ELSEWHERE, CUSTOM_AUDIENCE]);
  return {
    t,
    issuer,
    clock,
    used: new Set(),
    logMark: 0,
    async close() {
      await issuer.close();
      await t.close();
    },
  };
}

/** One exchange call's parameters; an undefined token sends no Authorization header. */
export interface ExchangeCall {
  token: string | undefined;
  aud?: string;
  identity?: string;
  method?: "GET" | "POST";
}

/** Calls the exchange: parameters in the query for GET, in a form body for POST. */
export async function callExchange(s: ExchangeSetup, call: ExchangeCall): Promise<Response> {
  const params = new URLSearchParams();
  if (call.aud !== undefined) params.set("aud", call.aud);
  if (call.identity !== undefined) params.set("identity", call.identity);
  const headers: Record<string, string> = {};
  s.logMark = s.t.logs.length;
  if (call.token !== undefined) {
    s.used.add(call.token);
    headers.authorization = `Bearer ${call.token}`;
  }
  if (call.method === "POST") {
    headers["content-type"] = "application/x-www-form-urlencoded";
    return s.t.fetch("/sts/exchange", { method: "POST", headers, body: params.toString() });
  }
  return s.t.fetch(`/sts/exchange?${params}`, { headers });
}

/** Asserts a refusal: 401, WWW-Authenticate: Bearer, a Status with code 16 and this reason. */
export async function expectRefused(res: Response, reason: string): Promise<Record<string, any>> {
  const body = (await res.json()) as Record<string, any>;
  expect({ status: res.status, authenticate: res.headers.get("www-authenticate"), code: body.code, message: body.message }).toEqual({
    status: 401,
    authenticate: "Bearer",
    code: 16,
    message: `Unauthenticated: ${reason}`,
  });
  expect(detailOf(body, "google.rpc.ErrorInfo")).toMatchObject({ reason: "UNAUTHENTICATED", domain: "iam.localhost" });
  return body;
}

/** The reason the access log gives for the latest exchange call (waits for its line). */
export async function loggedReason(s: ExchangeSetup): Promise<unknown> {
  for (let i = 0; i < 50; i++) {
    const line = s.t.logs.slice(s.logMark).findLast((l) => typeof l.rpc === "string" && l.rpc.endsWith("/sts/exchange"));
    if (line !== undefined) return line.reason;
    await new Promise((r) => setTimeout(r, 10));
  }
  return undefined;
}

/** What the caller is told for a refusal logged as `<check>: <reason>`. */
export function publicFor(logged: string): string {
  const i = logged.indexOf(": ");
  return publicReason({ check: logged.slice(0, i), passed: false, reason: logged.slice(i + 2) });
}
