/**
 * The registry's stored credentials on every engine: one signing key and certificate however many
 * replicas create it at once, a certificate Distribution can trust for ten years, and secrets
 * created once.
 */
import { X509Certificate } from "node:crypto";
import { compactVerify, importX509, SignJWT } from "jose";
import { expect, it } from "vitest";
import {
  CERTIFICATE_VALIDITY_MS,
  registryHttpSecret,
  registryNotificationsSecret,
  registrySigningKey,
} from "../../src/auth/registry-keys.js";
import { createStore } from "../../src/store/create-store.js";
import { describeEachEngine } from "../support/engines.js";

const clock = { now: () => Date.parse("2026-03-01T00:00:00Z") };

describeEachEngine("registry keys", (t) => {
  it("creates one key and certificate, even for replicas racing to create it", async () => {
    const replica = await createStore(t.options());
    try {
      const got = await Promise.all([
        registrySigningKey(t.store().settings, clock),
        registrySigningKey(replica.settings, clock),
        registrySigningKey(t.store().settings, clock),
      ]);
      expect(new Set(got.map((k) => k.certificatePem)).size).toBe(1);
      const again = await registrySigningKey(replica.settings, clock);
      expect(again.certificatePem).toBe(got[0]?.certificatePem);
    } finally {
      await replica.close();
    }
  });

  it("certifies the signing key itself, self-signed, for ten years from an hour ago", async () => {
    const key = await registrySigningKey(t.store().settings, clock);
    const cert = new X509Certificate(key.certificatePem);
    expect(cert.checkIssued(cert)).toBe(true);
    expect(cert.subject).toBe("CN=Arbor registry token signer");
    expect(Date.parse(cert.validFrom)).toBe(clock.now() - 60 * 60 * 1000);
    expect(Date.parse(cert.validTo)).toBe(clock.now() + CERTIFICATE_VALIDITY_MS);
    expect(Buffer.from(key.certificateDer, "base64")).toEqual(cert.raw);
    const signed = await new SignJWT({}).setProtectedHeader({ alg: "ES256" }).sign(key.key);
    await expect(compactVerify(signed, await importX509(key.certificatePem, "ES256"))).resolves.toBeDefined();
  });

  it("creates the notifications and http secrets once, each its own", async () => {
    const a = await registryNotificationsSecret(t.store().settings);
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await registryNotificationsSecret(t.store().settings)).toBe(a);
    const h = await registryHttpSecret(t.store().settings);
    expect([h === a, await registryHttpSecret(t.store().settings)]).toEqual([false, h]);
  });
});
