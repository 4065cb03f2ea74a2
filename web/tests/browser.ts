import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export type LaunchedBrowser = { context: BrowserContext; page: Page; close: () => Promise<void> };

// Debian's Chromium (apt-get install -y chromium); never download a browser.
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless Chromium with a fresh profile directory, removed again by `close()`. `args` adds
 * Chromium flags, e.g. a fake microphone (`--use-fake-device-for-media-stream`).
 * @example const { page, close } = await launchBrowser(); try { await page.goto(url) } finally { await close() }
 */
export async function launchBrowser(options: { locale?: string; args?: readonly string[] } = {}): Promise<LaunchedBrowser> {
  const profileDir = await mkdtemp(join(tmpdir(), 'agentq-chromium-'));
  try {
    // A persistent context takes the profile directory itself: `--user-data-dir` in args fails.
    const context = await chromium.launchPersistentContext(profileDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      ...(options.locale ? { locale: options.locale } : {}),
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        ...(options.args ?? []),
      ],
    });
    const page = context.pages()[0] ?? (await context.newPage());
    return {
      context,
      page,
      async close() {
        await context.close();
        await rm(profileDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(profileDir, { recursive: true, force: true });
    throw error;
  }
}
