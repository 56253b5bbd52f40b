import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@berth/ui/card";
import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { BerthMark } from "../../components/icons.tsx";
import { PageMain } from "../../components/pageMain.tsx";
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
    <PageMain narrow className="min-h-dvh justify-center">
      <Card>
        <CardHeader className="justify-items-center text-center">
          <span className="mb-2 flex size-10 items-center justify-center rounded-lg bg-primary text-primary-foreground">
            <BerthMark width={20} height={20} />
          </span>
          <CardTitle asChild>
            <h1 className="text-xl">Sign in to Berth</h1>
          </CardTitle>
          <CardDescription>With the email and password of your Berth account.</CardDescription>
        </CardHeader>
        <CardContent>
          <SignInForm next={target} />
        </CardContent>
      </Card>
      <p className="text-center text-sm text-muted-foreground">
        New here? Ask a workspace admin for an invitation link. <Link href="/status">Status</Link>
      </p>
    </PageMain>
  );
}
