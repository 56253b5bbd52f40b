import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { SignInForm } from "../../components/signInForm.tsx";
import { safeNextPath } from "../../lib/nextPath.ts";
import { signedInUser } from "../../server/session.ts";

export const metadata: Metadata = { title: "Sign in · Berth" };

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { next } = await searchParams;
  const target = safeNextPath(typeof next === "string" ? next : undefined);
  if ((await signedInUser()) !== null) redirect(target);
  return (
    <main className="narrow">
      <h1>Sign in to Berth</h1>
      <SignInForm next={target} />
      <p className="note">
        New here? Ask a workspace admin for an invitation link. <Link href="/status">Status</Link>
      </p>
    </main>
  );
}
