// The application's own route beside Pier's.
export function GET(): Response {
  return Response.json({ hello: 'from next' });
}
