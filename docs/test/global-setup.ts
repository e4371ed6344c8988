import { ensureSite } from './site.js';

// The test opens the built site; turbo runs `build` before `test` (test dependsOn build).
export default function setup(): void {
  ensureSite();
}
