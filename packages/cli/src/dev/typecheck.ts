// The type checker of pier dev, in a worker thread (typecheck-worker.ts): one request at a time.
import { Worker } from 'node:worker_threads';

export interface TypeCheckResult {
  readonly errorCount: number;
  readonly text: string;
}

export interface TypeChecker {
  /** `undefined` when type checking is unavailable (no TypeScript in the project). */
  check(files: readonly string[]): Promise<TypeCheckResult | undefined>;
  /** Why type checking is off, once known. */
  readonly unavailable: Promise<string | undefined>;
  close(): Promise<void>;
}

export function createTypeChecker(projectRoot: string, color: boolean): TypeChecker {
  const worker = new Worker(new URL('./typecheck-worker.js', import.meta.url), {
    workerData: { projectRoot, color },
    stdout: false,
    stderr: false,
  });
  worker.unref();
  let queue: Promise<unknown> = Promise.resolve();
  let resolveUnavailable: (why: string | undefined) => void = () => undefined;
  const unavailable = new Promise<string | undefined>((resolve) => {
    resolveUnavailable = resolve;
  });
  let off = false;
  const waiters: ((message: Record<string, unknown>) => void)[] = [];
  worker.on('message', (message: Record<string, unknown>) => {
    if (typeof message.unavailable === 'string') {
      off = true;
      resolveUnavailable(message.unavailable);
      for (const wake of waiters.splice(0)) wake({});
      return;
    }
    if (message.ready === true) return resolveUnavailable(undefined);
    waiters.shift()?.(message);
  });
  worker.on('error', (error) => {
    off = true;
    resolveUnavailable(`the type checker failed: ${error.message}`);
    for (const wake of waiters.splice(0)) wake({});
  });
  return {
    unavailable,
    check(files) {
      const run = queue.then(async () => {
        if (off || (await unavailable) !== undefined) return undefined;
        const message = await new Promise<Record<string, unknown>>((resolve) => {
          waiters.push(resolve);
          worker.postMessage({ files: [...files] });
        });
        if (typeof message.errorCount !== 'number') return undefined;
        return { errorCount: message.errorCount, text: String(message.text ?? '') };
      });
      queue = run.catch(() => undefined);
      return run;
    },
    async close() {
      await worker.terminate();
    },
  };
}
