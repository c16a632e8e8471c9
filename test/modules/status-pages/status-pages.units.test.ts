import { describe, expect, test } from 'bun:test'
import { manualClock } from '../../../src/lib/clock'
import { createRenderCache, RENDER_TTL_MS } from '../../../src/modules/status-pages/status-pages.cache'
import type { PageRow } from '../../../src/modules/status-pages/status-pages.store'
import { badge, dayClass, dayTitle, downsample, escapeXml, responseChart } from '../../../src/modules/status-pages/status-pages.svg'
import { uptimePercent, worstOf, type PageData } from '../../../src/modules/status-pages/status-pages.view'

const emptyView: PageData = {
  title: 'x',
  description: '',
  theme: 'auto',
  status: { state: 'operational', text: 'ok' },
  groups: [],
  active_notes: [],
  past_notes: [],
  generated_at: '2026-01-01T00:00:00.000Z',
}

describe('status page pieces', () => {
  test("a day's bar: its class by uptime, its title with date, percent (never rounded up to 100) and downtime", () => {
    expect([1, 0.9995, 0.999, 0.995, 0.96, 0.5, null].map(dayClass)).toEqual(['d-up', 'd-up', 'd-up', 'd-minor', 'd-major', 'd-down', 'd-none'])
    expect(dayTitle({ day: '2026-11-01', uptime: 1, down_s: 0 })).toBe('2026-11-01: 100.00% up')
    expect(dayTitle({ day: '2026-11-01', uptime: 0.99999, down_s: 1 })).toBe('2026-11-01: 99.99% up, down 1 s')
    expect(dayTitle({ day: '2026-11-01', uptime: 0.9, down_s: 8640 })).toBe('2026-11-01: 90.00% up, down 2 h 24 min')
    expect(dayTitle({ day: '2026-11-01', uptime: null, down_s: 0 })).toBe('2026-11-01: no data')
  })

  test('uptime over the days with results; the worst state of a group', () => {
    expect(uptimePercent(Float64Array.of(1, 0.5, Number.NaN))).toBe(75)
    expect(uptimePercent(Float64Array.of(0, 1, 0.5, Number.NaN), 1)).toBe(75)
    expect(uptimePercent(Float64Array.of(Number.NaN))).toBeNull()
    expect(worstOf(['up', 'degraded', 'pending'])).toBe('degraded')
    expect(worstOf(['up', 'down', 'degraded'])).toBe('down')
    expect(worstOf(['paused', 'up'])).toBe('up')
    expect(worstOf([])).toBe('pending')
  })

  test('the chart draws at most 120 points, each the highest of its span, gaps kept', () => {
    const points: [number, number | null][] = Array.from({ length: 288 }, (_, i) => [i * 300_000, i === 100 ? 900 : i >= 200 && i < 210 ? null : 50])
    const out = downsample(points)
    expect(out).toHaveLength(120)
    expect(Math.max(...out.map((p) => p[1] ?? 0))).toBe(900)
    expect(out.some((p) => p[1] === null)).toBe(true)
    expect(responseChart(points, 'x').match(/<polyline/g)?.length).toBe(2)
    expect(responseChart([[0, 5]], 'x')).toBe('') // one point is no line
  })

  test('badge text is escaped, and a longer text makes a wider badge', () => {
    const svg = badge('<a href="x">&', "it's", 'green')
    expect(svg).not.toContain('<a href')
    expect(svg).toContain('&lt;a href=&quot;x&quot;&gt;&amp;')
    expect(svg).toContain('it&#39;s')
    const width = (s: string) => Number(/width="(\d+)"/.exec(s)![1])
    expect(width(badge('website', 'up', 'green'))).toBeLessThan(width(badge('website', 'degraded', 'yellow')))
    expect(escapeXml('plain')).toBe('plain')
  })

  test('the render cache builds once per page until invalidated or 30 s old, and keeps its size bounded', async () => {
    const clock = manualClock()
    let builds = 0
    const cache = createRenderCache(clock, async (page) => {
      builds++
      return { ...emptyView, title: page.title }
    })
    const page = (id: string) => ({ id, title: id }) as PageRow
    await cache.get(page('a'))
    await cache.get(page('a'))
    expect(builds).toBe(1)
    clock.advance(RENDER_TTL_MS - 1)
    await cache.get(page('a'))
    expect(builds).toBe(1)
    clock.advance(1)
    await cache.get(page('a'))
    expect(builds).toBe(2)
    cache.invalidate('a')
    expect((await cache.get(page('a'))).html.text).toContain('<title>a status</title>')
    expect(builds).toBe(3)
    // bounded in bytes: the least recently used go first, the one asked for stays
    const one = (await cache.get(page('a'))).bytes
    const small = createRenderCache(clock, async (p) => ({ ...emptyView, title: p.title }), one * 3)
    for (const id of ['a', 'b', 'c']) await small.get(page(id))
    await small.get(page('a'))
    await small.get(page('d'))
    expect(small.size()).toBe(3)
    expect(small.bytes()).toBeLessThanOrEqual(one * 3)
    let rebuilt = 0
    const probe = createRenderCache(
      clock,
      async (p) => {
        rebuilt++
        return { ...emptyView, title: p.title }
      },
      one * 2,
    )
    await probe.get(page('a'))
    await probe.get(page('b'))
    await probe.get(page('c')) // pushes out a
    await probe.get(page('a'))
    expect(rebuilt).toBe(4)
    expect((await createRenderCache(clock, async () => emptyView, 1).get(page('z'))).html.text).toContain('<title>')
  })

  test('visitors who ask while a page is built wait for that one build; a page changed meanwhile is answered, then built anew', async () => {
    const clock = manualClock()
    let builds = 0
    const gates: (() => void)[] = []
    const cache = createRenderCache(clock, async (page) => {
      builds++
      await new Promise<void>((resolve) => gates.push(resolve))
      return { ...emptyView, title: `${page.title} ${builds}` }
    })
    const page = { id: 'a', title: 'a' } as PageRow
    const visits = [cache.get(page), cache.get(page), cache.get(page)]
    await Promise.resolve()
    expect(builds).toBe(1)
    gates.shift()!()
    const answers = await Promise.all(visits)
    expect(new Set(answers).size).toBe(1)
    expect(answers[0]!.html.text).toContain('<title>a 1 status</title>')
    // expired: a build starts, the page changes while it runs; its answer is not kept
    clock.advance(RENDER_TTL_MS)
    const during = cache.get(page)
    await Promise.resolve()
    cache.invalidate('a')
    gates.shift()!()
    expect((await during).html.text).toContain('a 2')
    const after = cache.get(page)
    await Promise.resolve()
    expect(builds).toBe(3)
    gates.shift()!()
    expect((await after).html.text).toContain('a 3')
  })
})
