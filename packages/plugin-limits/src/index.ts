export { LimitsPluginError, type LimitsPluginErrorCode } from './errors.js';
export type { LimitKey, LimitRule, LimitsPluginOptions, ToolAnnotationsMatch } from './options.js';
export {
  type LimitEvent,
  type LimitsHealthCheck,
  type LimitsHealthCheckOptions,
  type LimitsPlugin,
  limitsPlugin,
} from './plugin.js';
export { LIMIT_EXCEEDED, LIMIT_META_KEY, type LimitRefusal } from './refusal.js';
