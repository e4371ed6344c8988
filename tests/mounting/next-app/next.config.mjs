// The test builds this app from scratch on every run: type errors are the package's `typecheck` to find, and
// Turbopack's build cache would only be written, never read.
export default {
  typescript: { ignoreBuildErrors: true },
  experimental: { turbopackFileSystemCacheForBuild: false },
};
