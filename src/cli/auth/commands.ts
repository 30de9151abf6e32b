/**
 * The `arbor auth` command group: log in (a person through the browser, here or, headless, on
 * another device, or a workload with its platform's OIDC token), print a valid token, show the login's status, log out. Each loads its
 * code when it runs (the login's loopback server imports node:http, which is slow to load).
 */
import { Command, Option } from "commander";
import { UsageError } from "../usage-error.js";
import { DEFAULT_CONTEXT } from "../config/client-file.js";
import { DEFAULT_API_URL, resolveClientConfig, type ClientConfig, type ClientFlags } from "./client-config.js";
import { addPullTokenCommand } from "./pull-token.js";

type Env = Readonly<Record<string, string | undefined>>;

/** How long `arbor auth login` waits for the browser by default, in seconds (--headless waits until its code expires). */
export const DEFAULT_LOGIN_TIMEOUT_S = 300;

function withClientOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option("--api <url>", `the Arbor API, {base_url} (ARBOR_API_URL; default ${DEFAULT_API_URL})`))
    .addOption(new Option("--issuer <url>", "the token issuer, {auth_url} (ARBOR_ISSUER_URL; default the API URL)"));
}

/** Adds `arbor auth` and its commands to program; env gives ARBOR_API_URL, XDG_CACHE_HOME, HOME and PATH. */
export function addAuthCommands(program: Command, env: Env): void {
  const auth = program
    .command("auth")
    .description("log in to an Arbor server and print API tokens")
    .addHelpText(
      "after",
      "\nTokens are cached in $XDG_CACHE_HOME/arbor/contexts (else ~/.cache/arbor/contexts), per context, API URL\n" +
        "and audience: each context (arbor config get-contexts) has logins of its own.\n\n" +
        "Examples:\n  arbor auth login\n  arbor auth status\n",
    );
  const say = (text: string) => process.stderr.write(`${text}\n`);

  withClientOptions(
    auth
      .command("login")
      .description(
        "log in: as a person through the browser (--headless: a browser on another device), " +
          "or as a workload with --identity and --identity-token",
      )
      .option("--org <name>", "log in through this organization's identity provider (its name or uid)")
      .option("--invite <code>", "redeem a group invite code: its role binding is created at login")
      .option(
        "--headless",
        "log in with a browser on another device (over SSH, in a container): print a code and a page to enter it on, then wait",
      )
      .option(
        "--no-browser",
        "do not open a browser; only print the URL to open in a browser on this machine " +
          "(it returns to 127.0.0.1 here; on another machine use --headless)",
      )
      .option("--identity <uid>", "a workload: assume this identity (with --identity-token)")
      .option("--identity-token <file>", "a workload: the file holding its platform's OIDC token (with --identity)")
      .addOption(
        new Option(
          "--timeout <seconds>",
          `how long to wait for the browser (default: ${DEFAULT_LOGIN_TIMEOUT_S}; with --headless, until the code expires)`,
        ).argParser(seconds),
      )
      .addHelpText(
        "after",
        "\nExamples:\n" +
          "  arbor auth login\n" +
          "  arbor auth login --org acme --invite arbinv_...\n" +
          "  arbor auth login --no-browser --api https://arbor.example.com\n" +
          "  arbor auth login --headless --org acme\n" +
          "  arbor auth login --identity <identity uid> --identity-token /var/run/secrets/tokens/oidc-token\n",
      ),
  ).action(
    async (
      opts: ClientFlags & {
        org?: string;
        invite?: string;
        browser: boolean;
        headless?: boolean;
        identity?: string;
        identityToken?: string;
        timeout?: number;
      },
    ) => {
      const config = resolveClientConfig(opts, env);
      if ((opts.identity === undefined) !== (opts.identityToken === undefined))
        throw new UsageError("--identity and --identity-token go together");
      if (opts.identity !== undefined) {
        if (opts.org !== undefined || opts.invite !== undefined || opts.headless === true)
          throw new UsageError("--org, --invite and --headless are for people; a workload logs in with --identity alone");
        const { workloadLogin } = await import("./workload-login.js");
        const identity = await workloadLogin(config, opts.identity, opts.identityToken as string);
        say(`Logged in to ${config.api}${contextNote(config)} as ${identity}.`);
        return;
      }
      let identity: string;
      if (opts.headless === true) {
        const { deviceLogin } = await import("./device-login.js");
        identity = await deviceLogin(config, {
          org: opts.org,
          invite: opts.invite,
          timeoutMs: opts.timeout === undefined ? undefined : opts.timeout * 1000,
          say,
        });
      } else {
        const { browserLogin } = await import("./browser-login.js");
        identity = await browserLogin(config, {
          org: opts.org,
          invite: opts.invite,
          noBrowser: !opts.browser,
          timeoutMs: (opts.timeout ?? DEFAULT_LOGIN_TIMEOUT_S) * 1000,
          say,
        });
      }
      const { describePerson } = await import("./person-login.js");
      say(`Logged in to ${config.api}${contextNote(config)} as ${await describePerson(config, identity)}.`);
    },
  );

  withClientOptions(
    auth
      .command("token")
      .description("print a valid API token, renewing it when it expires within a minute")
      .option("--audience <aud>", "the token's audience: the API URL (default) or the registry host")
      .addHelpText(
        "after",
        "\nExamples:\n" +
          '  curl -H "Authorization: Bearer $(arbor auth token)" http://localhost:8080/iam/v2beta1/groups\n' +
          "  arbor auth token --audience registry.example.com\n",
      ),
  ).action(async (opts: ClientFlags & { audience?: string }) => {
    const config = resolveClientConfig(opts, env);
    const { validToken } = await import("./tokens.js");
    process.stdout.write(`${(await validToken(config, opts.audience)).token}\n`);
  });

  withClientOptions(
    auth
      .command("configure-docker")
      .description("make docker (and skopeo, podman) get registry credentials from docker-credential-arbor")
      .option("--registry <host>", "the registry host, {registry_host} (ARBOR_REGISTRY_HOST)")
      .option("--docker-config <path>", "the docker config file or folder (default $DOCKER_CONFIG/config.json, else ~/.docker/config.json)")
      // Its first name, kept for scripts: elsewhere --config names Arbor's own settings file.
      .addOption(new Option("--config <path>").hideHelp())
      .addHelpText(
        "after",
        '\nAdds credHelpers[<host>] = "arbor" to the docker config, keeping everything else, and records\n' +
          "which Arbor the registry belongs to. docker-credential-arbor must be on PATH (npm installs it\n" +
          "beside arbor); log in first with arbor auth login.\n\n" +
          "Examples:\n" +
          "  arbor auth configure-docker --registry registry.example.com\n" +
          "  docker push registry.example.com/acme/team/app:1.0\n" +
          "  arbor auth configure-docker --registry registry.example.com --docker-config ./ci-docker-config.json\n",
      ),
  ).action(async (opts: ClientFlags & { registry?: string; dockerConfig?: string; config?: string }) => {
    const { configureDocker } = await import("./configure-docker.js");
    const docker = opts.dockerConfig ?? opts.config;
    const result = await configureDocker(resolveClientConfig(opts, env), { ...opts, ...(docker !== undefined && { config: docker }) });
    say(
      result.changed
        ? `Docker now gets credentials for ${result.host} from docker-credential-arbor (${result.file}).`
        : `${result.file} already uses docker-credential-arbor for ${result.host}.`,
    );
    if (!result.helperOnPath) say("Note: docker-credential-arbor is not on PATH; docker will not find it there.");
  });

  withClientOptions(
    auth
      .command("status")
      .description("show who you are logged in as, until when, and your role bindings")
      .option("--json", "print JSON")
      .addHelpText("after", "\nExamples:\n  arbor auth status\n  arbor auth status --json | jq .roleBindings\n"),
  ).action(async (opts: ClientFlags & { json?: boolean }) => {
    const config = resolveClientConfig(opts, env);
    const { authStatus, statusText } = await import("./status.js");
    const status = await authStatus(config);
    process.stdout.write(opts.json ? `${JSON.stringify(status, null, 2)}\n` : statusText(status, config.api));
  });

  withClientOptions(
    auth
      .command("logout")
      .description("revoke the login at the server and delete the cached tokens")
      .addHelpText("after", "\nExamples:\n  arbor auth logout\n  arbor auth logout --api https://arbor.example.com\n"),
  ).action(async (opts: ClientFlags) => {
    const config = resolveClientConfig(opts, env);
    const { logout } = await import("./logout.js");
    say(
      (await logout(config))
        ? `Logged out of ${config.api}${contextNote(config)}.`
        : `Not logged in to ${config.api}${contextNote(config)}; nothing to do.`,
    );
  });

  addPullTokenCommand(auth, env);
}

/** Which context a login belongs to, when it is not the default one (each has its own). */
function contextNote(config: ClientConfig): string {
  return config.context === DEFAULT_CONTEXT ? "" : ` (context ${config.context})`;
}

function seconds(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1) throw new UsageError(`--timeout: "${text}" is not a positive number of seconds`);
  return n;
}
