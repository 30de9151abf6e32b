/**
 * Which context of the settings file a command uses: `--context` (main.ts hands it on as
 * ARBOR_CONTEXT, so one rule serves both), else ARBOR_CONTEXT, else the file's current-context,
 * else `default`. A name the file does not hold is an error rather than an empty context: a typo
 * must not send a command to the default server with the default login.
 */
import { UsageError } from "../usage-error.js";
import { contextName, DEFAULT_CONTEXT, type ClientFile, type ContextSettings } from "./client-file.js";

type Env = Readonly<Record<string, string | undefined>>;

/** A context chosen for a command. */
export interface SelectedContext {
  name: string;
  settings: ContextSettings;
}

/** The contexts the file has, `default` included when it has none. */
export function contextNames(file: ClientFile): string[] {
  const names = Object.keys(file.contexts);
  return names.length === 0 ? [DEFAULT_CONTEXT] : names;
}

/** The current context's name: the file's current-context, else `default`. */
export function currentContextName(file: ClientFile): string {
  return file.currentContext ?? DEFAULT_CONTEXT;
}

/** The context named by env or the file (path, for messages); UsageError when the file has no such context. */
export function selectContext(file: ClientFile, path: string, env: Env): SelectedContext {
  const asked = env.ARBOR_CONTEXT?.trim();
  const name = asked === undefined || asked === "" ? currentContextName(file) : contextName(asked, "--context (ARBOR_CONTEXT)");
  return { name, settings: contextIn(file, path, name) };
}

/** The settings of the context name; UsageError when the file has no such context. */
export function contextIn(file: ClientFile, path: string, name: string): ContextSettings {
  const settings = file.contexts[name];
  if (settings !== undefined && Object.hasOwn(file.contexts, name)) return settings;
  if (Object.keys(file.contexts).length === 0 && name === DEFAULT_CONTEXT) return {};
  throw new UsageError(`no context "${name}" in ${path} (contexts: ${contextNames(file).join(", ")}; see arbor config get-contexts)`);
}
