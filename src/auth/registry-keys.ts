/**
 * The credentials Arbor shares with the registry (DESIGN 1.9), kept in the settings table so every
 * replica uses the same ones and `arbor admin registry-config` can write them out:
 *
 * - the ES256 key that signs registry tokens, with a self-signed certificate of it. Distribution
 *   2.8 has no JWKS support: it trusts the certificates of its `rootcertbundle` and takes the
 *   signing key from the token's `x5c` header.
 * - the secret Distribution sends with its notifications (`Authorization: Bearer <secret>`),
 *   stored as is because the configuration command must print it.
 * - Distribution's own `http.secret`, so that every registry replica configured from the same
 *   store shares it (it signs upload state between the client and the registry).
 *
 * Each is created once by whichever process needs it first; racing replicas settle on the first
 * insert (see the settings store).
 */
import { randomBytes, webcrypto } from "node:crypto";
import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import { importPKCS8, type CryptoKey } from "jose";
import type { Clock } from "../domain/clock.js";
import { internal } from "../domain/errors.js";
import type { SettingsStore } from "../store/settings-store.js";

/** The settings rows, by purpose. */
export const REGISTRY_SETTINGS = {
  signingKey: "registry_token_signing_key",
  notificationsSecret: "registry_notifications_secret",
  httpSecret: "registry_http_secret",
} as const;

/** How long the signing certificate is valid: rotation is an operator's decision (docs/registry.md). */
export const CERTIFICATE_VALIDITY_MS = 10 * 365 * 24 * 60 * 60 * 1000;

/** The key that signs registry tokens, and its certificate. */
export interface RegistrySigningKey {
  key: CryptoKey;
  /** The certificate, PEM: what the registry's rootcertbundle holds. */
  certificatePem: string;
  /** The certificate, DER in base64: the token header's `x5c` entry. */
  certificateDer: string;
}

interface StoredKey {
  privateKeyPem: string;
  certificatePem: string;
}

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };

/** The signing key and certificate, created on first use. */
export async function registrySigningKey(settings: SettingsStore, clock: Clock): Promise<RegistrySigningKey> {
  // The settings store takes a synchronous maker, so a candidate is made before asking. It costs
  // a key pair and a signature, once per process: callers keep the result.
  const candidate = await createKey(clock);
  const stored = await settings.getOrCreate(REGISTRY_SETTINGS.signingKey, () => candidate);
  let parsed: StoredKey;
  try {
    parsed = JSON.parse(stored) as StoredKey;
  } catch (e) {
    throw internal(new Error(`the ${REGISTRY_SETTINGS.signingKey} setting is not valid JSON`, { cause: e }));
  }
  const key = (await importPKCS8(parsed.privateKeyPem, "ES256")) as CryptoKey;
  return { key, certificatePem: parsed.certificatePem, certificateDer: derOf(parsed.certificatePem) };
}

/** The notifications secret, created on first use. */
export function registryNotificationsSecret(settings: SettingsStore): Promise<string> {
  return settings.getOrCreate(REGISTRY_SETTINGS.notificationsSecret, () => randomBytes(32).toString("base64url"));
}

/** Distribution's http.secret, created on first use. */
export function registryHttpSecret(settings: SettingsStore): Promise<string> {
  return settings.getOrCreate(REGISTRY_SETTINGS.httpSecret, () => randomBytes(32).toString("base64url"));
}

/** A new key and certificate, serialized as the setting stores them. */
async function createKey(clock: Clock): Promise<string> {
  x509.cryptoProvider.set(webcrypto as never);
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const now = clock.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    // A positive 128-bit serial: Go's x509 parser refuses negative ones.
    serialNumber: `01${randomBytes(15).toString("hex")}`,
    name: "CN=Arbor registry token signer",
    // An hour of margin for registries whose clock runs behind.
    notBefore: new Date(now - 60 * 60 * 1000),
    notAfter: new Date(now + CERTIFICATE_VALIDITY_MS),
    keys: keys as never,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyCertSign, true),
    ],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey));
  const value: StoredKey = { privateKeyPem: pem("PRIVATE KEY", pkcs8), certificatePem: cert.toString("pem") };
  return JSON.stringify(value);
}

function pem(label: string, der: Buffer): string {
  return `-----BEGIN ${label}-----\n${der
    .toString("base64")
    .replace(/(.{64})/g, "$1\n")
    .trim()}\n-----END ${label}-----\n`;
}

function derOf(certificatePem: string): string {
  return certificatePem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, "").replace(/\s+/g, "");
}
