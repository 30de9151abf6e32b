/**
 * `arbor serve`: the server, until SIGTERM or SIGINT, then a graceful shutdown; SIGHUP reloads
 * the TLS certificate and key.
 */
import { pino } from "pino";
import type { Config } from "../config.js";
import { BUILD_INFO } from "../build-info.js";
import { startServer } from "../server/server.js";
import { startupLine } from "./startup-line.js";

/** Runs the server until a termination signal. */
export async function serve(config: Config): Promise<void> {
  const logger = pino({ level: config.logLevel, base: { service: "arbor" } });
  const server = await startServer(config, { logger });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down: finishing in-flight requests");
    server.close().then(
      () => {
        logger.info("stopped");
        process.exit(0);
      },
      (e: unknown) => {
        logger.error({ err: e }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  // SIGHUP reloads, as for nginx and HAProxy, whether or not there is anything to reload: its
  // default action would stop the server.
  process.on("SIGHUP", () => {
    try {
      const certificate = server.reloadTls();
      if (certificate === undefined) logger.info({ signal: "SIGHUP" }, "nothing to reload: the server serves cleartext");
      else logger.info({ signal: "SIGHUP", certificate }, "TLS certificate reloaded: new connections use it");
    } catch (e) {
      logger.error({ signal: "SIGHUP", err: e }, "TLS certificate not reloaded: the current one stays in use");
    }
  });
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
  // Only now, with the signals handled: whoever waits for this line (a supervisor, a test) may
  // signal at once, and a signal before its handler would kill the process outright.
  logger.info(
    { url: server.url, port: server.port, store: server.store.engine, version: BUILD_INFO.version, commit: BUILD_INFO.commit },
    "arbor is serving",
  );
  // For the person at the terminal: stdout is for log collectors, this line is for reading.
  if (config.logLevel !== "silent") process.stderr.write(`${startupLine(config, server)}\n`);
}
