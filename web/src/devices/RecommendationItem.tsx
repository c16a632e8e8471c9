import { Link } from '../lib/router'
import { StatusBadge, Time } from '../ui'
import { evidenceLines, type Recommendation } from './recommendation-types'

/** One recommendation: how serious, what to do, when and from whom, and the figures behind it. */
export function RecommendationItem({ rec, deviceName }: { rec: Recommendation; deviceName?: string }) {
  const evidence = evidenceLines(rec.evidence)
  return (
    <li class="vg-rec">
      <div class="vg-rec-head">
        <StatusBadge status={rec.severity} />
        <span class="vg-rec-category">{rec.category}</span>
        {deviceName !== undefined && rec.device_id && (
          <Link class="vg-rec-device" href={`/devices/${encodeURIComponent(rec.device_id)}`}>
            {deviceName}
          </Link>
        )}
        <span class="vg-rec-when">
          <Time iso={rec.created_at} relative /> · {rec.source}
        </span>
      </div>
      <p class="vg-rec-text">{rec.recommendation}</p>
      {evidence.length > 0 && (
        <details class="vg-rec-evidence">
          <summary>Evidence</summary>
          <dl>
            {evidence.map((e) => (
              <div key={e.label}>
                <dt>{e.label}</dt>
                <dd>{e.value}</dd>
              </div>
            ))}
          </dl>
        </details>
      )}
    </li>
  )
}
