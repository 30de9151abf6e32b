/**
 * `arbor completion bash|zsh`: prints a shell completion script generated from the command tree,
 * so it always knows every command and flag of this version.
 */
import { Argument, type Command } from "commander";
import { withExamples } from "../resource/help-text.js";
import { bashScript } from "./bash.js";
import { commandTree, rootOf } from "./command-tree.js";
import { zshScript } from "./zsh.js";

/** Adds `completion` to program; out receives the script. */
export function addCompletionCommand(program: Command, out: { write(text: string): unknown }): void {
  const cmd = program
    .command("completion")
    .description("print a shell completion script (bash or zsh)")
    .addArgument(new Argument("<shell>", "bash or zsh").choices(["bash", "zsh"]));
  withExamples(
    cmd,
    ["source <(arbor completion bash)", "arbor completion bash > /etc/bash_completion.d/arbor", "source <(arbor completion zsh)   # in ~/.zshrc, after compinit"],
  );
  cmd.action((shell: "bash" | "zsh", _opts: unknown, self: Command) => {
    const root = rootOf(self);
    const tree = commandTree(root);
    out.write(shell === "bash" ? bashScript(tree, root.name()) : zshScript(tree, root.name()));
  });
}
