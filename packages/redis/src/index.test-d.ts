import type { KeyValueStore, LimitStore, TaskStore } from '@pier/core';
import type { EventBus } from '@pier/core/transport';
import type { HealthCheckDefinition } from '@pier/plugin-health';
import type { SessionRelay } from '@pier/transport-http';
import { createClient } from '@redis/client';
import { expectTypeOf } from 'vitest';
import {
  type RedisClientLike,
  type RedisKeyValueClientLike,
  type RedisLimitClientLike,
  type RedisSessionClientLike,
  type RedisTaskClientLike,
  redisEventBus,
  redisKeyValueStore,
  redisLimitStore,
  redisSessionRelay,
  redisTaskStore,
} from './index.js';

// A node-redis v6 client fits the structural interface as it is.
expectTypeOf(createClient()).toExtend<RedisClientLike>();
const bus = redisEventBus({ url: 'redis://127.0.0.1:6379' });
// The bus is the SDK's ServerEventBus (core's EventBus) and its check is plugin-health's definition.
expectTypeOf(bus).toExtend<EventBus>();
expectTypeOf(bus.healthCheck()).toExtend<HealthCheckDefinition>();

// The session relay fits the HTTP transport's seam, and a node-redis v6 client fits what the relay calls.
expectTypeOf(createClient()).toExtend<RedisSessionClientLike>();
expectTypeOf(redisSessionRelay({ url: 'redis://127.0.0.1:6379' })).toExtend<SessionRelay>();

// The task store runs on a node-redis v6 client as it is too, and is core's TaskStore.
expectTypeOf(createClient()).toExtend<RedisTaskClientLike>();
expectTypeOf(redisTaskStore({ url: 'redis://127.0.0.1:6379' })).toExtend<TaskStore>();

// The limit store runs on a node-redis v6 client as it is, and is core's LimitStore.
expectTypeOf(createClient()).toExtend<RedisLimitClientLike>();
expectTypeOf(redisLimitStore({ url: 'redis://127.0.0.1:6379' })).toExtend<LimitStore>();
// The key-value store runs on a node-redis v6 client as it is, and is core's KeyValueStore.
expectTypeOf(createClient()).toExtend<RedisKeyValueClientLike>();
expectTypeOf(redisKeyValueStore({ url: 'redis://127.0.0.1:6379' })).toExtend<KeyValueStore>();
