import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { FIRST_LOAD_BUDGET, staticImports, webSizes } from '../../scripts/bench/web'
import { testApp } from '../helpers/app'

const root = join(import.meta.dir, '../..')

describe('the portal bundle', () => {
  test('a first load (shell + the sign-in or dashboard page) stays within 100 KB of gzipped JavaScript', async () => {
    const sizes = await webSizes()
    for (const page of ['signin', 'dashboard']) {
      const p = sizes.pages.find((x) => x.page === page)
      expect(p).toBeDefined()
      expect({ page, gzip: p!.firstLoadGzip, within: p!.firstLoadGzip <= FIRST_LOAD_BUDGET }).toEqual({ page, gzip: p!.firstLoadGzip, within: true })
    }
    // split per page: a page's own code is not in the entry
    expect(sizes.pages.length).toBeGreaterThanOrEqual(15)
  }, 60_000) // bundles and compresses everything

  test('staticImports reads import statements, not import() calls', () => {
    expect(staticImports('import{a as b}from"./main-abc.js";import"./x-1.js";const p=()=>import("./page-2.js")').sort()).toEqual(['main-abc.js', 'x-1.js'])
  })

  test('every route of the app is a URL the server answers with the shell', async () => {
    const source = readFileSync(join(root, 'web/src/routes.ts'), 'utf8')
    const paths = [...source.matchAll(/path: '([^']+)'/g)].map((m) => m[1]!).filter((p) => p !== '*')
    expect(paths.length).toBeGreaterThanOrEqual(15)
    const t = testApp()
    for (const pattern of paths) {
      const path = pattern.replace(/:[a-z]+/g, 'x1').replace('*', 'a/b')
      const res = await t.request('GET', path)
      expect({ path, status: res.status }).toEqual({ path, status: 200 })
    }
  }, 60_000) // the first shell request bundles web/src
})
