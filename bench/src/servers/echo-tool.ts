// The echo tool every bench server answers, in one place: its input schema (the zod shape Pier's
// `@Tool` takes) and the function behind it, so that the hand-written ceiling validates with the very
// schema Pier's bench server declares and calls the very same function.
import { z } from 'zod';

/** `echo`'s input, as Pier's `@Tool({ input })` takes it (a zod raw shape). */
export const ECHO_INPUT = { text: z.string() };

export const ECHO_DESCRIPTION = 'Echoes its text';

/** `echo` itself: returns its `text` argument. */
export function echo({ text }: { text: string }): string {
  return text;
}
