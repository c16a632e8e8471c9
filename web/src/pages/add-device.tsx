import { ComingSoon } from '../ui/ComingSoon'

// A placeholder until its page lands (web-monitor).
export default function Page(_props: { params: Record<string, string> }) {
  return <ComingSoon title="Add a device" />
}
