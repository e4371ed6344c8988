import { configReport, loadConfig, z } from '@pier/config';

export const config = loadConfig(
  {
    apiKey: {
      schema: z.string().min(1),
      env: 'API_KEY',
      secret: true,
      description: 'Key for the forecast API',
    },
    baseUrl: {
      schema: z.url({ protocol: /^https?$/ }).default('https://api.example.com'),
      env: 'BASE_URL',
      description: 'Base URL of the forecast API',
    },
    debug: { schema: z.boolean().default(false), env: 'DEBUG', description: 'Log every request' },
    maxRetries: {
      schema: z.number().int().min(0).default(3),
      env: 'MAX_RETRIES',
      description: 'Retries after a failed request',
    },
    logLevel: {
      schema: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
      env: 'LOG_LEVEL',
      arg: false,
      description: 'Log verbosity',
    },
  },
  { name: 'weather', version: '1.0.0', description: 'Weather forecasts over MCP.' },
);

// This demo prints to stdout; an MCP server over stdio prints diagnostics to stderr only.
console.log(config);
console.log(configReport(config, { secrets: 'presence' }));
console.log(config.apiKey.length); // the real value is there when you read it
