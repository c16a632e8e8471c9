import type { DeviceResponse } from '../modules/devices/devices.model'
import type { MetricKind } from '../modules/metrics/metrics.fields'
import type { BatchExtras, StoredSample } from '../modules/metrics/metrics.service'
import type { CheckResultIn } from '../modules/checks/checks.model'

/**
 * Where one group tells the groups built after it that something happened. Each hook is made
 * before any group (compose), handed as a filled port to the group that calls it and to the
 * groups that listen, so no group's dependencies are changed after it was built.
 */
export interface Hook<A extends unknown[]> {
  /** tells every listener, in the order they were added */
  readonly call: (...args: A) => void
  listen(fn: (...args: A) => void): void
  /** how many listen: a hook nobody hears is a wiring mistake (the composition test checks) */
  readonly listeners: number
}

export function hook<A extends unknown[]>(): Hook<A> {
  const fns: ((...args: A) => void)[] = []
  return {
    call: (...args) => {
      for (const fn of fns) fn(...args)
    },
    listen: (fn) => void fns.push(fn),
    get listeners() {
      return fns.length
    },
  }
}

/** A hook whose listeners may write asynchronously: its call resolves once every listener has, in order. */
export interface AsyncHook<A extends unknown[]> {
  readonly call: (...args: A) => Promise<void>
  listen(fn: (...args: A) => Promise<unknown> | undefined): void
  readonly listeners: number
}

export function asyncHook<A extends unknown[]>(): AsyncHook<A> {
  const fns: ((...args: A) => Promise<unknown> | undefined)[] = []
  return {
    call: async (...args) => {
      for (const fn of fns) await fn(...args)
    },
    listen: (fn) => void fns.push(fn),
    get listeners() {
      return fns.length
    },
  }
}

/** The app's hooks: made first, then handed to the groups. */
export function createHooks() {
  return {
    /** a sample was stored (after its commit): the live stream first (a device coming back is online before its sample), then the alert runtime */
    sampleStored: hook<[StoredSample]>(),
    /** a batch's parts beside its samples (containers, disks_smart): the containers and disks modules store them */
    batchExtras: hook<[BatchExtras]>(),
    /** samples counted for GET /metrics */
    samplesIngested: hook<[MetricKind, number]>(),
    /** a device was registered (possibly inside the caller's transaction) or deleted: the live stream and device presence */
    deviceRegistered: hook<[string, DeviceResponse]>(),
    deviceDeleted: hook<[string, string]>(),
    /** a batch carried results of checks its agent runs (client id, device id, results): the checks module stores them before the batch is answered */
    checkResults: asyncHook<[string, string, CheckResultIn[]]>(),
  }
}

export type Hooks = ReturnType<typeof createHooks>

/**
 * A question a group built early asks of a group built later (the devices ask the metrics for
 * each device's interval): made up front and handed to the asker at construction, answered once
 * by the group that knows, so the asker's dependencies are never changed after it was built.
 */
export interface Lookup<A extends unknown[], R> {
  readonly ask: (...args: A) => R
  answer(fn: (...args: A) => R): void
  /** a lookup nobody answers is a wiring mistake (the composition test checks) */
  readonly answered: boolean
}

export function lookup<A extends unknown[], R>(name: string): Lookup<A, R> {
  let impl: ((...args: A) => R) | null = null
  return {
    ask: (...args) => {
      if (impl === null) throw new Error(`${name} was asked before the composition root answered it`)
      return impl(...args)
    },
    answer: (fn) => {
      if (impl !== null) throw new Error(`${name} is answered twice`)
      impl = fn
    },
    get answered() {
      return impl !== null
    },
  }
}

/** The app's lookups: made first, then handed to the groups that ask and the ones that answer. */
export function createLookups() {
  return {
    /** each device's reporting interval by seq, as the metrics measure it (answered by the live group) */
    deviceIntervals: lookup<[number[]], Map<number, number | null>>('deviceIntervals'),
    /** when this process last saw a device report (answered by device presence) */
    deviceLastSeen: lookup<[string], number | null>('deviceLastSeen'),
    /** what /health says of the data dir's disk and the storage budget (answered by the storage group) */
    storageWarning: lookup<[], string | null>('storageWarning'),
  }
}

export type Lookups = ReturnType<typeof createLookups>
