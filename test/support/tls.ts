/**
 * A throwaway self-signed certificate for localhost and 127.0.0.1, written to a temporary folder.
 */
import { webcrypto } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "reflect-metadata";
import * as x509 from "@peculiar/x509";

/** Paths of the PEM files, and the certificate's PEM for clients to trust. */
export interface TestCertificate {
  certFile: string;
  keyFile: string;
  certPem: string;
  /** The private key's PEM (for a proxy that wants certificate and key in one file). */
  keyPem: string;
}

/** Makes a self-signed certificate valid for an hour. */
export async function selfSignedCertificate(): Promise<TestCertificate> {
  x509.cryptoProvider.set(webcrypto as never);
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
  const keys = await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"]);
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name: "CN=localhost",
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 3_600_000),
    keys: keys as never,
    signingAlgorithm: alg,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.SubjectAlternativeNameExtension([
        { type: "dns", value: "localhost" },
        { type: "ip", value: "127.0.0.1" },
      ]),
    ],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey));
  const keyPem = `-----BEGIN PRIVATE KEY-----\n${pkcs8
    .toString("base64")
    .replace(/(.{64})/g, "$1\n")
    .trim()}\n-----END PRIVATE KEY-----\n`;
  const dir = mkdtempSync(join(tmpdir(), "arbor-tls-"));
  const certPem = cert.toString("pem");
  const certFile = join(dir, "cert.pem");
  const keyFile = join(dir, "key.pem");
  writeFileSync(certFile, certPem);
  writeFileSync(keyFile, keyPem, { mode: 0o600 });
  return { certFile, keyFile, certPem, keyPem };
}
