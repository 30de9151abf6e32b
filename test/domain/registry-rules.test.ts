/**
 * The registry's pure rules: repo names and repository paths (the Docker grammar), and how one
 * event moves a tag, table by table.
 */
import { describe, expect, it } from "vitest";
import { Code } from "../../src/domain/errors.js";
import { parseRepositoryPath, validateRepoName } from "../../src/domain/repos.js";
import { applyManifestDelete, applyPush, applyTagDelete, type TagState } from "../../src/domain/tag-events.js";

describe("repo names", () => {
  it.each(["nginx", "a", "my-app", "my--app", "my.app", "my_app", "my__app", "a0", "0", "a".repeat(128)])("accepts %s", (name) => {
    expect(() => validateRepoName(name)).not.toThrow();
  });

  it.each(["", "Nginx", "-app", "app-", "my___app", "my._app", "my app", "a/b", "é", "a".repeat(129)])(
    "refuses %j naming the field",
    (name) => {
      expect(() => validateRepoName(name)).toThrow(
        expect.objectContaining({
          code: Code.INVALID_ARGUMENT,
          details: { fieldViolations: [expect.objectContaining({ field: "name" })] },
        }),
      );
    },
  );
});

describe("repository paths", () => {
  it.each([
    ["acme/nginx", { groups: ["acme"], repo: "nginx" }],
    ["acme/backend-team/db/postgres", { groups: ["acme", "backend-team", "db"], repo: "postgres" }],
    ["acme", undefined],
    ["", undefined],
    ["acme/", undefined],
    ["/nginx", undefined],
    ["acme//nginx", undefined],
    ["acme/Team/nginx", undefined],
    ["acme/team/nginx:latest", undefined],
    [`acme/${"a".repeat(250)}`, undefined],
  ])("%s", (path, want) => {
    expect(parseRepositoryPath(path)).toEqual(want);
  });
});

describe("tag events", () => {
  const A = "sha256:aaaa";
  const B = "sha256:bbbb";
  const uid = () => "new-uid";
  const live = (digest: string, time: number, createTime = 1): TagState => ({
    uid: "t",
    repoUid: "r",
    name: "latest",
    digest,
    createTime,
    updateTime: time,
    eventTime: time,
    deleteTime: null,
    deleted: false,
  });
  /** Pushed digest at time, then deleted (the tag itself) at deleteTime. */
  const dead = (time: number, deleteTime: number, digest = A): TagState => ({
    ...live(digest, time),
    deleteTime,
    updateTime: deleteTime,
    deleted: true,
  });
  const push = (digest: string, time: number) => ({ repoUid: "r", name: "latest", digest, time });

  it.each([
    ["a new tag", undefined, push(A, 5), undefined, { kind: "insert", state: { ...live(A, 5, 5), uid: "new-uid" } }],
    [
      "a new tag whose manifest was deleted later",
      undefined,
      push(A, 5),
      7,
      { kind: "insert", state: { ...live(A, 5, 5), uid: "new-uid", updateTime: 7, deleted: true } },
    ],
    [
      "a new tag whose manifest was deleted earlier",
      undefined,
      push(A, 5),
      4,
      { kind: "insert", state: { ...live(A, 5, 5), uid: "new-uid" } },
    ],
    ["a newer push", live(A, 5), push(B, 6), undefined, { kind: "update", state: live(B, 6) }],
    ["an older push", live(B, 6), push(A, 5), undefined, { kind: "none" }],
    ["a duplicate", live(A, 5), push(A, 5), undefined, { kind: "none" }],
    ["an equal-time push of a greater digest", live(A, 5), push(B, 5), undefined, { kind: "update", state: live(B, 5) }],
    ["an equal-time push of a lesser digest", live(B, 5), push(A, 5), undefined, { kind: "none" }],
    [
      "a push older than the tag's delete",
      dead(3, 5),
      push(B, 4),
      undefined,
      { kind: "update", state: { ...dead(3, 5), digest: B, eventTime: 4 } },
    ],
    [
      "a push at the tag's delete time",
      dead(3, 5),
      push(B, 5),
      undefined,
      { kind: "update", state: { ...dead(3, 5), digest: B, eventTime: 5 } },
    ],
    [
      "a push after the delete, which starts a new life",
      dead(3, 5),
      push(B, 6),
      undefined,
      { kind: "update", state: { ...live(B, 6, 6), deleteTime: 5 } },
    ],
  ] as const)("push: %s", (_, current, event, manifestDeletedAt, want) => {
    expect(applyPush(current, event, manifestDeletedAt, uid)).toEqual(want);
  });

  it.each([
    [
      "an unknown tag, which leaves a tombstone",
      undefined,
      5,
      { kind: "insert", state: { ...live("", 5, 5), uid: "new-uid", deleteTime: 5, deleted: true } },
    ],
    ["a live tag", live(A, 5), 6, { kind: "update", state: dead(5, 6) }],
    ["a live tag pushed at the same time", live(A, 5), 5, { kind: "update", state: dead(5, 5) }],
    ["a tag pushed after the delete, which remembers it", live(A, 7), 6, { kind: "update", state: { ...live(A, 7), deleteTime: 6 } }],
    ["a tombstone, at its time", dead(3, 5), 5, { kind: "none" }],
    ["a tombstone, later", dead(3, 5), 8, { kind: "update", state: { ...dead(3, 5), deleteTime: 8 } }],
  ] as const)("tag delete: %s", (_, current, time, want) => {
    expect(applyTagDelete(current, { repoUid: "r", name: "latest", time }, uid)).toEqual(want);
  });

  it.each([
    ["a tag pushed before", live(A, 5), 6, { kind: "update", state: { ...live(A, 5), updateTime: 6, deleted: true } }],
    ["a tag pushed at the same time", live(A, 5), 5, { kind: "update", state: { ...live(A, 5), deleted: true } }],
    ["a tag pushed after", live(A, 7), 6, { kind: "none" }],
    ["a tombstone", dead(3, 5), 9, { kind: "none" }],
  ] as const)("manifest delete: %s", (_, current, time, want) => {
    expect(applyManifestDelete(current, time)).toEqual(want);
  });
});
