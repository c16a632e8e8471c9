/** The data of the live stream's events the monitoring pages listen to (GET /v1/events). */
export interface SampleEvent {
  device_id: string
  kind: 'hardware' | 'network'
  recorded_at: string
  values: Record<string, unknown>
}

export interface StatusEvent {
  device_id: string
  status: 'online' | 'stale' | 'offline' | 'never'
  previous: string | null
  last_seen_at: string | null
}

export interface RegisteredEvent {
  device: { device_id?: string; id?: string; hostname?: string | null; name?: string | null }
}

export interface DeletedEvent {
  device_id: string
}
