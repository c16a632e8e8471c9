import { statfsSync } from 'node:fs'
import { dirname, resolve } from 'node:path'

/** The file system holding the data dir, as `df` shows it. */
export interface DiskFigures {
  /** bytes of the file system */
  totalBytes: number
  /** bytes an unprivileged process may still write */
  availableBytes: number
  /** used / (used + available), df's Use%: blocks kept for root count as neither */
  usedRatio: number
}

export type ReadDisk = (dir: string) => DiskFigures

/** statfs of the dir, or of its nearest existing parent (an in-memory database's data dir may not exist). */
function statfsNearest(dir: string) {
  for (let d = resolve(dir); ; d = dirname(d)) {
    try {
      return statfsSync(d)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || d === dirname(d)) throw err
    }
  }
}

export const readDisk: ReadDisk = (dir) => {
  const s = statfsNearest(dir)
  const used = (s.blocks - s.bfree) * s.bsize
  const available = s.bavail * s.bsize
  return { totalBytes: s.blocks * s.bsize, availableBytes: available, usedRatio: used + available > 0 ? used / (used + available) : 0 }
}
