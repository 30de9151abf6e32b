/**
 * The registry index: what Arbor knows of the repos and tags held by the registry (CNCF
 * Distribution), kept from its notifications. The Docker token endpoint resolves repository paths
 * through it; the notifications endpoint records pushes and deletes through it.
 *
 * A repository path is the path of group names from the organization down, then the repo name
 * (`acme/backend-team/nginx`; DESIGN 1.9): every segment but the last names a group, the last
 * names the repo.
 *
 * A group path that held content stays bound to the group that held it (`registry_paths`): a
 * bound path resolves to that group whatever the names say now, or to nothing once the group is
 * gone, and an unbound path resolves by names only while none of its groups and none of its
 * prefixes is bound elsewhere. A path is bound before content can land there: when a push is
 * granted on it, and when a repo is made in it.
 */
import { Code, isApiError } from "../../domain/errors.js";
import { isDigest, isTagName, parseRepositoryPath, type RepoRecord } from "../../domain/repos.js";
import { applyManifestDelete, applyPush, applyTagDelete, type TagChange, type TagState } from "../../domain/tag-events.js";
import { newChildUid, parentOf, rootOf } from "../../domain/uid.js";
import { reserved, type RegistryPath } from "../../store/registry-path-store.js";
import type { Stores } from "../../store/store.js";
import type { ServiceDeps, ServiceSettings } from "../deps.js";
import { registryEvent, type RegistryChange } from "../events/event-outbox.js";

/** Where a repository path lands. */
export interface ResolvedRepository {
  /** The group that holds (or would hold, on first push) the repo. */
  groupUid: string;
  /** The organization the group belongs to. */
  orgUid: string;
  /** The repo name: the last segment of the path. */
  repoName: string;
  /** The repo's uid when it is already indexed. */
  repoUid?: string;
  /** The group paths of the way there not bound yet (root first): what a claim binds. */
  unbound: RegistryPath[];
}

/** A manifest pushed to the registry, as its notification tells it. */
export interface PushEvent {
  /** The repository path (`acme/backend-team/nginx`). */
  repository: string;
  /** The tag, when the manifest was pushed by tag. */
  tag?: string;
  /** The manifest digest (`sha256:...`). */
  digest: string;
  /** When the registry saw it (ms since the epoch): later events win over earlier ones. */
  time: number;
}

/** A manifest (or one tag of it) deleted from the registry. */
export interface DeleteEvent {
  repository: string;
  /** The manifest digest: every tag of the repo pointing at it goes. */
  digest?: string;
  /** Only this tag goes, when the registry names one. */
  tag?: string;
  time: number;
}

/**
 * Records registry events into repos and tags. Every method is idempotent, and an event older
 * than what a tag already reflects changes nothing, so duplicate and out-of-order deliveries are
 * harmless.
 */
export interface RegistryIndex {
  /** Resolves a repository path; null when its groups do not exist or it is not a valid path. */
  resolve(repository: string): Promise<ResolvedRepository | null>;
  /**
   * Binds the resolved path's groups to their paths, before content may land there; false when
   * another group claimed one of them first (the path is then that group's, or nobody's).
   */
  claim(at: ResolvedRepository): Promise<boolean>;
  /** Indexes a push: creates the repo in its group on first push, and sets the tag's digest. */
  pushed(event: PushEvent): Promise<void>;
  /** Indexes a delete: removes the tag(s) it names. */
  deleted(event: DeleteEvent): Promise<void>;
}

/** The registry index over the store; new repos and tags take their uids from deps.ids. */
export function createRegistryIndex(
  deps: Pick<ServiceDeps, "store" | "ids"> & { settings?: Pick<ServiceSettings, "events"> },
): RegistryIndex {
  const { store, ids } = deps;
  // ARBOR_EVENTS=off: the index changes, no CloudEvent is written.
  const events = deps.settings?.events !== false;

  async function resolve(repository: string): Promise<ResolvedRepository | null> {
    const path = parseRepositoryPath(repository);
    if (path === undefined) return null;
    const prefixes = path.groups.map((_, i) => path.groups.slice(0, i + 1).join("/"));
    const [bound] = await store.registryPaths.lookup({ paths: prefixes.slice(-1) });
    let unbound: RegistryPath[] = [];
    if (bound !== undefined) {
      // Its prefixes were bound with it, in one transaction.
      if (!(await store.groups.get(bound.groupUid))) return null;
    } else {
      const chain = await walk(path.groups);
      if (chain === undefined) return null;
      unbound = chain.map((groupUid, i) => ({ path: prefixes[i] as string, groupUid }));
      const held = await store.registryPaths.lookup({ paths: prefixes, groups: chain });
      if (held.some((h) => !unbound.some((u) => u.path === h.path && u.groupUid === h.groupUid))) return null;
      unbound = unbound.filter((u) => !held.some((h) => h.path === u.path));
    }
    const groupUid = bound?.groupUid ?? (unbound.at(-1)?.groupUid as string);
    const repo = await store.repos.find(groupUid, path.repo);
    return { groupUid, orgUid: rootOf(groupUid), repoName: path.repo, ...(repo && { repoUid: repo.uid }), unbound };
  }

  /** The uids of the groups named from the organization down; undefined when one is missing. */
  async function walk(names: readonly string[]): Promise<string[] | undefined> {
    const [orgName, ...below] = names as [string, ...string[]];
    const org = await store.groups.findOrganization(orgName);
    if (!org) return undefined;
    const chain = [org.uid];
    for (const name of below) {
      const [child] = await store.groups.list({ uidp: { childrenOf: chain.at(-1) as string }, name }, FIRST);
      if (!child) return undefined;
      chain.push(child.uid);
    }
    return chain;
  }

  async function claim(at: ResolvedRepository): Promise<boolean> {
    if (at.unbound.length === 0) return true;
    try {
      await store.atomically((tx) => tx.registryPaths.bind(at.unbound));
    } catch (e) {
      if (isApiError(e) && e.code === Code.FAILED_PRECONDITION) return false;
      throw e;
    }
    at.unbound = [];
    return true;
  }

  /** The repo's uid, created on first push; undefined when its group went meanwhile. */
  async function ensureRepo(at: ResolvedRepository, time: number): Promise<string | undefined> {
    if (at.repoUid !== undefined) return at.repoUid;
    // Bound first, and for good: whatever becomes of the repo, its content stays in the registry.
    if (!(await claim(at))) throw reserved(at.unbound.at(-1)?.path ?? at.repoName);
    const repo: RepoRecord = {
      uid: newChildUid(ids, at.groupUid),
      parentUid: at.groupUid,
      name: at.repoName,
      description: "",
      createTime: time,
      updateTime: time,
    };
    try {
      await store.repos.insert(repo);
      return repo.uid;
    } catch (e) {
      // A concurrent first push made it (the unique name), or the group is gone (its key).
      if (!isApiError(e) || (e.code !== Code.ALREADY_EXISTS && e.code !== Code.NOT_FOUND)) throw e;
      return (await store.repos.find(at.groupUid, at.repoName))?.uid;
    }
  }

  /**
   * Runs apply in a transaction holding the repo's row, so one repo's events apply one at a
   * time; apply returns the time the repo changed at, if it did. False when the repo is gone.
   * An event that changed what the API shows writes its CloudEvent in the same transaction.
   */
  function inRepo(
    repoUid: string,
    event: Pick<RegistryChange, "kind" | "body">,
    apply: (tx: Stores) => Promise<number | undefined>,
  ): Promise<boolean> {
    return store.atomically(async (tx) => {
      if (!(await tx.repos.touch(repoUid, 0))) return false;
      const changedAt = await apply(tx);
      if (changedAt !== undefined) {
        await tx.repos.touch(repoUid, changedAt);
        if (events) await tx.outbox.insert(registryEvent({ ...event, id: ids.hex(16), repoUid, groupUid: parentOf(repoUid) ?? repoUid }));
      }
      return true;
    });
  }

  return {
    resolve,
    claim,

    async pushed(event) {
      if (!isDigest(event.digest) || (event.tag !== undefined && !isTagName(event.tag))) return;
      const at = await resolve(event.repository);
      if (at === null) return;
      // Twice: a v1 delete of the repo between finding and holding it makes the push create it anew.
      for (let attempt = 0; attempt < 2; attempt++) {
        const repoUid = await ensureRepo(at, event.time);
        if (repoUid === undefined) return;
        const tag = event.tag;
        const held = await inRepo(repoUid, { kind: "push", body: event }, async (tx) =>
          tag === undefined ? undefined : pushTag(tx, repoUid, tag, event),
        );
        if (held) return;
        delete at.repoUid;
      }
    },

    async deleted(event) {
      if (event.tag !== undefined ? !isTagName(event.tag) : event.digest === undefined || !isDigest(event.digest)) return;
      const repoUid = (await resolve(event.repository))?.repoUid;
      if (repoUid === undefined) return;
      await inRepo(repoUid, { kind: "delete", body: event }, async (tx) => {
        if (event.tag !== undefined) {
          const before = await tx.tags.state(repoUid, event.tag);
          return write(tx, before, applyTagDelete(before, { repoUid, name: event.tag, time: event.time }, newUid(repoUid)));
        }
        const digest = event.digest as string;
        await tx.tags.recordManifestDelete(repoUid, digest, event.time);
        let changedAt: number | undefined;
        for (const tag of await tx.tags.pointingAt(repoUid, digest)) {
          changedAt = (await write(tx, tag, applyManifestDelete(tag, event.time))) ?? changedAt;
        }
        return changedAt;
      });
    },
  };

  function newUid(repoUid: string): () => string {
    return () => newChildUid(ids, repoUid);
  }

  async function pushTag(tx: Stores, repoUid: string, name: string, event: PushEvent): Promise<number | undefined> {
    const before = await tx.tags.state(repoUid, name);
    const manifestDeletedAt = await tx.tags.manifestDeleted(repoUid, event.digest);
    return write(
      tx,
      before,
      applyPush(before, { repoUid, name, digest: event.digest, time: event.time }, manifestDeletedAt, newUid(repoUid)),
    );
  }
}

/** The first row of a list, in name order. */
const FIRST = {
  order: [
    { field: "name", desc: false },
    { field: "uid", desc: false },
  ],
  offset: 0,
  limit: 1,
};

/**
 * Writes a tag change; the time it changed at when it is one a caller can see (a tag came, moved
 * or went), so the repo's updateTime follows its tags but not their tombstones.
 */
async function write(tx: Stores, before: TagState | undefined, change: TagChange): Promise<number | undefined> {
  if (change.kind === "none") return undefined;
  if (change.kind === "insert") await tx.tags.insert(change.state);
  else await tx.tags.replace(change.state);
  const seen = (before !== undefined && !before.deleted) || !change.state.deleted;
  return seen ? change.state.updateTime : undefined;
}
