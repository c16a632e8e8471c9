/**
 * `bun scripts/bench/reads-alloc-hot.ts [--n N]`: the newest history page of a device whose
 * samples are still hot (their texts in their records, as a running hub's newest hour is), in
 * process: an in-memory hub of the tests fed an hour of samples (the test helpers' sample,
 * evolving), then N pages read and made into a Response as the route makes them, once with the
 * texts taken as strings and once written as bytes, each in a process of its own started with
 * JavaScriptCore's collection log (BUN_JSC_logGC), whose young collections this counts.
 */
import { loadavg } from 'node:os'
import { JsonBytes } from '../../src/lib/json-bytes'
import { writePage } from '../../src/modules/metrics/metrics.rows'
import { createMetricsStore } from '../../src/modules/metrics/metrics.store'
import { testApp } from '../../test/helpers/app'
import { tenantWithDevices } from '../../test/helpers/metrics'
import { hardwareSample, networkSample } from '../../test/helpers/samples'
import { evolve, type Sample } from './storage-samples'

const argv = process.argv.slice(2)
const N = argv.includes('--n') ? Number(argv[argv.indexOf('--n') + 1]) : 1000
const MARK = 'reads-alloc-hot: measured'

async function one(bytes: boolean) {
  const T0 = Date.UTC(2026, 0, 1)
  const t = testApp()
  const a = await tenantWithDevices(t)
  t.clock.set(T0 + 3_600_000)
  const items = evolve({ hardware: hardwareSample(1), network: networkSample(1) } as Sample, 360, T0, 10_000, 5)
  for (let i = 0; i < items.length; i += 200) {
    const r = await t.request('POST', '/v1/metrics/bulk', { body: { items: items.slice(i, i + 200) }, headers: a.keyHeaders })
    if (r.status >= 300) throw new Error(r.text)
  }
  const store = createMetricsStore(t.db.sqlite)
  const seq = t.db.sqlite.query<{ seq: number }, []>('SELECT seq FROM devices').get()!.seq
  const out = new JsonBytes()
  const page = () => new Response(writePage(out.reset(), 'hardware', store.page('hardware', seq, 0, Number.MAX_SAFE_INTEGER, 120, 0, bytes), 'dev').lend())
  for (let i = 0; i < 100; i++) page()
  console.error(MARK)
  const c0 = process.cpuUsage()
  for (let i = 0; i < N; i++) page()
  const c = process.cpuUsage(c0)
  console.error(MARK)
  console.log(JSON.stringify({ cpuMs: (c.user + c.system) / 1000 / N }))
}

if (process.env.READS_ALLOC_HOT) await one(process.env.READS_ALLOC_HOT === 'bytes')
else {
  console.log(`reads-alloc-hot: ${N} pages each, load average ${loadavg()[0]!.toFixed(2)}\n`)
  console.log('| texts | young collections | full collections | CPU per page (logging on) |\n|---|---|---|---|')
  for (const mode of ['strings', 'bytes', 'strings', 'bytes']) {
    const proc = Bun.spawn([process.execPath, import.meta.path, '--n', String(N)], {
      env: { ...process.env, BUN_JSC_logGC: '1', READS_ALLOC_HOT: mode },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
    await proc.exited
    const measured = stderr.split(MARK)[1] ?? ''
    const { cpuMs } = JSON.parse(stdout.trim().split('\n').pop()!) as { cpuMs: number }
    console.log(
      `| ${mode} | ${measured.match(/=> EdenCollection/g)?.length ?? 0} | ${measured.match(/=> FullCollection/g)?.length ?? 0} | ${cpuMs.toFixed(3)} ms |`,
    )
  }
}
