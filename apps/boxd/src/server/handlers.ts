import {
  BoxError,
  type BoxOperationName,
  type OperationRequest,
  type OperationResponse,
} from "@berth/box-protocol";
import { atomicWrite } from "../fs/atomicWrite.ts";
import { ChunkedUploads } from "../fs/chunkedUploads.ts";
import { confinedFolder } from "../fs/confinedFolder.ts";
import {
  listFolder,
  makeFolder,
  moveEntry,
  readFile,
  removeEntry,
  statEntry,
} from "../fs/fileOps.ts";
import { runExec } from "../exec/runExec.ts";
import * as git from "../git/gitOps.ts";
import { MAX_INLINE_BYTES } from "../limits.ts";
import { buildManifest } from "../workspace/manifestBuilder.ts";
import type { BoxdContext } from "./context.ts";

export type Handlers = {
  readonly [K in BoxOperationName]: (request: OperationRequest<K>) => Promise<OperationResponse<K>>;
};

/** One handler per JSON operation; the compiler checks every operation has one. */
export function createHandlers(context: BoxdContext): Handlers {
  const { root, terminals } = context;
  const uploads = new ChunkedUploads({ root, disk: context.disk });
  /**
   * Work that writes to the workspace outside boxd's own writes (a command, git): the disk watch
   * measures what it wrote, told before the reply, so the caller's next write waits for that.
   */
  const measuredAfter = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } finally {
      context.disk.changed();
    }
  };
  return {
    list: (request) => listFolder(root, request),
    stat: (request) => statEntry(root, request),
    read: (request) => readFile(root, request),
    write: async (request) => {
      const bytes = Buffer.from(request.content, request.encoding);
      if (bytes.byteLength > MAX_INLINE_BYTES) {
        throw new BoxError("too_large", "inline writes are at most 8 MiB: use the upload stream");
      }
      await context.disk.admit(bytes.byteLength);
      return atomicWrite(root, {
        path: request.path,
        content: context.disk.metered([bytes]),
        expectedVersion: request.expectedVersion,
        mode: request.mode,
        createParents: request.createParents,
      });
    },
    mkdir: (request) => makeFolder(root, request),
    move: (request) => moveEntry(root, request),
    // Room made: a write refused for the disk limit is taken again once it is measured.
    remove: (request) => measuredAfter(() => removeEntry(root, request)),
    uploadBegin: (request) => uploads.begin(request),
    uploadChunk: (request) => uploads.chunk(request),
    uploadCommit: (request) => uploads.commit(request),
    uploadAbort: (request) => uploads.abort(request),
    gitStatus: () => git.gitStatus(context.git),
    gitDiff: (request) => git.gitDiff(context.git, request),
    gitLog: (request) => git.gitLog(context.git, request),
    gitShow: (request) => git.gitShow(context.git, request),
    gitBranches: () => git.gitBranches(context.git),
    gitCheckout: (request) => measuredAfter(() => git.gitCheckout(context.git, request)),
    gitAdd: (request) => measuredAfter(() => git.gitAdd(context.git, request)),
    gitCommit: (request) => measuredAfter(() => git.gitCommit(context.git, request)),
    exec: (request) =>
      measuredAfter(async () => {
        const folder = await confinedFolder(root, request.cwd);
        return runExec(
          { cwd: folder.realPath, baseEnv: context.baseEnv, user: context.user },
          request,
        );
      }),
    openTerminal: async (request) => {
      const folder = await confinedFolder(root, request.cwd);
      const terminal = terminals.open({
        cwd: folder.realPath,
        cwdPath: folder.path,
        cols: request.cols,
        rows: request.rows,
        env: { ...context.baseEnv, ...request.env },
        user: context.user,
      });
      context.logger.info({ terminal: terminal.id, cwd: folder.path }, "terminal opened");
      return terminal.info();
    },
    listTerminals: () => Promise.resolve({ terminals: terminals.list() }),
    writeTerminal: (request) => {
      terminals.get(request.id).write(request.data);
      return Promise.resolve({ ok: true as const });
    },
    resizeTerminal: (request) => {
      terminals.get(request.id).resize(request.cols, request.rows);
      return Promise.resolve({ ok: true as const });
    },
    readTerminal: async (request) => ({
      events: await terminals.get(request.id).read(request.since, request.waitMs),
    }),
    closeTerminal: (request) => {
      terminals.close(request.id);
      context.logger.info({ terminal: request.id }, "terminal closed");
      return Promise.resolve({ ok: true as const });
    },
    manifest: () => buildManifest(root),
    revision: async () => {
      const { revision, manifest } = await buildManifest(root);
      return { revision, entries: manifest.entries.length };
    },
  };
}
