import type { ComponentChildren } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { describeError } from '../lib/errors'
import { Banner } from './Banner'
import { Button } from './Button'

interface ConfirmProps {
  open: boolean
  title: string
  children?: ComponentChildren
  confirmLabel?: string
  /** red confirm button: the action deletes or revokes */
  danger?: boolean
  /** may be async; a failure is shown in the dialog, success closes it */
  onConfirm: () => Promise<void> | void
  onClose: () => void
}

/** A modal question before a destructive action (native <dialog>: focus trapped, Escape closes). */
export function ConfirmDialog({ open, title, children, confirmLabel = 'Confirm', danger, onConfirm, onClose }: ConfirmProps) {
  const ref = useRef<HTMLDialogElement>(null)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)

  useEffect(() => {
    const d = ref.current
    if (!d) return
    if (open && !d.open) {
      setError(null)
      d.showModal()
    } else if (!open && d.open) d.close()
  }, [open])

  const confirm = async () => {
    setBusy(true)
    setError(null)
    try {
      await onConfirm()
      onClose()
    } catch (err) {
      setError(describeError(err))
    } finally {
      setBusy(false)
    }
  }

  return (
    <dialog ref={ref} class="dialog" aria-labelledby="dialog-title" onClose={onClose}>
      <h2 id="dialog-title">{title}</h2>
      {children && <div class="dialog-body">{children}</div>}
      {error && <Banner tone="error">{error}</Banner>}
      <div class="form-actions">
        <Button variant={danger ? 'danger' : 'primary'} loading={busy} onClick={confirm}>
          {confirmLabel}
        </Button>
        <Button onClick={onClose} disabled={busy}>
          Cancel
        </Button>
      </div>
    </dialog>
  )
}
