import { useEffect, useRef, useState } from 'preact/hooks'
import '../monitor.css'
import { CommandBlock } from '../CommandBlock'
import { curlExample } from '../examples'
import type { RegisteredEvent, SampleEvent } from '../live-types'
import type { EnrolmentCreated } from '../../../../src/modules/enrolments/enrolments.model'
import type { ApiKey } from '../../settings/types'
import { api } from '../../lib/api'
import { describeError } from '../../lib/errors'
import { dateTime, timeZone } from '../../lib/format'
import { onLive } from '../../lib/live'
import { Link } from '../../lib/router'
import { canAdmin } from '../../lib/session'
import { Banner, Button, ButtonLink, Card, Field, Form, Icon, PageHeader, SecretBox } from '../../ui'

/** POST /v1/enrolments */
type Enrolment = EnrolmentCreated

interface Arrival {
  deviceId: string
  name: string | null
  sampled: boolean
}

/**
 * Waits for the new device: a `device.registered` event names it, its first `sample` confirms it
 * reports. A sample from a device that was not there when the page opened counts too (a machine
 * enrolled again keeps its device, so it is not registered anew).
 */
function useArrival(active: boolean): Arrival | null {
  const [arrival, setArrival] = useState<Arrival | null>(null)
  const known = useRef<Set<string> | null>(null)
  useEffect(() => {
    api
      .get<{ device_id: string }[]>('/v1/clients/me/devices')
      .then((list) => {
        known.current = new Set(list.map((d) => d.device_id))
      })
      .catch(() => {
        known.current = new Set()
      })
  }, [])
  useEffect(() => {
    if (!active) return
    const offs = [
      onLive<RegisteredEvent>('device.registered', ({ data }) => {
        const id = data.device.device_id ?? data.device.id
        if (!id) return
        setArrival((a) => a ?? { deviceId: id, name: data.device.name || data.device.hostname || null, sampled: false })
      }),
      onLive<SampleEvent>('sample', ({ data }) => {
        setArrival((a) => {
          if (a) return a.deviceId === data.device_id ? { ...a, sampled: true } : a
          return known.current && !known.current.has(data.device_id) ? { deviceId: data.device_id, name: null, sampled: true } : a
        })
      }),
    ]
    return () => {
      for (const off of offs) off()
    }
  }, [active])
  return arrival
}

function ArrivalStatus({ arrival }: { arrival: Arrival | null }) {
  return (
    <div class="vg-arrival" role="status" aria-live="polite">
      {!arrival && (
        <p>
          <span class="spinner" aria-hidden="true" /> Waiting for the device to register… this page updates by itself.
        </p>
      )}
      {arrival && !arrival.sampled && (
        <p>
          <Icon name="check" /> {arrival.name ?? 'The device'} registered. Waiting for its first sample…
        </p>
      )}
      {arrival?.sampled && <Banner tone="success">{arrival.name ?? 'The device'} is reporting: its first sample arrived.</Banner>}
    </div>
  )
}

export default function Page(_props: { params: Record<string, string> }) {
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null)
  const [enrolling, setEnrolling] = useState(false)
  const [enrolError, setEnrolError] = useState<string | null>(null)
  // one key per visit: made only when asked for, then shown and reused, never made again on a click
  const [key, setKey] = useState<ApiKey | null>(null)
  const hub = window.location.origin
  const available = enrolment !== null && enrolment.install_available !== false
  const arrival = useArrival(key !== null || available)

  // an enrolment token is single use and the installer gets the device's own key with it: no API key here
  const enrol = async () => {
    setEnrolling(true)
    setEnrolError(null)
    try {
      setEnrolment(await api.post<Enrolment>('/v1/enrolments', { hub_url: hub }))
    } catch (err) {
      setEnrolError(describeError(err))
    } finally {
      setEnrolling(false)
    }
  }

  const createKey = async (form: FormData) => {
    if (key) return
    const name = String(form.get('name') ?? '').trim()
    setKey(await api.post<ApiKey>('/v1/auth/api-keys', { name }))
  }

  if (!canAdmin.value) {
    return (
      <>
        <PageHeader title="Add a device" />
        <Banner tone="info">Adding a device needs an owner or admin of this account. Ask one of them to add it.</Banner>
      </>
    )
  }

  return (
    <>
      <PageHeader title="Add a device" subtitle="Install the collector on a Linux machine, or send metrics from your own scripts with an API key." />
      <Card title="Install the collector (recommended)">
        {!enrolment && (
          <p>
            The command downloads the collector from this hub, enrols it with a single-use token and starts it as a service. The collector gets its own API key
            when it enrols: no key is made here.
          </p>
        )}
        {enrolment && available && (
          <>
            <p>Run this as root on the machine (Linux, x86_64 or arm64). It downloads the collector from this hub, enrols it and starts it as a service.</p>
            <SecretBox
              value={enrolment.install_command}
              label="Install command"
              note={`The token in it works once, until ${dateTime(enrolment.expires_at)} (${timeZone()}). It is shown only here: copy it now.`}
            />
            <p class="vg-muted">
              Without systemd (a container), add <code>--no-systemd</code> at the end. For another machine, make another command: each token enrols one.
            </p>
          </>
        )}
        {enrolment && !available && (
          <Banner tone="warning">
            This hub cannot serve the collector: {enrolment.install_unavailable_reason ?? 'it has no collector executable to hand out'}. Run the hub from
            Vigil’s executable (a release, or <code>bun run build</code> then <code>dist/vigil serve</code>) to install collectors from it, or send metrics with
            an API key below.
          </Banner>
        )}
        {enrolError && <Banner tone="error">The install command could not be made ({enrolError}). Try again, or send metrics with an API key below.</Banner>}
        {(!enrolment || available) && (
          <div class="form-actions">
            <Button variant={enrolment ? 'secondary' : 'primary'} loading={enrolling} onClick={() => void enrol()}>
              {enrolment ? 'Make another install command' : 'Create the install command'}
            </Button>
          </div>
        )}
      </Card>
      <Card title="Or send metrics yourself">
        <p>
          Your own agent or script can post samples with an API key (scopes <code>metrics:write</code> and <code>recommendations:write</code>). The example
          registers the machine you run it on and posts one hardware sample.
        </p>
        {!key ? (
          <Form onSubmit={createKey} submitLabel="Create an API key" label="Create an API key for scripts" class="vg-edit-form">
            <Field name="name" label="Key name" required maxLength={100} placeholder="web-01 scripts" hint="Names the key in Settings → API keys." />
          </Form>
        ) : (
          <>
            {key.api_key && <SecretBox value={key.api_key} label="API key" />}
            {key.api_key && <CommandBlock command={curlExample(hub, key.api_key)} label="Register and post a sample with curl" />}
          </>
        )}
        <p class="vg-muted">
          Every field is described in the <a href="/docs">API reference</a>. Keys are listed and revoked under{' '}
          <Link href="/settings/keys">Settings → API keys</Link>.
        </p>
      </Card>
      {(key || available) && (
        <Card title="See it arrive">
          <ArrivalStatus arrival={arrival} />
          {arrival?.sampled && (
            <div class="form-actions">
              <ButtonLink href={`/devices/${encodeURIComponent(arrival.deviceId)}`} variant="primary">
                Open the device
              </ButtonLink>
              <ButtonLink href="/dashboard">Go to the dashboard</ButtonLink>
            </div>
          )}
        </Card>
      )}
    </>
  )
}
