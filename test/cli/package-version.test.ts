/**
 * `arbor advisories check`'s reading of ECOSYSTEM/NAME@VERSION, Maven's other repositories
 * (an ecosystem holding a URL) included.
 */
import { describe, expect, it } from "vitest";
import { parsePackageVersion } from "../../src/cli/advisories-check.js";
import { UsageError } from "../../src/cli/usage-error.js";

describe("parsePackageVersion", () => {
  it("reads the ecosystem to the first slash and the version from the last @", () => {
    expect(parsePackageVersion("npm/@types/node@20.1.0")).toEqual({ ecosystem: "npm", name: "@types/node", version: "20.1.0" });
    expect(parsePackageVersion("Go/golang.org/x/net@v0.7.0")).toEqual({ ecosystem: "Go", name: "golang.org/x/net", version: "v0.7.0" });
    expect(parsePackageVersion("Debian:12/curl@7.88.1-10")).toEqual({ ecosystem: "Debian:12", name: "curl", version: "7.88.1-10" });
    expect(parsePackageVersion("Maven/org.apache.logging.log4j:log4j-core@2.14.1")).toEqual({
      ecosystem: "Maven",
      name: "org.apache.logging.log4j:log4j-core",
      version: "2.14.1",
    });
  });

  it("reads a Maven ecosystem with a repository's URL up to the name's slash", () => {
    expect(parsePackageVersion("Maven:https://maven.google.com/androidx.core:core@1.0.0")).toEqual({
      ecosystem: "Maven:https://maven.google.com",
      name: "androidx.core:core",
      version: "1.0.0",
    });
    expect(parsePackageVersion("Maven:https://repo.example.com/maven2/com.example:lib@2.0")).toEqual({
      ecosystem: "Maven:https://repo.example.com/maven2",
      name: "com.example:lib",
      version: "2.0",
    });
  });

  it("refuses what it cannot read, naming the argument", () => {
    for (const arg of ["lodash@4.17.15", "npm/lodash", "npm/@4.0", "/lodash@1", "npm/lodash@", "Maven:https://maven.google.com@1.0"]) {
      expect(() => parsePackageVersion(arg), arg).toThrow(UsageError);
      expect(() => parsePackageVersion(arg), arg).toThrow(`"${arg}"`);
    }
  });

  it("refuses another ecosystem holding a URL, whose name could hold slashes, and points to --file", () => {
    expect(() => parsePackageVersion("Packagist:https://repo.example.com/vendor/package@1.0")).toThrow(/--file as JSON/);
  });
});
