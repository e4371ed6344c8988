import type { Io } from '../io.js';
export async function doctorCommand(_argv: readonly string[], _io: Io): Promise<number> {
  return 0;
}
