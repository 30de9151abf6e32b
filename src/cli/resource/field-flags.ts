/**
 * Field flags: adding them to a command, and turning the values given into JSON (nested by the
 * flags' dotted paths) and into the update mask of exactly the fields given.
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { Option, type Command } from "commander";
import { UsageError } from "../usage-error.js";
import type { CommandContext } from "./context.js";
import type { FieldFlag } from "./spec.js";

/** The key commander files a flag's value under. */
export function flagKey(flag: FieldFlag): string {
  return new Option(flag.flags).attributeName();
}

/** The flag's long name, for messages: `--description`. */
export function flagName(flag: FieldFlag): string {
  return new Option(flag.flags).long ?? flag.flags;
}

/** Adds flags to cmd (repeatable ones collect their values). */
export function addFieldFlags(cmd: Command, flags: readonly FieldFlag[]): void {
  for (const flag of flags) {
    const option = new Option(
      flag.flags,
      flag.help +
        (flag.shape === "map"
          ? " (KEY=VALUE; repeat the flag for more)"
          : flag.shape === "list"
            ? " (repeat the flag, or separate with commas)"
            : ""),
    );
    if (flag.shape !== undefined) option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
    cmd.addOption(option);
  }
}

/** The JSON of the flags given and their paths, in flag order; UsageError for a malformed value. */
export async function fieldValues(
  ctx: CommandContext,
  flags: readonly FieldFlag[],
  opts: Record<string, unknown>,
): Promise<{ json: JsonObject; paths: string[] }> {
  const json: JsonObject = {};
  const paths: string[] = [];
  for (const flag of flags) {
    const given = opts[flagKey(flag)];
    if (given === undefined) continue;
    setPath(json, flag.path, await valueOf(ctx, flag, given));
    paths.push(flag.path);
  }
  return { json, paths };
}

async function valueOf(ctx: CommandContext, flag: FieldFlag, given: unknown): Promise<JsonValue> {
  const parse = async (text: string) => (flag.parse === undefined ? text : await flag.parse(text, ctx));
  if (typeof given === "boolean") return given;
  if (flag.shape === "list") {
    const parts = (given as string[])
      .flatMap((v) => v.split(","))
      .map((v) => v.trim())
      .filter((v) => v !== "");
    return Promise.all(parts.map(parse));
  }
  if (flag.shape === "map") {
    const out: JsonObject = {};
    for (const pair of given as string[]) {
      const eq = pair.indexOf("=");
      if (eq <= 0) throw new UsageError(`${flagName(flag)}: "${pair}" is not KEY=VALUE`);
      out[pair.slice(0, eq)] = await parse(pair.slice(eq + 1));
    }
    return out;
  }
  return parse(String(given));
}

/** Sets the value at a dotted path of json, making the objects on the way. */
function setPath(json: JsonObject, path: string, value: JsonValue): void {
  const keys = path.split(".");
  let target = json;
  for (const key of keys.slice(0, -1)) {
    const next = target[key];
    if (next === undefined || next === null || typeof next !== "object" || Array.isArray(next)) target[key] = {};
    target = target[key] as JsonObject;
  }
  target[keys[keys.length - 1] as string] = value;
}
