import { useState } from 'preact/hooks'
import { Button } from './Button'
import { Icon } from './Icon'

/** A secret shown once (a new API key, a token): monospace, a copy button, and the plain warning. */
export function SecretBox({ value, label = 'Secret', note }: { value: string; label?: string; note?: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value)
      setCopied('yes')
    } catch {
      setCopied('no')
    }
  }
  return (
    <div class="secret">
      <p class="secret-label">{label}</p>
      <div class="secret-row">
        <code class="secret-value">{value}</code>
        <Button small onClick={copy} aria-label={`Copy ${label.toLowerCase()}`}>
          <Icon name="copy" />
          Copy
        </Button>
      </div>
      <p class="secret-note" role="status">
        {copied === 'yes' ? 'Copied to the clipboard. ' : copied === 'no' ? 'Copying failed: select the text and copy it. ' : ''}
        {note ?? 'This is shown only once: copy it now and keep it somewhere safe. It cannot be shown again.'}
      </p>
    </div>
  )
}
