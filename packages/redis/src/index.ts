export type { RedisClientLike, RedisConnectionLike, RedisStreamEntry } from './client.js';
export { PierRedisError, type PierRedisErrorCode } from './errors.js';
export {
  type RedisEventBus,
  type RedisEventBusOptions,
  type RedisGap,
  redisEventBus,
} from './event-bus.js';
export {
  type RedisHealthCheck,
  type RedisHealthCheckOptions,
  type RedisHealthCheckResult,
  redisHealthCheck,
} from './health.js';
export {
  type RedisKeyValueClientLike,
  type RedisKeyValueStore,
  type RedisKeyValueStoreOptions,
  redisKeyValueStore,
} from './kv-store.js';
export {
  type RedisLimitClientLike,
  type RedisLimitStore,
  type RedisLimitStoreOptions,
  redisLimitStore,
} from './limit-store.js';
export {
  type RedisKeysClientLike,
  type RedisRequestStateKeys,
  type RedisRequestStateKeysOptions,
  redisRequestStateKeys,
} from './request-state-keys.js';
export {
  type RedisSessionClientLike,
  type RedisSessionRelay,
  type RedisSessionRelayOptions,
  type RelayedRequestLike,
  redisSessionRelay,
  type SessionClaimLike,
} from './session-relay.js';
export {
  type RedisTaskClientLike,
  type RedisTaskStore,
  type RedisTaskStoreOptions,
  redisTaskStore,
} from './task-store.js';
