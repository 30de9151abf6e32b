import { describe, expect, it } from "vitest";
import { ancestorsOf, depthOf, isUid, newChildUid, newRootUid, parentOf, rootOf } from "../../src/domain/uid.js";

const root = "0123456789abcdef0123456789abcdef01234567";
const child = `${root}/0123456789abcdef`;
const grandchild = `${child}/fedcba9876543210`;

describe("uids", () => {
  it.each([root, child, grandchild])("%s is valid", (u) => expect(isUid(u)).toBe(true));

  it.each([
    "",
    root.toUpperCase(),
    root.slice(1),
    `${root}/`,
    `${root}//0123456789abcdef`,
    `${root}/0123456789abcde`,
    `${root}/../0123456789abcdef`,
    `${root}%2F0123456789abcdef`,
    ` ${root}`,
    `${root}/${"0123456789abcdef/".repeat(64)}0123456789abcdef`,
  ])("%j is not", (u) => expect(isUid(u)).toBe(false));

  it("reads ancestry off the uid", () => {
    expect(parentOf(root)).toBeUndefined();
    expect(parentOf(grandchild)).toBe(child);
    expect(ancestorsOf(grandchild)).toEqual([child, root]);
    expect(rootOf(grandchild)).toBe(root);
    expect(depthOf(root)).toBe(1);
    expect(depthOf(grandchild)).toBe(3);
  });

  it("mints uids of the right shape", () => {
    const ids = { hex: (n: number) => "a".repeat(2 * n) };
    expect(newRootUid(ids)).toBe("a".repeat(40));
    expect(newChildUid(ids, root)).toBe(`${root}/${"a".repeat(16)}`);
  });
});
