import { useState } from 'preact/hooks'
import { api } from '../../lib/api'
import { describeError } from '../../lib/errors'
import { canAdmin, currentMembership, me } from '../../lib/session'
import { Banner, Button, Card, ConfirmDialog, DataTable, EmptyState, Skeleton, StatusBadge, Time, type Column } from '../../ui'
import { InviteForm } from '../InviteForm'
import { ReadOnlyNote, SettingsHeader } from '../SettingsHeader'
import { LoadError } from '../../ui/LoadError'
import type { Member, MemberRole } from '../types'
import { useLoad } from '../../lib/use-load'

const ROLE_WORDS: Record<MemberRole, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' }

/** Admins manage admins and members; only owners touch owners (the API says the same). */
const mayManage = (actor: MemberRole | null, target: MemberRole) => actor === 'owner' || (actor === 'admin' && target !== 'owner')

/** The people of this account: roles, invitations, removal. Everyone reads; owners and admins change. */
export default function MembersPage(_props: { params: Record<string, string> }) {
  const members = useLoad(() => api.get<Member[]>('/v1/clients/me/members'))
  const [removing, setRemoving] = useState<Member | null>(null)
  const [rowError, setRowError] = useState<string | null>(null)
  const manage = canAdmin.value
  const actor = (currentMembership.value?.role ?? null) as MemberRole | null
  const myId = me.value?.user_id

  const changeRole = async (m: Member, role: MemberRole) => {
    setRowError(null)
    try {
      await api.patch(`/v1/clients/me/members/${encodeURIComponent(m.id)}`, { role })
    } catch (err) {
      setRowError(describeError(err))
    }
    await members.reload()
  }

  const roleCell = (m: Member) => {
    if (!manage || !mayManage(actor, m.role) || m.status !== 'active') return ROLE_WORDS[m.role]
    return (
      <label class="inline-select">
        <span class="visually-hidden">Role of {m.email ?? 'member'}</span>
        <select value={m.role} onChange={(e) => void changeRole(m, (e.target as HTMLSelectElement).value as MemberRole)}>
          {(['owner', 'admin', 'member'] as const)
            .filter((r) => actor === 'owner' || r !== 'owner')
            .map((r) => (
              <option key={r} value={r}>
                {ROLE_WORDS[r]}
              </option>
            ))}
        </select>
      </label>
    )
  }

  const active = members.data?.filter((m) => m.status !== 'invited') ?? []
  const pending = members.data?.filter((m) => m.status === 'invited') ?? []

  const columns: Column<Member>[] = [
    {
      key: 'email',
      label: 'Email',
      sortValue: (m) => m.email,
      render: (m) => (
        <span>
          {m.email ?? '—'}
          {m.user_id === myId && <span class="muted"> (you)</span>}
        </span>
      ),
    },
    { key: 'role', label: 'Role', sortValue: (m) => m.role, render: roleCell },
    {
      key: 'status',
      label: 'Status',
      render: (m) => <StatusBadge status={m.status === 'disabled' ? 'revoked' : m.status} label={m.status === 'disabled' ? 'Disabled' : undefined} />,
    },
    { key: 'created_at', label: 'Member since', sortValue: (m) => m.created_at, render: (m) => <Time iso={m.created_at} /> },
  ]
  if (manage)
    columns.push({
      key: 'actions',
      label: <span class="visually-hidden">Actions</span>,
      align: 'right',
      render: (m) =>
        mayManage(actor, m.role) && m.user_id !== myId ? (
          <Button small variant="danger" onClick={() => setRemoving(m)} aria-label={`Remove ${m.email ?? 'member'}`}>
            Remove
          </Button>
        ) : null,
    })

  const pendingColumns: Column<Member>[] = [
    { key: 'email', label: 'Email', render: (m) => m.email ?? m.invited_email ?? '—' },
    { key: 'role', label: 'Role', render: (m) => ROLE_WORDS[m.role] },
    { key: 'sent', label: 'Invited', render: (m) => <Time iso={m.created_at} relative /> },
    {
      key: 'expires',
      label: 'Expires',
      render: (m) =>
        m.invitation_expires_at && Date.parse(m.invitation_expires_at) <= Date.now() ? (
          <StatusBadge status="expired" label="Expired" />
        ) : (
          <Time iso={m.invitation_expires_at} relative />
        ),
    },
  ]
  if (manage)
    pendingColumns.push({
      key: 'actions',
      label: <span class="visually-hidden">Actions</span>,
      align: 'right',
      render: (m) =>
        mayManage(actor, m.role) ? (
          <Button small variant="danger" onClick={() => setRemoving(m)} aria-label={`Revoke the invitation of ${m.email ?? 'this email'}`}>
            Revoke
          </Button>
        ) : null,
    })

  const invitation = removing?.status === 'invited'
  return (
    <div class="page-stack">
      <SettingsHeader title="Members" subtitle="Who can see and manage this account's devices." />
      {!manage && <ReadOnlyNote>You can see who belongs to this account; an owner or admin invites, changes roles and removes.</ReadOnlyNote>}
      {manage && <InviteForm ownerMayInvite={actor === 'owner'} onInvited={() => void members.reload()} />}
      {rowError && <Banner tone="error">{rowError}</Banner>}
      <Card title="Members">
        {members.error ? <LoadError error={members.error} retry={members.reload} /> : null}
        {members.data === null ? (
          members.error ? null : (
            <Skeleton lines={3} height={40} label="Loading members" />
          )
        ) : (
          <DataTable caption="Members of this account" columns={columns} rows={active} rowKey={(m) => m.id} />
        )}
      </Card>
      {members.data !== null && (
        <Card title="Pending invitations">
          <DataTable
            caption="Pending invitations"
            columns={pendingColumns}
            rows={pending}
            rowKey={(m) => m.id}
            empty={<EmptyState title="No pending invitations">An invitation stays here until it is accepted, revoked or expires (7 days).</EmptyState>}
          />
        </Card>
      )}
      <ConfirmDialog
        open={removing !== null}
        title={invitation ? `Revoke the invitation of ${removing?.email ?? ''}?` : `Remove ${removing?.email ?? 'this member'}?`}
        confirmLabel={invitation ? 'Revoke invitation' : 'Remove member'}
        danger
        onClose={() => setRemoving(null)}
        onConfirm={async () => {
          await api.del(`/v1/clients/me/members/${encodeURIComponent(removing!.id)}`)
          await members.reload()
        }}
      >
        <p>
          {invitation
            ? 'The invitation link stops working at once. You can invite the same email again later.'
            : 'They lose access to this account from their next request. Their own account stays; you can invite them again.'}
        </p>
      </ConfirmDialog>
    </div>
  )
}
