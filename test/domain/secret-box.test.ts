/**
 * Sealing secrets at rest: round trips, fresh IVs, tampering, rotation, and key parsing.
 */
import { describe, expect, it } from "vitest";
import { createSecretBox, isSealed, keyId, parseSecretKeys, SecretBoxError } from "../../src/domain/secret-box.js";

const K1 = Buffer.alloc(32, 1);
const K2 = Buffer.alloc(32, 2);

describe("secret box", () => {
  it("seals so that the value names its key and opens back", () => {
    const box = createSecretBox([K1]);
    const sealed = box.seal("hunter2 ünïcode");
    expect(sealed).toMatch(new RegExp(`^enc:v1:${keyId(K1)}:[A-Za-z0-9_-]+$`));
    expect(sealed).not.toContain("hunter2");
    expect(isSealed(sealed)).toBe(true);
    expect(box.open(sealed)).toBe("hunter2 ünïcode");
  });

  it("uses a fresh IV each time", () => {
    const box = createSecretBox([K1]);
    expect(box.seal("same")).not.toBe(box.seal("same"));
  });

  it.each([
    { name: "a flipped ciphertext byte", alter: (s: string) => flip(s, 20) },
    { name: "a flipped tag byte", alter: (s: string) => flip(s, -2) },
    { name: "a relabelled key id", alter: (s: string) => s.replace(keyId(K1), keyId(K2)) },
    { name: "a truncated body", alter: (s: string) => s.slice(0, 30) },
  ])("refuses $name", ({ alter }) => {
    const both = createSecretBox([K1, K2]);
    expect(() => both.open(alter(both.seal("secret value")))).toThrow(SecretBoxError);
  });

  it("rotates: the first key seals, every key opens, isCurrent tells which need re-sealing", () => {
    const old = createSecretBox([K1]);
    const rotated = createSecretBox([K2, K1]);
    const before = old.seal("s");
    expect(rotated.open(before)).toBe("s");
    expect(rotated.isCurrent(before)).toBe(false);
    const after = rotated.seal("s");
    expect(rotated.isCurrent(after)).toBe(true);
    expect(() => old.open(after)).toThrow(/no configured secrets key opens this value/);
    expect(rotated.isCurrent("plain text")).toBe(false);
  });

  it.each([
    { text: "", want: /give at least one key/ },
    { text: "c2hvcnQ=", want: /key 1 must be 32 random bytes/ },
    { text: `${K1.toString("base64")},not base64!`, want: /key 2 must be 32 random bytes/ },
  ])("refuses the key list $text", ({ text, want }) => {
    expect(() => parseSecretKeys(text, "ARBOR_SECRETS_KEY")).toThrow(want);
  });

  it("parses base64 and base64url keys, comma-separated", () => {
    expect(parseSecretKeys(` ${K1.toString("base64")} , ${K2.toString("base64url")} `, "x")).toEqual([K1, K2]);
  });
});

function flip(sealed: string, at: number): string {
  const cut = sealed.lastIndexOf(":") + 1;
  const body = Buffer.from(sealed.slice(cut), "base64url");
  const i = at < 0 ? body.length + at : at;
  body[i] = (body[i] as number) ^ 0xff;
  return sealed.slice(0, cut) + body.toString("base64url");
}
