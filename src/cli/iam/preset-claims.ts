/**
 * The claim matches of the identity presets: what GitHub Actions, GitLab CI and Kubernetes put in
 * their OIDC tokens, made into the exact values (or, with no ref given, the pinned pattern) that
 * recognise one repository, project or service account and nothing else. Every value a user gives
 * is checked against what the platform allows in it, and quoted where it lands in a pattern, so
 * `acme/app.js` cannot match `acme/appxjs` and `acme/app:ref:x` cannot be smuggled in.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { UsageError } from "../usage-error.js";

/** GitHub Actions' OIDC issuer (github.com; GitHub Enterprise Server has its own: use the plain create). */
export const GITHUB_ISSUER = "https://token.actions.githubusercontent.com";
/** GitLab.com, the default --gitlab-url. */
export const GITLAB_COM = "https://gitlab.com";

const GITHUB_REPO = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/(?!\.\.?$)[A-Za-z0-9._-]{1,100}$/;
const GIT_REF = /^refs\/[^\s:]+$/;
/** GitHub environment names: no colon (the subject's separator), no control characters. */
const GITHUB_ENVIRONMENT = /^[^:\p{Cc}]{1,255}$/u;
const GITLAB_PATH_PART = "[A-Za-z0-9_][A-Za-z0-9_.-]*";
const GITLAB_PROJECT = new RegExp(`^${GITLAB_PATH_PART}(?:/${GITLAB_PATH_PART})+$`);
const GITLAB_REF = /^[^\s:\p{Cc}]{1,255}$/u;
const K8S_NAMESPACE = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;
const K8S_NAME = /^[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?$/;

/** text as an RE2 literal. */
export function quoteRe2(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&");
}

function check(value: string, shape: RegExp, flag: string, what: string): string {
  if (!shape.test(value)) throw new UsageError(`${flag}: "${value}" is not ${what}`);
  return value;
}

/** What `create github` takes. */
export interface GitHubPreset {
  repo: string;
  ref?: string;
  environment?: string;
  workflow?: string;
}

/**
 * GitHub Actions' default subject is `repo:<owner>/<repo>:ref:<ref>`, or `...:environment:<name>`
 * for a job with an environment. Without either, any ref of the repository: the pattern's literal
 * prefix `repo:<owner>/<repo>:ref:refs/` pins it (a repository name holds no colon).
 */
export function githubClaimMatch(p: GitHubPreset): JsonObject {
  const repo = check(p.repo, GITHUB_REPO, "--github-repo", "owner/repo");
  if (p.ref !== undefined && p.environment !== undefined)
    throw new UsageError("--github-ref and --github-environment match different subjects: give one");
  const subject: JsonObject =
    p.ref !== undefined
      ? { subject: `repo:${repo}:ref:${check(p.ref, GIT_REF, "--github-ref", "a full ref such as refs/heads/main")}` }
      : p.environment !== undefined
        ? { subject: `repo:${repo}:environment:${check(p.environment, GITHUB_ENVIRONMENT, "--github-environment", "an environment name")}` }
        : { subjectPattern: `${quoteRe2(`repo:${repo}:ref:refs/`)}.+` };
  return { issuer: GITHUB_ISSUER, ...subject, ...(p.workflow !== undefined && { claims: { workflow: p.workflow } }) };
}

/** What `create gitlab` takes. */
export interface GitLabPreset {
  project: string;
  url?: string;
  ref?: string;
  refType?: string;
}

/**
 * GitLab CI's subject is `project_path:<group>/<project>:ref_type:<branch|tag>:ref:<name>`; its
 * issuer is the instance's URL. Without --gitlab-ref, any ref of the type (or of either type).
 */
export function gitlabClaimMatch(p: GitLabPreset): JsonObject {
  const project = check(p.project, GITLAB_PROJECT, "--gitlab-project", "a project path such as group/project");
  const issuer = (p.url ?? GITLAB_COM).replace(/\/+$/, "");
  if (!/^https:\/\/[^/?#@\s]+$/.test(issuer))
    throw new UsageError(`--gitlab-url: "${p.url}" is not an https:// URL of a GitLab instance (no path)`);
  if (p.refType !== undefined && p.refType !== "branch" && p.refType !== "tag")
    throw new UsageError(`--gitlab-ref-type: "${p.refType}" is not branch or tag`);
  const prefix = `project_path:${project}:ref_type:`;
  if (p.ref !== undefined) {
    const ref = check(p.ref, GITLAB_REF, "--gitlab-ref", "a branch or tag name");
    return { issuer, subject: `${prefix}${p.refType ?? "branch"}:ref:${ref}` };
  }
  const rest = p.refType === undefined ? ".+" : `${p.refType}:ref:.+`;
  return { issuer, subjectPattern: `${quoteRe2(prefix)}${rest}` };
}

/** What `create kubernetes` takes. */
export interface KubernetesPreset {
  issuer: string;
  namespace: string;
  serviceAccount: string;
}

/** A projected service account token's subject: `system:serviceaccount:<namespace>:<name>`, exactly. */
export function kubernetesSubject(p: KubernetesPreset): string {
  const ns = check(p.namespace, K8S_NAMESPACE, "--namespace", "a Kubernetes namespace name");
  const sa = check(p.serviceAccount, K8S_NAME, "--service-account", "a Kubernetes service account name");
  return `system:serviceaccount:${ns}:${sa}`;
}
