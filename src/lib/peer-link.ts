/**
 * The hubs' link to each other, as what uses it declares it: the event bus (events other hubs'
 * streams must show) and the session revocations (an access token refused on every hub at once).
 * With one hub there is no link and nothing changes; with several on one PostgreSQL it is
 * src/db/pg/notify.ts (LISTEN/NOTIFY). Nothing sent over it is durable: a hub that was not
 * listening misses it, and is told so (`onMissed`) to re-read what it keeps.
 */
export interface PeerLink {
  /** this hub's id on the link: messages carry it, and a hub never hears its own */
  readonly origin: string
  /**
   * Queues a message for the other hubs; messages go out in the order sent. `key` is the
   * account it is about ('' for the hub as a whole): each account has its share of the queue,
   * so one account's flood cannot push another's messages out. `json` is the body as JSON.
   */
  send(topic: string, key: string, json: string): void
  /** the other hubs' messages of `topic`, in the order each hub sent them, until the returned function is called */
  on(topic: string, listener: (body: unknown, key: string) => void): () => void
  /**
   * Messages from other hubs may have been lost: `key` names the one account they were about,
   * null any account and the hub as a whole (the link dropped and came back, a hub's message
   * never arrived). A listener re-reads what it keeps from the database, or starts anew.
   */
  onMissed(listener: (key: string | null) => void): () => void
}
