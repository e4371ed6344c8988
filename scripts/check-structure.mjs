// `node scripts/check-structure.mjs`, run by the check after the build: rules of the design that no
// compiler checks.
//
// 1. No package reads or writes what the MCP SDK keeps private: the built JavaScript of every package
//    (packages/*/dist) is searched for the SDK's private members (`_requestHandlers`, `_registered…`) and
//    for assignments over SDK methods (`server.connect = …`, `.setRequestHandler = …`).
// 2. The import graph has no cycle: inside a package (between its source files, type-only imports
//    included) and between packages (through the `@pier/*` imports of their sources).
// 3. No getter or setter in an object literal (`{ get signal() { … } }`) in a package's source, outside the
//    few objects made once per server listed below. V8 gives every such object its own hidden class, kept in
//    the old generation, so whatever the accessor's closure reaches (a request, its response, the call)
//    outlives young-generation collections until a full one: made per request, ~1.1 MB promoted per young
//    collection at 1,000 calls a second instead of 0.1–0.2 MB, and pauses three times longer. A class with
//    the accessor on its prototype costs nothing of the kind (transport-http's inbound.ts).
// 4. No function literal assigned straight to a property (`exchange.endStream = () => …`, `this.#x = function
//    …`, `o[k] ??= () => …`) in a package's source. V8's parser takes such a function for a method and has the
//    interpreter allocate each closure made there in the old generation; the closure's context, and all it
//    reaches, then survives every young-generation collection until a full one. Made per request, that was
//    Pier's "costly GC state": ~1.3 MB promoted per young collection at 2,000 calls a second and pauses of
//    3–4 ms instead of 0.4 ms (bench/README.md, "Garbage collection"). A closure held in a `const` first and
//    then assigned is allocated young.
// 5. No object literal that begins with a spread and goes on (`{ ...result, resultType: 'complete' }`,
//    `{ ...a, ...b }`) on the request path (transport-http, core's engine and handler context). On Node 20
//    (V8 11.3) each such literal gets a hidden class of its own, made in the old generation: two per 2026-07-28
//    call came from `encodeModern` alone. `Object.assign({}, a, { … })` or the literal members first
//    (`{ k, ...a }`) reuse one.
//
// Prints every finding and exits 1 when there is one.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const findings = [];

const PRIVATE_SDK = [
  /\b_requestHandlers\b/,
  /\b_notificationHandlers\b/,
  /\b_registered[A-Z]\w*/,
  /\.(connect|setRequestHandler|setNotificationHandler|registerTool|registerResource|registerPrompt)\s*=(?!=)/,
];

function files(dir, test) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

const packages = readdirSync(join(ROOT, 'packages'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(ROOT, 'packages', entry.name, 'package.json')))
  .map((entry) => {
    const dir = join(ROOT, 'packages', entry.name);
    return { dir, name: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name };
  });

// 1. SDK internals in what is published.
for (const { dir } of packages) {
  for (const file of files(join(dir, 'dist'), (name) => name.endsWith('.js'))) {
    const text = readFileSync(file, 'utf8');
    for (const pattern of PRIVATE_SDK) {
      const match = pattern.exec(text);
      if (match !== null) {
        findings.push(`${relative(ROOT, file)}: touches the SDK's internals (${match[0]})`);
      }
    }
  }
}

// 2. Cycles, inside each package and between packages.
const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
const isSource = (name) =>
  /\.(ts|mts)$/.test(name) && !/\.test(-d)?\.ts$|\.d\.ts$/.test(name) && !name.startsWith('test-');

function importsOf(file) {
  const text = readFileSync(file, 'utf8');
  const found = [];
  for (const pattern of [IMPORT, DYNAMIC]) {
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) found.push(match[1]);
  }
  return found;
}

/** Every cycle of `graph` (node → targets): its strongly connected components of more than one node, or a self-loop. */
function cyclesIn(graph) {
  let index = 0;
  const indices = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const connect = (node) => {
    indices.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node), indices.get(next)));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.reverse());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) connect(node);
  return found;
}

const packageGraph = new Map();
const roots = [
  ...packages,
  ...['apps', 'tests'].flatMap((group) =>
    existsSync(join(ROOT, group))
      ? readdirSync(join(ROOT, group), { withFileTypes: true })
          .filter((entry) => entry.isDirectory() && existsSync(join(ROOT, group, entry.name, 'package.json')))
          .map((entry) => {
            const dir = join(ROOT, group, entry.name);
            return { dir, name: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name };
          })
      : [],
  ),
];
for (const { dir, name } of roots) {
  const sources = files(join(dir, 'src'), isSource).filter(
    (file) => !file.includes(`${join('src', 'fixtures')}`),
  );
  const graph = new Map();
  const dependsOn = new Set();
  for (const file of sources) {
    const targets = [];
    for (const specifier of importsOf(file)) {
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
        if (existsSync(target)) targets.push(target);
      } else if (specifier.startsWith('@pier/') || specifier === 'create-pier') {
        const other = specifier.split('/').slice(0, 2).join('/');
        if (other !== name) dependsOn.add(other);
      }
    }
    graph.set(file, targets);
  }
  for (const cycle of cyclesIn(graph)) {
    findings.push(
      `${name}: files that import each other in a circle: ${cycle.map((file) => relative(dir, file)).join(', ')}`,
    );
  }
  packageGraph.set(name, [...dependsOn]);
}
for (const cycle of cyclesIn(packageGraph))
  findings.push(`packages that import each other in a circle: ${cycle.join(', ')}`);

// 3. Accessors in object literals (see the header).
const ONCE_PER_SERVER = new Set([
  'packages/core/src/server/create-server.ts', // the transport host
  'packages/core/src/plugins/setup.ts', // one plugin context per plugin
]);
for (const { dir } of packages) {
  for (const file of files(join(dir, 'src'), isSource)) {
    const path = relative(ROOT, file);
    if (ONCE_PER_SERVER.has(path)) continue;
    const text = readFileSync(file, 'utf8');
    if (!/\b[gs]et\s+[\w$#[]/.test(text)) continue;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if ((ts.isGetAccessor(node) || ts.isSetAccessor(node)) && ts.isObjectLiteralExpression(node.parent)) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        findings.push(
          `${path}:${line + 1}: an accessor (${node.name.getText(source)}) in an object literal: make the object a class with the accessor on its prototype`,
        );
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
}

// 4. Function literals assigned straight to a property (see the header).
const ASSIGNMENTS = new Set([
  ts.SyntaxKind.EqualsToken,
  ts.SyntaxKind.QuestionQuestionEqualsToken,
  ts.SyntaxKind.BarBarEqualsToken,
  ts.SyntaxKind.AmpersandAmpersandEqualsToken,
]);
/** The expression under parentheses and type assertions, which compile to nothing. */
const unwrap = (node) =>
  ts.isParenthesizedExpression(node) ||
  ts.isAsExpression(node) ||
  ts.isSatisfiesExpression(node) ||
  ts.isNonNullExpression(node) ||
  ts.isTypeAssertionExpression(node)
    ? unwrap(node.expression)
    : node;
for (const { dir } of packages) {
  for (const file of files(join(dir, 'src'), isSource)) {
    const path = relative(ROOT, file);
    const text = readFileSync(file, 'utf8');
    if (!/=>|function/.test(text)) continue;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (ts.isBinaryExpression(node) && ASSIGNMENTS.has(node.operatorToken.kind)) {
        const left = unwrap(node.left);
        const right = unwrap(node.right);
        if (
          (ts.isPropertyAccessExpression(left) || ts.isElementAccessExpression(left)) &&
          (ts.isArrowFunction(right) || ts.isFunctionExpression(right))
        ) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
          findings.push(
            `${path}:${line + 1}: a function literal assigned to ${left.getText(source)}: V8 allocates such closures in the old generation; hold it in a const first`,
          );
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
}

// 5. Object literals that begin with a spread and go on, on the request path (see the header).
const REQUEST_PATH = ['packages/transport-http/src', 'packages/core/src/engine', 'packages/core/src/context'];
for (const base of REQUEST_PATH) {
  for (const file of files(join(ROOT, base), isSource)) {
    const path = relative(ROOT, file);
    const text = readFileSync(file, 'utf8');
    if (!text.includes('...')) continue;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (
        ts.isObjectLiteralExpression(node) &&
        node.properties.length > 1 &&
        ts.isSpreadAssignment(node.properties[0])
      ) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        findings.push(
          `${path}:${line + 1}: an object literal that begins with a spread and goes on: V8 makes it a new hidden class each time; use Object.assign({}, …) or put the literal members first`,
        );
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
}

if (findings.length > 0) {
  for (const finding of findings) console.error(finding);
  process.exit(1);
}
console.log(
  `structure: no SDK internals in ${packages.length} packages' builds, no import cycle, no accessor in an object literal, no function literal assigned to a property, no spread-first object literal on the request path`,
);
