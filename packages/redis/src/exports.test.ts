// The public API is what the entry points export, nothing more: a new export is a decision, made here.
import { expect, it } from 'vitest';
import * as entry0 from './index.js';

it('@pier/redis exports exactly its allow-list', () => {
  expect(Object.keys(entry0).sort()).toEqual([
    'PierRedisError',
    'redisEventBus',
    'redisHealthCheck',
    'redisKeyValueStore',
    'redisLimitStore',
    'redisRequestStateKeys',
    'redisSessionRelay',
    'redisTaskStore',
  ]);
});
