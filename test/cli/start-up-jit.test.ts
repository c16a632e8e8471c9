import { beforeAll, describe, expect, test } from 'bun:test'
import { closeSync, openSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterStartUp } from '../../src/lib/memory'
import { ensureBinary, freePort, tempDir } from '../helpers/binary'

/** JavaScriptCore's report of each function it compiles ("Optimized f#hash:[…] using Baseline …"), on stderr. */
const COMPILED = /^Optimized .* using (Baseline|DFG|FTL)/gm

describe("dist/vigil's JIT at start-up", () => {
  beforeAll(() => void ensureBinary(), 60_000)

  test('start-up compiles nothing; once it is over, requests are compiled as usual', async () => {
    const cwd = tempDir()
    const port = freePort()
    // the log and the engine's reports into one file, in the order they were written: read from two
    // pipes, a report written after "start-up over" could be read before it on a busy machine
    const outPath = join(cwd, 'out.log')
    const out = openSync(outPath, 'a')
    const proc = Bun.spawn([ensureBinary(), 'serve'], {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        VIGIL_PORT: String(port),
        VIGIL_HOST: '127.0.0.1',
        VIGIL_DATA_DIR: join(cwd, 'data'),
        VIGIL_LOG_FORMAT: 'json',
        VIGIL_LOG_LEVEL: 'debug',
        VIGIL_RATE_LIMIT_ANONYMOUS: '10000000',
        // the engine's own report of what it compiles (release builds have it)
        BUN_JSC_reportBaselineCompileTimes: '1',
        BUN_JSC_reportDFGCompileTimes: '1',
      },
      stdout: out,
      stderr: out,
    })
    closeSync(out)
    const text = () => readFileSync(outPath, 'utf8')
    /** waits, within a bound, for `ready` to hold of the output so far */
    const waitFor = async (ready: (t: string) => boolean) => {
      for (const until = Date.now() + 15_000; !ready(text()) && proc.exitCode === null && Date.now() < until; ) await Bun.sleep(20)
    }
    const compiledAfterStartUp = () => text().split('start-up over')[1]?.match(COMPILED)?.length ?? 0
    try {
      await waitFor((t) => t.includes('start-up over'))
      const [before, after] = text().split('start-up over')
      expect(after).toBeDefined()
      // everything up to here, migrations of a new data dir included, ran in the interpreter
      expect(before?.match(COMPILED) ?? []).toEqual([])
      for (let i = 0; i < 300; i++) expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200)
      // under the start-up policy these 300 requests compiled one function or none; as usual, over a
      // hundred. The compiler threads run at the lowest priority (lib/compiler-threads.ts), so on a
      // busy machine their reports can come after the answers.
      await waitFor(() => compiledAfterStartUp() > 20)
      expect(compiledAfterStartUp()).toBeGreaterThan(20)
    } finally {
      proc.kill('SIGTERM')
      await proc.exited
    }
  }, 45_000)

  test('after start-up the normal policy comes back before the memory is given back', () => {
    const calls: string[] = []
    afterStartUp({ normalJit: () => calls.push('normal JIT'), shrink: () => calls.push('shrink') })
    expect(calls).toEqual(['normal JIT', 'shrink'])
  })
})
