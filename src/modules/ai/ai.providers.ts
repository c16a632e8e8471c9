import { postJson, ProviderCallError, type GuardedFetchDeps } from './ai.http'

export const PROVIDERS = ['rules', 'openai', 'ollama', 'anthropic'] as const
export type ProviderName = (typeof PROVIDERS)[number]
export type LlmProvider = Exclude<ProviderName, 'rules'>

interface FieldSpec {
  name: string
  type: 'string' | 'number' | 'integer' | 'boolean'
  required: boolean
  default: string | number | boolean | null
  description: string
}

const COMMON: FieldSpec[] = [
  { name: 'temperature', type: 'number', required: false, default: 0.2, description: '0 to 2' },
  { name: 'max_tokens', type: 'integer', required: false, default: 1024, description: '1 to 8192' },
]

/** What GET /v1/ai/providers lists: each provider type with its config fields and defaults. */
export const PROVIDER_CATALOG: { id: ProviderName; name: string; description: string; network: boolean; fields: FieldSpec[] }[] = [
  {
    id: 'rules',
    name: 'Built-in rules',
    description:
      'Offline rules over the metrics summaries: disk-full estimate, sustained CPU, memory and swap, temperatures, network quality, interface errors, silent devices. No network, no key.',
    network: false,
    fields: [],
  },
  {
    id: 'openai',
    name: 'OpenAI-compatible chat completions',
    description: 'POST {base_url}/chat/completions: OpenAI, LM Studio, vLLM, llama.cpp server, any compatible server.',
    network: true,
    fields: [
      { name: 'base_url', type: 'string', required: false, default: 'https://api.openai.com/v1', description: 'ends before /chat/completions' },
      { name: 'model', type: 'string', required: false, default: 'gpt-4o-mini', description: 'model id' },
      { name: 'api_key', type: 'string', required: false, default: null, description: 'sent as "authorization: Bearer"; optional for local servers' },
      ...COMMON,
    ],
  },
  {
    id: 'ollama',
    name: 'Ollama',
    description: 'POST {base_url}/api/chat (native API, stream false, JSON format).',
    network: true,
    fields: [
      {
        name: 'base_url',
        type: 'string',
        required: false,
        default: 'http://localhost:11434',
        description:
          "the Ollama server: a LAN address for the operator's own client (others need VIGIL_OUTBOUND_ALLOW_PRIVATE); the default works only as the instance default, never set through the API",
      },
      { name: 'model', type: 'string', required: false, default: 'llama3.1', description: 'a pulled model' },
      { name: 'api_key', type: 'string', required: false, default: null, description: 'optional, for an authenticating proxy (Bearer)' },
      ...COMMON,
    ],
  },
  {
    id: 'anthropic',
    name: 'Anthropic Messages',
    description: 'POST {base_url}/v1/messages with x-api-key and anthropic-version.',
    network: true,
    fields: [
      { name: 'base_url', type: 'string', required: false, default: 'https://api.anthropic.com', description: 'ends before /v1/messages' },
      { name: 'model', type: 'string', required: false, default: 'claude-3-5-haiku-latest', description: 'model id' },
      { name: 'api_key', type: 'string', required: true, default: null, description: 'sent as x-api-key' },
      ...COMMON,
    ],
  },
]

const fieldDefault = (provider: ProviderName, name: string) =>
  PROVIDER_CATALOG.find((p) => p.id === provider)!.fields.find((f) => f.name === name)?.default ?? null

export const defaultBaseUrl = (p: LlmProvider) => fieldDefault(p, 'base_url') as string
export const defaultModel = (p: LlmProvider) => fieldDefault(p, 'model') as string
export const ANTHROPIC_VERSION = '2023-06-01'

export interface Connection {
  provider: LlmProvider
  baseUrl: string
  apiKey: string | null
  model: string
}

export interface ChatRequest {
  system: string
  user: string
  temperature: number
  maxTokens: number
}

export interface ChatResult {
  text: string
  model: string
  tokensIn: number | null
  tokensOut: number | null
}

const join = (base: string, path: string) => base.replace(/\/+$/, '') + path
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null)
const str = (v: unknown) => (typeof v === 'string' ? v : null)
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' ? (v as Record<string, unknown>) : {})

/**
 * The provider's own words for a failure, from the shapes the three APIs use: for the server's
 * log only. Shown to a tenant they would turn the test call into a reader of any HTTP server.
 */
function errorText(json: unknown, text: string): string {
  const j = obj(json)
  const msg = str(j.error) ?? str(obj(j.error).message) ?? str(j.message) ?? str(j.detail)
  return (msg ?? text).slice(0, 200) || 'no details'
}

/** One chat call in the provider's wire format. Throws ProviderCallError on any failure. */
export async function chat(deps: GuardedFetchDeps, conn: Connection, req: ChatRequest): Promise<ChatResult> {
  const auth: Record<string, string> = conn.apiKey ? { authorization: `Bearer ${conn.apiKey}` } : {}
  let res: Awaited<ReturnType<typeof postJson>>
  switch (conn.provider) {
    case 'openai':
      res = await postJson(deps, join(conn.baseUrl, '/chat/completions'), auth, {
        model: conn.model,
        messages: [
          { role: 'system', content: req.system },
          { role: 'user', content: req.user },
        ],
        temperature: req.temperature,
        max_tokens: req.maxTokens,
        stream: false,
      })
      break
    case 'ollama':
      res = await postJson(deps, join(conn.baseUrl, '/api/chat'), auth, {
        model: conn.model,
        messages: [
          { role: 'system', content: req.system },
          { role: 'user', content: req.user },
        ],
        stream: false,
        format: 'json',
        options: { temperature: req.temperature, num_predict: req.maxTokens },
      })
      break
    case 'anthropic':
      if (!conn.apiKey) throw new ProviderCallError('provider_error', 'Anthropic needs an api_key')
      res = await postJson(
        deps,
        join(conn.baseUrl, '/v1/messages'),
        { 'x-api-key': conn.apiKey, 'anthropic-version': ANTHROPIC_VERSION },
        {
          model: conn.model,
          system: req.system,
          messages: [{ role: 'user', content: req.user }],
          temperature: Math.min(req.temperature, 1), // Anthropic's range is 0..1
          max_tokens: req.maxTokens,
        },
      )
      break
  }
  if (res.status < 200 || res.status >= 300) {
    throw new ProviderCallError('provider_error', `the provider answered HTTP ${res.status}`, errorText(res.json, res.text))
  }
  const j = obj(res.json)
  let text: string | null
  let tokensIn: number | null
  let tokensOut: number | null
  if (conn.provider === 'openai') {
    const choices = Array.isArray(j.choices) ? (j.choices as unknown[]) : []
    text = str(obj(obj(choices[0]).message).content)
    tokensIn = num(obj(j.usage).prompt_tokens)
    tokensOut = num(obj(j.usage).completion_tokens)
  } else if (conn.provider === 'ollama') {
    text = str(obj(j.message).content)
    tokensIn = num(j.prompt_eval_count)
    tokensOut = num(j.eval_count)
  } else {
    const blocks = Array.isArray(j.content) ? (j.content as unknown[]) : []
    const texts = blocks
      .map(obj)
      .filter((b) => b.type === 'text')
      .map((b) => str(b.text))
    text = texts.length && texts.every((x) => x !== null) ? texts.join('') : null
    tokensIn = num(obj(j.usage).input_tokens)
    tokensOut = num(obj(j.usage).output_tokens)
  }
  if (text === null) throw new ProviderCallError('invalid_output', 'the provider answered in an unexpected format (no message text)')
  return { text, model: str(j.model) ?? conn.model, tokensIn, tokensOut }
}
