import { describe, expect, test } from 'bun:test'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { ERROR_CODES } from '../src/http/errors'

const ROOT = join(import.meta.dir, '..')
const read = (path: string) => Bun.file(join(ROOT, path)).text()

describe('the documentation keeps up with the code', () => {
  test('the API guide lists every error code with its status', async () => {
    const guide = await read('docs/api-guide.md')
    for (const [code, e] of Object.entries(ERROR_CODES)) expect(guide).toContain(`| \`${code}\` | ${e.status} |`)
  })

  test('the README links every page under docs/, and every link it has leads to a page', async () => {
    const readme = await read('README.md')
    const pages = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'))
    for (const page of pages) expect(readme).toContain(`(docs/${page})`)
    for (const [, link] of readme.matchAll(/\]\((docs\/[^)#]+)\)/g)) expect(pages).toContain(link!.slice('docs/'.length))
  })

  test('the quick start is the two commands, and CI runs the second', async () => {
    const readme = await read('README.md')
    expect(readme).toContain('npm install -g bun@1.4.4 && bun install && bun run start')
    expect(readme).toContain('npm install -g bun@1.4.4 && bun install && bun run test')
    expect(await read('.ci/run')).toMatch(/bun run test/)
  })
})
