/**
 * The settings store on every engine, including replicas racing to create a value.
 */
import { expect, it } from "vitest";
import { createStore } from "../../src/store/create-store.js";
import { describeEachEngine } from "../support/engines.js";

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
});
