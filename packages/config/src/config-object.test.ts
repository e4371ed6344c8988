import { Console } from 'node:console';
import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseConfig, z } from './index.js';
import { CANARY, seedSpec } from './test-seed-spec.js';

function printed(value: unknown): string {
  let text = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  new Console({ stdout: sink, stderr: sink }).log(value);
  return text;
}

const result = parseConfig(seedSpec, {
  argv: ['--timeout', '100'],
  env: { API_KEY: CANARY, DATABASE_URL: `postgres://app:${CANARY}@db.example/app` },
});
if (!result.ok) throw new Error('the seed spec must parse');
const { config } = result;

describe('the configuration object', () => {
  it('gives the real value of a secret when read', () => {
    expect(config.apiKey).toBe(CANARY);
    expect(config.databaseUrl).toContain(CANARY);
  });

  it('masks secrets in util.inspect, console.log, JSON.stringify, String and templates', () => {
    const forms = {
      inspect: inspect(config),
      nested: inspect({ deep: { config } }, { depth: 5 }),
      console: printed(config),
      json: JSON.stringify(config),
      nestedJson: JSON.stringify({ config }),
      string: String(config),
      template: `${config}`,
    };
    for (const [form, text] of Object.entries(forms)) {
      expect(text, form).not.toContain(CANARY);
      expect(text, form).toContain('CANA********');
      expect(text, form).toContain('100');
    }
    expect(JSON.parse(forms.json)).toEqual({
      apiKey: 'CANA********',
      baseUrl: 'https://api.example.com',
      debug: false,
      maxRetries: 3,
      timeout: 100,
      databaseUrl: 'post********',
      logLevel: 'info',
    });
  });

  it('has only the spec keys as its own enumerable properties', () => {
    expect(Object.keys(config)).toEqual(Object.keys(seedSpec));
  });

  it('is frozen', () => {
    expect(Object.isFrozen(config)).toBe(true);
    expect(() => {
      (config as { timeout: number }).timeout = 1;
    }).toThrow(TypeError);
  });

  it('prints an unset secret as unset, not as a mask', () => {
    const unset = parseConfig(seedSpec, { argv: [], env: { API_KEY: CANARY } });
    expect(unset.ok && inspect(unset.config)).toContain('databaseUrl: undefined');
  });

  it('masks a secret that is not text with the fixed mask', () => {
    const pin = parseConfig(
      { pin: { schema: z.number().int(), env: 'PIN', secret: true } },
      {
        argv: [],
        env: { PIN: '73914265' },
      },
    );
    if (!pin.ok) throw new Error('expected success');
    expect(pin.config.pin).toBe(73914265);
    expect(JSON.stringify(pin.config)).toBe('{"pin":"********"}');
    expect(inspect(pin.config)).not.toContain('73914265');
  });
});
