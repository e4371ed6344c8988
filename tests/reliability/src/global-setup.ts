// The suite runs the example app's build and the packages' builds: fail early with a clear message when missing.
import { existsSync } from 'node:fs';
import { EXAMPLE_MAIN } from './child.js';

export default function setup(): void {
  if (!existsSync(EXAMPLE_MAIN)) {
    throw new Error(`${EXAMPLE_MAIN} is missing: build the workspace first (pnpm turbo build)`);
  }
}
