/** The shape of the one-line install, for the empty dashboard (Add a device fills in a real token). */
export function InstallHint() {
  return (
    <pre class="vg-command vg-command-wrap">
      <code>curl -fsSL {window.location.origin}/install.sh | sudo sh -s -- --token &lt;token from Add a device&gt;</code>
    </pre>
  )
}
