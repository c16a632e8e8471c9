import type { FFIFunction, Library } from 'bun:ffi'
import { readdirSync, readFileSync } from 'node:fs'

/**
 * Functions of the C library through bun:ffi, for the few Linux calls Bun does not offer
 * (madvise, setpriority, getrusage of one thread): glibc's library, else musl's; null where none
 * can be had (not Linux, no bun:ffi, neither library under its usual name). Each call compiles
 * bun:ffi's trampolines for its symbols: callers open once and keep what they got.
 */
export function openLibc<Fns extends Record<string, FFIFunction>>(symbols: Fns): Library<Fns>['symbols'] | null {
  if (process.platform !== 'linux') return null
  let ffi: typeof import('bun:ffi')
  try {
    ffi = require('bun:ffi') as typeof import('bun:ffi')
  } catch {
    return null // no bun:ffi
  }
  const arch = process.arch === 'arm64' ? 'aarch64' : 'x86_64'
  for (const name of ['libc.so.6', `libc.musl-${arch}.so.1`]) {
    try {
      return ffi.dlopen(name, symbols).symbols
    } catch {
      // not this C library
    }
  }
  return null
}

/** This process's threads, id and name (`/proc/self/task`); a thread that ends meanwhile is left out. */
export function ownThreads(): { tid: number; name: string }[] {
  return readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      return [{ tid: Number(tid), name: readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() }]
    } catch {
      return [] // ended meanwhile
    }
  })
}
