// Watches the directories of the files a build read (and any extra paths): one callback per burst of
// changes (editors save through temp files and renames), with the paths that changed.
import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export class SourceWatcher {
  readonly #watchers = new Map<string, FSWatcher>();
  readonly #changed = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  readonly #onChange: (paths: string[]) => void;
  readonly #debounceMs: number;

  constructor(onChange: (paths: string[]) => void, debounceMs = 80) {
    this.#onChange = onChange;
    this.#debounceMs = debounceMs;
  }

  /** Watches the directories holding `files` and the extra `paths` (files or directories, recursively). */
  update(files: readonly string[], extra: readonly string[] = []): void {
    const wanted = new Map<string, boolean>();
    for (const file of files) wanted.set(dirname(resolve(file)), false);
    for (const path of extra) wanted.set(resolve(path), true);
    for (const [dir, watcher] of this.#watchers) {
      if (!wanted.has(dir)) {
        watcher.close();
        this.#watchers.delete(dir);
      }
    }
    for (const [dir, recursive] of wanted) {
      if (this.#watchers.has(dir)) continue;
      try {
        const watcher = watch(dir, { recursive, persistent: true }, (_event, name) => {
          const path = name === null ? dir : join(dir, name.toString());
          if (/(^|\/)(node_modules|\.git|dist)(\/|$)/.test(path) || basename(path).startsWith('.#')) return;
          this.#changed.add(path);
          clearTimeout(this.#timer);
          this.#timer = setTimeout(() => this.#flush(), this.#debounceMs);
        });
        watcher.on('error', () => undefined);
        this.#watchers.set(dir, watcher);
      } catch {
        // A directory that went away: the next build tells what to watch.
      }
    }
  }

  #flush(): void {
    const paths = [...this.#changed];
    this.#changed.clear();
    this.#onChange(paths);
  }

  close(): void {
    clearTimeout(this.#timer);
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
  }
}
