export { part } from './part.js'
