// The public API is what the entry points export, nothing more: a new export is a decision, made here.
import { expect, it } from 'vitest';
import * as entry0 from './index.js';
import * as entry1 from './transport.js';

it('@pier/core exports exactly its allow-list', () => {
  expect(Object.keys(entry0).sort()).toEqual([
    'APPS_EXTENSION_ID',
    'APP_MIME_TYPE',
    'InMemoryKeyValueStore',
    'InMemoryLimitStore',
    'InMemoryTaskStore',
    'MCPServer',
    'MissingClientCapabilityError',
    'OptionIssues',
    'PierError',
    'Prompt',
    'RequestRefusedError',
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
    'describeValue',
    'embeddedResource',
    'imageContent',
    'jsonSchema',
  ]);
});

it('@pier/core/transport exports exactly its allow-list', () => {
  expect(Object.keys(entry1).sort()).toEqual([
    'ErrorCode',
    'InMemoryServerEventBus',
    'LEGACY_VERSIONS',
    'MODERN_VERSION',
    'addHeaders',
    'classifyEra',
    'echoId',
    'headerIn',
    'isJsonContentType',
    'localhostAllowedHostnames',
    'serveTransport',
    'validateHostHeader',
  ]);
});
