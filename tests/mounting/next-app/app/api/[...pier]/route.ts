// Every path below /api is Pier's: MCP at /api/mcp, health at /api/health/…, metrics at /api/metrics.
import { pier } from '../../../lib/pier';

const serve = (request: Request): Promise<Response> => pier().fetch(request);

export const GET = serve;
export const POST = serve;
export const DELETE = serve;
