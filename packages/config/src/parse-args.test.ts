import { describe, expect, it } from 'vitest';
import { parseArgs } from './index.js';

describe('parseArgs', () => {
  it('reads --name value, --name=value and a bare flag', () => {
    expect(parseArgs(['--port', '8080', '--host=::1', '--debug'])).toEqual({
      options: { port: '8080', host: '::1', debug: true },
      positionals: [],
    });
  });
});
