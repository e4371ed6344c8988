// parseConfig: the same rules as loadConfig, without printing or exiting (tests, embedding).
import { parseConfig, z } from '@pier/config';

const spec = {
  port: { schema: z.number().int().default(3000), env: 'PORT' },
  apiKey: { schema: z.string().min(1), env: 'API_KEY', secret: true },
};

const bad = parseConfig(spec, { argv: ['--port', '80a', '--api-kye', 'sk-live-0123456789'], env: {} });
if (!bad.ok) for (const issue of bad.issues) console.log(`${issue.path} (${issue.source}): ${issue.message}`);

const good = parseConfig(spec, { argv: ['--port', '8080'], env: { API_KEY: 'sk-live-0123456789' } });
if (good.ok) console.log(good.config.port, `${good.config}`); // printed, the secret is masked
