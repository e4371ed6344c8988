// create-pier as a library: the same files `npm create pier` writes, without questions or an install.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProject } from 'create-pier';

const parent = await mkdtemp(join(tmpdir(), 'create-pier-'));
const created = await createProject(
  join(parent, 'my-server'),
  {
    name: 'my-server',
    transport: 'both',
    health: true,
    config: true,
    template: 'decorators',
    packageManager: 'npm',
  },
  { install: false },
);
console.log(created.files);
await rm(parent, { recursive: true, force: true });
