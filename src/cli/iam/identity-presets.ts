/**
 * `arbor iam identities create github|gitlab|kubernetes <name>`: identities for the workloads
 * people most often run, from the platform's terms (a repository, a project, a service account)
 * instead of claim-match regular expressions. preset-claims.ts makes the claim matches.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { Option, type Command } from "commander";
import { UsageError } from "../usage-error.js";
import type { CliIo } from "../output/io.js";
import { printItem } from "../output/print.js";
import { commandContext, withCommonOptions, type CommandContext, type CommonFlags } from "../resource/context.js";
import { withExamples } from "../resource/help-text.js";
import { fileText } from "../resource/parsers.js";
import { parentGroup } from "../resource/write-commands.js";
import { IDENTITIES } from "./identities.js";
import { ROLE_STEP } from "./identity-role.js";
import { githubClaimMatch, gitlabClaimMatch, GITHUB_ISSUER, GITLAB_COM, kubernetesSubject } from "./preset-claims.js";

type PresetFlags = CommonFlags & { parent?: string; description?: string; audience?: string; role?: string } & Record<
    string,
    string | undefined
  >;

/** A preset: its flags and how they make the identity's fields (besides name and description). */
interface Preset {
  name: string;
  description: string;
  options: Option[];
  examples: string[];
  notes: string;
  fields(flags: PresetFlags, ctx: CommandContext): Promise<JsonObject> | JsonObject;
}

const PRESETS: Preset[] = [
  {
    name: "github",
    description: `an identity for GitHub Actions workflows of one repository (issuer ${GITHUB_ISSUER})`,
    options: [
      new Option("--github-repo <owner/repo>", "the repository whose workflows it stands for").makeOptionMandatory(),
      new Option("--github-ref <ref>", "only this full ref (refs/heads/main, refs/tags/v1); default every ref of the repository"),
      new Option("--github-environment <name>", "only jobs in this deployment environment (their subject names it instead of the ref)"),
      new Option("--github-workflow <name>", "only this workflow (the token's workflow claim, its name)"),
    ],
    examples: [
      "arbor iam identities create github ci-bot --github-repo acme/app --github-ref refs/heads/main --role registry.push",
      "arbor iam identities create github deployer --parent prod --github-repo acme/app --github-environment production",
    ],
    notes:
      "Matches GitHub's default subject, repo:<owner>/<repo>:ref:<ref> (or :environment:<name>). An organization\n" +
      "that customised its subject template needs the plain create with --subject. Workflows ask for the token\n" +
      "with the identity's audience (default: Arbor's issuer URL), then run arbor auth login --identity.",
    fields: (f) => ({
      claimMatch: {
        ...githubClaimMatch({
          repo: f.githubRepo as string,
          ref: f.githubRef,
          environment: f.githubEnvironment,
          workflow: f.githubWorkflow,
        }),
        ...audience(f),
      },
    }),
  },
  {
    name: "gitlab",
    description: `an identity for GitLab CI jobs of one project (issuer ${GITLAB_COM}, or --gitlab-url)`,
    options: [
      new Option("--gitlab-project <path>", "the project's path: group/project, or group/subgroup/project").makeOptionMandatory(),
      new Option("--gitlab-url <url>", `the GitLab instance, its tokens' issuer (default ${GITLAB_COM})`),
      new Option("--gitlab-ref <name>", "only this branch or tag name (main, v1.2.0); default every ref"),
      new Option(
        "--gitlab-ref-type <type>",
        "branch or tag: what --gitlab-ref names (default branch), or alone: every ref of the type",
      ).choices(["branch", "tag"]),
    ],
    examples: [
      "arbor iam identities create gitlab ci-bot --gitlab-project acme/app --gitlab-ref main --role registry.pull",
      "arbor iam identities create gitlab releaser --gitlab-url https://gitlab.acme.com " +
        "--gitlab-project platform/tools --gitlab-ref-type tag",
    ],
    notes:
      "Matches GitLab's subject, project_path:<path>:ref_type:<branch|tag>:ref:<name>. Jobs ask for the token\n" +
      "with id_tokens: ... aud: set to the identity's audience (default: Arbor's issuer URL).",
    fields: (f) => ({
      claimMatch: {
        ...gitlabClaimMatch({ project: f.gitlabProject as string, url: f.gitlabUrl, ref: f.gitlabRef, refType: f.gitlabRefType }),
        ...audience(f),
      },
    }),
  },
  {
    name: "kubernetes",
    description: "an identity for one Kubernetes service account, by its projected tokens",
    options: [
      new Option(
        "--issuer <url>",
        "the cluster's service account issuer (kubectl get --raw /.well-known/openid-configuration)",
      ).makeOptionMandatory(),
      new Option("--namespace <ns>", "the service account's namespace").makeOptionMandatory(),
      new Option("--service-account <name>", "the service account").makeOptionMandatory(),
      new Option("--issuer-keys <file>", "the cluster's JWKS (kubectl get --raw /openid/v1/jwks), for an issuer Arbor cannot reach"),
    ],
    examples: [
      "arbor iam identities create kubernetes deployer --issuer https://oidc.eks.eu-west-1.amazonaws.com/id/ABC123 " +
        "--namespace ci --service-account deployer",
      "kubectl get --raw /openid/v1/jwks > jwks.json\n" +
        "  arbor iam identities create kubernetes builder --issuer https://kubernetes.default.svc " +
        "--namespace ci --service-account builder --issuer-keys jwks.json",
    ],
    notes:
      "Matches the subject system:serviceaccount:<namespace>:<name> exactly. With --issuer-keys the identity holds\n" +
      "the keys (static keys, trusted up to 365 days: update them when the cluster rotates its keys).",
    async fields(f, ctx): Promise<JsonObject> {
      const subject = kubernetesSubject({
        issuer: f.issuer as string,
        namespace: f.namespace as string,
        serviceAccount: f.serviceAccount as string,
      });
      if (f.issuerKeys === undefined) return { claimMatch: { issuer: f.issuer as string, subject, ...audience(f) } };
      if (f.audience !== undefined) throw new UsageError("--audience: static keys take the default audience (Arbor's issuer URL)");
      return { staticKeys: { issuer: f.issuer as string, subject, issuerKeys: await fileText("--issuer-keys")(f.issuerKeys, ctx) } };
    },
  },
];

function audience(f: PresetFlags): JsonObject {
  return f.audience === undefined ? {} : { audience: f.audience };
}

/** Adds the presets as subcommands of `identities create`. */
export function addIdentityPresets(identities: Command, io: CliIo): void {
  const create = identities.commands.find((c) => c.name() === "create");
  if (create === undefined) throw new Error("identities has no create command");
  for (const preset of PRESETS) addPreset(create, preset, io);
}

function addPreset(create: Command, preset: Preset, io: CliIo): void {
  const cmd = create.command(preset.name).description(preset.description).argument("<name>", "the new identity's name");
  for (const o of preset.options) cmd.addOption(o);
  cmd
    .addOption(new Option("--parent <group>", "the group to create it in, a name or uid (default: the default group)"))
    .addOption(new Option("--description <text>", "a description"))
    .addOption(new Option("--audience <aud>", "the audience its tokens carry (default: Arbor's issuer URL)"))
    .addOption(new Option(ROLE_STEP.flags, ROLE_STEP.help));
  withCommonOptions(cmd);
  withExamples(cmd, preset.examples, preset.notes);
  cmd.action(async (name: string, _own: PresetFlags, self: Command) => {
    // create parses the flags it shares with its presets (--parent, --role, --api...) before
    // handing over: a preset's flags are its own and create's together.
    const flags = self.optsWithGlobals<PresetFlags>();
    const ctx = commandContext(flags, io);
    const fields = await preset.fields(flags, ctx);
    const parent = await parentGroup(ctx, IDENTITIES, flags.parent);
    const bind = flags.role === undefined ? undefined : await ROLE_STEP.prepare(ctx, flags.role);
    const identity: JsonObject = { name, ...(flags.description !== undefined && { description: flags.description }), ...fields };
    const request: JsonObject = { identity, ...(parent !== undefined && { parent }) };
    const created = (await ctx.api.call(IDENTITIES.service, "createIdentity", request)) as JsonObject;
    await bind?.(created);
    printItem(io, ctx.format, IDENTITIES, created);
  });
}
