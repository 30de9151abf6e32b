/**
 * The claim matches of the identity presets: exact values where a ref is given, else a pattern
 * that the server's pinning rules accept and that matches the one repository, project or service
 * account, never a neighbour whose name merely starts the same or differs in a quoted character.
 */
import { describe, expect, it } from "vitest";
import { githubClaimMatch, gitlabClaimMatch, kubernetesSubject } from "../../src/cli/iam/preset-claims.js";
import { validateClaimMatch } from "../../src/domain/claim-match-rules.js";
import { matchesPattern } from "../../src/domain/identity-patterns.js";

const RULES = { allowHttpLoopbackIssuers: false, allowPrivateIssuers: false };

describe("identity presets' claim matches", () => {
  it("GitHub: an exact subject with a ref or an environment, the workflow as a custom claim", () => {
    expect(githubClaimMatch({ repo: "acme/app", ref: "refs/heads/main", workflow: "release" })).toEqual({
      issuer: "https://token.actions.githubusercontent.com",
      subject: "repo:acme/app:ref:refs/heads/main",
      claims: { workflow: "release" },
    });
    expect(githubClaimMatch({ repo: "acme/app", environment: "production" })).toEqual({
      issuer: "https://token.actions.githubusercontent.com",
      subject: "repo:acme/app:environment:production",
    });
  });

  it("GitHub without a ref: every ref of that repository and no other", () => {
    const m = githubClaimMatch({ repo: "acme/app.js" });
    expect(m.subjectPattern).toBe("repo:acme/app\\.js:ref:refs/.+");
    validateClaimMatch(
      { kind: "claimMatch", issuer: m.issuer as string, subjectPattern: m.subjectPattern as string, claims: {}, claimPatterns: {} },
      RULES,
    );
    const matches = (s: string) => matchesPattern(m.subjectPattern as string, s);
    expect(matches("repo:acme/app.js:ref:refs/heads/feature")).toBe(true);
    expect(matches("repo:acme/app.js:ref:refs/tags/v1")).toBe(true);
    for (const other of [
      "repo:acme/appxjs:ref:refs/heads/main",
      "repo:acme/app.js-evil:ref:refs/heads/main",
      "repo:evil/app.js:ref:refs/heads/main",
      "repo:acme/app.js:pull_request",
      "repo:acme/app.js:environment:prod",
    ]) {
      expect(matches(other), other).toBe(false);
    }
  });

  it("GitLab: the instance as issuer, an exact subject with a ref, else a pinned pattern", () => {
    expect(gitlabClaimMatch({ project: "acme/tools/app", ref: "main" })).toEqual({
      issuer: "https://gitlab.com",
      subject: "project_path:acme/tools/app:ref_type:branch:ref:main",
    });
    expect(gitlabClaimMatch({ project: "acme/app", url: "https://gitlab.acme.com/", ref: "v1.0", refType: "tag" })).toEqual({
      issuer: "https://gitlab.acme.com",
      subject: "project_path:acme/app:ref_type:tag:ref:v1.0",
    });
    const m = gitlabClaimMatch({ project: "acme/app", refType: "tag" });
    validateClaimMatch(
      { kind: "claimMatch", issuer: m.issuer as string, subjectPattern: m.subjectPattern as string, claims: {}, claimPatterns: {} },
      RULES,
    );
    expect(matchesPattern(m.subjectPattern as string, "project_path:acme/app:ref_type:tag:ref:v2")).toBe(true);
    expect(matchesPattern(m.subjectPattern as string, "project_path:acme/app:ref_type:branch:ref:main")).toBe(false);
    expect(matchesPattern(m.subjectPattern as string, "project_path:acme/app-evil:ref_type:tag:ref:v2")).toBe(false);
  });

  it("Kubernetes: the service account's subject, exactly", () => {
    expect(kubernetesSubject({ issuer: "https://k8s.example", namespace: "ci", serviceAccount: "deployer" })).toBe(
      "system:serviceaccount:ci:deployer",
    );
  });

  it.each([
    ["a repo without owner", () => githubClaimMatch({ repo: "app" }), /--github-repo/],
    ["a repo smuggling a ref", () => githubClaimMatch({ repo: "acme/app:ref:refs/heads/x" }), /--github-repo/],
    ["a short ref", () => githubClaimMatch({ repo: "acme/app", ref: "main" }), /--github-ref/],
    ["a ref and an environment", () => githubClaimMatch({ repo: "acme/app", ref: "refs/heads/main", environment: "prod" }), /give one/],
    ["a project without group", () => gitlabClaimMatch({ project: "app" }), /--gitlab-project/],
    ["a plain-HTTP GitLab", () => gitlabClaimMatch({ project: "a/b", url: "http://gitlab.acme.com" }), /--gitlab-url/],
    ["a namespace with a colon", () => kubernetesSubject({ issuer: "https://k", namespace: "ci:x", serviceAccount: "d" }), /--namespace/],
    [
      "an upper-case service account",
      () => kubernetesSubject({ issuer: "https://k", namespace: "ci", serviceAccount: "Deployer" }),
      /--service-account/,
    ],
  ])("refuses %s", (_what, make, message) => {
    expect(make).toThrow(message);
  });
});
