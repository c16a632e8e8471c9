import { api } from '../lib/api'
import { Button, Field, Form } from '../ui'
import type { AlertDetail } from './types'

/** Acknowledge with an optional note ("on it", "disk ordered"): who handles it, and the repeats stop. */
export function AckForm({ alertId, label, onDone, onCancel }: { alertId: string; label: string; onDone: (a: AlertDetail) => void; onCancel: () => void }) {
  const submit = async (d: FormData) => {
    const note = String(d.get('note') ?? '').trim()
    onDone(await api.post<AlertDetail>(`/v1/alerts/${encodeURIComponent(alertId)}/acknowledge`, note ? { note } : {}))
  }
  return (
    <div class="ack-form">
      <Form
        onSubmit={submit}
        submitLabel="Acknowledge"
        label={`Acknowledge ${label}`}
        secondary={
          <Button variant="ghost" onClick={onCancel}>
            Cancel
          </Button>
        }
      >
        <Field
          name="note"
          id={`ack-note-${alertId}`}
          label="Note"
          optional
          maxLength={1000}
          autoFocus
          hint="Who handles it, what is being done. Shown to the team and sent to the channels that heard the alert."
        />
      </Form>
    </div>
  )
}
