/**
 * `arbor auth pull-token`: a long-lived credential that can pull from the registry and do nothing
 * else, for machines that pull without a person or a platform OIDC token (a build host, a cluster
 * of another cloud). What exists makes it safely: a new identity with static keys, bound to the
 * built-in registry.pull role at one group, and one token signed by a key pair made here. The
 * private key is never written anywhere: it signs that token and is gone, so the only credential
 * is the token, valid until the identity's keys expire (at most 365 days), revoked by deleting the
 * identity. The token is no API token: the machine exchanges it for short-lived ones
 * (`arbor auth login --identity UID --identity-token FILE`, then docker-credential-arbor).
 */
import { randomBytes } from "node:crypto";
import { open } from "node:fs/promises";
import type { JsonObject } from "@bufbuild/protobuf";
import { Option, type Command } from "commander";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from "jose";
import { UsageError } from "../usage-error.js";
import { IDENTITIES } from "../iam/identities.js";
import { ROLE_STEP } from "../iam/identity-role.js";
import { processIo } from "../output/process-io.js";
import { printData } from "../output/print.js";
import { commandContext, withCommonOptions, type CommonFlags } from "../resource/context.js";
import { withExamples } from "../resource/help-text.js";
import { parentGroup } from "../resource/write-commands.js";
import { resolveClientConfig } from "./client-config.js";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The issuer of pull tokens' static keys: a name, never fetched (static keys need no discovery),
 * under the reserved .invalid domain so it can be no real issuer an identity elsewhere trusts.
 */
export const PULL_TOKEN_ISSUER = "https://pull-token.arbor.invalid";
/** The role the identity gets. */
const PULL_ROLE = "registry.pull";
const DAY_S = 86_400;
/** The static keys' limit (domain/static-keys-rules.ts). */
const MAX_TTL_S = 365 * DAY_S;
const DEFAULT_TTL = "30d";

type Flags = CommonFlags & { parent?: string; name?: string; ttl: string; tokenFile?: string; issuer?: string };

/** Adds `pull-token` under auth. */
export function addPullTokenCommand(auth: Command, env: Env): void {
  const cmd = auth
    .command("pull-token")
    .description("make a long-lived credential that can only pull from the registry: an identity with registry.pull and its token")
    .addOption(new Option("--parent <group>", "the group it may pull below, a name or uid (default: the default group)"))
    .addOption(new Option("--name <name>", "the identity's name (default pull-token-<random>)"))
    .addOption(new Option("--ttl <duration>", "how long the token is valid: <n>d or <n>h, at most 365d").default(DEFAULT_TTL))
    .addOption(new Option("--token-file <file>", "write the token to this new file (mode 0600) instead of stdout"))
    .addOption(new Option("--issuer <url>", "the token issuer, {auth_url}: the token's audience (ARBOR_ISSUER_URL; default the API URL)"));
  withCommonOptions(cmd);
  withExamples(
    cmd,
    [
      "arbor auth pull-token --parent acme --ttl 90d --token-file pull.jwt",
      "# on the machine that pulls:\n" +
        "  arbor auth login --identity <identity uid> --identity-token pull.jwt\n" +
        "  arbor auth configure-docker --registry registry.example.com\n" +
        "  docker pull registry.example.com/acme/app:1.0",
      "arbor iam identities delete pull-token-3f9c2a1b   # revokes it",
    ],
    "Needs identity.create and role_bindings.create at the group. The token is signed by a key made for it\n" +
      "and then forgotten; Arbor keeps only the public key. Whoever holds the token can pull below the group\n" +
      "until it expires or the identity is deleted. Without --token-file the token alone goes to stdout and\n" +
      "the identity's uid to stderr; -o json or yaml prints both.",
  );
  cmd.action(async (flags: Flags) => {
    const io = processIo(env);
    const ttl = ttlSeconds(flags.ttl);
    const ctx = commandContext(flags, io);
    const audience = resolveClientConfig({ api: flags.api, issuer: flags.issuer }, env).issuer;
    const parent = await parentGroup(ctx, IDENTITIES, flags.parent);
    const bind = await ROLE_STEP.prepare(ctx, PULL_ROLE);
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), alg: "ES256", use: "sig" };
    const kid = await calculateJwkThumbprint(jwk);
    const subject = `pull-token:${kid}`;
    const now = Math.floor(Date.now() / 1000);
    const expires = now + ttl;
    const identity: JsonObject = {
      name: flags.name ?? `pull-token-${randomBytes(4).toString("hex")}`,
      description: `registry pull token (arbor auth pull-token), until ${new Date(expires * 1000).toISOString()}`,
      staticKeys: {
        issuer: PULL_TOKEN_ISSUER,
        subject,
        issuerKeys: JSON.stringify({ keys: [{ ...jwk, kid }] }),
        expirationTime: new Date(expires * 1000).toISOString(),
      },
    };
    const created = (await ctx.api.call(IDENTITIES.service, "createIdentity", {
      identity,
      ...(parent !== undefined && { parent }),
    })) as JsonObject;
    await bind(created);
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: "ES256", kid, typ: "JWT" })
      .setIssuer(PULL_TOKEN_ISSUER)
      .setSubject(subject)
      .setAudience(audience)
      .setIssuedAt(now)
      .setExpirationTime(expires)
      .sign(privateKey);
    const uid = String(created.uid);
    if (flags.tokenFile !== undefined) await writeNewFile(flags.tokenFile, `${token}\n`);
    const report = {
      identity: uid,
      name: String(created.name),
      expirationTime: new Date(expires * 1000).toISOString(),
      ...(flags.tokenFile === undefined ? { token } : { tokenFile: flags.tokenFile }),
    };
    if (flags.output === "json" || flags.output === "yaml") {
      printData(io, flags.output, report, [uid]);
      return;
    }
    if (flags.tokenFile === undefined) io.stdout.write(`${token}\n`);
    io.stderr.write(
      `Identity ${report.name} (${uid}) can pull below its group until ${report.expirationTime}.\n` +
        `Use it with: arbor auth login --identity ${uid} --identity-token ${flags.tokenFile ?? "<file holding the token>"}\n`,
    );
  });
}

/** `30d`, `12h` as seconds, within the static keys' limit. */
export function ttlSeconds(text: string): number {
  const m = /^(\d{1,6})([dh])$/.exec(text);
  const seconds = m === null ? NaN : Number(m[1]) * (m[2] === "d" ? DAY_S : 3600);
  if (!(seconds >= 3600 && seconds <= MAX_TTL_S))
    throw new UsageError(`--ttl: "${text}" is not a duration from 1h to 365d, such as 30d or 12h`);
  return seconds;
}

/** Writes text to a new file only readers of its owner may read; never over an existing one. */
async function writeNewFile(path: string, text: string): Promise<void> {
  const file = await open(path, "wx", 0o600).catch((e: unknown) => {
    if ((e as { code?: string }).code === "EEXIST") throw new UsageError(`--token-file: ${path} exists: give a new file`);
    throw e;
  });
  try {
    await file.writeFile(text);
  } finally {
    await file.close();
  }
}
