// Response headers as the engine hands them to a transport: name/value pairs in one flat list, names in
// lower case and each once (`['ratelimit', '"api";r=9;t=6', 'retry-after', '6']`). node:http's `writeHead`
// takes the list as it is; a record would cost a keyed store per header to build, a copy to merge and a
// walk with an own-property test per header to write.

/** Name/value pairs in one flat list: lower-case names, each once. */
export type HeaderList = readonly string[];

/** Sets `name` (lower case) to `value` in `list`, in place of an earlier value. */
export function setHeaderIn(list: string[], name: string, value: string): void {
  for (let index = 0; index < list.length; index += 2) {
    if (list[index] === name) {
      list[index + 1] = value;
      return;
    }
  }
  list.push(name, value);
}

/**
 * Adds `more` to `list`: a name already there takes the new value. `more`'s names must be in lower case
 * (a record's are lower-cased with `lowerCase`).
 */
export function addHeaders(
  list: string[],
  more: HeaderList | Readonly<Record<string, string>>,
  lowerCase = false,
): string[] {
  if (Array.isArray(more)) {
    for (let index = 0; index < more.length; index += 2) {
      setHeaderIn(list, more[index] as string, more[index + 1] as string);
    }
    return list;
  }
  const record = more as Readonly<Record<string, string>>;
  for (const name in record) {
    if (Object.hasOwn(record, name)) {
      setHeaderIn(list, lowerCase ? lowerCaseName(name) : name, record[name] as string);
    }
  }
  return list;
}

/** The value of `name` (lower case) in `list`. */
export function headerIn(list: HeaderList, name: string): string | undefined {
  for (let index = 0; index < list.length; index += 2) if (list[index] === name) return list[index + 1];
  return undefined;
}

// Names a server sets are few and the same on every response: lower-casing each once (a map lookup on a
// string whose hash is known) is cheaper than a scan of its characters per call.
const LOWER = new Map<string, string>();
const LOWER_MAX = 512;

// The two names last asked for (a limiter's pair on every call): a comparison of two constants' pointers.
let lastName = '';
let lastLower = '';
let priorName = '';
let priorLower = '';

/** `name` in lower case. */
export function lowerCaseName(name: string): string {
  if (name === lastName) return lastLower;
  if (name === priorName) return priorLower;
  let lower = LOWER.get(name);
  if (lower === undefined) {
    lower = name.toLowerCase();
    if (LOWER.size < LOWER_MAX) LOWER.set(name, lower);
  }
  priorName = lastName;
  priorLower = lastLower;
  lastName = name;
  lastLower = lower;
  return lower;
}
