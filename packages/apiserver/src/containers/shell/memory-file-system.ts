/**
 * The in-memory file system of one simulated container: directories, regular files, symbolic
 * links (stored, not followed) and character devices whose writes go to a callback
 * (`/dev/null`, `/proc/1/fd/1`). Paths are POSIX; `.` and `..` are resolved lexically.
 * Nothing here touches the host's file system.
 */

/** A directory: its entries by name. */
export interface DirectoryNode {
  readonly type: "directory";
  readonly entries: Map<string, FsNode>;
  mode: number;
  mtimeMs: number;
}

/** A regular file; its content is kept as written chunks and joined when read. */
export interface FileNode {
  readonly type: "file";
  chunks: Buffer[];
  size: number;
  mode: number;
  mtimeMs: number;
}

/** A symbolic link, kept as written (tar round-trips it); never followed. */
export interface SymlinkNode {
  readonly type: "symlink";
  readonly target: string;
  mode: number;
  mtimeMs: number;
}

/** A character device: reads give nothing, writes go to `write`. */
export interface DeviceNode {
  readonly type: "device";
  readonly write: (data: Buffer) => void;
  mode: number;
  mtimeMs: number;
}

/** Any node of the tree. */
export type FsNode = DirectoryNode | FileNode | SymlinkNode | DeviceNode;

/** The errno names a simulated command reports, with their strerror texts. */
const ERRNO_TEXT = {
  ENOENT: "No such file or directory",
  EEXIST: "File exists",
  ENOTDIR: "Not a directory",
  EISDIR: "Is a directory",
  ENOTEMPTY: "Directory not empty",
  EINVAL: "Invalid argument",
} as const;

/** An errno name of {@link FileSystemError}. */
export type Errno = keyof typeof ERRNO_TEXT;

/** A failed file-system operation: `code` (ENOENT, …) and its strerror text as message. */
export class FileSystemError extends Error {
  constructor(
    readonly code: Errno,
    readonly path: string,
  ) {
    super(ERRNO_TEXT[code]);
    this.name = "FileSystemError";
  }
}

/** Joins `path` to `cwd` (unless absolute) and resolves `.`, `..` and repeated slashes. */
export function resolvePath(cwd: string, path: string): string {
  const parts: string[] = [];
  for (const part of (path.startsWith("/") ? path : `${cwd}/${path}`).split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return `/${parts.join("/")}`;
}

/** The parent directory and last name of an absolute, resolved path (`/` has none). */
function splitPath(path: string): { parent: string; name: string } {
  const i = path.lastIndexOf("/");
  return { parent: i <= 0 ? "/" : path.slice(0, i), name: path.slice(i + 1) };
}

/** A tree of nodes for one container; every path given must be absolute and resolved. */
export class MemoryFileSystem {
  readonly #root: DirectoryNode;
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
    this.#root = { type: "directory", entries: new Map(), mode: 0o755, mtimeMs: now() };
  }

  /** The node at `path`, or `undefined`. */
  lookup(path: string): FsNode | undefined {
    let node: FsNode = this.#root;
    for (const part of path.split("/")) {
      if (part === "") continue;
      if (node.type !== "directory") return undefined;
      const next = node.entries.get(part);
      if (!next) return undefined;
      node = next;
    }
    return node;
  }

  /** The directory at `path`; ENOENT or ENOTDIR otherwise. */
  directory(path: string): DirectoryNode {
    const node = this.lookup(path);
    if (!node) throw new FileSystemError("ENOENT", path);
    if (node.type !== "directory") throw new FileSystemError("ENOTDIR", path);
    return node;
  }

  /** Creates a directory (and, with `parents`, its missing ancestors; an existing one is fine then). */
  mkdir(path: string, options: { parents?: boolean; mode?: number } = {}): void {
    if (options.parents) {
      let current = "";
      for (const part of path.split("/").filter((p) => p !== "")) {
        current += `/${part}`;
        const node = this.lookup(current);
        if (!node) this.mkdir(current, { mode: options.mode ?? 0o755 });
        else if (node.type !== "directory") throw new FileSystemError("ENOTDIR", current);
      }
      return;
    }
    if (path === "/") throw new FileSystemError("EEXIST", path);
    const { parent, name } = splitPath(path);
    const dir = this.directory(parent);
    if (dir.entries.has(name)) throw new FileSystemError("EEXIST", path);
    dir.entries.set(name, {
      type: "directory",
      entries: new Map(),
      mode: options.mode ?? 0o755,
      mtimeMs: this.#now(),
    });
    dir.mtimeMs = this.#now();
  }

  /** The content of the regular file at `path` (a device reads as empty). */
  readFile(path: string): Buffer {
    const node = this.lookup(path);
    if (!node) throw new FileSystemError("ENOENT", path);
    if (node.type === "directory") throw new FileSystemError("EISDIR", path);
    if (node.type !== "file") return Buffer.alloc(0);
    if (node.chunks.length > 1) node.chunks = [Buffer.concat(node.chunks)];
    return node.chunks[0] ?? Buffer.alloc(0);
  }

  /**
   * Opens `path` for writing, creating a regular file when missing (its directory must exist)
   * and truncating it unless `append`; returns the function that appends a chunk.
   */
  openForWrite(
    path: string,
    options: { append?: boolean; mode?: number } = {},
  ): (data: Buffer) => void {
    const existing = this.lookup(path);
    if (existing?.type === "directory") throw new FileSystemError("EISDIR", path);
    if (existing?.type === "device") return existing.write;
    let file: FileNode;
    if (existing?.type === "file") {
      file = existing;
      if (!options.append) {
        file.chunks = [];
        file.size = 0;
      }
    } else {
      const { parent, name } = splitPath(path);
      const dir = this.directory(parent);
      if (existing) dir.entries.delete(name);
      file = {
        type: "file",
        chunks: [],
        size: 0,
        mode: options.mode ?? 0o644,
        mtimeMs: this.#now(),
      };
      dir.entries.set(name, file);
    }
    file.mtimeMs = this.#now();
    return (data) => {
      if (data.length === 0) return;
      file.chunks.push(Buffer.from(data));
      file.size += data.length;
      file.mtimeMs = this.#now();
    };
  }

  /** Writes a whole file (see {@link openForWrite}). */
  writeFile(path: string, data: Buffer | string, options: { mode?: number } = {}): void {
    this.openForWrite(path, options)(typeof data === "string" ? Buffer.from(data) : data);
  }

  /** Creates a symbolic link at `path` (replacing a non-directory there). */
  symlink(path: string, target: string): void {
    const { parent, name } = splitPath(path);
    const dir = this.directory(parent);
    if (dir.entries.get(name)?.type === "directory") throw new FileSystemError("EEXIST", path);
    dir.entries.set(name, { type: "symlink", target, mode: 0o777, mtimeMs: this.#now() });
  }

  /** Adds a character device whose writes go to `write`. */
  device(path: string, write: (data: Buffer) => void): void {
    const { parent, name } = splitPath(path);
    this.directory(parent).entries.set(name, {
      type: "device",
      write,
      mode: 0o666,
      mtimeMs: this.#now(),
    });
  }

  /** Removes `path`; a non-empty directory needs `recursive` (ENOTEMPTY otherwise, EISDIR for an empty one without it). */
  remove(path: string, options: { recursive?: boolean } = {}): void {
    if (path === "/") throw new FileSystemError("EINVAL", path);
    const node = this.lookup(path);
    if (!node) throw new FileSystemError("ENOENT", path);
    if (node.type === "directory" && !options.recursive) throw new FileSystemError("EISDIR", path);
    const { parent, name } = splitPath(path);
    const dir = this.directory(parent);
    dir.entries.delete(name);
    dir.mtimeMs = this.#now();
  }

  /** Sets the mode and modification time kept for `path` (tar extraction). */
  setAttributes(path: string, attributes: { mode?: number; mtimeMs?: number }): void {
    const node = this.lookup(path);
    if (!node) throw new FileSystemError("ENOENT", path);
    if (attributes.mode !== undefined) node.mode = attributes.mode;
    if (attributes.mtimeMs !== undefined) node.mtimeMs = attributes.mtimeMs;
  }
}
