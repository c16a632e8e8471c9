/**
 * Builds dist/vigil: one executable with the migrations, web/ (the portal's bundle included) and the docs assets inside.
 * `--target bun-linux-arm64` (or any Bun target) cross-compiles, e.g. for a Raspberry Pi.
 *
 * The JavaScript ships as bytecode laid out by use (idle memory). A first build for
 * this machine runs once through scripts/bytecode-profile.ts, which records the functions a
 * start and an ordinary session use; the real build puts their bytecode together at the front
 * of the executable, so a start touches fewer of its pages. The record is about functions, not
 * machine code, so it applies to a cross-compiled build too. `--no-profile` skips the run
 * (the executable then behaves the same and idles a few MB higher).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { recordBytecodeProfile } from './bytecode-profile'
import { withEmbeddedWeb } from './web-embed'
import { START_UP_JIT_POLICY } from '../src/lib/memory'

const root = join(import.meta.dir, '..')
const argv = process.argv.slice(2)
const targetIdx = argv.indexOf('--target')
const target = targetIdx > -1 ? argv[targetIdx + 1] : undefined
const profile = !argv.includes('--no-profile')
const outfile = join(root, 'dist', target ? `vigil-${target.replace(/^bun-/, '')}` : 'vigil')

const common = [
  // worker threads are entry points of their own (see src/workers.ts)
  'build',
  join(root, 'src/main.ts'),
  join(root, 'src/db/checkpoint.worker.ts'),
  join(root, 'src/modules/storage/storage.measure.worker.ts'),
  // Identifiers are not minified: Elysia and TypeBox recognise some errors by class name
  // (error.constructor.name === 'TransformDecodeError'), and a renamed class made the
  // executable skip the checks the source applies.
  '--compile',
  '--minify-whitespace',
  '--minify-syntax',
  '--bytecode',
  // Each command's modules in chunks of their own, loaded when it runs: without this every
  // dynamic import is inlined into one file, and `vigil agent` loaded the hub's whole bundle.
  '--splitting',
  '--format=esm',
  // A stray .env or bunfig.toml next to the binary must never change its behaviour silently.
  '--no-compile-autoload-dotenv',
  '--no-compile-autoload-bunfig',
  // A smaller JS heap that collects more often: the idle and under-load RSS targets.
  '--compile-exec-argv=--smol',
  // Start-up's run-once code stays in the interpreter: `vigil serve` returns to the normal
  // policy once it listens, and the collector as it starts (src/lib/memory.ts).
  `--compile-jit-policy=${START_UP_JIT_POLICY}`,
]

function bunBuild(args: string[]): void {
  const proc = Bun.spawnSync([process.execPath, ...common, ...args], { cwd: root, stdout: 'inherit', stderr: 'inherit' })
  if (proc.exitCode !== 0) process.exit(proc.exitCode ?? 1)
}

/** The profile of a run of this machine's build, or null (with the reason) if it could not be made. */
async function recordProfile(work: string): Promise<string | null> {
  const probe = join(work, 'vigil-profile-run')
  const order = join(work, 'bytecode-order.txt')
  bunBuild(['--outfile', probe])
  try {
    await recordBytecodeProfile(probe, order)
    return (await Bun.file(order).exists()) ? order : null
  } catch (err) {
    console.warn(`build: no bytecode profile (${(err as Error).message}); building without one`)
    return null
  }
}

const work = mkdtempSync(join(tmpdir(), 'vigil-build-'))
try {
  // the portal's bundle (web/src) goes inside, precompressed (scripts/web-embed.ts)
  await withEmbeddedWeb(async () => {
    const order = profile ? await recordProfile(work) : null
    bunBuild(['--sourcemap', '--outfile', outfile, ...(order ? ['--bytecode-order', order] : []), ...(target ? ['--target', target] : [])])
    console.log(`built ${outfile}${order ? ' (bytecode laid out by a profile run)' : ''}`)
  })
} finally {
  rmSync(work, { recursive: true, force: true })
  // the source maps are inside the executable (stack traces name the sources); the copies the
  // compile writes beside it, one per chunk, would only pile up in dist/
  for (const f of readdirSync(join(root, 'dist'))) if (f.endsWith('.map')) rmSync(join(root, 'dist', f))
}
