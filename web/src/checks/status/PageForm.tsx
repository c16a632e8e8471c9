import { useState } from 'preact/hooks'
import { api } from '../../lib/api'
import { onFormFields } from '../../lib/errors'
import { Field, Form } from '../../ui'
import { Select } from '../../ui/Select'
import type { PageResponse } from '../types'
import { GroupsEditor } from './GroupsEditor'
import { draftGroups, groupsBody, pageInputFor, slugFrom, type Choice } from './page-form'

const THEMES = [
  { value: 'auto', label: "The visitor's system setting" },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
]

const text = (data: FormData, name: string) => {
  const v = data.get(name)
  return typeof v === 'string' ? v : ''
}

/** Creates (POST /v1/status-pages) or changes (PATCH, every field) a status page with its groups. */
export function PageForm({ page, choices, onSaved }: { page: PageResponse | null; choices: Choice[]; onSaved: (page: PageResponse) => void }) {
  const [groups, setGroups] = useState(() => draftGroups(page?.groups ?? []))
  const [slug, setSlug] = useState(page?.slug ?? '')
  const [slugTouched, setSlugTouched] = useState(page !== null)
  const save = async (data: FormData) => {
    const domain = text(data, 'custom_domain').trim()
    const body = {
      slug: text(data, 'slug').trim(),
      title: text(data, 'title'),
      description: text(data, 'description'),
      theme: text(data, 'theme') || 'auto',
      custom_domain: domain || null,
      published: data.get('published') === 'on',
      groups: groupsBody(groups),
    }
    try {
      onSaved(
        page ? await api.patch<PageResponse>(`/v1/status-pages/${encodeURIComponent(page.id)}`, body) : await api.post<PageResponse>('/v1/status-pages', body),
      )
    } catch (err) {
      throw onFormFields(err, pageInputFor)
    }
  }
  return (
    <Form onSubmit={save} submitLabel={page ? 'Save the page' : 'Create the page'} label={page ? 'Edit the status page' : 'New status page'}>
      <Field
        name="title"
        label="Title"
        maxLength={200}
        defaultValue={page?.title ?? ''}
        placeholder="Acme status"
        onInput={(e) => {
          if (!slugTouched) setSlug(slugFrom(e.currentTarget.value))
        }}
      />
      <Field
        name="slug"
        label="Address"
        class="field-mono"
        maxLength={64}
        value={slug}
        onInput={(e) => {
          setSlugTouched(true)
          setSlug(e.currentTarget.value)
        }}
        hint={`The page is public at ${location.origin}/status/${slug || '…'}: 3 to 64 of a-z, 0-9 and "-".`}
      />
      <Field
        name="description"
        label="Description"
        optional
        hint="Plain text under the title."
        control={(p) => <textarea {...p} rows={2} maxLength={1000} defaultValue={page?.description ?? ''} />}
      />
      <Field name="theme" label="Theme" control={(p) => <Select {...p} options={THEMES} selected={page?.theme ?? 'auto'} />} />
      <Field
        name="custom_domain"
        label="Custom domain"
        optional
        class="field-mono"
        maxLength={253}
        defaultValue={page?.custom_domain ?? ''}
        placeholder="status.example.com"
        hint="A request whose Host is this name gets the page at /: point the name (or your proxy) at Vigil."
      />
      <label class="check">
        <input type="checkbox" name="published" defaultChecked={page?.published ?? true} />
        <span>
          Published <span class="hint">(unpublished, the public address answers as if there were no page)</span>
        </span>
      </label>
      <GroupsEditor groups={groups} choices={choices} onChange={setGroups} />
    </Form>
  )
}
