import { existsSync, mkdirSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Earlier releases built from this repository's history, for the upgrade bench
 * (run-upgrade.ts) and the upgrade test (test/modules/metrics/metrics.upgrade.test.ts), which
 * share the builds: one per commit in the temp dir.
 */
const root = join(import.meta.dir, '../..')

const git = (...args: string[]) =>
  Bun.spawnSync(['git', ...args], { cwd: root, stdout: 'pipe', stderr: 'pipe' })
    .stdout.toString()
    .trim()

/** The commit before the one that added `file`: the release without it ('' without the history). */
export function releaseBefore(file: string): string {
  const added = git('log', '-1', '--format=%H', '--diff-filter=A', '--', file)
  return added ? git('rev-parse', `${added}^`) : ''
}

/** A release's executable, built once per commit into the temp dir; `building` is told before a build starts. */
export function releaseExecutable(commit: string, building?: () => void): string {
  const dir = join(tmpdir(), `vigil-previous-${commit}`)
  const exe = join(dir, 'dist/vigil')
  if (existsSync(exe)) return exe
  mkdirSync(dir, { recursive: true })
  const archive = Bun.spawnSync(['sh', '-c', `git archive ${commit} | tar -x -C '${dir}'`], { cwd: root, stderr: 'pipe' })
  if (archive.exitCode !== 0) throw new Error(`git archive failed: ${archive.stderr.toString()}`)
  if (!existsSync(join(dir, 'node_modules'))) symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
  building?.()
  const build = Bun.spawnSync([process.execPath, 'run', 'build', '--no-profile'], { cwd: dir, stdout: 'ignore', stderr: 'pipe' })
  if (build.exitCode !== 0) throw new Error(`building the previous release failed: ${build.stderr.toString()}`)
  return exe
}
