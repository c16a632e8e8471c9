import { useState } from 'preact/hooks'
import { SignupForm } from '../SignupForm'
import { ApiError, api } from '../../lib/api'
import { describeError } from '../../lib/errors'
import { Link, navigate } from '../../lib/router'
import type { Member } from '../../settings/types'
import { me, ready, signOut, switchClient } from '../../lib/session'
import { Banner, Button, PageHeader, Skeleton } from '../../ui'

/** /invite/:token — the link an invitation hands out: join as a new account, or accept signed in. */
export default function Invite({ params }: { params: Record<string, string> }) {
  const token = params.token ?? ''
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const here = `/invite/${encodeURIComponent(token)}`

  if (!ready.value) return <Skeleton lines={4} />

  const accept = async () => {
    setBusy(true)
    setError(null)
    try {
      const member = await api.post<Member>('/v1/invitations/accept', { token })
      await switchClient(member.client_id)
      navigate('/dashboard', { replace: true })
    } catch (err) {
      // the server's own sentence names the reason (another email, already a member, expired)
      setError(err instanceof ApiError && ['forbidden', 'not_found', 'conflict'].includes(err.code) ? err.message : describeError(err))
      setBusy(false)
    }
  }

  const user = me.value
  if (user) {
    return (
      <div class="auth-card">
        <PageHeader title="Join an account" />
        <p>
          You were invited to join another account on this Vigil. You are signed in as <strong>{user.email}</strong>; the invitation must have been sent to this
          email.
        </p>
        {error && (
          <>
            <Banner tone="error">{error}</Banner>
            <div class="stack-gap" />
          </>
        )}
        <div class="form-actions">
          <Button variant="primary" loading={busy} onClick={accept}>
            Accept invitation
          </Button>
          <Button onClick={() => void signOut().then(() => navigate(here, { replace: true }))}>Use another account</Button>
        </div>
      </div>
    )
  }

  return (
    <div class="auth-card">
      <PageHeader title="Join an account" />
      <p>You were invited to Vigil. Create your account with the email the invitation was sent to.</p>
      <SignupForm invitationToken={token} onDone={() => navigate('/dashboard', { replace: true })} />
      <p class="auth-alt">
        Already have an account? <Link href={`/signin?next=${encodeURIComponent(here)}`}>Sign in to accept</Link>
      </p>
    </div>
  )
}
