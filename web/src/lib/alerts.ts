import { signal } from '@preact/signals'

/**
 * How many alerts are firing for the current client, shown as a count in the top bar on every
 * page; null while unknown (no badge). The alerts work keeps it current (its list, and the live
 * alert.firing / alert.resolved events).
 */
export const firingAlerts = signal<number | null>(null)
