import { afterAll, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, startBinary, tempDir } from '../helpers/binary'

/**
 * The README's "First steps" run as written (its sh block, with curl and jq) against dist/vigil
 * listening beyond loopback, so the setup token from the console is needed. The account gets a
 * second device before the batch: a client-wide key serving two devices is where a batch that
 * does not name its device is refused, so the example must keep naming it.
 */
const tools = ['bash', 'curl', 'jq'].every((tool) => Bun.which(tool))
const stops: (() => void)[] = []
afterAll(() => {
  for (const stop of stops.splice(0)) stop()
})

/** the README's first sh block after its "## First steps" heading */
function firstSteps(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('## First steps'))
  const block = /```sh\n([\s\S]*?)```/.exec(section)
  if (!block) throw new Error('README.md: no sh block under "## First steps"')
  return block[1]!
}

test.skipIf(!tools)(
  "the README's first steps work as written, on an account with two devices (needs bash, curl, jq)",
  async () => {
    const cwd = tempDir('vigil-readme-')
    const server = await startBinary({ cwd, env: { VIGIL_DATA_DIR: join(cwd, 'data'), VIGIL_HOST: '0.0.0.0' } })
    stops.push(() => server.proc.kill())
    let log = ''
    const reader = server.proc.stdout.getReader()
    while (!/vst_[A-Za-z0-9_-]+/.test(log)) {
      const { value, done } = await reader.read()
      if (done) throw new Error(`no setup token in the log:\n${log}`)
      log += new TextDecoder().decode(value)
    }
    const setup = /vst_[A-Za-z0-9_-]+/.exec(log)![0]

    const steps = firstSteps()
    expect(steps).toContain('V=http://localhost:8080\n')
    expect(steps).toContain('SETUP=vst_…')
    const secondDevice =
      'curl -s -o /dev/null -X POST $V/v1/clients/me/devices -H "x-api-key: $KEY" -H \'content-type: application/json\' ' +
      `-d '{"hostname":"rack-2","os":"linux","os_version":"6.8","arch":"x86_64","fingerprint":"rack-2"}'`
    const script = steps
      .replace('V=http://localhost:8080\n', `V=${server.base}\n`)
      .replace(/SETUP=vst_….*\n/, `SETUP=${setup}\n`)
      // the account has two devices by the time the batch is sent
      .replace(/^(DEVICE=\$\(curl[\s\S]*?\| jq -r \.device_id\))\n/m, `$1\n${secondDevice}\necho "DEVICE=$DEVICE"\n`)
    expect(script).toContain('rack-2')
    const run = Bun.spawnSync(['bash', '-c', `set -e -o pipefail\ncurl() { command curl "$@"; echo; }\n${script}`], { stdout: 'pipe', stderr: 'pipe' })
    const out = run.stdout.toString()
    expect({ exit: run.exitCode, stderr: run.stderr.toString() }).toEqual({ exit: 0, stderr: '' })

    const device = /^DEVICE=(dev_\w+)$/m.exec(out)?.[1]
    expect(device).toBeDefined()
    const lines = out.split('\n').filter((l) => l.startsWith('{') || l.startsWith('['))
    const batch = lines.map((l) => JSON.parse(l)).find((j) => j && !Array.isArray(j) && 'hardware' in j && 'device_id' in j)
    expect(batch).toMatchObject({ device_id: device, hardware: { id: expect.any(Number) }, network: { id: expect.any(Number) } })
    const devices = JSON.parse(lines.at(-1)!) as { hostname: string; last_seen_at: string | null }[]
    expect(devices.map((d) => d.hostname).sort()).toEqual(['rack-1', 'rack-2'])
    expect(devices.find((d) => d.hostname === 'rack-1')!.last_seen_at).not.toBeNull()
    expect(out).toContain(`/install.sh | sudo sh -s -- --token vet_`)
  },
  60_000,
)
