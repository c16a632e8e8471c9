import { afterAll, describe, expect, test } from 'bun:test'
import { AgentConfigError, loadAgentConfig } from '../../src/agent/agent.config'
import { containerId, sampleContainers, startFakeDocker } from '../fakes/docker/fake-docker'
import { ensureBinary } from '../helpers/binary'

const fake = startFakeDocker({ version: 'docker-25', containers: sampleContainers() })
afterAll(() => fake.stop())

describe('containers in the configuration', () => {
  test('exclusions and labels from VIGIL_AGENT_* variables or flags, flags first; none by default', () => {
    expect(loadAgentConfig({}, ['--once'])).toMatchObject({ excludeContainers: [], containerLabels: [] })
    const env = { VIGIL_AGENT_EXCLUDE_CONTAINERS: 'ci-*, tmp-?', VIGIL_AGENT_CONTAINER_LABELS: 'com.docker.compose.project' }
    expect(loadAgentConfig(env, ['--once'])).toMatchObject({ excludeContainers: ['ci-*', 'tmp-?'], containerLabels: ['com.docker.compose.project'] })
    expect(loadAgentConfig(env, ['--once', '--exclude-containers', 'a', '--container-labels=team,env'])).toMatchObject({
      excludeContainers: ['a'],
      containerLabels: ['team', 'env'],
    })
  })

  test('bad lists are named', () => {
    expect(() => loadAgentConfig({ VIGIL_AGENT_EXCLUDE_CONTAINERS: 'a b' }, ['--once'])).toThrow(AgentConfigError)
    expect(() => loadAgentConfig({}, ['--once', '--container-labels', 'x'.repeat(201)])).toThrow(/up to 200 characters/)
    expect(() => loadAgentConfig({}, ['--once', '--exclude-containers', Array.from({ length: 51 }, (_, i) => `c${i}`).join(',')])).toThrow(/up to 50/)
  })
})

test('dist/vigil agent --once reads the engine at DOCKER_HOST: the sample carries the containers block, excluded ones left out', async () => {
  // not spawnSync: the fake engine answers from this process's event loop
  const run = Bun.spawn([ensureBinary(), 'agent', '--once', '--exclude-containers', 'hog', '--container-labels', 'team'], {
    env: { PATH: process.env.PATH ?? '', DOCKER_HOST: `unix://${fake.socketPath}` },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [out, err, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited])
  expect(err).toBe('')
  expect(code).toBe(0)
  const sample = JSON.parse(out)
  expect(sample.containers.engine).toEqual({ kind: 'docker', version: '25.0.5', api_version: '1.44' })
  expect(sample.containers.items.map((i: any) => i.name)).toEqual(['web', 'backup', 'worker', 'api', 'flaky'])
  expect(sample.containers.items[0]).toMatchObject({ id: containerId('a1'), labels: { team: 'ops' }, state: 'running', health: 'healthy' })
  expect(sample.hardware.cpu_percent).toBeNumber()
}, 120_000)
