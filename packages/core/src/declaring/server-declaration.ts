// A whole server as a plain object: its identity, plugins and members. What decorators build and
// JavaScript users write; `createServer` takes it.
import type { PierPlugin } from '../plugins/api.js';
import type { Icon, Meta } from './meta.js';
import type { PromptDeclaration, ResourceDeclaration, ToolDeclaration } from './model.js';

/** Options of {@link MCPServer}: the server's identity and its plugins. */
export interface MCPServerOptions {
  /** Required, non-empty. Reported to clients and used as the log scope. */
  readonly name: string;
  /** Required: dotted numbers (`1`, `1.2`, `1.2.3`) with an optional `-pre.release` and `+build`. */
  readonly version: string;
  readonly title?: string;
  readonly description?: string;
  /** Icons a client may show for the server. */
  readonly icons?: readonly Icon[];
  /** The server's home page, shown by clients beside its name. */
  readonly websiteUrl?: string;
  /** Metadata of the server, sent with its `initialize` and `server/discover` results. */
  readonly _meta?: Meta;
  /** Sent to clients: how to use this server (often given to the model). */
  readonly instructions?: string;
  /** Run in order by `createServer`. */
  readonly plugins?: readonly PierPlugin[];
}

/** A whole server as a plain object: what decorators build, and what JavaScript users write. */
export interface ServerDeclaration extends MCPServerOptions {
  readonly tools?: readonly ToolDeclaration[];
  readonly resources?: readonly ResourceDeclaration[];
  readonly prompts?: readonly PromptDeclaration[];
}
