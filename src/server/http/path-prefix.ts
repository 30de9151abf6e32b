/**
 * The path a request names on this port once the path of {base_url} or {auth_url} is taken off.
 * Behind a proxy at https://example.com/arbor, some proxies forward `/arbor/iam/v2/groups` as it
 * came and others strip the prefix to `/iam/v2/groups`; the server answers both, so neither way
 * of configuring the proxy breaks the API, the login endpoints or the console. Every route is
 * declared without a prefix and matched after this; what the server hands out (the console's
 * asset names, redirects, discovery, the issuer of its tokens) keeps the configured URLs.
 */

/** The path of a configured URL without its trailing slash ("" for a URL at the host's root). */
export function pathOfUrl(url: string): string {
  return new URL(url).pathname.replace(/\/+$/, "");
}

/**
 * Takes the longest matching prefix (a whole segment: `/arbor` prefixes `/arbor/x`, not
 * `/arborx`) off a request target, query kept; a target naming the prefix alone is `/`.
 */
export function stripPathPrefix(target: string, prefixes: readonly string[]): string {
  for (const prefix of prefixes) {
    if (!target.startsWith(prefix)) continue;
    const rest = target.slice(prefix.length);
    if (rest === "") return "/";
    if (rest.startsWith("/")) return rest;
    if (rest.startsWith("?")) return `/${rest}`;
  }
  return target;
}

/** The non-empty paths of the configured URLs, longest first, each once. */
export function pathPrefixesOf(urls: readonly string[]): string[] {
  return [...new Set(urls.map(pathOfUrl).filter((p) => p !== ""))].sort((a, b) => b.length - a.length);
}
