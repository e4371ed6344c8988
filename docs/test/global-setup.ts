import { ensureChromium } from './chromium.js';
import { ensureSite } from './site.js';

// The test opens the built site (turbo runs `build` before `test`) in Debian's Chromium, installed here
// when missing: a global setup has no hook timeout, and an install can wait for another suite's apt-get.
export default function setup(): void {
  ensureSite();
  ensureChromium();
}
