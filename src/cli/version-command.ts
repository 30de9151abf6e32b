/**
 * `arbor version`: this command's version and commit, and the server's, as `kubectl version`
 * does. The server's come from its unauthenticated `/healthz` (which says nothing more about the
 * build), at the API URL the other commands use (--api, ARBOR_API_URL, the settings file).
 * Without a reachable server it prints the client's and fails, so a script notices; `--client`
 * asks for the client's alone.
 */
import { Option, type Command } from "commander";
import { BUILD_INFO, type BuildInfo } from "../build-info.js";
import { DEFAULT_API_URL, resolveClientConfig } from "./auth/client-config.js";
import type { CliIo } from "./output/io.js";
import { withExamples } from "./resource/help-text.js";

/** How long the server may take to answer. */
const SERVER_TIMEOUT_MS = 5_000;

const VERSION_TEXT = /^[0-9A-Za-z.+-]{1,64}$/;
const COMMIT_TEXT = /^(?:[0-9a-f]{7,64}|unknown)$/;

/** What `-o json` prints. */
interface VersionReport {
  client: BuildInfo & { node: string };
  server?: BuildInfo & { url: string };
}

/** Asks the server at api for its version and commit; throws a sentence when it cannot. */
export async function serverBuildInfo(api: string, fetchFn: typeof fetch = fetch): Promise<BuildInfo> {
  let res: Response;
  try {
    res = await fetchFn(`${api}/healthz`, { signal: AbortSignal.timeout(SERVER_TIMEOUT_MS), redirect: "error" });
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    throw new Error(`cannot reach the server at ${api}: ${cause ?? (e as Error).message}`, { cause: e });
  }
  const body = (await res.json().catch(() => undefined)) as Partial<Record<keyof BuildInfo, unknown>> | undefined;
  // What is printed to the terminal must be what a version looks like: a server (or whatever
  // answers at that URL) cannot slip escape sequences into the user's terminal this way.
  if (
    !res.ok ||
    typeof body?.version !== "string" ||
    typeof body.commit !== "string" ||
    !VERSION_TEXT.test(body.version) ||
    !COMMIT_TEXT.test(body.commit)
  ) {
    throw new Error(`the server at ${api} did not say its version (GET /healthz answered ${res.status})`);
  }
  return { version: body.version, commit: body.commit };
}

export function addVersionCommand(program: Command, io: CliIo): void {
  const cmd = program
    .command("version")
    .description("print this command's version and commit, and the server's")
    .addOption(new Option("--api <url>", `the Arbor API (ARBOR_API_URL, settings file; default ${DEFAULT_API_URL})`))
    .addOption(new Option("--client", "print only this command's version; ask no server"))
    .addOption(new Option("-o, --output <format>", "text or json").choices(["text", "json"]).default("text"));
  withExamples(cmd, ["arbor version", "arbor version --client", "arbor version -o json --api https://arbor.example.com"]);
  cmd.action(async (opts: { api?: string; client?: boolean; output: "text" | "json" }) => {
    const report: VersionReport = { client: { ...BUILD_INFO, node: process.version } };
    const print = () =>
      io.stdout.write(
        opts.output === "json"
          ? `${JSON.stringify(report, null, 2)}\n`
          : `client: ${report.client.version} (commit ${report.client.commit}, node ${report.client.node})\n` +
              (report.server === undefined
                ? ""
                : `server: ${report.server.version} (commit ${report.server.commit}) at ${report.server.url}\n`),
      );
    if (opts.client === true) return void print();
    const { api } = resolveClientConfig({ ...(opts.api !== undefined && { api: opts.api }) }, io.env);
    try {
      report.server = { ...(await serverBuildInfo(api)), url: api };
    } finally {
      print();
    }
  });
}
