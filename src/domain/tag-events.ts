/**
 * How registry events move a tag (DESIGN 1.9). Notifications arrive late, twice, or out of
 * order, so a tag's state is a function of facts that only grow, whatever order they come in:
 *
 * - its latest push: the greatest (time, digest), so of two pushes at one time the greater digest
 *   wins, and an equal duplicate changes nothing;
 * - the latest delete of the tag itself (`deleteTime`);
 * - the latest delete of the manifest its latest push points at (kept per repo and digest).
 *
 * The tag is live unless a delete of the tag, or of that manifest, is not older than its latest
 * push. A deleted tag stays as a tombstone that remembers all of this, so a late notification of
 * an older push cannot bring it back, and a newer push does.
 */
import type { TagRecord } from "./repos.js";

/**
 * A tag's state as the index keeps it, tombstones included: the tag the API shows, and the facts
 * its life is decided by. Its digest is "" when only a delete of the tag was seen; its createTime
 * is when it last came to life (its first push, or the first after its deletion), its updateTime
 * when it last changed as callers see it (the push it reflects, or its deletion).
 */
export interface TagState extends TagRecord {
  /** The time of the latest push (for a tag seen only deleted: of that delete). */
  eventTime: number;
  /** The time of the latest delete of the tag itself, or null. */
  deleteTime: number | null;
  deleted: boolean;
}

/** What the index writes: a new row, a changed row, or nothing. */
export type TagChange = { kind: "insert"; state: TagState } | { kind: "update"; state: TagState } | { kind: "none" };

/**
 * A push of digest at time to the tag `name`, given its current state (if any) and when that
 * digest's manifest was last deleted from the repo (if ever).
 */
export function applyPush(
  current: TagState | undefined,
  push: { repoUid: string; name: string; digest: string; time: number },
  manifestDeletedAt: number | undefined,
  newUid: () => string,
): TagChange {
  const { repoUid, name, digest, time } = push;
  if (current !== undefined && !(time > current.eventTime || (time === current.eventTime && digest > current.digest))) {
    return { kind: "none" };
  }
  const pushed = { digest, eventTime: time, deleteTime: current?.deleteTime ?? null };
  const deletedAt = killedAt(pushed, manifestDeletedAt);
  if (current === undefined) {
    const state = {
      uid: newUid(),
      repoUid,
      name,
      ...pushed,
      createTime: time,
      updateTime: deletedAt ?? time,
      deleted: deletedAt !== undefined,
    };
    return { kind: "insert", state };
  }
  if (deletedAt !== undefined) {
    // Still (or now) deleted: only what it remembers moves, and the time it went if it just went.
    return {
      kind: "update",
      state: { ...current, ...pushed, updateTime: current.deleted ? current.updateTime : deletedAt, deleted: true },
    };
  }
  // A tag pushed again after its deletion is a new tag, so it starts a new life; else it keeps it.
  const createTime = current.deleted ? time : current.createTime;
  return { kind: "update", state: { ...current, ...pushed, createTime, updateTime: time, deleted: false } };
}

/**
 * A delete at time of the tag `name`, given its current state: a tombstone, also when the tag
 * is unknown (its push may still be on the way, and must not bring it back).
 */
export function applyTagDelete(
  current: TagState | undefined,
  del: { repoUid: string; name: string; time: number },
  newUid: () => string,
): TagChange {
  const { repoUid, name, time } = del;
  if (current === undefined) {
    const state = {
      uid: newUid(),
      repoUid,
      name,
      digest: "",
      createTime: time,
      updateTime: time,
      eventTime: time,
      deleteTime: time,
      deleted: true,
    };
    return { kind: "insert", state };
  }
  if (current.deleteTime !== null && current.deleteTime >= time) return { kind: "none" };
  const deleteTime = time;
  if (current.deleted || time < current.eventTime) return { kind: "update", state: { ...current, deleteTime } };
  return { kind: "update", state: { ...current, deleteTime, updateTime: time, deleted: true } };
}

/** A delete at time of the manifest a live tag points at: it goes unless it was pushed later. */
export function applyManifestDelete(current: TagState, time: number): TagChange {
  if (current.deleted || time < current.eventTime) return { kind: "none" };
  return { kind: "update", state: { ...current, updateTime: time, deleted: true } };
}

/** When a tag with this latest push and tag delete is deleted, or undefined while it lives. */
function killedAt(s: Pick<TagState, "eventTime" | "deleteTime">, manifestDeletedAt: number | undefined): number | undefined {
  const times = [s.deleteTime, manifestDeletedAt ?? null].filter((t): t is number => t !== null && t >= s.eventTime);
  return times.length === 0 ? undefined : Math.min(...times);
}
