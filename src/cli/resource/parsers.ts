/**
 * Flag values that need more than a string: durations, booleans and file contents.
 */
import { readFile } from "node:fs/promises";
import { UsageError } from "../usage-error.js";
import type { FlagParser } from "./spec.js";

const UNITS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86400 };

/** `90m`, `24h`, `7d`, `3600s` (or a sum, `1d12h`) as a google.protobuf.Duration in JSON (`86400s`). */
export function duration(flag: string): FlagParser {
  return (text) => {
    const parts = [...text.trim().matchAll(/(\d+)([smhd])/g)];
    if (parts.length === 0 || parts.map((p) => p[0]).join("") !== text.trim()) {
      throw new UsageError(`${flag}: "${text}" is not a duration such as 30m, 24h or 7d`);
    }
    return `${parts.reduce((sum, p) => sum + Number(p[1]) * (UNITS[p[2] as string] as number), 0)}s`;
  };
}

/** `true`/`false` (also yes/no). */
export function boolean(flag: string): FlagParser {
  return (text) => {
    if (/^(true|yes)$/i.test(text)) return true;
    if (/^(false|no)$/i.test(text)) return false;
    throw new UsageError(`${flag}: "${text}" is not true or false`);
  };
}

/** The contents of the file the flag names (without a final newline): secrets stay out of shell history. */
export function fileText(flag: string): FlagParser {
  return async (path) => {
    try {
      return (await readFile(path, "utf8")).replace(/\r?\n$/, "");
    } catch (e) {
      throw new UsageError(`${flag}: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  };
}

/** An RFC 3339 time (`2026-01-01T00:00:00Z`), as the API's JSON takes it. */
export function timestamp(flag: string): FlagParser {
  return (text) => {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(text) || Number.isNaN(Date.parse(text))) {
      throw new UsageError(`${flag}: "${text}" is not an RFC 3339 time such as 2026-01-01T00:00:00Z`);
    }
    return new Date(text).toISOString();
  };
}
