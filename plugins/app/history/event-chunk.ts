/**
 * Shared by every client of the run: the JSON form and the finished SSE frame are made once per
 * payload mode, so a fan-out costs one socket write per client.
 */
import { encodeCursor } from './cursor.js'
import { eventIdOf, eventsToJson, type EventJson, type RawEvent } from './events.js'

export class EventChunk {
  readonly firstId: number
  readonly lastId: number
  readonly #json: Array<EventJson[] | undefined> = [undefined, undefined]
  readonly #frame: Array<Buffer | undefined> = [undefined, undefined]

  constructor (readonly runId: string, readonly events: RawEvent[]) {
    this.firstId = eventIdOf(events[0])
    this.lastId = eventIdOf(events[events.length - 1])
  }

  json (includePayloads: boolean): EventJson[] {
    const mode = Number(includePayloads)
    return (this.#json[mode] ??= eventsToJson(this.events, includePayloads))
  }

  frameAfter (position: number, includePayloads: boolean): Buffer {
    const mode = Number(includePayloads)
    if (position < this.firstId) return (this.#frame[mode] ??= this.#build(this.json(includePayloads)))
    return this.#build(this.json(includePayloads).filter((e) => Number(e.eventId) > position))
  }

  #build (events: EventJson[]): Buffer {
    const id = encodeCursor({ runId: this.runId, eventId: this.lastId, done: false })
    return Buffer.from(`id: ${id}\nevent: history\ndata: ${JSON.stringify(events)}\n\n`)
  }
}
