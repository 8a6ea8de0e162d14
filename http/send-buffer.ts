// A connection's kernel send buffer, grown only as its client shows it reads (issue 16). Linux grows a TCP
// socket's send buffer on its own up to `net.ipv4.tcp_wmem`'s maximum (4 MB), so a tap or tail client
// that reads nothing took ≈ 4 MB of lines, built and written, before the daemon could tell: a write is
// refused only once the kernel's buffers are full. Each API connection starts with a small send buffer
// instead and gets a larger one each time the bytes the kernel has taken from it outgrow what a client
// that reads nothing could have absorbed, so what a stalled client costs is bounded by what it read
// before. Node has no API for socket options: `setsockopt(2)` is called through koffi (an FFI), loaded on
// the first connection; where it cannot load or the call fails, sockets keep the kernel's sizing.
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import type * as Koffi from 'koffi';

/** The send buffer a connection starts with (Linux doubles what is asked: 128 KB). */
export const INITIAL_SEND_BUFFER = 64 * 1024;
/** The most a connection is given: what the kernel's own sizing reaches on this machine's defaults. */
export const MAX_SEND_BUFFER = 4 * 1024 * 1024;
/**
 * Bytes the kernel must have taken from a connection, per byte of send buffer asked, before it is given
 * twice as much. A client that reads nothing absorbs the buffer the kernel keeps (twice what was asked) and
 * its own receive buffer (128 KB by default): with 8, the first growth needs 1 MB taken, four times what
 * such a client holds.
 */
const EVIDENCE_PER_BYTE = 8;

/**
 * The send buffer to ask for once the kernel has taken `flushed` bytes of a connection: the initial one
 * doubled while `flushed` covers EVIDENCE_PER_BYTE times the doubled size, up to MAX_SEND_BUFFER.
 */
export function sendBufferFor(flushed: number): number {
  let size = INITIAL_SEND_BUFFER;
  while (size < MAX_SEND_BUFFER && flushed >= EVIDENCE_PER_BYTE * 2 * size) size *= 2;
  return size;
}

type SetSockOpt = (fd: number, level: number, name: number, value: number[], length: number) => number;
type GetSockOpt = (fd: number, level: number, name: number, value: number[], length: number[]) => number;

interface SocketOptions {
  readonly set: SetSockOpt;
  readonly get: GetSockOpt;
}

const SOL_SOCKET = 1;
const SO_SNDBUF = 7;

/** Why sizing is the kernel's on another platform. */
const NOT_LINUX = `${process.platform}: SO_SNDBUF sizing is Linux's`;

let options: SocketOptions | null | undefined;
let unavailable: string | undefined;

/** setsockopt/getsockopt of the C library, or null (and why in `sendBufferSizing`) where they cannot be bound. */
function socketOptions(): SocketOptions | null {
  if (options !== undefined) return options;
  try {
    if (process.platform !== 'linux') throw new Error(NOT_LINUX);
    const koffi = createRequire(import.meta.url)('koffi') as typeof Koffi;
    const libc = koffi.load('libc.so.6');
    options = {
      set: libc.func('int setsockopt(int fd, int level, int name, const int *value, uint32_t length)') as SetSockOpt,
      get: libc.func('int getsockopt(int fd, int level, int name, _Out_ int *value, _Inout_ uint32_t *length)') as GetSockOpt,
    };
  } catch (error) {
    unavailable = error instanceof Error ? error.message : String(error);
    options = null;
  }
  return options;
}

/**
 * How API connections' send buffers are sized, said at start-up without loading koffi (≈ 15 ms, paid on the
 * first connection instead): `governed`, or `kernel` with the reason (another platform, koffi or its binary
 * for this platform not installed, or it failed to load).
 */
export function sendBufferSizing(): { readonly sizing: 'governed' } | { readonly sizing: 'kernel'; readonly reason: string } {
  if (unavailable !== undefined) return { sizing: 'kernel', reason: unavailable };
  if (process.platform !== 'linux') return { sizing: 'kernel', reason: NOT_LINUX };
  try {
    const require = createRequire(import.meta.url);
    require.resolve(`@koromix/koffi-linux-${process.arch}/package.json`, { paths: [require.resolve('koffi')] });
    return { sizing: 'governed' };
  } catch {
    return { sizing: 'kernel', reason: `koffi has no binary installed for linux-${process.arch}` };
  }
}

/** The file descriptor under a TCP socket (-1 when it has none: closed, or not a kernel socket). */
function fdOf(socket: Socket): number {
  const fd = (socket as unknown as { _handle?: { fd?: unknown } | null })._handle?.fd;
  return typeof fd === 'number' ? fd : -1;
}

/** The send buffer the kernel keeps for `socket` (twice what was asked), or undefined where it cannot be read. */
export function sendBufferOf(socket: Socket): number | undefined {
  const fd = fdOf(socket);
  const opts = fd < 0 ? null : socketOptions();
  if (opts === null) return undefined;
  const value = [0];
  return opts.get(fd, SOL_SOCKET, SO_SNDBUF, value, [4]) === 0 ? value[0] : undefined;
}

/**
 * Starts `socket` (an HTTP/1.1 connection over TCP, before its first response) on INITIAL_SEND_BUFFER and
 * grows its buffer by `sendBufferFor` whenever a write that had to wait has gone out ('drain'). A socket
 * whose buffer cannot be set is left to the kernel. Returns whether it is governed.
 */
export function governSendBuffer(socket: Socket): boolean {
  // A unix socket's buffer never grows on its own, and has no remote address.
  if (socket.remoteAddress === undefined) return false;
  const fd = fdOf(socket);
  const opts = fd < 0 ? null : socketOptions();
  if (opts === null || opts.set(fd, SOL_SOCKET, SO_SNDBUF, [INITIAL_SEND_BUFFER], 4) !== 0) return false;
  let size = INITIAL_SEND_BUFFER;
  // 'drain': everything written so far has been taken by the kernel, so `bytesWritten` is what it took.
  const grow = (): void => {
    const next = sendBufferFor(socket.bytesWritten);
    if (next <= size) return;
    const at = fdOf(socket);
    if (at < 0 || opts.set(at, SOL_SOCKET, SO_SNDBUF, [next], 4) !== 0) return void socket.off('drain', grow);
    size = next;
    if (size >= MAX_SEND_BUFFER) socket.off('drain', grow);
  };
  socket.on('drain', grow);
  return true;
}
