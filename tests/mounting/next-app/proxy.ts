// The application's own middleware (Next 16 calls it a proxy): it marks every answer, Pier's too.
import { NextResponse } from 'next/server';

export function proxy(): NextResponse {
  const response = NextResponse.next();
  response.headers.set('x-app', 'next');
  return response;
}
