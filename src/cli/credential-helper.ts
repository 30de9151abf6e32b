/**
 * `docker-credential-arbor`: docker's credential-helper protocol (`get`, `store`, `erase`,
 * `list`) in front of the CLI's login (DESIGN 1.9). `get` reads a registry's address on stdin
 * and answers user `_token` with an Arbor token for that registry host, from the login of
 * `arbor auth login` (a person's, or a workload's with --identity). Tokens are minted, never
 * stored: `store` and `erase` accept and forget.
 *
 * Errors go to stdout and exit 1, as the protocol asks; "credentials not found in native
 * keychain" is the one message docker reads as "no credentials" (it then goes on anonymously).
 */
import { UsageError } from "./usage-error.js";
import { resolveClientConfig } from "./auth/client-config.js";
import { ServerError, UnreachableError } from "./auth/http.js";
import { readRegistries, registriesPath, registryHostOf } from "./auth/registries.js";
import { AuthError, validToken } from "./auth/tokens.js";
import { VERSION } from "./version.js";

/** The message docker treats as "no credentials for this registry". */
export const NOT_FOUND = "credentials not found in native keychain";

/** What the helper reads and writes. */
export interface HelperIo {
  stdin: AsyncIterable<Buffer | string>;
  stdout: { write(text: string): unknown };
  env: Readonly<Record<string, string | undefined>>;
}

const HELP = `Usage: docker-credential-arbor <get|store|erase|list|version>

Docker's credential helper for registries behind Arbor: 'get' reads the registry's address on
stdin and prints user _token with an Arbor token for that registry, from your arbor login.
'store' and 'erase' accept and forget (tokens are minted, not stored); 'list' prints the
registries set up with 'arbor auth configure-docker'.

Examples:
  arbor auth login && arbor auth configure-docker --registry registry.example.com
  echo registry.example.com | docker-credential-arbor get
  docker-credential-arbor list
`;

/** Runs one helper command; the exit code. */
export async function runCredentialHelper(args: readonly string[], io: HelperIo): Promise<number> {
  const [command] = args;
  try {
    switch (command) {
      case "get":
        io.stdout.write(`${JSON.stringify(await get((await readAll(io.stdin)).trim(), io.env))}\n`);
        return 0;
      case "store":
      case "erase":
        await readAll(io.stdin);
        return 0;
      case "list":
        io.stdout.write(`${JSON.stringify(await list(io.env))}\n`);
        return 0;
      case "version":
      case "--version":
        io.stdout.write(`docker-credential-arbor ${VERSION}\n`);
        return 0;
      case "--help":
      case "-h":
      case "help":
        io.stdout.write(HELP);
        return 0;
      case undefined:
      default:
        io.stdout.write(`unknown command ${JSON.stringify(command ?? "")}\n${HELP}`);
        return 1;
    }
  } catch (e) {
    if (e instanceof AuthError) {
      io.stdout.write(`${NOT_FOUND}\n`);
      return 1;
    }
    // Docker shows what a failing helper printed; a person can act on the message.
    const known = e instanceof UsageError || e instanceof ServerError || e instanceof UnreachableError;
    io.stdout.write(`docker-credential-arbor: ${known ? e.message : ((e as Error).message ?? String(e))}\n`);
    return 1;
  }
}

/** The credentials for the registry at serverUrl; AuthError when there is no login to use. */
async function get(serverUrl: string, env: HelperIo["env"]): Promise<{ ServerURL: string; Username: string; Secret: string }> {
  if (serverUrl === "") throw new UsageError("get reads the registry's address on stdin");
  const host = registryHostOf(serverUrl);
  const fallback = resolveClientConfig({}, env);
  // A registry set up with configure-docker names its Arbor; any other uses the CLI's default.
  const known = (await readRegistries(registriesPath(fallback.configFile)))[host];
  const config =
    known === undefined
      ? fallback
      : resolveClientConfig(
          { api: known.api, issuer: known.issuer },
          known.context === undefined ? env : { ...env, ARBOR_CONTEXT: known.context },
        );
  const token = await validToken(config, host);
  return { ServerURL: serverUrl, Username: "_token", Secret: token.token };
}

/** The configured registries, as the protocol lists them: address to user name. */
async function list(env: HelperIo["env"]): Promise<Record<string, string>> {
  const registries = await readRegistries(registriesPath(resolveClientConfig({}, env).configFile));
  return Object.fromEntries(Object.keys(registries).map((host) => [host, "_token"]));
}

async function readAll(stream: AsyncIterable<Buffer | string>): Promise<string> {
  let text = "";
  for await (const chunk of stream) text += chunk.toString();
  return text;
}
