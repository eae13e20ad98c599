import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

/** Debian's Chromium, which `.ci/run` installs; browser tests are skipped (with a line saying so) without it. */
export const CHROMIUM = "/usr/bin/chromium";

/** Whether Chromium is here; warns once per calling suite when it is not, naming what is skipped. */
export function chromiumPresent(suite: string): boolean {
  const present = existsSync(CHROMIUM);
  if (!present) console.warn(`${suite} skipped: ${CHROMIUM} is not installed`);
  return present;
}

/** Headless Chromium as every browser test runs it: no sandbox (root in CI), nothing reaching out to the network. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}
