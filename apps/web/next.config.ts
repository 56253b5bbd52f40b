import type { NextConfig } from "next";

const config: NextConfig = {
  // Workspace packages ship TypeScript source, not builds.
  transpilePackages: [
    "@berth/api",
    "@berth/db",
    "@berth/sandbox",
    "@berth/ui",
    "@berth/validators",
  ],
  // Loaded by Node at run time rather than bundled: the database driver and Prisma's runtime.
  serverExternalPackages: ["pg", "@prisma/adapter-pg", "@prisma/client"],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default config;
