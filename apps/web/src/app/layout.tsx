import type { Metadata } from "next";
import type { ReactNode } from "react";
import { TRPCReactProvider } from "../trpc/react.tsx";
import "./globals.css";

export const metadata: Metadata = {
  title: "Berth",
  description: "A control plane for AI-agent sandboxes",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <TRPCReactProvider>{children}</TRPCReactProvider>
      </body>
    </html>
  );
}
