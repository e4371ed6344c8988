// The skills extension (SEP-2640, `io.modelcontextprotocol/skills`) on every SDK server Pier builds: the
// SDK's `SkillsExtension` does the protocol (skills/list, skills/get, the skill:// resources, directory
// reads, path traversal and symlinks refused); Pier loads the catalog, attaches it through core's
// extension seam, and announces a reload on the server's event bus.
import type { McpServer } from '@modelcontextprotocol/server';
import {
  SkillCatalog,
  type SkillCatalogChanges,
  type SkillFiles,
  type SkillSource,
  SkillsExtension,
  type SkillWarning,
} from '@modelcontextprotocol/server/ext/skills';
import { describe, messageOf, PierError } from './errors.js';
import type { Logger } from './logger.js';

/**
 * Where a server's skills come from (`createServer(…, { skills })`): a folder of skill folders (each with a
 * `SKILL.md`), a `SkillFiles` storage adapter (`memorySkillFiles({...})` of
 * `@modelcontextprotocol/server/ext/skills`), or a `SkillSource` you serve yourself (per-user or generated).
 */
export type SkillsOption = string | SkillFiles | SkillSource;

export type { SkillCatalogChanges, SkillFiles, SkillSource };

/** The URI scheme every skill is served under; Pier's own resources may not use it. */
export const SKILL_URI_PREFIX = 'skill://';

/** One server's skills: loaded once (by `listen()` or `reloadSkills()`), attached to each SDK server. */
export class Skills {
  /** A folder (read through the SDK's node adapter, imported by the first load), or files, or none for a source. */
  readonly #files: string | SkillFiles | undefined;
  readonly #logger: Logger;
  readonly #announce: () => Promise<void>;
  #extension: SkillsExtension | undefined;
  #loading: Promise<SkillCatalog> | undefined;
  #warnedUnloaded = false;

  constructor(option: SkillsOption, logger: Logger, announce: () => Promise<void>) {
    this.#logger = logger;
    this.#announce = announce;
    const onWarning = (warning: SkillWarning) =>
      logger.warn('skill problem', { path: warning.path, problem: warning.message });
    if (typeof option === 'string') {
      // Resolved now, as the SDK's adapter would: a later chdir does not move the folder.
      this.#files = process.getBuiltinModule('node:path').resolve(option);
    } else if (isSkillSource(option)) {
      this.#files = undefined;
      this.#extension = new SkillsExtension({ source: option, onWarning });
    } else {
      this.#files = option;
    }
  }

  /** Loads the catalog from its files, once; a source needs no loading. */
  async load(): Promise<void> {
    if (this.#files === undefined || this.#loading !== undefined) {
      await this.#loading;
      return;
    }
    this.#loading = this.#loadCatalog(this.#files);
    try {
      this.#extension = await this.#loading;
      this.#logger.debug('skills loaded', { skills: (this.#extension as SkillCatalog).entries.length });
    } catch (error) {
      this.#loading = undefined;
      throw new PierError(
        'OPTIONS_INVALID',
        `createServer: skills could not be loaded: ${messageOf(error)}`,
        {
          cause: error,
        },
      );
    }
  }

  async #loadCatalog(files: string | SkillFiles): Promise<SkillCatalog> {
    // The SDK's node adapter (and node:fs with it) is imported only by a server that serves a folder.
    const source =
      typeof files === 'string'
        ? (await import('@modelcontextprotocol/server/ext/skills/node')).nodeSkillFiles(files)
        : files;
    return SkillCatalog.load(source, {
      onWarning: (warning) =>
        this.#logger.warn('skill problem', { path: warning.path, problem: warning.message }),
    });
  }

  /**
   * Scans the files again (the first call loads them). When the list of skills changed, a
   * `resources_list_changed` event goes on the server's event bus, so that every connection hears it.
   */
  async reload(): Promise<SkillCatalogChanges> {
    if (this.#extension === undefined) {
      await this.load();
      const entries = (this.#extension as SkillCatalog | undefined)?.entries ?? [];
      return { added: entries.map((entry) => entry.uri), removed: [], changed: [], listChanged: false };
    }
    if (!(this.#extension instanceof SkillCatalog)) {
      // A source serves what it serves at each request: nothing to scan, but clients may re-list.
      await this.#announce();
      return { added: [], removed: [], changed: [], listChanged: true };
    }
    const changes = await this.#extension.reload();
    if (changes.listChanged) await this.#announce();
    return changes;
  }

  /** Serves the skills on `server` (before it connects). */
  attach(server: McpServer): void {
    if (this.#extension === undefined) {
      if (!this.#warnedUnloaded) {
        this.#warnedUnloaded = true;
        this.#logger.warn(
          'skills are not loaded yet, so this server serves none: listen() loads them, or call await server.reloadSkills() before createMcpServer()',
        );
      }
      return;
    }
    this.#extension.attach(server);
  }
}

/** Checks the `skills` option of `createServer`. */
export function validateSkillsOption(value: unknown): void {
  if (value === undefined) return;
  if (typeof value === 'string') {
    if (value === '')
      throw new PierError('OPTIONS_INVALID', 'createServer: skills must not be an empty path');
    return;
  }
  const candidate = value as Partial<SkillFiles> | null;
  if (typeof candidate?.list !== 'function' || typeof candidate.read !== 'function') {
    throw new PierError(
      'OPTIONS_INVALID',
      `createServer: skills must be a folder path, a SkillFiles ({ list, read }) or a SkillSource ({ list, get, read }) (got ${describe(value)})`,
    );
  }
}

function isSkillSource(value: SkillFiles | SkillSource): value is SkillSource {
  return typeof (value as Partial<SkillSource>).get === 'function';
}
