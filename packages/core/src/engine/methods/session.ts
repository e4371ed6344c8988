// What a client says to the server itself: `initialize` and `ping` (2025 revisions), `logging/setLevel`
// (2025), and `server/discover` (2026-07-28).
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { LEVELS } from '../call.js';
import type { Engine } from '../engine.js';
import { isJsonObject, isLegacyVersion, LEGACY_VERSIONS, MODERN_VERSION } from '../wire.js';

/** Defines `initialize`, `ping`, `logging/setLevel` and `server/discover` on `engine`. */
export function defineSession(engine: Engine): void {
  engine.define('initialize', {
    eras: 'legacy',
    run: (call) => {
      const params = call.params;
      const requested = params.protocolVersion;
      if (
        typeof requested !== 'string' ||
        !isJsonObject(params.capabilities) ||
        !isJsonObject(params.clientInfo)
      ) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          'Invalid initialize request: params need protocolVersion, capabilities and clientInfo',
        );
      }
      const protocolVersion = isLegacyVersion(requested) ? requested : (LEGACY_VERSIONS[0] as string);
      const connection = call.connection;
      if (connection !== undefined) {
        connection.initialized = true;
        connection.era = 'legacy';
        connection.protocolVersion = protocolVersion;
        connection.clientCapabilities = params.capabilities as never;
        connection.clientInfo = params.clientInfo as never;
      }
      return {
        protocolVersion,
        capabilities: engine.capabilities(connection !== undefined),
        serverInfo: engine.info,
        ...(engine.instructions !== undefined &&
          engine.instructions !== '' && { instructions: engine.instructions }),
        ...(engine.meta !== undefined && { _meta: engine.meta }),
      };
    },
  });
  engine.define('ping', { eras: 'legacy', run: () => ({}) });
  engine.define('logging/setLevel', {
    eras: 'legacy',
    run: (call) => {
      const level = call.params.level;
      if (typeof level === 'string' && Object.hasOwn(LEVELS, level) && call.connection !== undefined) {
        call.connection.logLevel = level as never;
      }
      return {};
    },
  });
  engine.define('server/discover', {
    eras: 'modern',
    run: () => ({
      supportedVersions: [MODERN_VERSION],
      capabilities: engine.capabilities(true),
      ...(engine.instructions !== undefined &&
        engine.instructions !== '' && { instructions: engine.instructions }),
      ...(engine.meta !== undefined && { _meta: engine.meta }),
    }),
  });
}
