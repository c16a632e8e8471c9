import { useState } from 'preact/hooks'
import { api } from '../lib/api'
import { Banner, Button, Card, Field, Form } from '../ui'
import type { AiConfig } from './types'

interface PromptAnswer {
  prompt: string
  prompt_custom: boolean
}

/** The template the model is asked with; {{variables}} are filled per device at each run. */
export function AiPromptForm({
  config,
  variables,
  manage,
  onSaved,
}: {
  config: AiConfig
  variables: Record<string, string>
  manage: boolean
  onSaved: () => void
}) {
  const [text, setText] = useState(config.prompt)
  const [custom, setCustom] = useState(config.prompt_custom)
  const [note, setNote] = useState<string | null>(null)
  const save = async (prompt: string | null) => {
    const r = await api.patch<PromptAnswer>('/v1/ai/prompt', { prompt })
    setText(r.prompt)
    setCustom(r.prompt_custom)
    setNote(r.prompt_custom ? 'Prompt saved.' : 'Back to the default prompt.')
    onSaved()
  }
  const list = (
    <dl class="facts variables">
      {Object.entries(variables).map(([name, what]) => (
        <div key={name} class="contents">
          <dt>
            <code class="mono">{`{{${name}}}`}</code>
          </dt>
          <dd>{what}</dd>
        </div>
      ))}
    </dl>
  )
  return (
    <Card title="Prompt" actions={custom ? <span class="muted">custom</span> : <span class="muted">default</span>}>
      {note && <Banner tone="success">{note}</Banner>}
      {manage ? (
        <Form
          onSubmit={() => save(text)}
          submitLabel="Save prompt"
          label="Prompt"
          secondary={
            custom ? (
              <Button variant="ghost" onClick={() => void save(null)}>
                Use the default prompt
              </Button>
            ) : undefined
          }
        >
          <Field
            name="prompt"
            label="Template"
            hint="What the model is asked about each device. The answer's format is fixed separately, so a custom prompt cannot break it."
            control={(p) => <textarea {...p} rows={9} maxLength={8000} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />}
          />
        </Form>
      ) : (
        <pre class="prompt-text">{text}</pre>
      )}
      <h3 class="subhead">Variables</h3>
      {list}
    </Card>
  )
}
