// Nothing here is specific to MCP: @pier/config in a plain command-line program.
import { loadConfig, z } from '@pier/config';

const config = loadConfig(
  {
    source: { schema: z.string().min(1), env: 'BACKUP_SOURCE', description: 'Directory to back up' },
    target: {
      schema: z.url({ protocol: /^s3$/ }),
      env: 'BACKUP_TARGET',
      description: 'Where to, as s3://bucket/prefix',
    },
    keep: { schema: z.number().int().min(1).default(7), description: 'How many backups to keep' },
    dryRun: { schema: z.boolean().default(false), description: 'Say what would happen, change nothing' },
  },
  { name: 'backup', version: '2.3.0', description: 'Copies a directory to S3 and prunes old copies.' },
);

const verb = config.dryRun ? 'would copy' : 'copying';
console.log(`${verb} ${config.source} to ${config.target}, keeping ${config.keep}`);
