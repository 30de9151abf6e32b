/**
 * What the console's browser tests share: Debian's Chromium (skipped without it, except under
 * CI=true), axe-core's verdict on a page, and each view's check with its screenshot, written to
 * docs/console/ under UPDATE_SCREENSHOTS=1 from the first engine's run only.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { expect } from "vitest";
import { engines } from "./engines.js";

const CHROMIUM = "/usr/bin/chromium";
const SCREENSHOTS = join(import.meta.dirname, "../../docs/console");
const writeScreenshots = process.env.UPDATE_SCREENSHOTS === "1";
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** Whether the browser cases are skipped: no Chromium, and not under CI=true (where they must run). */
export const skipBrowser = !existsSync(CHROMIUM) && process.env.CI !== "true";
if (skipBrowser) console.warn(`${CHROMIUM} not found: skipping the console's browser cases`);

/** Headless Chromium as the console's tests run it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/** axe-core's serious and critical violations on the page as it is now. */
async function accessibilityViolations(page: Page): Promise<{ id: string; impact: string; nodes: string[] }[]> {
  // evaluate() runs through the DevTools protocol, which the page's CSP does not govern (an
  // injected <script> would be refused, as console-browser.test.ts's CSP case shows).
  if (!(await page.evaluate(() => "axe" in globalThis))) await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const axe = (globalThis as any).axe;
    const r = await axe.run((globalThis as any).document, { resultTypes: ["violations"] });
    return r.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n: any) => n.target.join(" ")) }));
  });
  return (result as { id: string; impact: string; nodes: string[] }[]).filter((v) => v.impact === "serious" || v.impact === "critical");
}

/** Checks the view for accessibility and, when asked, writes its screenshot (from the first engine's run). */
export async function view(page: Page, name: string, engine: string): Promise<void> {
  expect(await accessibilityViolations(page), `accessibility of ${name}`).toEqual([]);
  if (writeScreenshots && engine === engines[0]!.name) {
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  }
}
