/**
 * The suite-wide promise that no credential reaches a log: every server the tests start (in
 * process or spawned) has its log lines scanned when it stops, and a line holding an API token,
 * an invite code, a login code, a refresh token or a bearer credential fails the test that
 * started it.
 */

/** What a credential looks like in a log line. */
const PATTERNS: readonly [string, RegExp][] = [
  ["a JWT", /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/],
  ["an invite code", /arbinv_[A-Za-z0-9_-]{20,}/],
  ["a login code", /arbcode_[A-Za-z0-9_-]{20,}/],
  ["a refresh token", /arbrt_[A-Za-z0-9_-]{20,}/],
  ["a bearer credential", /Bearer\s+[A-Za-z0-9._~+/-]{16,}/i],
  ["a basic credential", /Basic\s+[A-Za-z0-9+/=]{16,}/i],
];

/** Log lines scanned so far in this worker. */
let scanned = 0;

/** Throws when a line of what holds a credential; whose names the log in the error. */
export function assertNoSecrets(lines: readonly unknown[], whose: string): void {
  for (const line of lines) {
    scanned++;
    const text = typeof line === "string" ? line : JSON.stringify(line);
    for (const [kind, pattern] of PATTERNS) {
      const m = pattern.exec(text);
      if (m) throw new Error(`${whose} logged ${kind} (${m[0].slice(0, 12)}...): ${text.slice(0, 300)}`);
    }
  }
}

/** How many log lines this worker has scanned. */
export function scannedLines(): number {
  return scanned;
}
