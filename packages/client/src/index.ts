export { createBerthClient } from "./createBerthClient.ts";
export type { BerthClient, BerthClientOptions } from "./createBerthClient.ts";
export { createTokenWithPassword } from "./tokenWithPassword.ts";
export { BerthRequestError, downloadFile, uploadFile } from "./files.ts";
export type {
  BerthErrorData,
  DownloadedFile,
  TransferProgress,
  UploadedFile,
  UploadFileInput,
} from "./files.ts";
