/**
 * An amount in minor units (Stripe's cents) as the browser writes money: "$9.00", "9,00 €",
 * "¥900". The currency's own number of decimals decides the division (none for JPY).
 */
export function money(amount: number | null | undefined, currency: string | null | undefined, locale?: string): string {
  if (amount === null || amount === undefined || !currency) return '—'
  try {
    const f = new Intl.NumberFormat(locale, { style: 'currency', currency: currency.toUpperCase() })
    const digits = f.resolvedOptions().maximumFractionDigits ?? 2
    return f.format(amount / 10 ** digits)
  } catch {
    return `${(amount / 100).toFixed(2)} ${currency.toUpperCase()}`
  }
}

/** "month" → "per month", "year" → "per year". */
export const perInterval = (interval: string | null | undefined) => (interval ? `per ${interval}` : '')
