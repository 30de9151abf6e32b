/**
 * The one line a person reads when `arbor serve` starts (on stderr, beside the JSON logs on
 * stdout): what runs, where it listens, where its data lives and who issues its tokens. A
 * PostgreSQL URL is shown without its password and query (which may carry one), so the line is
 * safe to paste into a ticket.
 */
import { resolve } from "node:path";
import { BUILD_INFO, shortCommit, type BuildInfo } from "../build-info.js";
import { issuerUrlOf, type Config } from "../config.js";

/** Where the store is: the SQLite file, or PostgreSQL as user@host:port/database (schema), never the password. */
export function describeStore(config: Pick<Config, "dataDir" | "databaseUrl" | "databaseSchema">): string {
  if (config.databaseUrl === undefined || config.databaseUrl === "") return `SQLite ${resolve(config.dataDir, "arbor.db")}`;
  const url = URL.parse(config.databaseUrl);
  if (url === null) return "PostgreSQL";
  const user = url.username === "" ? "" : `${decodeURIComponent(url.username)}@`;
  const schema = config.databaseSchema === undefined ? "" : ` (schema ${config.databaseSchema})`;
  return `PostgreSQL ${user}${url.host}${url.pathname}${schema}`;
}

/** The address the server listens on, as a URL: every interface is `*`. */
export function listenAddress(config: Pick<Config, "host" | "tlsCert">, port: number): string {
  const scheme = config.tlsCert === undefined ? "http" : "https";
  const host = config.host === undefined || config.host === "" ? "*" : config.host.includes(":") ? `[${config.host}]` : config.host;
  return `${scheme}://${host}:${port}`;
}

/** The start-up line (without its newline). */
export function startupLine(
  config: Config,
  ports: { port: number; metricsPort: number | undefined },
  build: BuildInfo = BUILD_INFO,
): string {
  const metricsHost = (config.metricsAddress ?? "").replace(/:\d+$/, "") || "*";
  const metrics = ports.metricsPort === undefined ? "" : `, metrics on http://${metricsHost}:${ports.metricsPort}/metrics`;
  return (
    `arbor ${build.version} (commit ${shortCommit(build.commit)}, node ${process.version}) ` +
    `listening on ${listenAddress(config, ports.port)}${metrics}; ` +
    `store ${describeStore(config)}; issuer ${issuerUrlOf(config, ports.port)}`
  );
}
