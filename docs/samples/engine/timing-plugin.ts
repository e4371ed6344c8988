// Around every request, on every transport and era: an observer sees the request, may run it inside its
// own async context, and hears how it ended.
import type { PierPlugin } from '@pier/core';

export function timingPlugin(report: (line: string) => void): PierPlugin {
  return {
    name: 'timing',
    setup(ctx) {
      ctx.observe({
        onRequest(request) {
          const started = performance.now();
          const target = typeof request.params?.name === 'string' ? ` ${request.params.name}` : '';
          return (outcome) => {
            const verdict = 'error' in outcome ? `error ${outcome.error.code}` : 'ok';
            const ms = performance.now() - started;
            report(`${request.method}${target} (${request.era}): ${verdict}${ms < 1_000 ? '' : ', slow'}`);
          };
        },
      });
    },
  };
}
