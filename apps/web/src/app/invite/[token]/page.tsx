import type { Metadata } from "next";
import { InviteView } from "../../../components/invite/inviteView.tsx";
import { PageMain } from "../../../components/pageMain.tsx";
import { signedInUser } from "../../../server/session.ts";

// The token in this page's address is a credential: keep it out of Referer headers.
export const metadata: Metadata = { title: "Invitation · Berth", referrer: "no-referrer" };

export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const user = await signedInUser();
  return (
    <PageMain narrow className="min-h-dvh justify-center">
      <InviteView token={token} signedInAs={user?.email ?? null} />
    </PageMain>
  );
}
