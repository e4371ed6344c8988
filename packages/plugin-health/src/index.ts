export type {
  HealthCheckContext,
  HealthCheckDefinition,
  HealthCheckResult,
  HealthPaths,
  HealthPluginOptions,
  HealthStatus,
} from './definitions.js';
export { HealthPluginError, type HealthPluginErrorCode } from './errors.js';
export type { HealthCheckOutcome, HealthEvaluation } from './evaluate.js';
export { type HealthPlugin, healthPlugin } from './plugin.js';
export type {
  HealthBody,
  HealthBodyCheck,
  LiveBody,
  NotServingReason,
  ReadyBody,
} from './respond.js';
