import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { createGzip } from "node:zlib";
import type { Page } from "@playwright/test";

/**
 * Filters rows by their session link's text on every keystroke: what the baseline page needs
 * to answer the same keystroke the dashboard's filter answers.
 */
const filterScript = `document.addEventListener("input", (event) => {
  const box = event.target;
  if (!(box instanceof HTMLInputElement) || box.type !== "search") return;
  const needle = box.value.trim().toLowerCase();
  for (const link of document.querySelectorAll('a[href^="/sessions/"]')) {
    const row = link.closest("tr");
    if (row) row.hidden = needle !== "" && !link.textContent.toLowerCase().includes(needle);
  }
});`;

/**
 * The page as it stands in `page` now, as static HTML: the same markup and stylesheets, no
 * scripts but the filter's, so the browser only parses and lays it out.
 */
export async function snapshotAsStaticHtml(page: Page, withFilter: boolean): Promise<string> {
  const html = await page.evaluate(() => {
    const copy = document.documentElement.cloneNode(true) as HTMLElement;
    for (const element of copy.querySelectorAll(
      'script, link[rel="preload"], link[rel="modulepreload"], link[rel="prefetch"]',
    ))
      element.remove();
    for (const link of copy.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]'))
      link.setAttribute("href", link.href);
    return `<!doctype html>\n${copy.outerHTML}`;
  });
  return withFilter ? html.replace("</body>", `<script>${filterScript}</script></body>`) : html;
}

export interface StaticPages {
  readonly url: (name: string) => string;
  set(name: string, html: string): void;
  close(): Promise<void>;
}

/**
 * Serves the baseline pages from memory on 127.0.0.1, encoded as Berth's server (`next start`)
 * sends a page: gzip-compressed as it streams when the browser accepts gzip (Next's
 * `compression` middleware, zlib's default level), so both sides pay the same encoding.
 */
export async function serveStaticPages(): Promise<StaticPages> {
  const pages = new Map<string, string>();
  const server: Server = createServer((request, response) => {
    const html = pages.get(request.url ?? "");
    const headers = { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" };
    if (html === undefined) {
      response.writeHead(404, headers);
      response.end("not found");
      return;
    }
    if (!/\bgzip\b/.test(request.headers["accept-encoding"] ?? "")) {
      response.writeHead(200, headers);
      response.end(html);
      return;
    }
    response.writeHead(200, { ...headers, "content-encoding": "gzip", vary: "Accept-Encoding" });
    const gzip = createGzip();
    gzip.pipe(response);
    gzip.end(html);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no address");
  const base = `http://127.0.0.1:${String(address.port)}`;
  return {
    url: (name) => `${base}/${name}`,
    set: (name, html) => pages.set(`/${name}`, html),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}
