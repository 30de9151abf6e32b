/**
 * `arbor admin`: acts directly on the store, so whoever can read the data directory or the
 * database owns the installation, and a fresh install is usable in one command. Works while the
 * server runs.
 */
import { Code, isApiError } from "../domain/errors.js";
import { adminIdentityUid, userIdentityUid } from "../domain/identities.js";
import { systemClock } from "../domain/clock.js";
import type { GroupRecord } from "../domain/groups.js";
import { isUid } from "../domain/uid.js";
import { baseUrlOf, issuerUrlOf, type Config } from "../config.js";
import { GroupSchema } from "../gen/arbor/iam/v2beta1/groups_pb.js";
import { groupMessage } from "../services/iam/groups-service.js";
import { createOrganization, ensureOwner } from "../services/iam/groups-store-ops.js";
import { cryptoIds, openCore, type Core } from "../server/server.js";
import { toApiJson } from "../server/rest/json.js";
import { readServedUrls } from "../server/served-urls.js";
import type { SettingsStore } from "../store/settings-store.js";
import { announceStore, type StoreNeed } from "./store-access.js";
import { UsageError } from "./usage-error.js";

/** Options of `arbor admin bootstrap`. */
export interface BootstrapOptions {
  org: string;
  description?: string;
  issuer?: string;
  subject?: string;
}

/** Creates (or finds) the organization and prints it as JSON; optionally makes a person its owner. */
export async function bootstrap(config: Config, options: BootstrapOptions): Promise<string> {
  if ((options.issuer === undefined) !== (options.subject === undefined)) {
    throw new UsageError("--issuer and --subject go together");
  }
  return withCore(config, "may-create", async (core) => {
    const org = await findOrCreate(core, options.org, options.description ?? "");
    if (options.issuer !== undefined && options.subject !== undefined) {
      await ensureOwner(core.deps, org.uid, userIdentityUid(options.issuer, options.subject));
    }
    return JSON.stringify(toApiJson(GroupSchema, groupMessage(org)), null, 2);
  });
}

/** Options of `arbor admin token`: exactly one of org and identity. */
export interface AdminTokenOptions {
  org?: string;
  identity?: string;
  audience?: string;
}

/**
 * Prints a one-hour token: for an organization's local administrator (an owner of it), or for any
 * existing identity, which then holds exactly what its role bindings grant (operators, tests).
 */
export async function adminToken(config: Config, options: AdminTokenOptions): Promise<string> {
  const { org, identity } = options;
  if ((org === undefined) === (identity === undefined)) throw new UsageError("give exactly one of --org and --identity");
  if (identity !== undefined && !isUid(identity)) {
    throw new UsageError(`--identity: "${identity}" is not a valid uid (40 lowercase hex characters, then /16 hex per level)`);
  }
  return withCore(config, "existing", async (core) => {
    await refuseForeignIssuer(core.store.settings, config, options.audience === undefined);
    const audience = options.audience ?? baseUrlOf(config);
    if (identity !== undefined) {
      // The server refuses a token whose subject is not an identity: say so now, not at first use.
      if ((await core.store.identities.get(identity)) === undefined) {
        throw new UsageError(`--identity: no identity has the uid ${identity} (a person has one from their first login)`);
      }
      return (await core.tokens.issue(identity, audience, { iss: "arbor:admin", sub: identity })).token;
    }
    const found = await core.store.groups.findOrganization(org as string);
    if (!found) throw new UsageError(`there is no organization named "${org}"; create it with: arbor admin bootstrap --org "${org}"`);
    const admin = adminIdentityUid(found.uid);
    await ensureOwner(core.deps, found.uid, admin);
    return (await core.tokens.issue(admin, audience, { iss: "arbor:admin", sub: found.uid })).token;
  });
}

/**
 * Makes a new token signing key the active one at once (a suspected leak, a policy); the keys it
 * replaces stay in the JWKS until the tokens they signed have expired. Prints the new kid and when
 * the old keys retire, as JSON.
 */
export async function rotateSigningKey(config: Config): Promise<string> {
  return withCore(config, "existing", async (core) => {
    const { kid, retireTime } = await core.keys.rotate();
    return JSON.stringify({ kid, previousKeysRetireTime: new Date(retireTime).toISOString() }, null, 2);
  });
}

async function findOrCreate(core: Core, name: string, description: string): Promise<GroupRecord> {
  const existing = await core.store.groups.findOrganization(name);
  if (existing) return existing;
  try {
    return await createOrganization(core.deps, { name, description }, adminIdentityUid);
  } catch (e) {
    // Another bootstrap won the race: the organization exists now.
    if (isApiError(e) && e.code === Code.ALREADY_EXISTS) {
      const raced = await core.store.groups.findOrganization(name);
      if (raced) return raced;
    }
    throw e;
  }
}

/**
 * A token the server would refuse is worse than none: it fails every call with 401, far from
 * here. The issuer (and, unless --audience is given, the base URL) this command would mint for
 * must be what the latest server start over this store recorded; a store no server has started
 * over since has nothing recorded, and the configured values are used.
 */
export async function refuseForeignIssuer(settings: Pick<SettingsStore, "get">, config: Config, checkAudience: boolean): Promise<void> {
  const served = await readServedUrls(settings);
  if (served === undefined) return;
  const mine = { issuer: issuerUrlOf(config), baseUrl: baseUrlOf(config) };
  const hint =
    "give this command the server's settings " +
    "(--issuer-url/ARBOR_ISSUER_URL, --base-url/ARBOR_BASE_URL, --port/ARBOR_PORT, or its --config file)";
  if (served.issuer !== mine.issuer) {
    throw new UsageError(
      `the server over this store issues tokens as ${served.issuer}, ` +
        `but this command would mint them as ${mine.issuer}, which it refuses: ${hint}`,
    );
  }
  if (checkAudience && served.baseUrl !== mine.baseUrl) {
    throw new UsageError(
      `the server over this store answers as ${served.baseUrl}, ` +
        `but this command would mint tokens for ${mine.baseUrl}, which it refuses: ${hint}, or --audience`,
    );
  }
}

async function withCore<T>(config: Config, need: StoreNeed, fn: (core: Core) => Promise<T>): Promise<T> {
  await announceStore(config, need);
  // What start changed (modes tightened, secrets sealed) goes to stderr, apart from the output.
  const notice = (message: string, fields: Record<string, unknown>) =>
    process.stderr.write(`arbor: ${message} ${JSON.stringify(fields)}\n`);
  const core = await openCore(config, systemClock, cryptoIds, () => issuerUrlOf(config), undefined, undefined, notice);
  try {
    return await fn(core);
  } finally {
    await core.store.close();
  }
}
