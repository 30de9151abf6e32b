/**
 * Presets for the common workload issuers: each turns a few fields a platform team knows (a
 * repository and branch, a namespace and service account) into the claim match Arbor stores.
 * The subjects are the platforms' documented formats.
 */

/** What an identity recognises, as the form shows and the API takes it. */
export type Relationship =
  | { kind: "claimMatch"; issuer: string; subject?: string; subjectPattern?: string; audience?: string }
  | { kind: "staticKeys"; issuer: string; subject: string; issuerKeys: string };

/** One field of a preset's form. */
export interface PresetField {
  id: string;
  label: string;
  /** A value to start with (the public issuer, say). */
  initial?: string;
  placeholder?: string;
  /** Choices, for a select. */
  options?: readonly { value: string; label: string }[];
  /** A multi-line field. */
  multiline?: boolean;
  hint?: string;
}

export interface Preset {
  id: string;
  label: string;
  fields: readonly PresetField[];
  /** The relationship the values make; undefined while a required value is missing. */
  build(values: Readonly<Record<string, string>>): Relationship | undefined;
}

/** An RE2 pattern matching text literally. */
export function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const v = (values: Readonly<Record<string, string>>, id: string) => (values[id] ?? "").trim();
const audience = (values: Readonly<Record<string, string>>) => (v(values, "audience") ? { audience: v(values, "audience") } : {});
const AUDIENCE: PresetField = { id: "audience", label: "Audience", hint: "empty: Arbor's issuer URL, which the workload then requests" };

export const PRESETS: readonly Preset[] = [
  {
    id: "github",
    label: "GitHub Actions",
    fields: [
      {
        id: "issuer",
        label: "Issuer",
        initial: "https://token.actions.githubusercontent.com",
        hint: "GitHub Enterprise Server: https://HOST/_services/token",
      },
      { id: "repository", label: "Repository", placeholder: "owner/repo" },
      {
        id: "on",
        label: "Runs on",
        initial: "branch",
        options: [
          { value: "branch", label: "a branch" },
          { value: "environment", label: "an environment" },
          { value: "tag", label: "a tag" },
          { value: "pull_request", label: "pull requests" },
        ],
      },
      { id: "ref", label: "Branch, environment or tag", placeholder: "main" },
      AUDIENCE,
    ],
    build(values) {
      const [issuer, repo, on, ref] = [v(values, "issuer"), v(values, "repository"), v(values, "on"), v(values, "ref")];
      if (!issuer || !repo || (on !== "pull_request" && !ref)) return undefined;
      const subject =
        on === "environment"
          ? `repo:${repo}:environment:${ref}`
          : on === "tag"
            ? `repo:${repo}:ref:refs/tags/${ref}`
            : on === "pull_request"
              ? `repo:${repo}:pull_request`
              : `repo:${repo}:ref:refs/heads/${ref}`;
      return { kind: "claimMatch", issuer, subject, ...audience(values) };
    },
  },
  {
    id: "gitlab",
    label: "GitLab CI",
    fields: [
      { id: "issuer", label: "Issuer", initial: "https://gitlab.com", hint: "your GitLab's URL when self-managed" },
      { id: "project", label: "Project path", placeholder: "group/project" },
      {
        id: "refType",
        label: "Ref type",
        initial: "branch",
        options: [
          { value: "branch", label: "branch" },
          { value: "tag", label: "tag" },
        ],
      },
      { id: "ref", label: "Ref", placeholder: "main" },
      AUDIENCE,
    ],
    build(values) {
      const [issuer, project, refType, ref] = [v(values, "issuer"), v(values, "project"), v(values, "refType"), v(values, "ref")];
      if (!issuer || !project || !ref) return undefined;
      return { kind: "claimMatch", issuer, subject: `project_path:${project}:ref_type:${refType}:ref:${ref}`, ...audience(values) };
    },
  },
  {
    id: "buildkite",
    label: "Buildkite",
    fields: [
      { id: "issuer", label: "Issuer", initial: "https://agent.buildkite.com" },
      { id: "organization", label: "Organization slug", placeholder: "acme" },
      { id: "pipeline", label: "Pipeline slug", placeholder: "deploy" },
      AUDIENCE,
    ],
    build(values) {
      const [issuer, org, pipeline] = [v(values, "issuer"), v(values, "organization"), v(values, "pipeline")];
      if (!issuer || !org || !pipeline) return undefined;
      return {
        kind: "claimMatch",
        issuer,
        subjectPattern: `organization:${literal(org)}:pipeline:${literal(pipeline)}:.*`,
        ...audience(values),
      };
    },
  },
  {
    id: "kubernetes",
    label: "Kubernetes service account",
    fields: [
      { id: "issuer", label: "Cluster issuer", placeholder: "https://oidc.example.com/cluster-1" },
      { id: "namespace", label: "Namespace", placeholder: "default" },
      { id: "serviceAccount", label: "Service account", placeholder: "deployer" },
      AUDIENCE,
    ],
    build(values) {
      const [issuer, ns, sa] = [v(values, "issuer"), v(values, "namespace"), v(values, "serviceAccount")];
      if (!issuer || !ns || !sa) return undefined;
      return { kind: "claimMatch", issuer, subject: `system:serviceaccount:${ns}:${sa}`, ...audience(values) };
    },
  },
  {
    id: "oidc",
    label: "Any OIDC issuer",
    fields: [{ id: "issuer", label: "Issuer", placeholder: "https://issuer.example.com" }, { id: "subject", label: "Subject" }, AUDIENCE],
    build(values) {
      const [issuer, subject] = [v(values, "issuer"), v(values, "subject")];
      if (!issuer || !subject) return undefined;
      return { kind: "claimMatch", issuer, subject, ...audience(values) };
    },
  },
  {
    id: "static",
    label: "Static keys",
    fields: [
      { id: "issuer", label: "Issuer", placeholder: "https://kind.local" },
      { id: "subject", label: "Subject" },
      { id: "issuerKeys", label: "Issuer's public keys (JWKS JSON)", multiline: true },
    ],
    build(values) {
      const [issuer, subject, issuerKeys] = [v(values, "issuer"), v(values, "subject"), v(values, "issuerKeys")];
      if (!issuer || !subject || !issuerKeys) return undefined;
      return { kind: "staticKeys", issuer, subject, issuerKeys };
    },
  },
];

/** The relationship as the API's JSON shows it (what the form's preview prints). */
export function relationshipJson(r: Relationship): Record<string, unknown> {
  if (r.kind === "staticKeys")
    return { staticKeys: { issuer: r.issuer, subject: r.subject, issuerKeys: "(JWKS, " + r.issuerKeys.length + " characters)" } };
  const { kind: _kind, ...rest } = r;
  return { claimMatch: rest };
}
