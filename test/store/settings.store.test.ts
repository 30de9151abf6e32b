/**
 * The settings store on every engine, including replicas racing to create a value.
 */
import { expect, it } from "vitest";
import { createSecretBox } from "../../src/domain/secret-box.js";
import { createStore } from "../../src/store/create-store.js";
import { describeEachEngine, TEST_SECRETS } from "../support/engines.js";
import { execRaw, rawRows } from "../support/raw-sql.js";

describeEachEngine("settings store", (t) => {
  const settings = () => t.store().settings;

  it("creates a value once and returns it ever after", async () => {
    let made = 0;
    const make = () => `value-${++made}`;
    expect(await settings().getOrCreate("once", make)).toBe("value-1");
    expect(await settings().getOrCreate("once", make)).toBe("value-1");
    expect(made).toBe(1);
  });

  it("keeps values apart by name", async () => {
    expect(await settings().getOrCreate("left", () => "l")).toBe("l");
    expect(await settings().getOrCreate("right", () => "r")).toBe("r");
  });

  it("lets racing replicas agree on one value", async () => {
    const replica = await createStore(t.options());
    try {
      for (let i = 0; i < 10; i++) {
        const name = `raced-${i}`;
        const got = await Promise.all([
          settings().getOrCreate(name, () => "from the first"),
          replica.settings.getOrCreate(name, () => "from the second"),
          settings().getOrCreate(name, () => "from the first, again"),
          replica.settings.getOrCreate(name, () => "from the second, again"),
        ]);
        expect(new Set(got).size, `race ${i}: ${got.join(" / ")}`).toBe(1);
      }
    } finally {
      await replica.close();
    }
  });

  it("get reads nothing as undefined; put writes, replaces (last writer wins) and seals", async () => {
    expect(await settings().get("latest")).toBeUndefined();
    await settings().put("latest", "first");
    expect(await settings().get("latest")).toBe("first");
    const replica = await createStore(t.options());
    try {
      await replica.settings.put("latest", "second");
      expect(await settings().get("latest")).toBe("second");
    } finally {
      await replica.close();
    }
    const value = await stored("latest");
    expect(value).toMatch(/^enc:v1:/);
    expect(TEST_SECRETS.open(value)).toBe("second");
  });

  const stored = async (name: string) => (await rawRows(t, `select value from settings where name = '${name}'`))[0]?.value as string;

  it("seals every value in the table and opens it when read", async () => {
    expect(await settings().getOrCreate("sealed", () => "the-secret")).toBe("the-secret");
    const value = await stored("sealed");
    expect(value).toMatch(/^enc:v1:/);
    expect(value).not.toContain("the-secret");
    expect(TEST_SECRETS.open(value)).toBe("the-secret");
    expect(await settings().getOrCreate("sealed", () => "another")).toBe("the-secret");
  });

  it("re-seals plain text and values of an older secrets key under the current one", async () => {
    const rotated = await createStore({ ...t.options(), secrets: createSecretBox([Buffer.alloc(32, 8), Buffer.alloc(32, 7)]) });
    try {
      await settings().getOrCreate("older", () => "of-the-old-key");
      // As an Arbor from before sealing wrote it.
      await execRaw(t, `insert into settings (name, value) values ('legacy', 'plain-old')`);
      expect(await rotated.settings.resealSecrets()).toBeGreaterThanOrEqual(2);
      expect(await rotated.settings.resealSecrets()).toBe(0);
      for (const [name, plain] of [
        ["legacy", "plain-old"],
        ["older", "of-the-old-key"],
      ] as const) {
        const value = await stored(name);
        expect(value).toMatch(/^enc:v1:/);
        expect(() => TEST_SECRETS.open(value)).toThrow();
        expect(await rotated.settings.getOrCreate(name, () => "new")).toBe(plain);
      }
    } finally {
      await rotated.close();
    }
  });

  it("cannot read a value sealed under a key it lacks", async () => {
    await settings().getOrCreate("foreign", () => "kept");
    const stranger = await createStore({ ...t.options(), secrets: createSecretBox([Buffer.alloc(32, 5)]) });
    try {
      await expect(stranger.settings.getOrCreate("foreign", () => "mine")).rejects.toThrow(/no configured secrets key opens this value/);
      await expect(stranger.settings.resealSecrets()).rejects.toThrow(/no configured secrets key opens this value/);
    } finally {
      await stranger.close();
    }
  });
});
