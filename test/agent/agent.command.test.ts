import { describe, expect, spyOn, test } from 'bun:test'
import { join } from 'node:path'
import { writeFileSync } from 'node:fs'
import { bodyReader } from '../../src/http/input'
import { BatchMetricIn } from '../../src/modules/metrics/metrics.model'
import { agentCommand } from '../../src/agent/agent.command'
import { AgentConfigError, loadAgentConfig } from '../../src/agent/agent.config'
import { ensureBinary } from '../helpers/binary'
import { tempDirs } from '../helpers/temp-dirs'

const tempDir = tempDirs('vigil-agent-cmd-')
const checkBatch = bodyReader(BatchMetricIn)

test('dist/vigil agent --once prints one sample the hub accepts as a batch, without a hub', () => {
  const run = Bun.spawnSync([ensureBinary(), 'agent', '--once'], { env: { PATH: process.env.PATH ?? '' }, stdout: 'pipe', stderr: 'pipe' })
  expect(run.stderr.toString()).toBe('')
  expect(run.exitCode).toBe(0)
  const sample = JSON.parse(run.stdout.toString())
  expect(() => checkBatch(structuredClone(sample))).not.toThrow()
  expect(Date.parse(sample.recorded_at)).toBeGreaterThan(Date.now() - 60_000)
  expect(sample.hardware.cpu_percent).toBeNumber() // two readings a moment apart: a real percentage
  expect(sample.hardware.disk_partitions.length).toBeGreaterThan(0)
  expect(sample.network.bytes_recv_total).toBeNumber()
  // a start of the 120 MB executable and its quarter-second sample: seconds on a busy machine
}, 30_000)

test('another system: a clear message and exit 2', async () => {
  const err = spyOn(console, 'error').mockImplementation(() => {})
  try {
    expect(await agentCommand(['--once'], {}, { os: 'darwin', arch: 'arm64' })).toBe(2)
    expect(await agentCommand(['--once'], {}, { os: 'linux', arch: 'ia32' })).toBe(2)
    expect(err.mock.calls.map((c) => c[0])).toEqual([
      'vigil agent supports Linux only (x64, arm64) for now',
      'vigil agent supports Linux only (x64, arm64) for now',
    ])
  } finally {
    err.mockRestore()
  }
})

describe('configuration', () => {
  test('flags win over VIGIL_AGENT_* variables, which win over the defaults', () => {
    const env = { VIGIL_AGENT_HUB: 'http://env-hub:8080', VIGIL_AGENT_KEY: 'vk_env', VIGIL_AGENT_INTERVAL: '30', VIGIL_AGENT_STATE_DIR: '/tmp/x' }
    expect(loadAgentConfig(env, [])).toMatchObject({ hub: 'http://env-hub:8080', key: 'vk_env', intervalMs: 30_000, stateDir: '/tmp/x', once: false })
    expect(loadAgentConfig(env, ['--hub', 'https://flag-hub/', '--interval=5', '--key', 'vk_flag'])).toMatchObject({
      hub: 'https://flag-hub',
      key: 'vk_flag',
      intervalMs: 5000,
    })
    expect(loadAgentConfig({}, ['--once'])).toMatchObject({ hub: null, intervalMs: 10_000, stateDir: '/var/lib/vigil-agent', once: true })
  })

  test('the key from a file, or by default from the state dir', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'key'), 'vk_state\n', { mode: 0o600 })
    expect(loadAgentConfig({}, ['--hub', 'http://h', '--state-dir', dir]).key).toBe('vk_state')
    writeFileSync(join(dir, 'other'), 'vk_file\n')
    expect(loadAgentConfig({ VIGIL_AGENT_KEY_FILE: join(dir, 'other') }, ['--hub', 'http://h', '--state-dir', dir]).key).toBe('vk_file')
    // a flag wins over the environment, whichever form each gives the key in
    const args = ['--hub', 'http://h', '--state-dir', dir]
    expect(loadAgentConfig({ VIGIL_AGENT_KEY: 'vk_env' }, [...args, '--key-file', join(dir, 'other')]).key).toBe('vk_file')
    expect(loadAgentConfig({ VIGIL_AGENT_KEY_FILE: join(dir, 'other') }, [...args, '--key', 'vk_flag']).key).toBe('vk_flag')
    expect(loadAgentConfig({ VIGIL_AGENT_KEY: 'vk_env', VIGIL_AGENT_KEY_FILE: join(dir, 'other') }, args).key).toBe('vk_env')
  })

  test('bad values are named', () => {
    const bad = (env: Record<string, string>, args: string[]) => () => loadAgentConfig(env, args)
    expect(bad({}, ['--key', 'k'])).toThrow(new AgentConfigError("the agent needs the hub's URL: --hub URL or VIGIL_AGENT_HUB"))
    expect(bad({}, ['--hub', 'http://h', '--state-dir', tempDir()])).toThrow(/needs an API key/)
    expect(bad({}, ['--hub', 'ftp://h', '--key', 'k'])).toThrow(/http\(s\) URL/)
    expect(bad({}, ['--hub', 'http://h', '--key', 'k', '--interval', '0'])).toThrow(/1 to 3600/)
    expect(bad({}, ['--hub', 'http://h', '--key', 'k', '--interval', '10s'])).toThrow(/1 to 3600/)
    expect(bad({}, ['--port', '1'])).toThrow(/unknown option "--port"/)
  })

  test('bad configuration exits 2 with the reason', async () => {
    const err = spyOn(console, 'error').mockImplementation(() => {})
    try {
      expect(await agentCommand(['--interval', 'x'], {}, { os: 'linux', arch: 'x64' })).toBe(2)
      expect(String(err.mock.calls[0]![0])).toStartWith('vigil: --interval')
    } finally {
      err.mockRestore()
    }
  })
})
