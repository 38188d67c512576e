/** One event of a text/event-stream, as the HTML standard's parser reads it. */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/**
 * Reads a text/event-stream chunk by chunk (lines split anywhere, CR, LF or CRLF) and hands
 * each complete event on. Comments (heartbeats) and retry lines are skipped.
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private id: string | undefined;
  private sawCr = false;

  constructor(private readonly onEvent: (event: SseEvent) => void) {}

  feed(chunk: string): void {
    let text = chunk;
    if (this.sawCr && text.startsWith('\n')) text = text.substring(1);
    this.sawCr = text.endsWith('\r');
    this.buffer += text;
    const lines = this.buffer.split(/\r\n|\r|\n/);
    this.buffer = lines.pop() as string;
    for (const line of lines) this.line(line);
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length > 0) {
        this.onEvent({ event: this.event || 'message', data: this.data.join('\n'), id: this.id });
      }
      this.data = [];
      this.event = '';
      this.id = undefined;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.substring(0, colon);
    let value = colon < 0 ? '' : line.substring(colon + 1);
    if (value.startsWith(' ')) value = value.substring(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
  }
}
