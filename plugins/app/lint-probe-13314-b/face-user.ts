import { part } from '../lint-probe-13314-a/index.js'

export const same = part
