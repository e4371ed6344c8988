// The public API is what the entry points export, nothing more: a new export is a decision, made here.
import { expect, it } from 'vitest';
import * as entry0 from './index.js';
import * as entry1 from './transport.js';

it('@pier/core exports exactly its allow-list', () => {
  expect(Object.keys(entry0).sort()).toEqual([
    'InMemoryKeyValueStore',
    'InMemoryTaskStore',
    'MCPServer',
    'MissingClientCapabilityError',
    'PierError',
    'Prompt',
    'Resource',
    'TASKS_EXTENSION_ID',
    'Tool',
    'audioContent',
    'completable',
    'createLogger',
    'createServer',
    'definePrompt',
    'defineResource',
    'defineServer',
    'defineTool',
    'embeddedResource',
    'imageContent',
    'jsonSchema',
  ]);
});

it('@pier/core/transport exports exactly its allow-list', () => {
  expect(Object.keys(entry1).sort()).toEqual([
    'DEFAULT_NEGOTIATED_PROTOCOL_VERSION',
    'InMemoryServerEventBus',
    'Lifecycle',
    'MAX_TIMER_MS',
    'OAuthError',
    'OAuthErrorCode',
    'PROTOCOL_VERSION_META_KEY',
    'SUPPORTED_PROTOCOL_VERSIONS',
    'bearerAuthChallengeResponse',
    'classifyInboundRequest',
    'createMcpHandler',
    'describeValue',
    'isInitializeRequest',
    'isJsonContentType',
    'localhostAllowedHostnames',
    'messageOf',
    'parseJSONRPCMessage',
    'validateHostHeader',
  ]);
});
