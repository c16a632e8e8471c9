import { useState } from 'preact/hooks'
import { api } from '../../lib/api'
import { describeError } from '../../lib/errors'
import { useLoad } from '../../lib/use-load'
import { Banner, Button, Card, Field, Form, StatusBadge, Time } from '../../ui'
import { Select } from '../../ui/Select'
import type { NotePage, NoteResponse, NoteState } from '../types'

const STATES: Record<'incident' | 'maintenance', NoteState[]> = {
  incident: ['investigating', 'identified', 'monitoring', 'resolved'],
  maintenance: ['scheduled', 'in_progress', 'completed'],
}
const word = (s: string) => (s.charAt(0).toUpperCase() + s.slice(1)).replace('_', ' ')
const options = (kind: 'incident' | 'maintenance') => STATES[kind].map((s) => ({ value: s, label: word(s) }))
const closed = (s: NoteState) => s === 'resolved' || s === 'completed'

const text = (data: FormData, name: string) => {
  const v = data.get(name)
  return typeof v === 'string' ? v : ''
}

/** Post an incident or a maintenance note; it shows on the public page at once. */
function NewNote({ pageId, onPosted }: { pageId: string; onPosted: () => void }) {
  const [kind, setKind] = useState<'incident' | 'maintenance'>('incident')
  return (
    <Form
      label="Post a note"
      submitLabel="Post the note"
      onSubmit={async (data) => {
        await api.post<NoteResponse>(`/v1/status-pages/${encodeURIComponent(pageId)}/notes`, {
          kind,
          title: text(data, 'title'),
          body: text(data, 'body'),
          state: text(data, 'state'),
        })
        onPosted()
      }}
    >
      <Field
        id="note-kind"
        name="kind"
        label="Kind"
        control={(p) => (
          <Select
            {...p}
            options={[
              { value: 'incident', label: 'Incident' },
              { value: 'maintenance', label: 'Maintenance' },
            ]}
            selected={kind}
            onChange={(e) => setKind((e.currentTarget as HTMLSelectElement).value as 'incident' | 'maintenance')}
          />
        )}
      />
      <Field id="note-title" name="title" label="Title" maxLength={200} placeholder="E-mail is delayed" />
      <Field
        id="note-body"
        name="body"
        label="Message"
        hint="Plain text; line breaks are kept."
        control={(p) => <textarea {...p} rows={3} maxLength={5000} />}
      />
      <Field id="note-state" name="state" label="State" control={(p) => <Select key={kind} {...p} options={options(kind)} selected={STATES[kind][0]} />} />
    </Form>
  )
}

/** A posted note with its updates, and a form for the next update while it is open. */
function NoteItem({ pageId, note, onChanged }: { pageId: string; note: NoteResponse; onChanged: () => void }) {
  const [open, setOpen] = useState(false)
  const id = `note-${note.id}`
  return (
    <li class="ck-note">
      <p>
        <StatusBadge status={closed(note.state) ? 'resolved' : 'warning'} label={word(note.state)} /> <strong>{note.title}</strong>{' '}
        <span class="vg-muted">
          ({note.kind}, <Time iso={note.starts_at} />)
        </span>
      </p>
      <ul class="ck-note-updates">
        {note.updates.map((u) => (
          <li key={u.id}>
            <span class="vg-muted">
              <Time iso={u.created_at} /> · {word(u.state)}:
            </span>{' '}
            {u.body}
          </li>
        ))}
      </ul>
      {open ? (
        <Form
          label={`Update “${note.title}”`}
          submitLabel="Post the update"
          secondary={
            <Button variant="ghost" onClick={() => setOpen(false)}>
              Cancel
            </Button>
          }
          onSubmit={async (data) => {
            await api.post(`/v1/status-pages/${encodeURIComponent(pageId)}/notes/${encodeURIComponent(note.id)}/updates`, {
              state: text(data, 'state'),
              body: text(data, 'body'),
            })
            setOpen(false)
            onChanged()
          }}
        >
          <Field id={`${id}-state`} name="state" label="State" control={(p) => <Select {...p} options={options(note.kind)} selected={note.state} />} />
          <Field id={`${id}-body`} name="body" label="Message" control={(p) => <textarea {...p} rows={2} maxLength={5000} />} />
        </Form>
      ) : (
        <Button small onClick={() => setOpen(true)}>
          Post an update
        </Button>
      )}
    </li>
  )
}

/** The page's incident and maintenance notes, latest first, and a form to post one. */
export function NotesCard({ pageId }: { pageId: string }) {
  // a posted note clears the form: a new one is mounted
  const [round, setRound] = useState(0)
  const notes = useLoad(() => api.get<NotePage>(`/v1/status-pages/${encodeURIComponent(pageId)}/notes`, { limit: 20 }), [pageId])
  return (
    <Card title="Incident and maintenance notes">
      {notes.error ? <Banner tone="error">{describeError(notes.error)}</Banner> : null}
      {notes.data && notes.data.items.length === 0 && <p class="vg-muted">No notes yet. A note you post shows on the public page at once.</p>}
      {notes.data && notes.data.items.length > 0 && (
        <ul class="ck-notes">
          {notes.data.items.map((n) => (
            <NoteItem key={n.id} pageId={pageId} note={n} onChanged={notes.reload} />
          ))}
        </ul>
      )}
      <h3>Post a note</h3>
      <NewNote
        key={round}
        pageId={pageId}
        onPosted={() => {
          setRound((r) => r + 1)
          void notes.reload()
        }}
      />
    </Card>
  )
}
