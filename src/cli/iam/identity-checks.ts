/**
 * `arbor iam identities lookup` and `explain-exchange`: the two questions operators ask about
 * identities besides their fields. Which uid will this person have (so a role binding can be made
 * before they first log in), and why is this workload's token exchange refused (the exchange
 * itself tells an anonymous caller only that the token does not match).
 */
import { readFile } from "node:fs/promises";
import { Option, type Command } from "commander";
import { IdentitiesService } from "../../gen/arbor/iam/v2beta1/identities_pb.js";
import { UsageError } from "../usage-error.js";
import type { CliIo } from "../output/io.js";
import { bold, colorAllowed, tableWidth } from "../output/io.js";
import { isTable } from "../output/format.js";
import { printData } from "../output/print.js";
import { renderTable } from "../output/table.js";
import { commandContext, withCommonOptions, type CommonFlags } from "../resource/context.js";
import { withExamples } from "../resource/help-text.js";
import { resolveUid } from "../resource/resolve.js";
import { IDENTITY_LOOKUP } from "./lookups.js";

/** One check of an explained exchange, as the API's JSON shows it. */
interface Check {
  check?: string;
  passed?: boolean;
  reason?: string;
}

/** Adds `lookup` and `explain-exchange` to the identities command group. */
export function addIdentityCheckCommands(identities: Command, io: CliIo): void {
  addLookupCommand(identities, io);
  addExplainCommand(identities, io);
}

function addLookupCommand(identities: Command, io: CliIo): void {
  const cmd = identities
    .command("lookup")
    .description("print the uid a person gets from an upstream issuer and subject, whether or not they logged in yet")
    .requiredOption("--issuer <url>", "the upstream issuer, as in its tokens' iss")
    .requiredOption("--subject <sub>", "the person's subject, as in its tokens' sub");
  withCommonOptions(cmd);
  withExamples(
    cmd,
    [
      "arbor iam identities lookup --issuer https://accounts.google.com --subject 110248495921238986420",
      "arbor iam role-bindings create --parent acme --role viewer \\\n" +
        "      --identity $(arbor iam identities lookup --issuer https://accounts.google.com --subject 1102484 -o id)",
    ],
    "The uid is derived from issuer and subject, so a role binding made for it now holds at the person's first login.",
  );
  cmd.action(async (flags: CommonFlags & { issuer: string; subject: string }) => {
    const ctx = commandContext(flags, io);
    const found = (await ctx.api.call(IdentitiesService, "lookupIdentity", { issuer: flags.issuer, subject: flags.subject })) as {
      uid?: string;
    };
    const uid = found.uid ?? "";
    if (isTable(ctx.format)) io.stdout.write(`${uid}\n`);
    else printData(io, ctx.format, { uid }, [uid]);
  });
}

function addExplainCommand(identities: Command, io: CliIo): void {
  const cmd = identities
    .command("explain-exchange")
    .description("run the checks of a token exchange for an identity and show each outcome, issuing nothing")
    .argument("<identity>", "identity uid or name")
    .requiredOption("--token-file <file>", "the file holding the upstream OIDC token the workload presents (- for stdin)")
    .addOption(new Option("--audience <aud>", "the audience the workload would request (default: the API's base URL)"));
  withCommonOptions(cmd);
  withExamples(
    cmd,
    [
      "arbor iam identities explain-exchange ci-bot --token-file token.jwt",
      'echo "$ACTIONS_ID_TOKEN" | arbor iam identities explain-exchange ci-bot --token-file - -o json',
    ],
    "Exits 0 when the exchange would issue a token, 1 when a check fails (as kubectl auth can-i says no).\n" +
      "The token is sent to the API only (needs identity.update on the identity); nothing is issued or logged.",
  );
  cmd.action(async (name: string, flags: CommonFlags & { tokenFile: string; audience?: string }) => {
    const ctx = commandContext(flags, io);
    const token = (await readToken(flags.tokenFile)).trim();
    if (token === "") throw new UsageError(`--token-file: ${flags.tokenFile} holds no token`);
    const uid = await resolveUid(ctx, IDENTITY_LOOKUP, name);
    const request = { uid, token, ...(flags.audience !== undefined && { audience: flags.audience }) };
    const answer = (await ctx.api.call(IdentitiesService, "explainExchange", request)) as { checks?: Check[]; wouldIssue?: boolean };
    const wouldIssue = answer.wouldIssue === true;
    if (isTable(ctx.format)) {
      const columns = [
        { header: "CHECK", value: (c: Check) => printable(c.check ?? "") },
        { header: "RESULT", value: (c: Check) => (c.passed === true ? "passed" : "FAILED") },
        { header: "REASON", value: (c: Check) => printable(c.reason ?? "") },
      ];
      io.stdout.write(
        renderTable(columns, answer.checks ?? [], {
          width: tableWidth(io),
          wide: ctx.format === "wide",
          header: (h) => bold(h, colorAllowed(io)),
        }),
      );
      io.stdout.write(wouldIssue ? "The exchange would issue a token.\n" : "The exchange would be refused.\n");
    } else {
      printData(io, ctx.format, { checks: answer.checks ?? [], wouldIssue }, [uid]);
    }
    if (!wouldIssue) process.exitCode = 1;
  });
}

/** Text from the server as a terminal may show it: no control characters (escape sequences). */
function printable(text: string): string {
  return text.replace(/\p{Cc}/gu, "?");
}

async function readToken(file: string): Promise<string> {
  if (file !== "-") {
    return readFile(file, "utf8").catch((e: unknown) => {
      throw new UsageError(`--token-file: cannot read ${file}: ${(e as { code?: string }).code ?? (e as Error).message}`);
    });
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
