import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One TCP connection speaking HTTP/1.1 by hand, for what fetch cannot do: keep a connection open
 * across a server's shutdown, send a request in pieces, wait for `100 Continue`. Responses are
 * read in order, interim ones (1xx) included; a body needs a Content-Length.
 */
export class RawConnection {
  private buffer = Buffer.alloc(0);
  private waiter: (() => void) | undefined;
  private ended = false;
  readonly closed: Promise<void>;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.waiter?.();
    });
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.ended = true;
        this.waiter?.();
        resolve();
      }),
    );
    socket.on('error', () => undefined);
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.off('error', reject);
        resolve(new RawConnection(socket));
      });
      socket.once('error', reject);
    });
  }

  write(text: string): void {
    this.socket.write(text);
  }

  /** The next response on the connection (rejects if the server closes the connection first). */
  async response(): Promise<RawResponse> {
    for (;;) {
      const parsed = this.parse();
      if (parsed) return parsed;
      if (this.ended) throw new Error(`the connection closed before a whole response (got ${JSON.stringify(this.buffer.toString('latin1'))})`);
      await new Promise<void>((resolve) => (this.waiter = resolve));
      this.waiter = undefined;
    }
  }

  private parse(): RawResponse | undefined {
    const headEnd = this.buffer.indexOf('\r\n\r\n');
    if (headEnd === -1) return undefined;
    const [statusLine = '', ...headerLines] = this.buffer.subarray(0, headEnd).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of headerLines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const status = Number(statusLine.split(' ')[1]);
    const length = status < 200 ? 0 : Number(headers['content-length'] ?? 0);
    const bodyStart = headEnd + 4;
    if (this.buffer.length < bodyStart + length) return undefined;
    const body = this.buffer.subarray(bodyStart, bodyStart + length).toString('utf8');
    this.buffer = this.buffer.subarray(bodyStart + length);
    return { status, headers, body };
  }

  destroy(): void {
    this.socket.destroy();
  }
}
