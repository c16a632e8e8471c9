import type { Logger } from '../../lib/logger'
import { STORAGE_MEASURE_WORKER_URL } from '../../workers'
import type { MeasureReply } from './storage.measure.worker'

/** A scan not answered in this long is given up; the next measure tries again. */
const REPLY_TIMEOUT_MS = 10 * 60_000

/** Bytes per table, measured on a thread of its own (one per measure, ended after). */
export function measureInWorker(path: string): Promise<Map<string, number>> {
  const worker = new Worker(STORAGE_MEASURE_WORKER_URL, { smol: true })
  worker.unref() // a measure in progress never keeps the process from ending
  let timer: Timer | undefined
  return new Promise<Map<string, number>>((resolve, reject) => {
    timer = setTimeout(() => reject(new Error('the storage measure did not answer')), REPLY_TIMEOUT_MS)
    worker.onmessage = (e: MessageEvent<MeasureReply>) => (e.data.ok ? resolve(new Map(e.data.tables)) : reject(new Error(e.data.message)))
    worker.onerror = (e: ErrorEvent) => reject(new Error(e.message))
    worker.postMessage({ path })
  }).finally(() => {
    clearTimeout(timer)
    worker.terminate()
  })
}

/**
 * The measure for a database file: on its thread, or, when the thread cannot start or read
 * (a database only this connection sees, such as a test's in-memory one), on the connection itself.
 */
export function tableBytes(path: string, inline: () => Map<string, number>, logger: Logger): () => Promise<Map<string, number>> {
  if (path === '' || path === ':memory:') return async () => inline()
  return async () => {
    try {
      return await measureInWorker(path)
    } catch (err) {
      logger.warn('storage measure thread failed: measured on the event loop instead', { error: (err as Error).message })
      return inline()
    }
  }
}
