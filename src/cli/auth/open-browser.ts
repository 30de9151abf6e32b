/**
 * Opens a URL in the person's browser with the platform's opener, when there is one: `open` on
 * macOS, the URL protocol handler on Windows, `xdg-open` elsewhere when it is on PATH. Best
 * effort: the URL is printed anyway.
 */
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/** Starts the opener for url, detached; does nothing when there is none. */
export function openBrowser(url: string, env: Readonly<Record<string, string | undefined>>): void {
  const command = openerFor(process.platform, env);
  if (command === undefined) return;
  try {
    const child = spawn(command[0] as string, [...command.slice(1), url], { detached: true, stdio: "ignore" });
    child.once("error", () => undefined);
    child.unref();
  } catch {
    // No opener after all: the printed URL remains.
  }
}

/** The opener command for a platform, or undefined. */
export function openerFor(platform: NodeJS.Platform, env: Readonly<Record<string, string | undefined>>): string[] | undefined {
  if (platform === "darwin") return ["open"];
  // rundll32 takes the URL as one argument; `cmd /c start` would split it at every `&`.
  if (platform === "win32") return ["rundll32", "url.dll,FileProtocolHandler"];
  const found = (env.PATH ?? "").split(delimiter).find((dir) => dir !== "" && isExecutable(join(dir, "xdg-open")));
  return found === undefined ? undefined : [join(found, "xdg-open")];
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
