import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium: npm packages cannot download browsers on these machines. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless Chromium for browser tests. Background networking is off: these machines have no
 * network beyond loopback, and Chromium would otherwise keep trying to reach Google's hosts.
 */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
