/**
 * Given code: reading a configuration file the workspace may have chosen.
 *
 * Instruction files (CLAUDE.md, AGENTS.md and their imports), custom commands, settings files and MCP configs are
 * found by name in a folder someone else may have written. A name can be a link to `/proc/self/environ` (the
 * environment, API keys included), to `/dev/zero` (endless), or a FIFO (a read that never returns). So every such
 * file is read here, and only when it is a regular file, its real location (links followed) is inside one of the
 * folders the caller allows, and it is no bigger than a limit. The descriptor is opened without blocking and checked
 * again after opening, so a file swapped for a FIFO between the check and the open cannot hang the agent either.
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { isInside } from './workspace.js';

/** The largest configuration file the kit reads (instruction files, commands, settings, MCP configs). */
export const MAX_CONFIG_FILE_BYTES = 256 * 1024;

/** A configuration file the kit refuses to read; the message names the file and why. */
export class UnsafeFileError extends Error {
  override name = 'UnsafeFileError';
}

/** `dir` with its links followed, or `dir` itself when it does not exist. */
function real(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}

export interface ReadConfigOptions {
  /** The folders the file's real location must be inside (the workspace, the person's ~/.claude, ...). */
  roots: readonly string[];
  /** The largest size accepted, in bytes (MAX_CONFIG_FILE_BYTES when not given). */
  maxBytes?: number;
}

/**
 * The text of `file` (UTF-8) when it is a regular file inside one of `roots` (links followed) and at most
 * `maxBytes` long. Throws UnsafeFileError otherwise, naming `file` and what is wrong; a missing file throws the
 * usual ENOENT error (callers that skip missing files check its code).
 */
export function readConfigFile(file: string, options: ReadConfigOptions): string {
  const maxBytes = options.maxBytes ?? MAX_CONFIG_FILE_BYTES;
  const target = realpathSync(file);
  if (!options.roots.some((root) => isInside(real(root), target))) {
    throw new UnsafeFileError(`${file} is not read: it leads to ${target}, outside ${options.roots.join(' and ')}`);
  }
  const fd = openSync(target, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UnsafeFileError(`${file} is not read: it is not a regular file`);
    if (stat.size > maxBytes)
      throw new UnsafeFileError(`${file} is not read: it is ${stat.size} bytes, more than ${maxBytes}`);
    // Read at most one byte more than allowed: a file whose size the system does not report (/proc) is still bounded.
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (;;) {
      const got = readSync(fd, buffer, length, buffer.length - length, null);
      if (got === 0) break;
      length += got;
      if (length > maxBytes) throw new UnsafeFileError(`${file} is not read: it is more than ${maxBytes} bytes`);
    }
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** True for the error a missing file throws. */
export function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}
