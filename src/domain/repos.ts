/**
 * Repos and tags of the registry (DESIGN 1.9): the records, what may be sorted and filtered, and
 * the Docker grammar a repo name obeys, so that every repo is reachable as a repository path.
 */
import { invalidArgument } from "./errors.js";
import type { HierarchyFilter } from "./hierarchy.js";
import type { Sortable } from "./list.js";
import { namedSortable, namedSortValue } from "./named-sort-value.js";

/** A repo as the store keeps it. Times are milliseconds since the epoch. */
export interface RepoRecord {
  uid: string;
  /** The group that holds it. */
  parentUid: string;
  name: string;
  description: string;
  createTime: number;
  updateTime: number;
}

/** A live tag as the API shows it. */
export interface TagRecord {
  uid: string;
  /** The repo that holds it. */
  repoUid: string;
  name: string;
  digest: string;
  createTime: number;
  updateTime: number;
}

/** A repos or tags query: hierarchy filters, exact name, and the subtrees the caller may see. */
export interface RepoFilter {
  uidp: HierarchyFilter;
  name?: string;
  /** The uids whose subtrees the caller may see; undefined means everything, empty nothing. */
  visibleUnder?: readonly string[];
}

/** A tags query: a repos query plus an exact digest. */
export interface TagFilter extends RepoFilter {
  digest?: string;
}

/** Sortable fields of repos; default order name ascending (DESIGN 1.4). */
export const repoSortable: Sortable = namedSortable;
/** Sortable fields of tags; default order name ascending (DESIGN 1.4). */
export const tagSortable: Sortable = namedSortable;
/** The value of a repo's sort field. */
export const repoSortValue: (record: RepoRecord, field: string) => string | number = namedSortValue("repos");
/** The value of a tag's sort field. */
export const tagSortValue: (record: TagRecord, field: string) => string | number = namedSortValue("tags");

/** A Docker repository path component (distribution/reference), the grammar of every path segment. */
export const PATH_COMPONENT_PATTERN = "^[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*$";
const PATH_COMPONENT = new RegExp(PATH_COMPONENT_PATTERN);

/** The longest repo name accepted. */
export const MAX_REPO_NAME_LENGTH = 128;

/** Tells whether s is a Docker path component (any length). */
export function isPathComponent(s: string): boolean {
  return PATH_COMPONENT.test(s);
}

/** Tells whether name is a valid repo name. */
export function isRepoName(name: string): boolean {
  return name.length <= MAX_REPO_NAME_LENGTH && isPathComponent(name);
}

/** Throws INVALID_ARGUMENT (field `name`) unless name is a valid repo name. */
export function validateRepoName(name: string): void {
  if (!isPathComponent(name)) throw invalidArgument("name", `name must match "${PATH_COMPONENT_PATTERN}"`);
  if (name.length > MAX_REPO_NAME_LENGTH) throw invalidArgument("name", `name must be at most ${MAX_REPO_NAME_LENGTH} characters`);
}

/** The longest repository path Docker accepts (distribution/reference's NameTotalLengthMax). */
export const MAX_REPOSITORY_PATH_LENGTH = 255;

/** A repository path split into the group names from the organization down and the repo name. */
export interface RepositoryPath {
  groups: string[];
  repo: string;
}

/**
 * Splits `acme/backend-team/nginx` into its groups and repo; undefined when it has fewer than two
 * segments, is too long, or a segment is not a path component (no group with such a name could
 * be reached by a registry client anyway).
 */
export function parseRepositoryPath(path: string): RepositoryPath | undefined {
  if (path.length > MAX_REPOSITORY_PATH_LENGTH) return undefined;
  const segments = path.split("/");
  const repo = segments.pop();
  if (repo === undefined || segments.length === 0 || !isRepoName(repo)) return undefined;
  if (!segments.every(isPathComponent)) return undefined;
  return { groups: segments, repo };
}

/** A Docker tag (distribution/reference). */
const TAG_NAME = /^[\w][\w.-]{0,127}$/;
/** A content digest, `algorithm:encoded` (OCI image spec). */
const DIGEST = /^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;

/** Tells whether s is a Docker tag (`latest`, `v1.2.3`). */
export function isTagName(s: string): boolean {
  return TAG_NAME.test(s);
}

/** Tells whether s is a content digest (`sha256:...`). */
export function isDigest(s: string): boolean {
  return s.length <= 256 && DIGEST.test(s);
}
