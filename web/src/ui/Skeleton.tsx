/**
 * A placeholder the size of what is loading, so nothing shifts when the data arrives. Sizes go
 * through the DOM (style properties), which the CSP allows.
 */
export function Skeleton({
  width,
  height = 16,
  lines = 1,
  label = 'Loading',
}: {
  width?: number | string
  height?: number | string
  lines?: number
  label?: string
}) {
  return (
    <div class="skeleton-group" role="status" aria-label={label} aria-busy="true">
      {Array.from({ length: lines }, (_, i) => (
        <div key={i} class="skeleton" style={{ width: width ?? (lines > 1 && i === lines - 1 ? '60%' : '100%'), height }} />
      ))}
    </div>
  )
}
