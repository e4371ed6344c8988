// Running a handler for `tools/call`, `prompts/get` or `resources/read`: on 2026-07-28 as one round of an
// input-required request (a question answers `input_required` with a signed state, and the handler runs
// again with the answers); on a 2025 revision straight through (questions are real requests).
import type { InputRequiredResult } from '@modelcontextprotocol/server';
import {
  type InputRound,
  invalidState,
  isProtocolAnswer,
  type RoundCodec,
  type RoundState,
  refusedQuestion,
  requestTarget,
  runRound,
  type Target,
} from '../context/input-required.js';
import { MissingClientCapabilityError } from '../errors.js';
import type { Call } from './call.js';
import { InvalidStateError, type RequestStateCodec } from './modern/request-state.js';

/** What signs states: one key (`RequestStateCodec`), or keys that rotate (`RotatingRequestStateCodec`). */
export type StateCodec = Pick<RequestStateCodec, 'mint' | 'verify'>;

/** How input rounds are signed and bounded. */
export class Rounds {
  readonly #codec: StateCodec;
  readonly maxRounds: number;

  constructor(codec: StateCodec, maxRounds: number) {
    this.#codec = codec;
    this.maxRounds = maxRounds;
  }

  /**
   * Verifies a retry's `requestState` before its handler runs: a state that is not a string, is forged,
   * expired, or minted for another method or principal is refused with `-32602`.
   */
  async verify(call: Call): Promise<void> {
    const state = call.params.requestState;
    if (state === undefined) return;
    if (typeof state !== 'string') throw invalidState();
    try {
      call.verifiedState = await this.#codec.verify(state, bindingOf(call));
    } catch (error) {
      if (error instanceof InvalidStateError) {
        call.logger.debug(`requestState refused on ${call.method}`, { reason: error.reason });
        throw invalidState();
      }
      throw error;
    }
  }

  /** The codec a round of `call` mints its next state with. */
  codecFor(call: Call): RoundCodec {
    const codec = this.#codec;
    return { mint: (state: RoundState) => codec.mint(state, bindingOf(call)) };
  }

  /** What a state of this request is bound to (see `requestTarget`). */
  targetOf(call: Call, name: string, args: unknown): Target {
    return requestTarget(call.method, name, args, () => call.principal);
  }

  /**
   * Runs `handler` as one round (2026-07-28) or straight (2025). An uncaught question the client cannot
   * answer is the protocol's `-32021` on 2026-07-28.
   */
  run<T>(
    call: Call,
    name: string,
    args: unknown,
    handler: (round: InputRound | undefined) => T | Promise<T>,
  ): T | InputRequiredResult | Promise<T | InputRequiredResult> {
    if (call.era !== 'modern') return handler(undefined);
    return runRound(
      call,
      this.targetOf(call, name, args),
      this.codecFor(call),
      this.maxRounds,
      handler,
      refusedOrSame,
    );
  }
}

/** A question the client cannot answer is `-32021` on 2026-07-28; anything else stays as it is. */
function refusedOrSame(error: unknown): unknown {
  return (error instanceof MissingClientCapabilityError ? refusedQuestion(error) : undefined) ?? error;
}

/** Whether an error a handler threw is one Pier answers as a protocol error (not the tool's failure). */
export function isEngineAnswer(error: unknown): boolean {
  return isProtocolAnswer(error);
}

function bindingOf(call: Call): string {
  return `${call.method}\0${call.principal}`;
}
