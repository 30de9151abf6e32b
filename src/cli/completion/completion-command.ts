/**
 * `arbor completion bash|zsh|fish`: prints a shell completion script generated from the command
 * tree, so it always knows every command, flag and choice of this version. The scripts ask the
 * hidden `arbor __complete` for the names only a server (groups, identities, roles) or the
 * settings file (contexts) knows.
 */
import { Argument, type Command } from "commander";
import { withExamples } from "../resource/help-text.js";
import { bashScript } from "./bash.js";
import { commandTree, DYNAMIC_KINDS, rootOf, type DynamicKind } from "./command-tree.js";
import { fishScript } from "./fish.js";
import { zshScript } from "./zsh.js";

const SCRIPTS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;

/** Adds `completion` and `__complete` to program; out receives what they print, env is the command's environment. */
export function addCompletionCommand(
  program: Command,
  out: { write(text: string): unknown },
  env: Readonly<Record<string, string | undefined>>,
): void {
  const cmd = program
    .command("completion")
    .description("print a shell completion script (bash, zsh or fish) for arbor and npx arbor")
    .addArgument(new Argument("<shell>", "the shell").choices(Object.keys(SCRIPTS)));
  withExamples(
    cmd,
    [
      "source <(arbor completion bash)            # in ~/.bashrc",
      "arbor completion bash > /etc/bash_completion.d/arbor",
      "source <(arbor completion zsh)             # in ~/.zshrc, after compinit",
      "arbor completion fish > ~/.config/fish/completions/arbor.fish",
    ],
    "The scripts complete commands, flags, the choices of flags and arguments that have them, context\n" +
      "names, and the names of groups, identities and roles the server shows the current login (asked\n" +
      "with a 1 s timeout, kept 30 s in $XDG_CACHE_HOME/arbor/completion; nothing when offline or logged\n" +
      "out). They complete `npx arbor ...` too.",
  );
  cmd.action((shell: keyof typeof SCRIPTS, _opts: unknown, self: Command) => {
    const root = rootOf(self);
    out.write(SCRIPTS[shell](commandTree(root), root.name()));
  });

  const complete = program
    .command("__complete", { hidden: true })
    .description("print the names a completion script offers for a value (for the scripts, not for people)")
    .addArgument(new Argument("<kind>", "what is named").choices(DYNAMIC_KINDS))
    .argument("[prefix]", "what is typed of the value", "")
    .argument("[line]", "the command line up to the cursor, for its --context and --api", "");
  withExamples(complete, ['arbor __complete -- groups eng "arbor iam groups get eng"']).action(
    async (kind: DynamicKind, prefix: string, line: string) => {
      const { completeValues } = await import("./complete-values.js");
      const names = await completeValues({ kind, prefix, line, env, now: Date.now });
      out.write(names.map((n) => `${n}\n`).join(""));
    },
  );
}
