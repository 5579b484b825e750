import { describe, expect, it } from 'vitest';
import { findChromium, NO_CHROMIUM_MESSAGE } from './chromium.js';

describe('findChromium', () => {
  it('takes GATEHOUSE_CHROMIUM first, then CHROME_PATH', () => {
    const exists = () => true;
    expect(findChromium({ GATEHOUSE_CHROMIUM: '/opt/a/chrome', CHROME_PATH: '/opt/b/chrome' }, exists)).toBe('/opt/a/chrome');
    expect(findChromium({ CHROME_PATH: '/opt/b/chrome' }, exists)).toBe('/opt/b/chrome');
  });

  it('refuses a variable naming a file that does not exist, naming the variable', () => {
    expect(() => findChromium({ CHROME_PATH: '/nowhere/chrome' }, () => false)).toThrow(/^CHROME_PATH is \/nowhere\/chrome, which does not exist\. No Chromium found/);
  });

  it('falls back to the usual system paths', () => {
    expect(findChromium({}, (path) => path === '/usr/bin/google-chrome-stable')).toBe('/usr/bin/google-chrome-stable');
  });

  it('says in one line how to install one when there is none', () => {
    expect(() => findChromium({}, () => false)).toThrow(NO_CHROMIUM_MESSAGE);
    expect(NO_CHROMIUM_MESSAGE).not.toContain('\n');
    expect(NO_CHROMIUM_MESSAGE).toMatch(/install chromium.*GATEHOUSE_CHROMIUM/);
  });
});
