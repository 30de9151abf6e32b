/**
 * `arbor serve`: the server, until SIGTERM or SIGINT, then a graceful shutdown.
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
  logger.info({ url: server.url, port: server.port, store: server.store.engine, version: BUILD_INFO.version, commit: BUILD_INFO.commit }, "arbor is serving");
  // For the person at the terminal: stdout is for log collectors, this line is for reading.
  if (config.logLevel !== "silent") process.stderr.write(`${startupLine(config, server)}\n`);
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
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
}
