// Registered with `--import` by `pnpm ab` for a server labelled `pier@DIR`: resolves
// `@pier/transport-http` to DIR/index.js instead of the workspace build, so that a saved build (the code
// before a change) and the current one can be measured side by side in the same minute.
import { register } from 'node:module';

register('./transport-redirect-hook.js', import.meta.url);
