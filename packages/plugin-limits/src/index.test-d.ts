import { InMemoryLimitStore, type PierPlugin } from '@pier/core';
import type { HealthCheckDefinition } from '@pier/plugin-health';
import { redisLimitStore } from '@pier/redis';
import { expectTypeOf } from 'vitest';
import { limitsPlugin } from './index.js';

// The plugin is a Pier plugin; its check is plugin-health's definition; both stores fit.
const limits = limitsPlugin({
  store: redisLimitStore({ url: 'redis://127.0.0.1:6379' }),
  rules: [{ name: 'a', key: 'principal', tools: 'add_note', rate: { limit: 1, windowMs: 1_000 } }],
});
expectTypeOf(limits).toExtend<PierPlugin>();
expectTypeOf(limits.healthCheck()).toExtend<HealthCheckDefinition>();
limitsPlugin({ store: new InMemoryLimitStore(), rules: [] });
// Annotations are the tool's own: a typo is a type error.
limitsPlugin({
  rules: [
    {
      name: 'b',
      key: 'server',
      // @ts-expect-error readOnly is not an annotation (readOnlyHint is)
      annotations: { readOnly: false },
      quota: { limit: 1 },
    },
  ],
});
