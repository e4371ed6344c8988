// The deploy folder, checked against the app: the Kubernetes manifest (3 replicas, Redis, probes, preStop,
// grace period) and the HAProxy configuration the fleet tests run (valid for `haproxy -c`).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { configSpec } from './config.js';
import { ensureInstalled } from './e2e/test-fleet.js';
import { PLUGIN_TIMEOUT_MARGIN_MS } from './health.js';
import {
  DEFAULT_DRAIN_DELAY_MS,
  DEFAULT_PORT,
  DEFAULT_TIMEOUT_MS,
  FLUSH_TIMEOUT_MS,
  HEALTH_PATHS,
  SHUTDOWN_TIMEOUT_MS,
} from './settings.js';

const DEPLOY = join(dirname(fileURLToPath(import.meta.url)), '..', 'deploy');

interface Probe {
  httpGet?: { path: string; port: number };
  timeoutSeconds?: number;
}
interface Container {
  env: { name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } }[];
  ports: { containerPort: number }[];
  lifecycle?: { preStop?: { sleep?: { seconds: number } } };
  startupProbe: Probe;
  livenessProbe: Probe;
  readinessProbe: Probe;
}
interface Workload {
  kind: string;
  metadata: { name: string };
  spec: {
    replicas?: number;
    template: { spec: { terminationGracePeriodSeconds?: number; containers: Container[] } };
  };
}

const docs = parseAllDocuments(readFileSync(join(DEPLOY, 'kubernetes.yaml'), 'utf8')).map(
  (doc) => doc.toJS() as Workload,
);

describe('deploy/kubernetes.yaml', () => {
  const app = docs.find((doc) => doc.kind === 'Deployment' && doc.metadata.name === 'pier-notes') as Workload;
  const pod = app.spec.template.spec;
  const container = pod.containers[0] as Container;
  const env = new Map(container.env.map((variable) => [variable.name, variable]));

  it('runs 3 replicas of the app on Redis, with REDIS_URL (and the API key) from a secret, never inline', () => {
    expect(app.spec.replicas).toBe(3);
    expect(env.get('REDIS_URL')?.valueFrom?.secretKeyRef).toEqual({ name: 'pier-notes', key: 'redis-url' });
    expect(env.get('REDIS_URL')?.value).toBeUndefined();
    expect(env.get('API_KEY')?.valueFrom?.secretKeyRef.name).toBe('pier-notes');
    expect(docs.map((doc) => `${doc.kind}/${doc.metadata.name}`)).toEqual([
      'Deployment/pier-notes',
      'Service/pier-notes',
      'StatefulSet/pier-notes-redis',
      'Service/pier-notes-redis',
    ]);
  });

  it('sets only variables the app reads (or that another variable is built from, as POD_IP)', () => {
    const known = new Set<string>(Object.values(configSpec({})).map((option) => option.env));
    const referenced = new Set(
      [...env.values()].flatMap((variable) =>
        [...(variable.value ?? '').matchAll(/\$\((\w+)\)/g)].map((m) => m[1]),
      ),
    );
    for (const name of env.keys()) expect(known.has(name) || referenced.has(name), name).toBe(true);
  });

  it('serves 2025-era sessions on any replica: SESSIONS on, each pod advertising its own IP to the relay', () => {
    expect(env.get('SESSIONS')?.value).toBe('true');
    expect(env.get('ADVERTISE_URL')?.value).toBe(`http://$(POD_IP):${DEFAULT_PORT}/mcp`);
  });

  it('probes liveness on /health/live (never Redis) and readiness on /health/ready, on the served port', () => {
    expect(container.startupProbe.httpGet?.path).toBe(HEALTH_PATHS.live);
    expect(container.livenessProbe.httpGet?.path).toBe(HEALTH_PATHS.live);
    expect(container.readinessProbe.httpGet?.path).toBe(HEALTH_PATHS.ready);
    for (const probe of [container.startupProbe, container.livenessProbe, container.readinessProbe]) {
      expect(probe.httpGet?.port).toBe(DEFAULT_PORT);
    }
    expect(container.ports.map((port) => port.containerPort)).toEqual([DEFAULT_PORT]);
    expect((container.readinessProbe.timeoutSeconds ?? 1) * 1000).toBeGreaterThan(
      DEFAULT_TIMEOUT_MS + PLUGIN_TIMEOUT_MARGIN_MS,
    );
  });

  it('gives the pod longer than preStop + drain delay + shutdown timeout + flush bound to stop', () => {
    const preStop = container.lifecycle?.preStop?.sleep?.seconds ?? 0;
    expect(preStop).toBeGreaterThan(0);
    const drain = Number(env.get('DRAIN_DELAY_MS')?.value ?? DEFAULT_DRAIN_DELAY_MS);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(
      preStop + (drain + SHUTDOWN_TIMEOUT_MS + FLUSH_TIMEOUT_MS) / 1000,
    );
  });
});

describe('deploy/haproxy.cfg', () => {
  it('is a valid HAProxy configuration once its addresses are given', () => {
    ensureInstalled();
    const output = execFileSync('haproxy', ['-c', '-f', join(DEPLOY, 'haproxy.cfg')], {
      env: {
        PATH: process.env.PATH,
        PIER_LB_BIND: '127.0.0.1:8080',
        PIER_LB_STATS: '127.0.0.1:8404',
        PIER_R1: '127.0.0.1:3001',
        PIER_R2: '127.0.0.1:3002',
        PIER_R3: '127.0.0.1:3003',
        PIER_HOST_HEADER: '127.0.0.1',
      },
      encoding: 'utf8',
    });
    expect(output).toContain('Configuration file is valid');
  });
});
