/**
 * `arbor serve` reloads its TLS certificate and key on SIGHUP: new connections get the new
 * certificate, and a pair that cannot be used is logged while the old one stays in use.
 */
import { X509Certificate } from "node:crypto";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tls from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveArbor, type ServeProcess } from "../support/process.js";
import { selfSignedCertificate, type TestCertificate } from "../support/tls.js";

/** The fingerprint of the certificate a new TLS connection to port is served. */
function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect(
      { port, host: "127.0.0.1", servername: "localhost", rejectUnauthorized: false, ALPNProtocols: ["h2"] },
      () => {
        const { fingerprint256 } = socket.getPeerCertificate();
        expect(socket.alpnProtocol).toBe("h2");
        socket.end();
        resolve(fingerprint256);
      },
    );
    socket.once("error", reject);
  });
}

const fingerprintOf = (c: TestCertificate) => new X509Certificate(c.certPem).fingerprint256;

/** Resolves with the first log line after index from that has message msg. */
async function logLine(serve: ServeProcess, from: number, msg: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const line = serve.lines.slice(from).find((l) => l.msg === msg);
    if (line) return line;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no log line "${msg}"; lines: ${JSON.stringify(serve.lines.slice(from))}`);
}

describe("arbor serve: TLS reload on SIGHUP", () => {
  const dir = mkdtempSync(join(tmpdir(), "arbor-tls-reload-"));
  const certFile = join(dir, "tls.crt");
  const keyFile = join(dir, "tls.key");
  let first: TestCertificate;
  let serve: ServeProcess;

  const install = (c: TestCertificate) => {
    copyFileSync(c.certFile, certFile);
    copyFileSync(c.keyFile, keyFile);
  };

  beforeAll(async () => {
    first = await selfSignedCertificate();
    install(first);
    serve = await serveArbor(["--data-dir", join(dir, "data"), "--tls-cert", certFile, "--tls-key", keyFile]);
  });
  afterAll(async () => {
    serve?.child.kill("SIGTERM");
    await serve?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves a new certificate to new connections after SIGHUP, and keeps it when the next pair is broken", async () => {
    expect(await servedFingerprint(serve.port)).toBe(fingerprintOf(first));

    const second = await selfSignedCertificate();
    install(second);
    // Files replaced but no signal yet: still the first.
    expect(await servedFingerprint(serve.port)).toBe(fingerprintOf(first));
    let from = serve.lines.length;
    serve.child.kill("SIGHUP");
    const reloaded = await logLine(serve, from, "TLS certificate reloaded: new connections use it");
    expect(reloaded.certificate).toMatchObject({ subject: "CN=localhost", fingerprint256: fingerprintOf(second) });
    expect(await servedFingerprint(serve.port)).toBe(fingerprintOf(second));

    // A key that is not the certificate's: refused, logged, the second pair stays.
    const third = await selfSignedCertificate();
    copyFileSync(third.keyFile, keyFile);
    from = serve.lines.length;
    serve.child.kill("SIGHUP");
    const refused = await logLine(serve, from, "TLS certificate not reloaded: the current one stays in use");
    expect(refused.level).toBe(50);
    expect(await servedFingerprint(serve.port)).toBe(fingerprintOf(second));

    // A file that is not PEM at all, and a missing one: the same.
    writeFileSync(certFile, "not a certificate");
    from = serve.lines.length;
    serve.child.kill("SIGHUP");
    await logLine(serve, from, "TLS certificate not reloaded: the current one stays in use");
    rmSync(keyFile);
    from = serve.lines.length;
    serve.child.kill("SIGHUP");
    const missing = await logLine(serve, from, "TLS certificate not reloaded: the current one stays in use");
    expect(JSON.stringify(missing.err)).toContain(`cannot read the TLS key ${keyFile}`);
    expect(await servedFingerprint(serve.port)).toBe(fingerprintOf(second));
    expect(serve.child.exitCode).toBeNull();
  });
});
