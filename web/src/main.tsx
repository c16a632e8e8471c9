import './styles/index.css'
import { render } from 'preact'
import { App } from './app'
import { restoreSession } from './lib/session'
import { applyTheme } from './lib/theme'

applyTheme()
render(<App />, document.getElementById('app')!)
// the session comes back through its cookie; pages needing it wait for `ready`
void restoreSession()
