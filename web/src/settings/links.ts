/** The link an invitee opens: the invitation page signs them up (or in) and accepts with the secret. */
export const invitationLink = (token: string, origin: string) => `${origin}/invite/${encodeURIComponent(token)}`
