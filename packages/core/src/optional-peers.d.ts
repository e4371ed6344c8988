// Types for the optional peer core loads with a dynamic import(); it is deliberately not a dependency.
declare module '@pier/transport-http' {
  export const startHttpTransport: import('./contract.js').HttpTransportModule['startHttpTransport'];
}
