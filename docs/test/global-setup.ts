import { ensureChromium } from './chromium.js';

// Debian's Chromium for the browser test, installed here when missing: a global setup has no hook
// timeout, and an install can wait for another suite's apt-get to finish.
export default function setup(): void {
  ensureChromium();
}
