import { part } from '../lint-probe-13314-a/part.js'

export interface Inner { n: number }
export const again = part
