/**
 * Builds dist/vigil: one executable with the migrations, web/ and the docs assets inside.
 * `--target bun-linux-arm64` (or any Bun target) cross-compiles, e.g. for a Raspberry Pi.
 */
import { join } from 'node:path'

const root = join(import.meta.dir, '..')
const targetIdx = process.argv.indexOf('--target')
const target = targetIdx > -1 ? process.argv[targetIdx + 1] : undefined
const outfile = join(root, 'dist', target ? `vigil-${target.replace(/^bun-/, '')}` : 'vigil')

const args = [
  // worker threads are entry points of their own (see src/workers.ts)
  'build', join(root, 'src/main.ts'), join(root, 'src/db/checkpoint.worker.ts'),
  '--compile', '--minify', '--sourcemap',
  // A stray .env or bunfig.toml next to the binary must never change its behaviour silently.
  '--no-compile-autoload-dotenv', '--no-compile-autoload-bunfig',
  // A smaller JS heap that collects more often: the idle and under-load RSS targets (issue 7).
  '--compile-exec-argv=--smol',
  '--outfile', outfile,
  ...(target ? ['--target', target] : []),
]
const proc = Bun.spawnSync([process.execPath, ...args], { cwd: root, stdout: 'inherit', stderr: 'inherit' })
if (proc.exitCode !== 0) process.exit(proc.exitCode ?? 1)
console.log(`built ${outfile}`)
