// The connector doctor's steps: what a hosted MCP client does to connect and sign in, one step at a
// time, each passed or failed with what was seen and what to change.

export type StepStatus = 'pass' | 'fail' | 'warn' | 'skip';

export interface Step {
  /** Stable id: `reach`, `era-2025`, `era-2026`, `content-type`, `cors`, `challenge`, `prm`, `prm-resource`, `as-metadata`, `pkce`, `registration`, `scopes`, `login`, `authenticated`, `audience`. */
  readonly id: string;
  readonly title: string;
  status: StepStatus;
  readonly evidence: string[];
  fix?: string;
}

export interface DoctorReport {
  readonly url: string;
  /** No step failed. */
  readonly ok: boolean;
  readonly steps: readonly Step[];
}

export const TITLES: Record<string, string> = {
  reach: 'the server answers',
  'era-2025': '2025 clients connect (initialize)',
  'era-2026': '2026-07-28 clients connect (server/discover)',
  'content-type': 'answers are JSON or an event stream',
  cors: 'CORS lets a browser-based client in',
  challenge: 'the 401 challenge points to the resource metadata',
  prm: 'protected resource metadata is served',
  'prm-resource': 'the metadata names this server as the resource',
  'as-metadata': 'authorization server metadata is served',
  pkce: 'the authorization server supports PKCE S256',
  registration: 'a client can register (DCR or client ID metadata documents)',
  scopes: 'the scopes asked for exist on the authorization server',
  login: 'authorization code + PKCE sign-in',
  authenticated: 'tools/list with the token, in both eras',
  audience: "the token's audience is this server",
};

export class Steps {
  readonly list: Step[] = [];

  add(id: string, status: StepStatus, evidence: string[] = [], fix?: string): Step {
    const step: Step = { id, title: TITLES[id] ?? id, status, evidence, ...(fix !== undefined && { fix }) };
    const at = this.list.findIndex((s) => s.id === id);
    if (at === -1) this.list.push(step);
    else this.list[at] = step;
    return step;
  }

  skip(ids: readonly string[], why: string): void {
    for (const id of ids) if (!this.list.some((s) => s.id === id)) this.add(id, 'skip', [why]);
  }

  get failed(): boolean {
    return this.list.some((s) => s.status === 'fail');
  }
}
