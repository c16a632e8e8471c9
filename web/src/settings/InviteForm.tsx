import { useState } from 'preact/hooks'
import { api } from '../lib/api'
import { dateTime } from '../lib/format'
import { Button, Card, Field, Form, SecretBox } from '../ui'
import { invitationLink } from './links'
import type { InvitationCreated } from './types'

/** Invite an email with a role; the answer's link is shown once, to copy and send. */
export function InviteForm({ ownerMayInvite, onInvited }: { ownerMayInvite: boolean; onInvited: () => void }) {
  const [sent, setSent] = useState<InvitationCreated | null>(null)
  const [formKey, setFormKey] = useState(0)
  const submit = async (data: FormData) => {
    const created = await api.post<InvitationCreated>('/v1/clients/me/members', {
      email: String(data.get('email') ?? '').trim(),
      role: String(data.get('role') ?? 'member'),
    })
    setSent(created)
    setFormKey((k) => k + 1) // a fresh, empty form for the next invitation
    onInvited()
  }
  return (
    <Card title="Invite someone">
      {sent && (
        <div class="invite-sent">
          <SecretBox
            value={invitationLink(sent.invitation_token, window.location.origin)}
            label="Invitation link"
            note={`Send this link to ${sent.email ?? sent.invited_email ?? 'them'}: it works once, for that email only, until ${dateTime(sent.invitation_expires_at)}. It is shown only once; if it is lost, revoke the invitation and invite again.`}
          />
          <div class="form-actions">
            <Button small onClick={() => setSent(null)}>
              Done
            </Button>
          </div>
        </div>
      )}
      <Form key={formKey} onSubmit={submit} submitLabel="Invite" label="Invite someone" class="form-inline">
        <div class="field-row">
          <Field name="email" label="Email" type="email" required autocomplete="off" maxLength={254} />
          <Field
            name="role"
            label="Role"
            hint="Members read everything; admins also manage keys, members and settings; owners also manage owners."
            control={(p) => (
              // a select has no defaultValue property in the DOM: the option says it is selected
              <select {...p}>
                <option value="member" selected>
                  Member
                </option>
                <option value="admin">Admin</option>
                {ownerMayInvite && <option value="owner">Owner</option>}
              </select>
            )}
          />
        </div>
      </Form>
    </Card>
  )
}
