// Written by scripts/build.ts while it compiles dist/vigil, and put back as it is here afterwards.
// Here (source mode) nothing is embedded: the server bundles web/src itself on first use.
import type { EmbeddedWeb } from './web-bundle'

export const EMBEDDED_WEB: EmbeddedWeb | null = null
