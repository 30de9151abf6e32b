/**
 * The baseline of S6: a plain @grpc/grpc-js server (h2c) whose ListGroups answers every call
 * with the same ListGroupsResponse bytes Arbor answered. Its own process, like Arbor.
 * Usage: node grpc-plain-server.js '{"port":…,"response":"<base64>"}'; prints "ready".
 */
import { Server, ServerCredentials, type ServiceDefinition, type handleUnaryCall } from "@grpc/grpc-js";
import { rawUnaryMethod } from "../lib/grpc-raw.js";

const spec = JSON.parse(process.argv[2] ?? "{}") as { port: number; response: string };
const response = Buffer.from(spec.response, "base64");
const service: ServiceDefinition = { ListGroups: rawUnaryMethod("/arbor.iam.v2beta1.GroupsService/ListGroups") };
const listGroups: handleUnaryCall<Buffer, Buffer> = (_call, callback) => callback(null, response);
const server = new Server();
server.addService(service, { ListGroups: listGroups });
server.bindAsync(`127.0.0.1:${spec.port}`, ServerCredentials.createInsecure(), (err) => {
  if (err) throw err;
  process.stdout.write("ready\n");
});
process.on("SIGTERM", () => server.tryShutdown(() => process.exit(0)));
