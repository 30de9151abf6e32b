/**
 * The baseline of S1: a bare node:http server answering every request with the same bytes
 * (body and content type) Arbor answers the GET with. Its own process, like Arbor.
 * Usage: node bare-server.js '{"port":…,"body":…,"contentType":…}'; prints "ready" when listening.
 */
import http from "node:http";

const spec = JSON.parse(process.argv[2] ?? "{}") as { port: number; body: string; contentType: string };
const body = Buffer.from(spec.body);
const server = http.createServer((req, res) => {
  req.resume();
  res.writeHead(200, { "content-type": spec.contentType, "content-length": String(body.length) });
  res.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(spec.port, "127.0.0.1", () => process.stdout.write("ready\n"));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
