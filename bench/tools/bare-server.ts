/**
 * The baseline of S1: a bare node:http server answering every request with the same bytes
 * (body and content type) Arbor answers the GET with. Its own process, like Arbor.
 * Usage: node bare-server.js '{"port":…,"body":…,"contentType":…}'; prints "ready" when listening.
 * With `"workUs": n` it first spins for n microseconds of each request, in place of a real
 * server's own work (bench/tools/s1-calibration.ts): S1 itself never sets it.
 */
import http from "node:http";

const spec = JSON.parse(process.argv[2] ?? "{}") as { port: number; body: string; contentType: string; workUs?: number };
const body = Buffer.from(spec.body);
const workNs = BigInt(Math.round((spec.workUs ?? 0) * 1000));
const server = http.createServer((req, res) => {
  req.resume();
  if (workNs > 0n) {
    const until = process.hrtime.bigint() + workNs;
    while (process.hrtime.bigint() < until);
  }
  res.writeHead(200, { "content-type": spec.contentType, "content-length": String(body.length) });
  res.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(spec.port, "127.0.0.1", () => process.stdout.write("ready\n"));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
