import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe("generated code", () => {
  const out = mkdtempSync(join(tmpdir(), "arbor-gen-"));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("is what `npm run generate` makes from proto/ now (run it and commit src/gen)", () => {
    execFileSync(join(root, "node_modules/.bin/buf"), ["generate", "--template", "buf.gen.yaml", "-o", out], {
      cwd: root,
      env: { ...process.env, PATH: `${join(root, "node_modules/.bin")}:${process.env.PATH}` },
      stdio: "pipe",
    });
    const fresh = join(out, "src/gen");
    const committed = join(root, "src/gen");
    const names = (dir: string) =>
      files(dir)
        .map((f) => relative(dir, f))
        .sort();
    expect(names(committed)).toEqual(names(fresh));
    for (const name of names(fresh)) {
      expect(readFileSync(join(committed, name), "utf8"), name).toBe(readFileSync(join(fresh, name), "utf8"));
    }
  });
});
