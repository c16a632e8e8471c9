import { describe, expect, test } from 'bun:test'
import { stepSizer } from '../../src/lib/step-sizer'

/** a sizer whose steps take `msPerUnit` per unit of size, on a clock the steps advance */
function timed(msPerUnit: number, o = { first: 100, min: 10, max: 1_000, targetMs: 10 }) {
  let t = 0
  const sizer = stepSizer({ ...o, now: () => t })
  const sizes: number[] = []
  const step = () =>
    sizer.run((size) => {
      sizes.push(size)
      t += size * msPerUnit
      return size
    })
  return { sizer, sizes, step }
}

describe('a step sizer', () => {
  test('quick steps grow at most twofold each, up to the most', () => {
    const s = timed(0.001)
    for (let i = 0; i < 6; i++) s.step()
    expect(s.sizes).toEqual([100, 200, 400, 800, 1_000, 1_000])
  })

  test('a slow step shrinks the next at once to what fits the target', () => {
    const s = timed(0.5) // 100 units took 50 ms: 20 fit in 10 ms
    s.step()
    expect(s.sizer.size).toBe(20)
    s.step()
    expect(s.sizer.size).toBe(20)
  })

  test('never below the least, however slow', () => {
    const s = timed(100)
    s.step()
    expect(s.sizer.size).toBe(10)
  })

  test('steps that take no measurable time double', () => {
    const s = timed(0)
    s.step()
    expect(s.sizer.size).toBe(200)
  })

  test('a first size outside the bounds is brought within them, and the step answers what it returns', () => {
    const s = timed(0.001, { first: 5_000, min: 10, max: 1_000, targetMs: 10 })
    expect(s.step()).toBe(1_000)
  })
})
