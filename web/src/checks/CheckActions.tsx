import { useState } from 'preact/hooks'
import { api } from '../lib/api'
import { describeError } from '../lib/errors'
import { navigate } from '../lib/router'
import { Banner, Button, ButtonLink, ConfirmDialog } from '../ui'
import type { CheckResponse } from './types'

/** Edit, pause or resume, rotate a heartbeat's token, delete: for owners and admins. */
export function CheckActions({
  check,
  onChanged,
  onRotated,
}: {
  check: CheckResponse
  onChanged: () => void
  /** the new URL with its token, to show once */
  onRotated: (url: string | null) => void
}) {
  const [dialog, setDialog] = useState<'delete' | 'rotate' | null>(null)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const path = `/v1/checks/${encodeURIComponent(check.id)}`
  const togglePause = async () => {
    setBusy(true)
    setError(null)
    try {
      await api.patch<CheckResponse>(path, { paused: !check.paused })
      onChanged()
    } catch (err) {
      setError(describeError(err))
    } finally {
      setBusy(false)
    }
  }
  return (
    <>
      <ButtonLink href={`/checks/${encodeURIComponent(check.id)}/edit`}>Edit</ButtonLink>
      <Button onClick={togglePause} loading={busy}>
        {check.paused ? 'Resume' : 'Pause'}
      </Button>
      {check.kind === 'heartbeat' && <Button onClick={() => setDialog('rotate')}>Rotate token</Button>}
      <Button variant="danger" onClick={() => setDialog('delete')}>
        Delete
      </Button>
      {error && <Banner tone="error">{error}</Banner>}
      {/* one dialog (its heading's id is fixed), worded for the action asked */}
      <ConfirmDialog
        open={dialog !== null}
        title={dialog === 'rotate' ? 'Rotate the heartbeat token?' : `Delete “${check.name}”?`}
        confirmLabel={dialog === 'rotate' ? 'Rotate token' : 'Delete check'}
        danger
        onClose={() => setDialog(null)}
        onConfirm={async () => {
          if (dialog === 'rotate') {
            const rotated = await api.post<CheckResponse>(`${path}/rotate-token`)
            onRotated(rotated.heartbeat_url)
            return
          }
          await api.del(path)
          navigate('/checks')
        }}
      >
        {dialog === 'rotate'
          ? 'The current URL stops working at once: update every job that calls it with the new one.'
          : 'Its results, uptime history and incidents are deleted with it.'}
      </ConfirmDialog>
    </>
  )
}
