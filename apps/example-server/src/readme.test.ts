// The README's Kubernetes Deployment and MCP client configuration, checked against the app itself.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '@pier/config';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configSpec } from './config.js';
import { PLUGIN_TIMEOUT_MARGIN_MS } from './health.js';
import {
  DEFAULT_DRAIN_DELAY_MS,
  DEFAULT_PORT,
  DEFAULT_TIMEOUT_MS,
  FLUSH_TIMEOUT_MS,
  HEALTH_PATHS,
  SHUTDOWN_TIMEOUT_MS,
} from './settings.js';

const APP_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
const README = readFileSync(join(APP_DIR, 'README.md'), 'utf8');

/** The fenced code blocks of one language, in order. */
function blocks(language: string): string[] {
  return [...README.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\``, 'gm'))].map(
    (m) => m[1] ?? '',
  );
}

interface Probe {
  httpGet: { path: string; port: number | string };
  timeoutSeconds?: number;
}
interface Container {
  args?: string[];
  env?: { name: string; value?: string }[];
  ports: { name?: string; containerPort: number }[];
  startupProbe: Probe;
  livenessProbe: Probe;
  readinessProbe: Probe;
}
interface Deployment {
  kind: string;
  spec: { template: { spec: { terminationGracePeriodSeconds: number; containers: Container[] } } };
}

const deployments = blocks('yaml')
  .map((text) => parse(text) as Deployment)
  .filter((doc) => doc?.kind === 'Deployment');

describe('the README Kubernetes Deployment', () => {
  it('is there, once', () => {
    expect(deployments).toHaveLength(1);
  });
  const pod = deployments[0]?.spec.template.spec;
  const container = pod?.containers[0] as Container;
  const env = new Map((container?.env ?? []).map(({ name, value }) => [name, value]));
  const portOf = (probe: Probe) =>
    typeof probe.httpGet.port === 'number'
      ? probe.httpGet.port
      : container.ports.find((port) => port.name === probe.httpGet.port)?.containerPort;

  it('probes liveness and startup on /health/live and readiness on /health/ready, on the served port', () => {
    expect(container.startupProbe.httpGet.path).toBe(HEALTH_PATHS.live);
    expect(container.livenessProbe.httpGet.path).toBe(HEALTH_PATHS.live);
    expect(container.readinessProbe.httpGet.path).toBe(HEALTH_PATHS.ready);
    expect(container.ports.map((port) => port.containerPort)).toEqual([DEFAULT_PORT]);
    for (const probe of [container.startupProbe, container.livenessProbe, container.readinessProbe]) {
      expect(portOf(probe)).toBe(DEFAULT_PORT);
    }
  });

  it('gives the pod longer than the drain delay, the shutdown timeout and the flush bound to stop', () => {
    expect(pod?.terminationGracePeriodSeconds).toBeGreaterThan(
      (DEFAULT_DRAIN_DELAY_MS + SHUTDOWN_TIMEOUT_MS + FLUSH_TIMEOUT_MS) / 1000,
    );
  });

  it('waits for readiness longer than the slowest health check may take', () => {
    expect((container.readinessProbe.timeoutSeconds ?? 1) * 1000).toBeGreaterThan(
      DEFAULT_TIMEOUT_MS + PLUGIN_TIMEOUT_MARGIN_MS,
    );
  });

  it('starts the app on streamable HTTP, reachable from the kubelet, with variables the app reads', () => {
    const spec = configSpec({});
    const known = new Set(Object.values(spec).map((option) => option.env));
    for (const name of env.keys()) expect(known).toContain(name);
    expect(env.get('HOST')).toBe('0.0.0.0');
    expect(Number(env.get('PORT') ?? DEFAULT_PORT)).toBe(DEFAULT_PORT);
    const parsed = parseConfig(spec, {
      argv: container.args ?? [],
      env: { ...Object.fromEntries(env), API_KEY: 'from-the-secret' },
    });
    expect(parsed.ok && parsed.config.transport).toBe('streamable-http');
  });
});

describe('the README MCP client configuration', () => {
  const configs = blocks('json')
    .map(
      (text) =>
        JSON.parse(text) as {
          mcpServers?: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
        },
    )
    .filter((doc) => doc.mcpServers !== undefined);

  it('starts dist/main.js with arguments and environment the app accepts, on stdio', () => {
    expect(configs).toHaveLength(1);
    const server = configs[0]?.mcpServers?.['pier-notes'];
    expect(server?.command).toBe('node');
    expect(server?.args[0]).toMatch(/apps\/example-server\/dist\/main\.js$/);
    const parsed = parseConfig(configSpec({}), { argv: server?.args.slice(1) ?? [], env: server?.env ?? {} });
    expect(parsed.ok).toBe(true);
    expect(parsed.ok && parsed.config.transport).toBe('stdio');
    expect(Object.keys(server?.env ?? {})).toContain('API_KEY');
  });
});

describe('the start script', () => {
  it('serves streamable HTTP on the default port with an explicit development key', () => {
    const { scripts } = JSON.parse(readFileSync(join(APP_DIR, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts.start).toBe(
      `node dist/main.js --transport streamable-http --port ${DEFAULT_PORT} --api-key dev-only-key`,
    );
  });
});
