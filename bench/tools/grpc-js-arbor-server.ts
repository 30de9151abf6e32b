/**
 * The second baseline of S6: a dedicated @grpc/grpc-js server (h2c, its own port, its own
 * process) running Arbor's own services through Arbor's own call pipeline (authentication,
 * authorization, the store, the access log line and metrics), on the same data as the Arbor
 * server it stands in for. What it measures against Arbor is the transport alone: grpc-js on a
 * port of its own versus Connect on Arbor's shared port. It logs as `arbor serve` does: the same
 * pino logger, level and base, written asynchronously as pino's default destination writes
 * (`arbor serve` gives pino none), and a line with the same fields as Arbor's access log line
 * (src/server/http/http-handler.ts `finish`), but into logTo rather than stdout, which is the pipe
 * that carries "ready" to the harness: the harness gives both servers /dev/null.
 * Usage: node grpc-js-arbor-server.js '{"port":…,"env":{"ARBOR_DATA_DIR":…},"logTo":"/dev/null"}'; prints "ready".
 */
import { performance } from "node:perf_hooks";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { Server, ServerCredentials, status, type ServiceDefinition, type UntypedHandleCall } from "@grpc/grpc-js";
import { pino } from "pino";
import { resolveConfig } from "../../src/config.js";
import { systemClock } from "../../src/domain/clock.js";
import { toApiError } from "../../src/server/errors-to-wire.js";
import { createInvoker } from "../../src/server/invoker.js";
import { createMetrics } from "../../src/server/metrics/metrics.js";
import { createRequestLimits } from "../../src/server/http/request-limits.js";
import { toApiJson } from "../../src/server/rest/json.js";
import { cryptoIds, openCore } from "../../src/server/server.js";
import { createAuditTrail } from "../../src/services/audit/audit-trail.js";
import { Authorizer } from "../../src/auth/authorizer.js";
import { createEscalationGuard } from "../../src/services/iam/escalation-guard.js";
import { createServices } from "../../src/services/routes.js";
import { rawUnaryMethod } from "../lib/grpc-raw.js";

const spec = JSON.parse(process.argv[2] ?? "{}") as { port: number; env: Record<string, string>; logTo: string };
const config = resolveConfig({ env: spec.env });
const base = config.baseUrl ?? `http://127.0.0.1:${spec.port}`;
const core = await openCore(
  config,
  systemClock,
  cryptoIds,
  () => config.issuerUrl ?? base,
  () => base,
);
const services = createServices(core.deps);
const invoker = createInvoker({
  services,
  tokens: core.tokens,
  authorizer: new Authorizer(core.store.bindings, core.store.identities, { allowOrgCreation: config.allowOrgCreation }),
  audience: () => base,
  audit: createAuditTrail(core.deps, toApiJson),
  atomically: (fn) => core.store.atomically(fn),
  guard: createEscalationGuard(core.store),
  limits: createRequestLimits(config, systemClock),
});
const logger = pino({ level: config.logLevel, base: { service: "arbor" } }, pino.destination({ dest: spec.logTo, sync: false }));
const metrics = createMetrics();

const server = new Server();
for (const binding of services) {
  const definition: Record<string, ServiceDefinition[string]> = {};
  const handlers: Record<string, UntypedHandleCall> = {};
  for (const method of binding.service.methods) {
    if (method.methodKind !== "unary") continue;
    const path = `/${binding.service.typeName}/${method.name}`;
    definition[method.name] = rawUnaryMethod(path);
    handlers[method.name] = ((
      call: { request: Buffer; metadata: { get(k: string): unknown[] }; getPeer(): string },
      callback: (err: unknown, res?: Buffer) => void,
    ) => {
      const start = performance.now();
      const record: { rpc?: string; caller?: string } = {};
      const finish = (code: number) => {
        const seconds = (performance.now() - start) / 1000;
        const rpc = record.rpc ?? method.name;
        metrics.observe(rpc, "grpc", code, seconds);
        const line = {
          transport: "grpc",
          method: "POST",
          path,
          rpc,
          status: 200,
          code,
          duration_ms: Math.round(seconds * 1e6) / 1e3,
          address: peerAddress(call.getPeer()),
          ...(record.caller !== undefined && { caller: record.caller }),
        };
        logger.info(line, "request");
      };
      const authorization = call.metadata.get("authorization")[0];
      invoker
        .invoke({
          method,
          request: fromBinary(method.input, call.request),
          authorization: typeof authorization === "string" ? authorization : undefined,
          signal: new AbortController().signal,
          record,
        })
        .then(
          (response) => {
            finish(0);
            callback(null, Buffer.from(toBinary(method.output, response)));
          },
          (e: unknown) => {
            const err = toApiError(e);
            finish(err.code);
            callback({ code: err.code as status, details: err.message });
          },
        );
    }) as UntypedHandleCall;
  }
  server.addService(definition, handlers);
}
/** The peer's host, as Arbor's line gives its client's address: "ipv4:127.0.0.1:5000" or "127.0.0.1:5000" gives "127.0.0.1". */
function peerAddress(peer: string): string {
  const bare = peer.replace(/^ipv[46]:/, "");
  const colon = bare.lastIndexOf(":");
  return (colon < 0 ? bare : bare.slice(0, colon)).replace(/^\[(.*)\]$/, "$1");
}

server.bindAsync(`127.0.0.1:${spec.port}`, ServerCredentials.createInsecure(), (err) => {
  if (err) throw err;
  process.stdout.write("ready\n");
});
process.on("SIGTERM", () => server.tryShutdown(() => void core.store.close().then(() => process.exit(0))));
