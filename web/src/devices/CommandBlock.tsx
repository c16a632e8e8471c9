import { useState } from 'preact/hooks'
import { Button, Icon } from '../ui'

/** A shell command to copy as a whole (monospace, scrolls sideways rather than wrapping mid-word). */
export function CommandBlock({ command, label }: { command: string; label: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(command)
      setCopied('yes')
    } catch {
      setCopied('no')
    }
  }
  return (
    <div class="vg-command-block">
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a long line scrolls sideways; the keyboard must reach it to scroll */}
      <pre class="vg-command" tabIndex={0} title={label}>
        <code>{command}</code>
      </pre>
      <div class="vg-command-actions">
        <Button small onClick={copy} aria-label={`Copy: ${label}`}>
          <Icon name="copy" /> Copy
        </Button>
        <span role="status" class="vg-muted">
          {copied === 'yes' ? 'Copied.' : copied === 'no' ? 'Copying failed: select the text and copy it.' : ''}
        </span>
      </div>
    </div>
  )
}
