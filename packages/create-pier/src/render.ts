// Templates are real files with line markers: `// #if <condition>`, `// #else`, `// #endif` (nestable,
// `!` negates), and placeholders such as `__NAME__`.

const MARKER = /^\s*\/\/ #(if|else|endif)(?:\s+(!?)([a-z]+))?\s*$/;

export function render(
  text: string,
  conditions: Readonly<Record<string, boolean>>,
  placeholders: Readonly<Record<string, string>>,
): string {
  const kept: string[] = [];
  const stack: { parent: boolean; test: boolean }[] = [];
  let on = true;
  for (const line of text.split('\n')) {
    const marker = MARKER.exec(line);
    if (marker === null) {
      if (on) kept.push(line);
      continue;
    }
    const [, keyword, not, name] = marker;
    if (keyword === 'if') {
      const value = conditions[name ?? ''];
      if (value === undefined) throw new Error(`template: unknown condition "${name}"`);
      const test = not === '!' ? !value : value;
      stack.push({ parent: on, test });
      on = on && test;
    } else {
      const top = stack.at(-1);
      if (top === undefined) throw new Error(`template: #${keyword} without #if`);
      if (keyword === 'else') on = top.parent && !top.test;
      else {
        stack.pop();
        on = top.parent;
      }
    }
  }
  if (stack.length > 0) throw new Error('template: #if without #endif');
  let out = kept.join('\n').replace(/\n{3,}/g, '\n\n');
  for (const [key, value] of Object.entries(placeholders)) out = out.replaceAll(key, value);
  return out;
}
