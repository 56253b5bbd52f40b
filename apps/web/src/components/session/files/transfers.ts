import { fileTransferRoutes } from "@berth/validators";
import type { RoutedTo } from "../../../lib/landedAt.ts";
import { TransferFailure } from "./boxErrors.ts";
import type { FsScope } from "./fsScope.ts";

/** Bytes moved so far, and the whole when it is known. */
export type OnProgress = (loaded: number, total: number | null) => void;

/** What the upload route answers: the file, and where the write landed, as every write says. */
export interface Uploaded {
  readonly path: string;
  readonly version: string;
  readonly size: number;
  readonly generation: number | null;
  readonly routedTo: RoutedTo;
}

function routeUrl(route: string, params: Record<string, string>): string {
  return `${route}?${new URLSearchParams(params).toString()}`;
}

/**
 * PUTs a file's bytes to the upload route. XMLHttpRequest, not fetch, because only it reports
 * how much of a request body has been sent. The browser sends the page's Origin with a PUT,
 * which the route requires of a cookie caller.
 */
export function uploadFile(
  scope: FsScope,
  { path, file, onProgress }: { path: string; file: Blob; onProgress: OnProgress },
): Promise<Uploaded> {
  // expectedVersion=null: the file must not exist yet, so an upload never silently replaces
  // someone's file (the encoding of @berth/box-protocol's encodeUploadQuery).
  const url = routeUrl(fileTransferRoutes.upload, { ...scope, path, expectedVersion: "null" });
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("PUT", url);
    request.setRequestHeader("content-type", "application/octet-stream");
    request.upload.onprogress = (event) => {
      onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
    };
    request.onload = () => {
      if (request.status >= 200 && request.status < 300) {
        resolve(JSON.parse(request.responseText) as Uploaded);
      } else {
        reject(failureOf(request.status, request.responseText));
      }
    };
    request.onerror = () => {
      reject(
        new TransferFailure(
          "The upload did not reach the server: check the connection, then upload again.",
          undefined,
        ),
      );
    };
    request.send(file);
  });
}

/**
 * GETs a file's bytes from the download route, reading the body as it streams so progress
 * can be shown against its Content-Length.
 */
export async function downloadFile(
  scope: FsScope,
  { path, onProgress }: { path: string; onProgress: OnProgress },
): Promise<Blob> {
  const response = await fetch(routeUrl(fileTransferRoutes.download, { ...scope, path }));
  if (!response.ok) throw failureOf(response.status, await response.text());
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  const total = Number.isFinite(declared) ? declared : null;
  if (response.body === null) return await response.blob();
  const reader = response.body.getReader();
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let loaded = 0;
  onProgress(0, total);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.byteLength;
    onProgress(loaded, total);
  }
  return new Blob(chunks);
}

/** Hands bytes to the browser's own download, as a link to them would. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser reads the URL after the click returns; a minute is long enough for that.
  setTimeout(() => {
    URL.revokeObjectURL(url);
  }, 60_000);
}

function failureOf(status: number, body: string): TransferFailure {
  try {
    const parsed = JSON.parse(body) as {
      error?: { message?: string; data?: { berth?: { code: string; retryable: boolean } } };
    };
    if (typeof parsed.error?.message === "string")
      return new TransferFailure(parsed.error.message, parsed.error.data?.berth);
  } catch {
    // Not our error body (a proxy's page, say): the status is all there is.
  }
  return new TransferFailure(`The server answered HTTP ${String(status)}.`, undefined);
}
