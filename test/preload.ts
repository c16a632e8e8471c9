import { afterAll } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// Every temp dir a test makes (data dirs, executables' working dirs, sockets) goes under one dir
// of this run, removed when the run ends: a test that fails, or forgets, leaves nothing in /tmp.
const runDir = mkdtempSync(join(tmpdir(), 'vigil-suite-'))
process.env.TMPDIR = runDir
afterAll(() => rmSync(runDir, { recursive: true, force: true }))
