import { toIso } from './clock'

/**
 * One event of a client's live stream: a new sample, a device's status change, an alert.
 * `seq` grows by one per event of that client only (so no client learns another's volume from
 * the gaps); with the client's `epoch` it names a point in its stream a reader can resume from.
 */
export interface BusEvent<T = unknown> {
  seq: number
  client_id: string
  type: string
  timestamp: string
  data: T
  /** `data` as JSON, made once when published (a stream sends it as is); absent on hand-made events */
  json?: string
}

/** the data as JSON; what cannot be written (a cycle, a BigInt) must not stop the publisher, and is kept as null */
export function toJson(data: unknown): string {
  try {
    return JSON.stringify(data) ?? 'null'
  } catch {
    return 'null'
  }
}

/**
 * An event as the bus hands it out. Its timestamp, its data (when published with a function that
 * makes it) and the data's JSON are made when first read: most events of a busy hub (a `sample`
 * per part of every batch) reach no reader of their client, and the bus then reads none of them.
 * A ring that keeps events for resuming readers, or the link to other hubs, reads the JSON at
 * once, when published, as before.
 */
export class LazyEvent<T> implements BusEvent<T> {
  private made: T | undefined
  private make: (() => T) | null
  private text: string | undefined
  private ts: string | undefined

  constructor(
    readonly seq: number,
    readonly client_id: string,
    readonly type: string,
    private readonly ms: number,
    data: { value: T } | { make: () => T },
    json?: string,
    timestamp?: string,
  ) {
    if ('make' in data) {
      this.make = data.make
    } else {
      this.made = data.value
      this.make = null
    }
    this.text = json
    this.ts = timestamp
  }

  get timestamp(): string {
    if (this.ts === undefined) this.ts = toIso(this.ms)
    return this.ts
  }

  get data(): T {
    if (this.make) {
      this.made = this.make()
      this.make = null
    }
    return this.made as T
  }

  get json(): string {
    if (this.text === undefined) this.text = toJson(this.data)
    return this.text
  }
}

/** an event as another hub sent it (see publish), or null for anything else */
export function peerEvent(body: unknown): { type: string; timestamp: string; data: unknown; json: string } | null {
  if (!body || typeof body !== 'object') return null
  const { t, ts, d } = body as { t?: unknown; ts?: unknown; d?: unknown }
  if (typeof t !== 'string' || typeof ts !== 'string') return null
  return { type: t, timestamp: ts, data: d ?? null, json: toJson(d ?? null) }
}
