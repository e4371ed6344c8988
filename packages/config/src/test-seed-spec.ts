import { z } from 'zod';
import type { ConfigSpec } from './spec.js';

/** The seed's example configuration (issue 3), shared by the tests; docs/samples/config/weather-config.ts shows the same spec. */
export const seedSpec = {
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
  maxRetries: { schema: z.number().int().min(0).default(3), env: 'MAX_RETRIES', description: 'Retries' },
  timeout: {
    schema: z.number().int().positive().default(5000),
    env: 'TIMEOUT',
    description: 'Request timeout in milliseconds',
  },
  databaseUrl: {
    schema: z.string().optional(),
    env: 'DATABASE_URL',
    arg: false,
    secret: true,
    description: 'Connection string; may hold a password',
  },
  logLevel: {
    schema: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
    env: 'LOG_LEVEL',
    arg: false,
  },
} satisfies ConfigSpec;

/** A text that must never be printed: long enough to be masked with a prefix. */
export const CANARY = 'CANARY-7f3a9c1e5b2d4f60';
