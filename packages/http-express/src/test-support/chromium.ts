import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

/** Variables that name a Chromium (or Chrome) executable, first one set wins. */
export const CHROMIUM_VARIABLES = ['GATEHOUSE_CHROMIUM', 'CHROME_PATH'] as const;

/** Where Chromium or Chrome usually is, on Linux and macOS. */
const SYSTEM_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  join(homedir(), 'Applications/Chromium.app/Contents/MacOS/Chromium'),
  join(homedir(), 'Applications/Google Chrome.app/Contents/MacOS/Google Chrome'),
];

export const NO_CHROMIUM_MESSAGE =
  'No Chromium found for the browser tests: install one (npx playwright-core install chromium, or apt-get install chromium) or set GATEHOUSE_CHROMIUM=/path/to/chromium.';

/** Playwright's own download (`npx playwright-core install chromium`), when it is on disk. */
function playwrightChromium(): string | undefined {
  try {
    return chromium.executablePath();
  } catch {
    return undefined;
  }
}

/**
 * The Chromium the browser tests drive: `$GATEHOUSE_CHROMIUM` or `$CHROME_PATH` when set (and it
 * must exist), else Playwright's downloaded browser, else the usual system paths. Throws one line
 * saying how to install one when there is none, so the test file fails with that message.
 *
 * @example
 * const browser = await chromium.launch({ executablePath: findChromium(), args: ['--headless'] });
 */
export function findChromium(env: Record<string, string | undefined> = process.env, exists: (path: string) => boolean = existsSync): string {
  for (const name of CHROMIUM_VARIABLES) {
    const path = env[name]?.trim();
    if (path === undefined || path === '') continue;
    if (!exists(path)) throw new Error(`${name} is ${path}, which does not exist. ${NO_CHROMIUM_MESSAGE}`);
    return path;
  }
  const found = [playwrightChromium(), ...SYSTEM_PATHS].find((path) => path !== undefined && exists(path));
  if (found === undefined) throw new Error(NO_CHROMIUM_MESSAGE);
  return found;
}

/**
 * Headless Chromium (`findChromium`) as the browser tests launch it; also for the tests of other
 * workspaces (the examples' tests in apps/server), which reach this file by its path.
 *
 * @example
 * const browser = await launchChromium();
 */
export function launchChromium(): ReturnType<typeof chromium.launch> {
  return chromium.launch({ executablePath: findChromium(), args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'], headless: true });
}
