/** One text/event-stream block (the lines between blank lines) as its fields; null for a comment-only block (a ping). */
export function parseBlock(block: string): { id: string | null; event: string; data: string } | null {
  let id: string | null = null
  let event = 'message'
  const data: string[] = []
  for (const line of block.split(/\r?\n/)) {
    if (!line || line.startsWith(':')) continue
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '')
    if (field === 'id') id = value
    else if (field === 'event') event = value
    else if (field === 'data') data.push(value)
  }
  return data.length || event !== 'message' ? { id, event, data: data.join('\n') } : null
}
