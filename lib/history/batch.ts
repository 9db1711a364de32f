/**
 * A batch of consecutive history events as read from the engine. Shared by every client of a
 * run: the JSON form and its serialized text are computed once per payload mode, not per client.
 */
import { eventIdOf, eventsToJson, type EventJson, type RawEvent } from './events.js'

export class Batch {
  readonly firstId: number
  readonly lastId: number
  readonly #json: Array<EventJson[] | undefined> = [undefined, undefined]
  readonly #text: Array<string | undefined> = [undefined, undefined]

  constructor (readonly events: RawEvent[]) {
    this.firstId = eventIdOf(events[0])
    this.lastId = eventIdOf(events[events.length - 1])
  }

  json (includePayloads: boolean): EventJson[] {
    const mode = Number(includePayloads)
    return (this.#json[mode] ??= eventsToJson(this.events, includePayloads))
  }

  /** The JSON text of the events after `position` (all of them for a client that is in step). */
  textAfter (position: number, includePayloads: boolean): string {
    const mode = Number(includePayloads)
    if (position < this.firstId) return (this.#text[mode] ??= JSON.stringify(this.json(includePayloads)))
    return JSON.stringify(this.json(includePayloads).filter((e) => Number(e.eventId) > position))
  }
}
