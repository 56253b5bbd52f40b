import { createBerthConfig } from "@berth/eslint-config";

export default createBerthConfig({ rootDir: import.meta.dirname });
