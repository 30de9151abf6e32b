/**
 * Prose for docs/cli.md that says more than a command's `--help`, keyed by the command's path.
 */

/** Notes printed after the help of the command with that path. */
export const CLI_NOTES: Readonly<Record<string, string>> = {
  "arbor auth login": `A person: the command listens on \`127.0.0.1\` (a free port), prints the login URL on stderr and
opens it with the platform's opener (\`open\` on macOS, the URL handler on Windows, \`xdg-open\`
elsewhere when it is installed; never with \`--no-browser\`). Open the URL in any browser on the
same machine and log in at the identity provider; the browser comes back to the command, which
redeems Arbor's one-time code with its PKCE verifier, caches the tokens and prints \`Logged in to
<api> as <uid>.\`. When the login fails (an unknown organization, a used invite, a refusal by the
provider), the browser page and the command (exit \`1\`) say why. The flow is described in
[api.md](api.md#logging-in).

A workload: \`--identity UID --identity-token FILE\` reads the platform's OIDC token from \`FILE\`
and exchanges it at \`{auth_url}/sts/exchange\` ([api.md](api.md#token-exchange)). The session
keeps the file's path, not the token: later \`arbor auth token\` calls exchange whatever the
platform has written there since (Kubernetes projected tokens, for example, are rewritten before
they expire).`,
  "arbor auth token": `Prints the cached token while it has more than a minute left; otherwise renews it with the
refresh token (which rotates) or, for a workload, by exchanging the token file again. When the
login has ended (logged out elsewhere, expired after 30 days, or revoked because a refresh token
was replayed), the cache is deleted and the command exits \`1\`: run \`arbor auth login\` again.`,
  "arbor auth status": `Shows the identity uid, the upstream issuer and subject the login came from, when the token
expires, and the identity's role bindings (\`GET /iam/v2beta1/roleBindings?identity=<uid>\`: those
in groups where the identity may list role bindings).`,
  "arbor auth logout": `Revokes the login's refresh tokens at the server and deletes the API's cache folder. API tokens
already printed stay valid until they expire (at most an hour). If the server cannot be reached
the cache is deleted all the same and the command exits \`1\` saying so.`,
};
