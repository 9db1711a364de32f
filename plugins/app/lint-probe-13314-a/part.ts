import type { Inner } from '../lint-probe-13314-b/index.js'

export const part: Inner = { n: 1 }
