// Tools as tasks: the `io.modelcontextprotocol/tasks` extension (SEP-2663), which the SDK does not
// implement. A task tool's handler starts on the `tools/call` request; a question asked `beforeTask` is an
// ordinary input-required round, and once the handler keeps working past the request's first turn (or asks
// a task question) the call answers with a task the client polls (`tasks/get`), answers (`tasks/update`)
// or cancels (`tasks/cancel`). Questions inside a task reuse the input-required machinery: the task
// parks as `input_required`, and when every answer is in, the handler runs again from the top with them.
import {
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import {
  InputRound,
  nextRound,
  protocolAnswer,
  type RoundCodec,
  type Target,
  verifiedState,
} from '../context/input-required.js';
import type { ContextOverrides } from '../context/types.js';
import type { Call } from '../engine/call.js';
import { clientMessage } from '../engine/client-errors.js';
import type { Engine } from '../engine/engine.js';
import { nextTurn, randomId } from '../engine/runtime.js';
import { MissingClientCapabilityError, messageOf } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ObservedTaskStatus } from '../plugins/api.js';
import {
  isFinal,
  type StoredTask,
  type TaskError,
  type TaskRecord,
  type TaskStore,
} from '../stores/task-store.js';

/** The extension's identifier, under `capabilities.extensions`. */
export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';

/** Options of the `tasks` option of `createServer`. */
export interface TasksOptions {
  /** Where tasks are kept. Default: an {@link InMemoryTaskStore} (one process). */
  readonly store?: TaskStore;
  /** How long a task is kept after it was created (its result too), in ms. Default 3 600 000 (1 hour). */
  readonly ttlMs?: number;
  /** How often clients are told to poll, in ms. Default 1000. */
  readonly pollIntervalMs?: number;
  /**
   * How long an unfinished task outlives the process running it when that process dies without closing
   * (SIGKILL, a crash, a lost machine), in ms: the process renews its tasks' lease every third of it, and
   * a task whose lease ran out is saved `failed` by the next process that reads it, instead of staying
   * `working` until its TTL. A process that cannot reach the store (or whose event loop is blocked) for
   * longer loses its tasks the same way. `0`: no lease. Default 15 000.
   */
  readonly leaseMs?: number;
}

/** What a task run changes in the context its handler receives. */
export type TaskContextOverrides = ContextOverrides;

/** Runs a tool's handler once with `round` and the task's context overrides; resolves with its result. */
export type InvokeTool = (round: InputRound, overrides: TaskContextOverrides) => Promise<CallToolResult>;

/** A task this process runs: how to stop it and how to run its handler again. */
interface LocalRun {
  readonly controller: AbortController;
  readonly invoke: InvokeTool;
  readonly capabilities: ClientCapabilities;
  readonly expiry: ReturnType<typeof setTimeout>;
  /** When the task expires (ms since the epoch): saving its status is given up past it. */
  readonly expiresAt: number;
  /** The outcome of a run that ended, while its final status is being saved. */
  ended?: Pick<TaskRecord, 'status' | 'result' | 'error'> | undefined;
  /** The task's version when its handler last parked it as `input_required`; unset while it runs. */
  parkedAt?: number | undefined;
}

const CAS_ATTEMPTS = 16;
/** First wait before saving a status again after the store failed; doubled up to {@link RETRY_MAX_MS}. */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5_000;
/** How long `close()` waits for the final statuses of the runs it stops to be saved. */
export const TASK_CLOSE_SAVE_MS = 3_000;

/** One server's tasks: the store, the runs this process owns, and the `tasks/*` methods. */
export class Tasks {
  readonly #store: TaskStore;
  readonly #ttlMs: number;
  readonly #pollIntervalMs: number;
  readonly #leaseMs: number;
  readonly #logger: Logger;
  readonly #runs = new Map<string, LocalRun>();
  readonly #unwatch: (() => void) | undefined;
  /** Tells observers (`McpObserver.onTaskStatus`) of each status this process saves. */
  readonly #onStatus: ((change: ObservedTaskStatus) => void) | undefined;
  /** Status saves waiting to try again: woken early when the store says it is back (a reconnect). */
  readonly #retries = new Set<() => void>();
  /** Status messages to save, one writer per task (see {@link Tasks.#saveStatusMessage}). */
  readonly #messages = new Map<string, { next: string | undefined }>();
  /** Renews the lease of every task this process runs, while it runs any (see {@link TasksOptions.leaseMs}). */
  #renewer: ReturnType<typeof setInterval> | undefined;
  #renewing = false;
  #closed = false;

  constructor(
    store: TaskStore,
    options: TasksOptions,
    logger: Logger,
    onStatus?: (change: ObservedTaskStatus) => void,
  ) {
    this.#store = store;
    this.#ttlMs = options.ttlMs ?? 3_600_000;
    this.#pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.#leaseMs = options.leaseMs ?? 15_000;
    this.#logger = logger;
    // A shared store tells of changes made through other processes: cancels and answers reach the run here.
    this.#unwatch = store.watch?.((taskId) => {
      // `undefined`: the store reconnected, so saves that failed may succeed now, and leases that lapsed
      // during the outage are pushed on before another process reads them.
      if (taskId === undefined) {
        this.#wakeRetries();
        if (this.#renewer !== undefined) void this.#renewLeases();
      }
      void this.#recheck(taskId);
    });
    this.#onStatus = onStatus;
  }

  /**
   * Whether the request declared the extension in its `_meta` capabilities. Tasks are a 2026-07-28
   * extension: a 2025-era request (no envelope) never declares it.
   */
  static declared(call: Call): boolean {
    if (call.era !== 'modern') return false;
    const extensions = (call.clientCapabilities as { extensions?: Record<string, unknown> } | undefined)
      ?.extensions;
    return typeof extensions === 'object' && extensions !== null && extensions[TASKS_EXTENSION_ID] != null;
  }

  /** The protocol's -32021 for a client without the extension. */
  static missing(what: string): MissingRequiredClientCapabilityError {
    return protocolAnswer(
      new MissingRequiredClientCapabilityError(
        { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } } as never,
        `${what} needs the ${TASKS_EXTENSION_ID} extension, which the client did not declare`,
      ),
    );
  }

  /** Serves `tasks/get`, `tasks/update` and `tasks/cancel` (2026-07-28). */
  define(engine: Engine): void {
    const find = async (call: Call): Promise<StoredTask> => {
      if (!Tasks.declared(call)) throw Tasks.missing(call.method);
      const taskId = call.params.taskId;
      if (typeof taskId !== 'string') {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Invalid params: ${call.method} needs a string taskId`,
        );
      }
      let task = await this.#store.get(taskId);
      // Another principal's task is answered as if it did not exist.
      if (task?.principal !== call.principal) task = undefined;
      else if (this.#orphaned(task)) task = await this.#failOrphan(taskId);
      if (task === undefined) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task: ${taskId}`, { taskId });
      }
      return task;
    };
    engine.define('tasks/get', { eras: 'modern', run: async (call) => detailed(await find(call)) });
    engine.define('tasks/update', {
      eras: 'modern',
      run: async (call) => {
        const task = await find(call);
        await this.#answer(task.taskId, call.inputResponses);
        return {};
      },
    });
    engine.define('tasks/cancel', {
      eras: 'modern',
      run: async (call) => {
        const task = await find(call);
        await this.#cancel(task.taskId);
        return {};
      },
    });
  }

  /**
   * Serves a `tools/call` of a task tool from a client of the extension: an immediate result when the
   * handler finishes within the request's first turns, an input-required round for its `beforeTask`
   * questions, else a task (created in the store before it is returned).
   */
  async call(
    call: Call,
    principal: string,
    round: { readonly target: Target; readonly codec: RoundCodec; readonly maxRounds: number },
    invoke: InvokeTool,
  ): Promise<CallToolResult | InputRequiredResult | Record<string, unknown>> {
    const state = await verifiedState(call, round.target, round.maxRounds);
    const known = state?.a ?? {};
    const first = new InputRound(known, call);
    first.phase = 'call';
    const controller = new AbortController();
    const requestSignal = call.signal;
    const onRequestAbort = () => controller.abort(requestSignal.reason);
    requestSignal.addEventListener('abort', onRequestAbort, { once: true });
    const handover = { taskId: undefined as string | undefined };
    // A task the store cannot create is no task: its run is stopped, and the call fails.
    const create = (fields: Pick<TaskRecord, 'status' | 'inputRequests' | 'answers'>) =>
      this.#create(principal, fields).catch((error: unknown) => {
        controller.abort(error);
        throw error;
      });
    const settled = settle(invoke(first, this.#overrides(controller.signal, handover)));
    const outcome = await Promise.race([
      settled,
      first.stalled.then(() => 'stalled' as const),
      turns(2).then(() => 'running' as const),
    ]);
    // From here on the run belongs to the task, if one is made, not to the request.
    requestSignal.removeEventListener('abort', onRequestAbort);
    const capabilities = call.clientCapabilities ?? {};
    if (typeof outcome === 'object' && first.pending.size === 0) {
      // A question the client cannot answer is the protocol's -32021 (see sdk-servers.ts), as on any call.
      if ('error' in outcome && outcome.error instanceof MissingClientCapabilityError) throw outcome.error;
      // Finished at once: still a task (the client of the extension gets one for a task tool), already final.
      const task = await create({ status: 'working', answers: {} });
      this.#own(task, controller, invoke, capabilities);
      await this.#follow(task.taskId, first, settled, known);
      return created((await this.#store.get(task.taskId)) ?? task);
    }
    if (outcome !== 'running') {
      first.abandon();
      const asks = [...first.pending.keys()];
      if (!asks.some((key) => first.taskAsks.has(key)))
        return nextRound(first, state, round.target, round.codec);
      const task = await create({
        status: 'input_required',
        inputRequests: Object.fromEntries(first.pending),
        answers: { ...known, ...first.used },
      });
      this.#own(task, controller, invoke, capabilities).parkedAt = task.version;
      return created(task);
    }
    first.phase = 'task';
    const task = await create({ status: 'working', answers: {} });
    handover.taskId = task.taskId;
    this.#own(task, controller, invoke, capabilities);
    void this.#follow(task.taskId, first, settled, known);
    return created(task);
  }

  /**
   * Stops every run this process owns (the server closes): a run that has not finished is gone with the
   * process, so its task is saved as `failed` ("the server shut down before the task finished") rather
   * than left `working` until its TTL; waits up to {@link TASK_CLOSE_SAVE_MS} for those saves (and for
   * final statuses still being retried), then gives up on them, logged.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    const shutdown = { status: 'failed' as const, error: SHUTDOWN_ERROR };
    const deadline = Date.now() + TASK_CLOSE_SAVE_MS;
    // A run that ended keeps its outcome (its save may still be retrying); one still running fails.
    const saves = [...this.#runs].map(([taskId, run]) =>
      this.#finish(taskId, run.ended ?? shutdown, deadline),
    );
    for (const [taskId, run] of this.#runs) this.#forget(taskId, run, new Error(SHUTDOWN_ERROR.message));
    await Promise.all(saves);
    this.#closed = true;
    clearInterval(this.#renewer);
    this.#renewer = undefined;
    this.#unwatch?.();
    this.#wakeRetries();
  }

  async #create(principal: string, fields: Pick<TaskRecord, 'status' | 'inputRequests' | 'answers'>) {
    const now = Date.now();
    const at = new Date(now).toISOString();
    const task = await this.#store.create({
      taskId: randomId(),
      principal,
      createdAt: at,
      lastUpdatedAt: at,
      ttlMs: this.#ttlMs,
      pollIntervalMs: this.#pollIntervalMs,
      expiresAt: now + this.#ttlMs,
      ...(this.#leaseMs > 0 && { leaseUntil: now + this.#leaseMs }),
      ...fields,
    });
    this.#onStatus?.({
      taskId: task.taskId,
      status: task.status,
      previous: undefined,
      expiresAt: task.expiresAt,
    });
    return task;
  }

  #own(
    task: StoredTask,
    controller: AbortController,
    invoke: InvokeTool,
    capabilities: ClientCapabilities,
  ): LocalRun {
    // The run is forgotten with its task: nothing can resume a task after its TTL.
    const expiry = setTimeout(() => this.#forget(task.taskId, run), task.expiresAt - Date.now());
    (expiry as { unref?: () => void }).unref?.();
    const run: LocalRun = { controller, invoke, capabilities, expiry, expiresAt: task.expiresAt };
    this.#runs.set(task.taskId, run);
    if (this.#leaseMs > 0 && this.#renewer === undefined) {
      this.#renewer = setInterval(() => void this.#renewLeases(), Math.max(1, Math.floor(this.#leaseMs / 3)));
      (this.#renewer as { unref?: () => void }).unref?.();
    }
    return run;
  }

  #forget(taskId: string, run: LocalRun, reason: Error = new Error('the task ended')): void {
    clearTimeout(run.expiry);
    if (this.#runs.get(taskId) === run) this.#runs.delete(taskId);
    if (this.#runs.size === 0) {
      clearInterval(this.#renewer);
      this.#renewer = undefined;
    }
    run.controller.abort(reason);
  }

  /**
   * Pushes the lease of every task this process runs (parked ones too: their answers resume them here)
   * a `leaseMs` ahead. A run whose task was finished or deleted elsewhere is stopped, as a watched change
   * would. One renewal at a time; a store that fails is logged once per renewal, and tried at the next.
   */
  async #renewLeases(): Promise<void> {
    if (this.#renewing) return;
    this.#renewing = true;
    let failed = 0;
    let error: unknown;
    try {
      for (const [taskId, run] of [...this.#runs]) {
        try {
          const task = await this.#mutate(
            taskId,
            (current) =>
              isFinal(current.status) ? undefined : { ...current, leaseUntil: Date.now() + this.#leaseMs },
            false,
          );
          if (task === undefined || isFinal(task.status)) this.#forget(taskId, run);
        } catch (cause) {
          failed++;
          error = cause;
        }
      }
    } finally {
      this.#renewing = false;
    }
    if (failed > 0) {
      this.#logger.warn('task leases not renewed', { tasks: failed, error: messageOf(error) });
    }
  }

  /** An unfinished task whose lease ran out, and whose run is not in this process: its process is gone. */
  #orphaned(task: StoredTask): boolean {
    return (
      !isFinal(task.status) &&
      task.leaseUntil !== undefined &&
      task.leaseUntil < Date.now() &&
      !this.#runs.has(task.taskId)
    );
  }

  /** Saves an orphaned task `failed` (unless its process renewed it meanwhile); the task as it now is. */
  async #failOrphan(taskId: string): Promise<StoredTask | undefined> {
    let orphaned = false;
    const task = await this.#mutate(taskId, (current) => {
      orphaned = this.#orphaned(current);
      return orphaned ? { ...finalFields(current), status: 'failed', error: ORPHANED_ERROR } : undefined;
    });
    if (orphaned)
      this.#logger.warn('task failed: the process running it stopped renewing its lease', { taskId });
    return task;
  }

  /** Waits for a run of the task's handler: its result finishes the task, its questions park it. */
  async #follow(
    taskId: string,
    round: InputRound,
    settled: Promise<Settled<CallToolResult>>,
    known: Readonly<Record<string, unknown>>,
  ): Promise<void> {
    try {
      const outcome = await Promise.race([settled, round.stalled.then(() => undefined)]);
      if (outcome !== undefined && round.pending.size === 0) {
        if ('error' in outcome) this.#logger.warn('task failed', { taskId, error: messageOf(outcome.error) });
        const ended: Pick<TaskRecord, 'status' | 'result' | 'error'> =
          'error' in outcome
            ? { status: 'failed', error: toTaskError(outcome.error) }
            : { status: 'completed', result: outcome.value as Record<string, unknown> };
        const run = this.#runs.get(taskId);
        if (run !== undefined) run.ended = ended;
        await this.#finish(taskId, ended);
        return;
      }
      round.abandon();
      const inputRequests = Object.fromEntries(round.pending);
      const saved = await this.#saveUntilDone(taskId, 'input_required', (task) =>
        isFinal(task.status)
          ? undefined
          : { ...task, status: 'input_required', inputRequests, answers: { ...known, ...round.used } },
      );
      const run = this.#runs.get(taskId);
      if (run !== undefined && saved?.status === 'input_required') {
        run.parkedAt = saved.version;
        // Answers that came in (here or through another process) while this one parked the task.
        await this.#recheck(taskId);
      }
    } catch (error) {
      this.#logger.warn('task not saved', { taskId, error: messageOf(error) });
    }
  }

  /** Saves a run's final status, however long the store takes to come back (see #saveUntilDone). */
  async #finish(
    taskId: string,
    outcome: Pick<TaskRecord, 'status' | 'result' | 'error'>,
    deadline?: number,
  ): Promise<void> {
    const saved = await this.#saveUntilDone(
      taskId,
      outcome.status,
      (task) => {
        if (isFinal(task.status)) return undefined;
        const { statusMessage: _s, ...kept } = finalFields(task);
        return { ...kept, ...outcome };
      },
      deadline,
    );
    const run = this.#runs.get(taskId);
    if (run !== undefined && saved !== undefined && isFinal(saved.status)) this.#forget(taskId, run);
  }

  /**
   * A status only this process can save (its run ended, or parked on questions): when the store fails
   * (Redis down), it is tried again — after 250 ms, doubling up to 5 s, and at once when the store says it
   * reconnected — until it is saved, the task expires, `deadline` passes or the server closes. Without
   * this, a run that ended during an outage left its task `working` until its TTL.
   */
  async #saveUntilDone(
    taskId: string,
    status: string,
    change: (task: StoredTask) => TaskRecord | undefined,
    deadline = this.#runs.get(taskId)?.expiresAt ?? 0,
  ): Promise<StoredTask | undefined> {
    let wait = RETRY_FIRST_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        const saved = await this.#mutate(taskId, change);
        if (attempt > 1) this.#logger.info('task status saved', { taskId, status, attempts: attempt });
        return saved;
      } catch (error) {
        if (this.#closed || Date.now() + wait >= deadline) {
          this.#logger.error('task status lost: the store did not take it in time', {
            taskId,
            status,
            attempts: attempt,
            error: messageOf(error),
          });
          return undefined;
        }
        if (attempt === 1) {
          this.#logger.warn('task status not saved; retrying', { taskId, status, error: messageOf(error) });
        }
        await this.#pause(wait);
        wait = Math.min(wait * 2, RETRY_MAX_MS);
      }
    }
  }

  /** Waits `ms`, or less if the store reconnects or the server closes. */
  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#retries.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.#retries.add(wake);
    });
  }

  #wakeRetries(): void {
    for (const wake of [...this.#retries]) wake();
  }

  /**
   * A task's status message, saved in the background: the handler is never slowed or failed by it. One
   * save at a time per task, the latest message wins; one the store refuses (an outage) is skipped and
   * logged, and the next progress (or the final status) says more.
   */
  #saveStatusMessage(taskId: string, statusMessage: string): void {
    const pending = this.#messages.get(taskId);
    if (pending !== undefined) {
      pending.next = statusMessage;
      return;
    }
    const writer: { next: string | undefined } = { next: statusMessage };
    this.#messages.set(taskId, writer);
    void (async () => {
      for (let message = writer.next; message !== undefined; message = writer.next) {
        writer.next = undefined;
        try {
          await this.#mutate(taskId, (task) =>
            isFinal(task.status) ? undefined : { ...task, statusMessage: message },
          );
        } catch (error) {
          this.#logger.warn('task status message not saved', { taskId, error: messageOf(error) });
        }
      }
      this.#messages.delete(taskId);
    })();
  }

  /** `tasks/update`: merges the answers to pending questions; once none is left, runs the handler again. */
  async #answer(taskId: string, responses: Readonly<Record<string, unknown>>): Promise<void> {
    let resume = false;
    const saved = await this.#mutate(taskId, (task) => {
      resume = false;
      if (task.status !== 'input_required' || task.inputRequests === undefined) return undefined;
      const pending = { ...task.inputRequests };
      const answers = { ...task.answers };
      let answered = false;
      for (const [key, value] of Object.entries(responses)) {
        // Unknown and already answered keys are ignored, as the extension says.
        if (!Object.hasOwn(pending, key)) continue;
        answers[key] = value;
        delete pending[key];
        answered = true;
      }
      if (!answered) return undefined;
      resume = Object.keys(pending).length === 0;
      const { inputRequests: _, ...rest } = task;
      return resume ? { ...rest, status: 'working', answers } : { ...rest, inputRequests: pending, answers };
    });
    if (!resume || saved === undefined) return;
    const run = this.#runs.get(taskId);
    if (run !== undefined) {
      this.#resume(taskId, run, saved);
    } else if (this.#unwatch === undefined) {
      // Another replica (or a process that restarted) owns the run, and the store cannot tell it.
      this.#logger.warn('task answered, but its run is not in this process', { taskId });
    }
  }

  /** Runs a parked task's handler again with every answer; at most once per parking. */
  #resume(taskId: string, run: LocalRun, saved: StoredTask): void {
    if (run.parkedAt === undefined) return;
    run.parkedAt = undefined;
    const round = new InputRound(saved.answers ?? {}, {
      inputResponses: {},
      clientCapabilities: run.capabilities,
    });
    round.phase = 'task';
    const settled = settle(run.invoke(round, this.#overrides(run.controller.signal, { taskId })));
    void this.#follow(taskId, round, settled, saved.answers ?? {});
  }

  /**
   * A task changed in the store (`undefined`: any may have): a run of this process whose task was
   * finished or deleted elsewhere is aborted; a parked one whose answers all came in is resumed.
   */
  async #recheck(taskId: string | undefined): Promise<void> {
    const ids = taskId === undefined ? [...this.#runs.keys()] : this.#runs.has(taskId) ? [taskId] : [];
    for (const id of ids) {
      let task: StoredTask | undefined;
      try {
        task = await this.#store.get(id);
      } catch (error) {
        this.#logger.warn('task not re-read after a change', { taskId: id, error: messageOf(error) });
        continue;
      }
      const run = this.#runs.get(id);
      if (run === undefined) continue;
      if (task === undefined || isFinal(task.status)) this.#forget(id, run);
      else if (task.status === 'working' && run.parkedAt !== undefined && task.version > run.parkedAt)
        this.#resume(id, run, task);
    }
  }

  async #cancel(taskId: string): Promise<void> {
    const saved = await this.#mutate(taskId, (task) =>
      isFinal(task.status) ? undefined : { ...finalFields(task), status: 'cancelled' },
    );
    const run = this.#runs.get(taskId);
    if (run !== undefined && saved?.status === 'cancelled') this.#forget(taskId, run);
  }

  /**
   * Applies `change` with compare-and-set, retrying when another writer moved the task on. `touch`: the
   * change is news to the client (`lastUpdatedAt`); a lease renewal is not.
   */
  async #mutate(
    taskId: string,
    change: (task: StoredTask) => TaskRecord | undefined,
    touch = true,
  ): Promise<StoredTask | undefined> {
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const task = await this.#store.get(taskId);
      if (task === undefined) return undefined;
      const next = change(task);
      if (next === undefined) return task;
      const { version: _, ...record } = next as StoredTask;
      const saved = await this.#store.update(
        touch ? { ...record, lastUpdatedAt: new Date().toISOString() } : record,
        task.version,
      );
      if (saved !== undefined) {
        if (saved.status !== task.status) {
          this.#onStatus?.({
            taskId,
            status: saved.status,
            previous: task.status,
            expiresAt: saved.expiresAt,
          });
        }
        return saved;
      }
    }
    throw new Error(`task ${taskId}: the store kept changing under ${CAS_ATTEMPTS} updates`);
  }

  /** What a task's handler gets instead of the request's: its own signal, progress as the status message. */
  #overrides(signal: AbortSignal, handover: { readonly taskId: string | undefined }): TaskContextOverrides {
    return {
      signal,
      reportProgress: async (progress, options) => {
        const { taskId } = handover;
        if (taskId === undefined) return;
        const statusMessage =
          options?.message ?? (options?.total === undefined ? `${progress}` : `${progress}/${options.total}`);
        this.#saveStatusMessage(taskId, statusMessage);
      },
      // A task's listen stream must not carry log messages or progress (SEP-2663); the logger still works.
      sendLog: async () => undefined,
      closeStream: () => false,
    };
  }
}

/** The error of a task whose run the server stopped when it closed. */
const SHUTDOWN_ERROR: TaskError = {
  code: ProtocolErrorCode.InternalError,
  message: 'the server shut down before the task finished',
};

/** The error of a task whose process stopped renewing its lease (killed, crashed, cut off from the store). */
const ORPHANED_ERROR: TaskError = {
  code: ProtocolErrorCode.InternalError,
  message: 'the server process running the task stopped before it finished',
};

/** A task without what only an unfinished one carries: its questions, answers and lease. */
function finalFields(task: StoredTask): Omit<StoredTask, 'inputRequests' | 'answers' | 'leaseUntil'> {
  const { inputRequests: _i, answers: _a, leaseUntil: _l, ...kept } = task;
  return kept;
}

/** A `CreateTaskResult`: the task's fields, flat, with `resultType: 'task'`. */
function created(task: StoredTask): Record<string, unknown> {
  return { resultType: 'task', ...publicFields(task) };
}

/** A `tasks/get` answer: the task, its questions, result or error. */
function detailed(task: StoredTask): Record<string, unknown> {
  return {
    ...publicFields(task),
    ...(task.status === 'input_required' &&
      task.inputRequests !== undefined && { inputRequests: task.inputRequests }),
    ...(task.status === 'completed' && task.result !== undefined && { result: task.result }),
    ...(task.status === 'failed' && task.error !== undefined && { error: task.error }),
  };
}

function publicFields(task: StoredTask): Record<string, unknown> {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage !== undefined && { statusMessage: task.statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttlMs,
    ...(task.pollIntervalMs !== undefined && { pollIntervalMs: task.pollIntervalMs }),
  };
}

/** A thrown error as the JSON-RPC error a failed task carries (a system failure as `Internal error`). */
function toTaskError(error: unknown): TaskError {
  if (error instanceof ProtocolError) {
    return {
      code: error.code,
      message: error.message,
      ...(error.data !== undefined && { data: error.data }),
    };
  }
  return { code: ProtocolErrorCode.InternalError, message: clientMessage(error) };
}

type Settled<T> = { readonly value: T } | { readonly error: unknown };

function settle<T>(running: Promise<T>): Promise<Settled<T>> {
  return running.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

/** Resolves after `n` turns of the event loop: how long a task tool may run on its `tools/call` request. */
function turns(n: number): Promise<void> {
  return new Promise((resolve) => {
    const next = (left: number) => (left === 0 ? resolve() : nextTurn(() => next(left - 1)));
    next(n);
  });
}
