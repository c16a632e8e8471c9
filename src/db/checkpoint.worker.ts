/**
 * The checkpoint thread: its own connection to the database file and one job, copying the WAL
 * back into the database. On the event loop the copy and its fsyncs would stall every request;
 * here they cost the server a message. checkpointer.ts decides when and how.
 */
import { Database } from 'bun:sqlite'
import { fdatasyncSync, openSync } from 'node:fs'
import type { CheckpointReply, CheckpointRequest } from './checkpointer'
import { checkpoint } from './wal'

declare const self: Worker

let db: Database | null = null
/** the database file itself, for flushing what the copies wrote (see 'sync') */
let fd: number | null = null

function handle(msg: CheckpointRequest): CheckpointReply {
  switch (msg.op) {
    case 'open':
      db = new Database(msg.path, { readwrite: true, create: false })
      // the checkpoint's fsyncs follow this; NORMAL and FULL both sync a checkpoint
      db.run(`PRAGMA synchronous = ${msg.synchronous}`)
      // TRUNCATE waits this long for a writer outside the held one, then reports busy
      db.run('PRAGMA busy_timeout = 100')
      fd = openSync(msg.path, 'r')
      return { op: 'open' }
    case 'checkpoint':
      if (!db) throw new Error('checkpoint before open')
      return { op: 'checkpoint', ...checkpoint(db, msg.mode) }
    case 'sync':
      if (fd !== null) fdatasyncSync(fd)
      return { op: 'sync' }
    case 'close':
      db?.close()
      db = null
      // the descriptor stays open until the process ends: closing any descriptor of the database
      // file drops every POSIX lock the process holds on it, and the hub's own connection, still
      // open, would lose its lock for its last statements (src/db/wal.ts says more)
      fd = null
      return { op: 'close' }
  }
}

self.onmessage = (event: MessageEvent<CheckpointRequest>) => {
  let reply: CheckpointReply
  try {
    reply = handle(event.data)
  } catch (err) {
    reply = { op: 'error', message: (err as Error).message }
  }
  postMessage(reply)
}
