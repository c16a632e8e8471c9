/**
 * Whose turn it is in the alert runtime. Each account's verbs (an observation, a reload, an
 * acknowledgement) run one at a time, in the order called, beside other accounts' verbs: one
 * account's slow writes (many alerts changing at once, a database far away) never hold another
 * account's evaluation back. A verb of the whole hub (the start, the tick) waits for every
 * account's verbs called before it, and the verbs called after it wait for it.
 */
export function createTurns() {
  let hub: Promise<void> = Promise.resolve()
  /** whether a verb of the whole hub is waiting or running */
  let hubBusy = false
  const accounts = new Map<string, Promise<void>>()
  const quiet = (p: Promise<unknown>): Promise<void> =>
    p.then(
      () => {},
      () => {},
    )
  function take<T>(clientId: string, fn: () => Promise<T> | undefined): Promise<T | undefined> | undefined {
    const before = accounts.get(clientId)
    // the common case on the ingest path, nothing to wait for: it starts now
    let run: Promise<T | undefined> | undefined
    try {
      run = !hubBusy && before === undefined ? fn() : Promise.all([hub, before]).then(fn)
    } catch (err) {
      // a verb that fails before its first wait answers as one that fails after it
      run = Promise.reject(err)
    }
    if (run === undefined) return undefined
    const done = quiet(run)
    accounts.set(clientId, done)
    // an account with nothing waiting is forgotten: the map holds the accounts busy now
    void done.then(() => {
      if (accounts.get(clientId) === done) accounts.delete(clientId)
    })
    return run
  }
  return {
    of<T>(clientId: string, fn: () => Promise<T>): Promise<T> {
      return take(clientId, fn) as Promise<T>
    },
    /**
     * As `of`, for a verb that may have nothing to wait for (an observation that changes no
     * state): with nothing before it either, it runs at once and answers no promise.
     */
    atOnce(clientId: string, fn: () => Promise<void> | undefined): Promise<void> | undefined {
      return take(clientId, fn)
    },
    whole<T>(fn: () => Promise<T>): Promise<T> {
      const run = Promise.all([hub, ...accounts.values()]).then(fn)
      const done = quiet(run)
      hub = done
      hubBusy = true
      accounts.clear()
      void done.then(() => {
        if (hub === done) hubBusy = false
      })
      return run
    },
  }
}
