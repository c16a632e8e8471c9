import type { ComponentChildren } from 'preact'
import { memo } from 'preact/compat'
import { Sparkline } from '../charts/Sparkline'
import { celsius, mbps, ms, percent } from '../lib/format'
import { Link } from '../lib/router'
import { Icon, Skeleton } from '../ui'
import { Ago, PresenceBadge } from './Ago'
import { displayName, LOSS, PRESSURE, type FleetDevice } from './fleet'

/** A figure with its label; `high` adds a word and an icon (never colour alone). */
function Figure({ label, children, high }: { label: string; children: ComponentChildren; high?: boolean }) {
  return (
    <div class={`vg-figure${high ? ' vg-high' : ''}`}>
      <dt>{label}</dt>
      <dd>
        {children}
        {high && (
          <span class="vg-high-note">
            <Icon name="warning" size={12} /> high
          </span>
        )}
      </dd>
    </div>
  )
}

/** A percentage with a thin bar under it: glanceable across a grid of cards. */
function Gauge({ label, value }: { label: string; value: number | null }) {
  const high = value != null && value >= PRESSURE
  return (
    <Figure label={label} high={high}>
      <span class="vg-num">{percent(value)}</span>
      <span class="vg-bar" aria-hidden="true">
        <span class="vg-bar-fill" style={{ width: `${Math.max(0, Math.min(100, value ?? 0))}%` }} />
      </span>
    </Figure>
  )
}

const platform = (d: FleetDevice) => [[d.os, d.os_version].filter(Boolean).join(' '), d.arch].filter(Boolean).join(' · ') || 'Platform not reported yet'

/** One device on the dashboard: who, whether it is well, and its latest figures. */
export const DeviceCard = memo(function DeviceCard({ device: d }: { device: FleetDevice }) {
  const headingId = `device-${d.id}`
  return (
    <article class="vg-device-card" aria-labelledby={headingId}>
      <header class="vg-card-head">
        <h2 id={headingId} class="vg-device-name">
          <Link href={`/devices/${encodeURIComponent(d.id)}`}>{displayName(d)}</Link>
        </h2>
        <PresenceBadge lastSeen={d.last_seen_at} intervalSeconds={d.interval_seconds} />
      </header>
      <p class="vg-device-meta">
        <span>{platform(d)}</span>
        <span>
          {d.last_seen_at ? (
            <>
              Seen <Ago iso={d.last_seen_at} />
            </>
          ) : (
            'No data yet'
          )}
        </span>
      </p>
      {d.alerts_firing > 0 && (
        <p class="vg-alerts-firing">
          <Link href={`/alerts?device=${encodeURIComponent(d.id)}`}>
            <Icon name="bell" size={14} /> {d.alerts_firing} {d.alerts_firing === 1 ? 'alert' : 'alerts'} firing
          </Link>
        </p>
      )}
      <dl class="vg-figures">
        <Gauge label="CPU" value={d.cpu_percent} />
        <Gauge label="Memory" value={d.ram_percent} />
        <Gauge label="Disk" value={d.disk_used_percent} />
        <Figure label="CPU temp.">
          <span class="vg-num">{celsius(d.cpu_temp_c)}</span>
        </Figure>
        <Figure label="Network">
          <span class="vg-line">
            <span aria-hidden="true">↓ </span>
            <span class="visually-hidden">down </span>
            {mbps(d.download_mbps)}
          </span>
          <span class="vg-line">
            <span aria-hidden="true">↑ </span>
            <span class="visually-hidden">up </span>
            {mbps(d.upload_mbps)}
          </span>
        </Figure>
        <Figure label="Latency" high={(d.packet_loss_percent ?? 0) >= LOSS}>
          <span class="vg-line">{ms(d.latency_avg_ms)}</span>
          <span class="vg-line">{percent(d.packet_loss_percent)} loss</span>
        </Figure>
      </dl>
      <div class="vg-spark-row">
        <span class="vg-spark-label">CPU, last hour</span>
        <Sparkline values={d.cpu_spark} label="CPU over the last hour, percent" width={140} height={28} />
      </div>
    </article>
  )
})

/** A card's placeholder with the card's own size: nothing moves when the fleet arrives. */
export function DeviceCardSkeleton() {
  return (
    <div class="vg-device-card vg-skeleton-card" aria-hidden="true">
      <Skeleton height={22} width="55%" label="Loading a device" />
      <Skeleton height={14} width="80%" />
      <div class="vg-figures">
        {['a', 'b', 'c', 'd', 'e', 'f'].map((k) => (
          <div key={k} class="vg-figure">
            <Skeleton height={12} width="50%" />
            <Skeleton height={18} width="70%" />
          </div>
        ))}
      </div>
      <Skeleton height={28} />
    </div>
  )
}
