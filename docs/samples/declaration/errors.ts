// A bad declaration fails where it is written, with a PierError whose `code` is stable.
import { defineTool, PierError } from '@pier/core';

try {
  defineTool({ name: 'bad name', handler: () => 'never' });
} catch (error) {
  if (error instanceof PierError) console.log(error.code, '-', error.message);
}
