/**
 * When two email addresses are the same mailbox, for an invite restricted to one. Compared as
 * mail is delivered, not as text folds: the domain by its IDNA ASCII form (how DNS and mail
 * routing see it, so `Example.COM` and `example.com` are one domain), the local part exactly,
 * except for the letters A to Z, whose case nearly every mail server ignores. Unicode case folding
 * and compatibility mappings are not applied to the local part: `toLowerCase()` made the Kelvin
 * sign (U+212A) equal to `k`, so whoever could get a verified address spelled with it was taken
 * for the invitee.
 */
import { domainToASCII } from "node:url";

/** Whether a and b name the same mailbox. */
export function sameEmailAddress(a: string, b: string): boolean {
  const x = canonicalEmail(a);
  return x !== undefined && x === canonicalEmail(b);
}

/** The address with its domain in IDNA ASCII form and A-Z in its local part lowercased; undefined when it is no address. */
export function canonicalEmail(address: string): string | undefined {
  const at = address.lastIndexOf("@");
  if (at <= 0 || at === address.length - 1) return undefined;
  const domain = domainToASCII(address.slice(at + 1));
  if (domain === "") return undefined;
  return `${asciiLowercase(address.slice(0, at))}@${domain}`;
}

function asciiLowercase(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}
