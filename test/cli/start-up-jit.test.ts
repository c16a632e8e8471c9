import { beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { afterStartUp } from '../../src/lib/memory'
import { ensureBinary, freePort, tempDir } from '../helpers/binary'
import { follow } from '../helpers/follow'

/** JavaScriptCore's report of each function it compiles ("Optimized f#hash:[…] using Baseline …"), on stderr. */
const COMPILED = /^Optimized .* using (Baseline|DFG|FTL)/gm

describe("dist/vigil's JIT at start-up", () => {
  beforeAll(() => void ensureBinary(), 60_000)

  test('start-up compiles nothing; once it is over, requests are compiled as usual', async () => {
    const cwd = tempDir()
    const port = freePort()
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
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const out = follow(proc.stdout)
    const err = follow(proc.stderr)
    try {
      await out.until((text) => /start-up over/.exec(text)?.[0], '"start-up over"')
      // everything up to here, migrations of a new data dir included, ran in the interpreter
      expect(err.text().match(COMPILED) ?? []).toEqual([])
      for (let i = 0; i < 300; i++) expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200)
      // under the start-up policy these 300 requests compiled one function or none; as usual, over a hundred
      expect((err.text().match(COMPILED) ?? []).length).toBeGreaterThan(20)
    } finally {
      proc.kill('SIGTERM')
      await proc.exited
    }
  }, 30_000)

  test('after start-up the normal policy comes back before the memory is given back', () => {
    const calls: string[] = []
    afterStartUp({ normalJit: () => calls.push('normal JIT'), shrink: () => calls.push('shrink') })
    expect(calls).toEqual(['normal JIT', 'shrink'])
  })
})
