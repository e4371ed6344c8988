// Scenario 2: @pier/core alone, installed with npm: a stdio server, and no HTTP transport.
import { Client, type ClientOptions } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, inject, it } from 'vitest';
import { installedPackages, nodeModulesBytes, npmProjectForSuite, runNode, topLevel } from './scratch.js';

const project = npmProjectForSuite('core-stdio', () => [inject('tarballs').core]);

describe('@pier/core alone, installed with npm', () => {
  it('installs core, the SDK server it depends on, and zod; no HTTP transport', async () => {
    expect(topLevel(project.dir)).toEqual([
      '@modelcontextprotocol/core',
      '@modelcontextprotocol/server',
      '@pier/core',
      'zod',
    ]);
    const packages = await installedPackages(project.dir);
    expect(packages).toEqual([
      '@modelcontextprotocol/core',
      '@modelcontextprotocol/server',
      '@pier/core',
      'zod',
    ]);
    console.info(
      `[packaging] core only (npm): ${packages.length} packages, ${await nodeModulesBytes(project.dir)} bytes`,
    );
  });

  // The client runs here, from this package's own dependencies: the user's project gets none of it.
  it.each<[string, ClientOptions]>([
    ['2025 (initialize)', {}],
    ['2026-07-28 (server/discover)', { versionNegotiation: { mode: 'auto' } }],
  ])('serves the SDK stdio client speaking %s', async (_, options) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['server.js'],
      cwd: project.dir,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const client = new Client({ name: 'packaging-test', version: '1.0.0' }, options);
    try {
      await client.connect(transport);
      expect(client.getServerVersion()).toMatchObject({ name: 'calculator', version: '1.0.0' });
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['add']);
      const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
      expect(result.structuredContent).toEqual({ sum: 5 });
    } finally {
      await client.close();
    }
    expect(stderr).toContain('[calculator] listening transport=stdio');
  });

  it('refuses transport: "streamable-http" with a PierError that names the package to install', async () => {
    const { code, stdout } = await runNode(['needs-http.js'], project.dir);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      pierError: true,
      code: 'TRANSPORT_NOT_INSTALLED',
      message:
        "listen({ transport: 'streamable-http' }) needs the @pier/transport-http package: " +
        'install @pier/transport-http (npm install @pier/transport-http)',
    });
  });
});
