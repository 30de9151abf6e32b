/**
 * What a subscription may say. Arbor POSTs to the sink from inside the operator's network, so
 * the sink is held to what an issuer is held to (domain/issuer-address.ts): https, no
 * credentials in the URL, an IP literal only where the operator allows it (names are checked
 * again, resolved, at each delivery). Sizes are bounded: a subscription is read on every pass.
 */
import { invalidArgument } from "./errors.js";
import type { Updatable } from "./field-mask.js";
import { hostProblem, isLoopbackHost, type AddressRules } from "./issuer-address.js";
import type { SubscriptionSettings } from "./event-subscriptions.js";

/** The longest sink URL accepted. */
export const MAX_SINK_LENGTH = 2048;
/** At most this many type patterns, each at most MAX_TYPE_LENGTH characters. */
export const MAX_TYPES = 32;
export const MAX_TYPE_LENGTH = 256;

/**
 * At most this many subscriptions per organization: each is looked at on every delivery pass
 * and costs a connection while it delivers.
 */
export const MAX_SUBSCRIPTIONS_PER_ORGANIZATION = 100;

/** A CloudEvents type or a prefix of one: reverse-DNS words, `.`-separated. */
const TYPE = /^[a-z0-9][a-z0-9_.-]*$/;

/** What an update may change on a subscription. */
export const subscriptionUpdatable: Updatable = {
  mutable: ["sink", "types", "include_descendants"],
  outputOnly: ["uid", "creator", "create_time", "update_time", "last_delivery_time", "last_error", "pending"],
};

/** The sinks an operator allows: loopback (http too) and private addresses only when set. */
export type SinkPolicy = AddressRules;

/** Throws INVALID_ARGUMENT (`sink`) unless sink is a URL Arbor may deliver to under policy. */
export function validateSink(sink: string, policy: SinkPolicy): void {
  if (sink === "") throw invalidArgument("sink", "is required");
  if (sink.length > MAX_SINK_LENGTH) throw invalidArgument("sink", `must be at most ${MAX_SINK_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(sink);
  } catch {
    throw invalidArgument("sink", "must be an absolute URL");
  }
  const loopbackHttp = url.protocol === "http:" && policy.allowLoopback && isLoopbackHost(url.hostname);
  if (url.protocol !== "https:" && !loopbackHttp) {
    throw invalidArgument("sink", `must be an https:// URL${policy.allowLoopback ? ", or http:// on loopback" : ""}`);
  }
  if (url.username !== "" || url.password !== "") throw invalidArgument("sink", "must not carry credentials");
  if (url.hash !== "") throw invalidArgument("sink", "must not have a fragment");
  if (url.hostname === "localhost" && !policy.allowLoopback) throw invalidArgument("sink", "is a loopback address");
  const problem = hostProblem(url.hostname, policy);
  if (problem !== undefined) throw invalidArgument("sink", problem);
}

/** Throws INVALID_ARGUMENT (`types`) unless types is a bounded list of type patterns. */
export function validateTypes(types: readonly string[]): void {
  if (types.length > MAX_TYPES) throw invalidArgument("types", `at most ${MAX_TYPES} types`);
  for (const t of types) {
    if (t.length > MAX_TYPE_LENGTH) throw invalidArgument("types", `each type must be at most ${MAX_TYPE_LENGTH} characters`);
    if (!TYPE.test(t)) throw invalidArgument("types", `"${t}" must match ${TYPE.source}`);
  }
}

/** Throws INVALID_ARGUMENT unless settings may be stored under policy. */
export function validateSubscription(settings: SubscriptionSettings, policy: SinkPolicy): void {
  validateSink(settings.sink, policy);
  validateTypes(settings.types);
}

/** Whether a subscription with these type patterns takes an event of type (a `.`-ended pattern is a prefix). */
export function typeMatches(patterns: readonly string[], type: string): boolean {
  if (patterns.length === 0) return true;
  return patterns.some((p) => (p.endsWith(".") ? type.startsWith(p) : type === p));
}
