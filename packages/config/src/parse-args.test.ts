import { describe, expect, it } from 'vitest';
import { parseArgs } from './index.js';

describe('parseArgs', () => {
  it('reads --name value, --name=value and a bare flag', () => {
    expect(parseArgs(['--port', '8080', '--host=::1', '--debug'])).toEqual({
      options: { port: '8080', host: '::1', debug: true },
      positionals: [],
    });
  });

  it('keeps everything after the first = as the value', () => {
    expect(parseArgs(['--query=a=b', '--empty=']).options).toEqual({ query: 'a=b', empty: '' });
  });

  it('reads a flag followed by another -- token as true and does not consume that token', () => {
    expect(parseArgs(['--verbose', '--port', '1']).options).toEqual({ verbose: true, port: '1' });
  });

  it('takes a value that starts with a single dash', () => {
    expect(parseArgs(['--offset', '-5', '--name', '-']).options).toEqual({ offset: '-5', name: '-' });
  });

  it('stops reading options at --', () => {
    expect(parseArgs(['--a', '1', '--', '--b', '2'])).toEqual({
      options: { a: '1' },
      positionals: ['--b', '2'],
    });
  });

  it('reads a flag right before -- as true', () => {
    expect(parseArgs(['--debug', '--', 'file'])).toEqual({ options: { debug: true }, positionals: ['file'] });
  });

  it('leaves single-dash and plain tokens as positionals', () => {
    expect(parseArgs(['-p', '8080', 'file'])).toEqual({ options: {}, positionals: ['-p', '8080', 'file'] });
  });

  it('lets the last occurrence of an option win', () => {
    expect(parseArgs(['--port', '1', '--port=2']).options).toEqual({ port: '2' });
  });

  it('does not let an option named __proto__ touch the prototype', () => {
    const { options } = parseArgs(['--__proto__', 'x', '--constructor', 'y']);
    expect(Object.keys(options)).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(options, '__proto__')?.value).toBe('x');
  });

  describe('with boolean names', () => {
    const booleans = ['debug'];

    it('consumes only a following true or false', () => {
      expect(parseArgs(['--debug', 'false'], { booleans })).toEqual({
        options: { debug: false },
        positionals: [],
      });
      expect(parseArgs(['--debug', 'true'], { booleans }).options).toEqual({ debug: true });
      expect(parseArgs(['--debug', 'yes'], { booleans })).toEqual({
        options: { debug: true },
        positionals: ['yes'],
      });
    });

    it('reads --no-name as false without consuming the next token', () => {
      expect(parseArgs(['--no-debug', 'file'], { booleans })).toEqual({
        options: { debug: false },
        positionals: ['file'],
      });
    });

    it('reads --name=true and --name=false as booleans', () => {
      expect(parseArgs(['--debug=false'], { booleans }).options).toEqual({ debug: false });
    });
  });

  it('without boolean names, --no-name is just an option of that name', () => {
    expect(parseArgs(['--no-debug']).options).toEqual({ 'no-debug': true });
  });
});
