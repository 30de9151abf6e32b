/**
 * What `arbor __complete KIND PREFIX LINE` prints: the names of a kind that start with PREFIX.
 * Contexts come from the settings file; groups, identities and roles from the server the command
 * line would talk to (its --context and --api), one list page asked with the login it would use,
 * within a short timeout, and kept a short while (completion-cache.ts). A shell waits for this at
 * every TAB, so nothing here may be slow or noisy: offline, logged out or anything else going
 * wrong, it offers nothing. It never renews a token either: a renewal cut short by the timeout
 * could lose a refresh token, and with it the login.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { createHash } from "node:crypto";
import { MAX_NAME_LENGTH, NAME_PATTERN } from "../../domain/names.js";
import { join } from "node:path";
import { createApiClient } from "../api/api-client.js";
import { resolveClientConfig, type ClientConfig } from "../auth/client-config.js";
import { TokenCache } from "../auth/token-cache.js";
import { clientFilePath, readClientFile } from "../config/client-file.js";
import { contextNames } from "../config/contexts.js";
import { IDENTITY_LOOKUP, ROLE_LOOKUP } from "../iam/lookups.js";
import { GROUP_LOOKUP } from "../resource/group-lookup.js";
import type { Lookup } from "../resource/spec.js";
import type { DynamicKind } from "./command-tree.js";
import { CompletionCache } from "./completion-cache.js";

/** How long the server may take to answer. */
export const COMPLETION_TIMEOUT_MS = 1000;

/**
 * What a name may be (the API's rule): anything else a server sends, newlines or shell syntax, is
 * not offered, since the shell would put it on the command line.
 */
const NAME = new RegExp(NAME_PATTERN);

/** The server's largest page: completion asks for one. */
const PAGE_SIZE = 200;

const LOOKUPS: Readonly<Record<Exclude<DynamicKind, "contexts">, Lookup>> = {
  groups: GROUP_LOOKUP,
  identities: IDENTITY_LOOKUP,
  roles: ROLE_LOOKUP,
};

/** A completion question. */
export interface CompleteRequest {
  kind: DynamicKind;
  /** What is typed of the value. */
  prefix: string;
  /** The command line up to the cursor, for its --context and --api. */
  line: string;
  env: Readonly<Record<string, string | undefined>>;
  now: () => number;
  timeoutMs?: number;
  ttlMs?: number;
}

/** The names to offer, sorted; none when they cannot be had quickly. */
export async function completeValues(request: CompleteRequest): Promise<string[]> {
  try {
    const names = await namesOf(request);
    return [...new Set(names.filter((n) => n.startsWith(request.prefix)))].sort();
  } catch {
    return [];
  }
}

async function namesOf(request: CompleteRequest): Promise<string[]> {
  const flags = lineFlags(request.line);
  const env = flags.context === undefined ? request.env : { ...request.env, ARBOR_CONTEXT: flags.context };
  if (request.kind === "contexts") return contextNames(readClientFile(clientFilePath(env)));
  const config = resolveClientConfig({ ...(flags.api !== undefined && { api: flags.api }) }, env);
  const login = await loginOf(config, request.now());
  if (login === undefined) return [];
  const cache = new CompletionCache(join(config.cacheRoot, "completion"), request.now, request.ttlMs);
  const cached = await cache.get(config.api, login.identity, request.kind);
  if (cached !== undefined) return cached;
  const lookup = LOOKUPS[request.kind];
  const api = createApiClient({
    baseUrl: config.api,
    token: () => Promise.resolve(login.token),
    timeoutMs: request.timeoutMs ?? COMPLETION_TIMEOUT_MS,
  });
  const answer = (await api.call(lookup.service, lookup.listRpc, { pageSize: PAGE_SIZE })) as JsonObject;
  const items = answer[lookup.items];
  const names = Array.isArray(items)
    ? items
        .map((i) => (i as JsonObject | null)?.name)
        .filter((n): n is string => typeof n === "string" && NAME.test(n) && n.length <= MAX_NAME_LENGTH)
    : [];
  await cache.put(config.api, login.identity, request.kind, names);
  return names;
}

/** The token a command would send and whose it is, when it has one without renewing. */
async function loginOf(config: ClientConfig, now: number): Promise<{ token: string; identity: string } | undefined> {
  const fixed = config.env.ARBOR_TOKEN?.trim();
  if (fixed !== undefined && fixed !== "") return { token: fixed, identity: subjectOf(fixed) };
  const cache = new TokenCache(config.cacheDir, config.api);
  const [token, session] = await Promise.all([cache.readToken(config.api), cache.readSession()]);
  if (token === undefined || session === undefined || !(Date.parse(token.expiry) > now)) return undefined;
  return { token: token.token, identity: session.identity };
}

/** The JWT's subject, unverified (it only names a cache file), else a digest of the token. */
function subjectOf(token: string): string {
  try {
    const sub = (JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")) as { sub?: unknown }).sub;
    if (typeof sub === "string" && sub !== "") return sub;
  } catch {
    // Not a JWT: the digest below.
  }
  return `token:${createHash("sha256").update(token).digest("hex")}`;
}

/** The --context and --api values on a command line (`--api URL` or `--api=URL`). */
export function lineFlags(line: string): { context?: string; api?: string } {
  const words = line
    .trim()
    .split(/\s+/)
    .map((w) => w.replace(/^(["'])(.*)\1$/, "$2"));
  const out: { context?: string; api?: string } = {};
  for (let i = 0; i < words.length; i++) {
    const m = /^--(context|api)(?:=(.*))?$/.exec(words[i] as string);
    if (m === null) continue;
    const value = m[2] ?? words[i + 1];
    if (value !== undefined && value !== "") out[m[1] as "context" | "api"] = value;
  }
  return out;
}
