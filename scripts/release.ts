/**
 * `bun run release`: the executables a release ships, dist/release/vigil-linux-x64 and
 * vigil-linux-arm64 (a Raspberry Pi 4/5 or an ARM VM), with SHA256SUMS beside them.
 * Both are cross-compiled by scripts/build.ts (without the bytecode profile run: it would have
 * to run each on its own architecture); scripts/release-check.sh starts the arm64 one under qemu.
 */
import { mkdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dir, '..')
const out = join(root, 'dist/release')
const TARGETS = ['linux-x64', 'linux-arm64']

rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
const sums: string[] = []
for (const target of TARGETS) {
  const build = Bun.spawnSync([process.execPath, 'run', 'scripts/build.ts', '--no-profile', '--target', `bun-${target}`], {
    cwd: root,
    stdout: 'inherit',
    stderr: 'inherit',
  })
  if (build.exitCode !== 0) process.exit(build.exitCode ?? 1)
  const file = join(out, `vigil-${target}`)
  renameSync(join(root, 'dist', `vigil-${target}`), file)
  const hash = new Bun.CryptoHasher('sha256').update(await Bun.file(file).arrayBuffer()).digest('hex')
  sums.push(`${hash}  vigil-${target}`)
}
await Bun.write(join(out, 'SHA256SUMS'), `${sums.join('\n')}\n`)
console.log(`release in ${out}:\n${sums.join('\n')}`)
