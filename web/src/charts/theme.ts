import { signal } from '@preact/signals'

/**
 * Chart colours come from CSS custom properties (charts.css maps them onto the theme's tokens),
 * read when a chart is made: a canvas cannot use var() itself.
 */
export interface ChartTheme {
  series: string[]
  axis: string
  grid: string
  threshold: { warning: string; critical: string }
  font: string
}

const PALETTE_SIZE = 8

function readTheme(): ChartTheme {
  const css = getComputedStyle(document.documentElement)
  const v = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback
  const series: string[] = []
  for (let i = 1; i <= PALETTE_SIZE; i++) series.push(v(`--vg-chart-${i}`, '#3b82f6'))
  const family = getComputedStyle(document.body).fontFamily || 'system-ui, sans-serif'
  return {
    series,
    axis: v('--vg-chart-axis', '#6b7280'),
    grid: v('--vg-chart-grid', 'rgba(128,128,128,0.15)'),
    threshold: { warning: v('--vg-chart-warning', '#b45309'), critical: v('--vg-chart-critical', '#b91c1c') },
    font: `12px ${family}`,
  }
}

/** The theme's version: bumped when the system scheme or the portal's switch changes it. */
const version = signal(0)
let watching = false
let cached: { version: number; theme: ChartTheme } | null = null

/**
 * The chart colours of the current theme, read once per theme change and shared by every chart:
 * reading computed styles once per chart, between charts being added, would lay the page out again
 * for each.
 */
export function chartTheme(): ChartTheme {
  if (cached?.version !== version.value) cached = { version: version.value, theme: readTheme() }
  return cached.theme
}

/** `#rrggbb` or `rgb(r, g, b)` with an alpha, for band fills; other forms are returned as they are. */
export function withAlpha(color: string, alpha: number): string {
  const hex = /^#([0-9a-f]{6})$/i.exec(color)
  if (hex) {
    const n = Number.parseInt(hex[1]!, 16)
    return `rgba(${n >> 16}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`
  }
  const rgb = /^rgb\((\d+)[ ,]+(\d+)[ ,]+(\d+)\)$/.exec(color)
  return rgb ? `rgba(${rgb[1]}, ${rgb[2]}, ${rgb[3]}, ${alpha})` : color
}

/**
 * A number that changes when the theme does (system preference or the portal's switch, which
 * sets attributes on <html>), so charts redraw in the new colours. One watcher for all charts.
 */
export function useThemeVersion(): number {
  if (!watching) {
    watching = true
    const bump = () => {
      version.value++
    }
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', bump)
    new MutationObserver(bump).observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme', 'class', 'style'] })
  }
  return version.value
}
