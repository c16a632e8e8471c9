import type { Gpu } from './gpu'

/** What nvidia-smi tells of one card. */
export interface NvidiaReading {
  name: string
  load_percent: number | null
  memory_used_mb: number | null
  memory_total_mb: number | null
  temperature_c: number | null
}

/** The query the poller runs; its columns are what parseNvidiaSmi reads, in this order. */
export const NVIDIA_SMI_ARGS = ['--query-gpu=index,name,utilization.gpu,memory.used,memory.total,temperature.gpu', '--format=csv,noheader,nounits']

const figure = (s: string | undefined): number | null => {
  const n = Number(s?.trim())
  return s === undefined || s.trim() === '' || Number.isNaN(n) ? null : n
}

/** nvidia-smi's CSV, one card per line, in index order; "[N/A]" (a figure the card lacks) is null. */
export function parseNvidiaSmi(csv: string): NvidiaReading[] {
  const out: NvidiaReading[] = []
  for (const line of csv.split('\n')) {
    const cols = line.split(',').map((c) => c.trim())
    if (cols.length < 6 || cols[1] === '') continue
    out.push({
      name: cols[1]!,
      load_percent: figure(cols[2]),
      memory_used_mb: figure(cols[3]),
      memory_total_mb: figure(cols[4]),
      temperature_c: figure(cols[5]),
    })
  }
  return out
}

/** NVIDIA cards of a sysfs listing get nvidia-smi's figures, card by card in the same order. */
export function withNvidiaFigures(gpus: Gpu[], readings: NvidiaReading[] | null): (Gpu & { temperature_c?: number | null })[] {
  if (!readings?.length) return gpus
  let next = 0
  return gpus.map((g) => {
    if (g.vendor !== 'nvidia') return g
    const r = readings[next++]
    return r
      ? {
          ...g,
          name: r.name,
          load_percent: r.load_percent,
          memory_used_mb: r.memory_used_mb,
          memory_total_mb: r.memory_total_mb,
          temperature_c: r.temperature_c,
        }
      : g
  })
}

export interface NvidiaPollerDeps {
  /** runs nvidia-smi with these arguments; its stdout, or null when it failed */
  run: (args: string[]) => Promise<string | null>
  /** monotonic ms */
  now: () => number
  /** how often the tool runs at most (it takes tens of ms and wakes the driver) */
  everyMs?: number
}

/**
 * NVIDIA's driver puts no load or memory figures in sysfs, so they come from nvidia-smi: run
 * in the background, at most once a minute, never inside a sample (the sample takes the last
 * figures it has). A tool that keeps failing is tried again at the same slow rate.
 */
export function createNvidiaPoller({ run, now, everyMs = 60_000 }: NvidiaPollerDeps) {
  let last: NvidiaReading[] | null = null
  let ranAt = Number.NEGATIVE_INFINITY
  let running: Promise<void> | null = null
  return {
    /** the latest figures, and a refresh started in the background when they are due */
    latest(): NvidiaReading[] | null {
      if (!running && now() - ranAt >= everyMs) {
        ranAt = now()
        running = run(NVIDIA_SMI_ARGS)
          .then((out) => {
            last = out === null ? null : parseNvidiaSmi(out)
          })
          .catch(() => {
            last = null
          })
          .finally(() => {
            running = null
          })
      }
      return last
    },
    /** resolves when a refresh in flight is done (tests, --once) */
    settled: (): Promise<void> => running ?? Promise.resolve(),
  }
}

export type NvidiaPoller = ReturnType<typeof createNvidiaPoller>

/** nvidia-smi on PATH, run with a time limit; null when it is not installed. */
export function systemNvidiaPoller(): NvidiaPoller | null {
  const bin = Bun.which('nvidia-smi')
  if (!bin) return null
  return createNvidiaPoller({
    now: () => performance.now(),
    run: async (args) => {
      const proc = Bun.spawn([bin, ...args], { stdout: 'pipe', stderr: 'ignore', stdin: 'ignore', timeout: 5_000, killSignal: 'SIGKILL' })
      const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
      return code === 0 ? out : null
    },
  })
}
