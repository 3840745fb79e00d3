// Server-Sent Events read with fetch: EventSource cannot send an Authorization header, and the key
// must never go into a URL. Parses the text/event-stream format (WHATWG HTML §9.2.6) and reconnects
// with Last-Event-ID after a drop, so no state event is lost.

import {authorization, parse} from './api.js';

export class EventStream {
  /** onEvent({type, id, data}) for each event; data is parsed JSON. */
  constructor(path, onEvent, {lastEventID = null, onProblem = () => {}, onOpen = () => {}, reconnectAfterEnd = true} = {}) {
    this.reconnectAfterEnd = reconnectAfterEnd;
    this.path = path;
    this.onEvent = onEvent;
    this.onProblem = onProblem;
    this.onOpen = onOpen;
    this.lastEventID = lastEventID;
    this.controller = null;
    this.closed = false;
    this.retryMilliseconds = 1000;
    this.run();
  }

  close() {
    this.closed = true;
    this.controller?.abort();
  }

  async run() {
    while (!this.closed) {
      this.controller = new AbortController();
      try {
        const headers = {...authorization(), 'Accept': 'text/event-stream'};
        if (this.lastEventID !== null) headers['Last-Event-ID'] = String(this.lastEventID);
        const response = await fetch(this.path, {headers, signal: this.controller.signal, cache: 'no-store', credentials: 'omit'});
        if (!response.ok) await parse(response);
        this.onOpen();
        this.retryMilliseconds = 1000;
        await this.read(response.body);
        // A job's own stream ends after its final state; the tenant's ends only when ferryd stops.
        if (!this.reconnectAfterEnd) return;
      } catch (error) {
        if (this.closed) return;
        if (error.status && error.status !== 429 && error.status < 500) {
          this.onProblem(error);
          return;
        }
      }
      if (this.closed) return;
      await new Promise((resolve) => setTimeout(resolve, this.retryMilliseconds));
      this.retryMilliseconds = Math.min(this.retryMilliseconds * 2, 15000);
    }
  }

  /** Reads until the server ends the stream. */
  async read(body) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    let event = {type: 'message', id: null, data: []};
    for (;;) {
      const {value, done} = await reader.read();
      if (done) return;
      buffer += value;
      let newline;
      while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
        if (line === '') {
          if (event.data.length > 0) this.dispatch(event);
          event = {type: 'message', id: null, data: []};
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const name = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (name === 'event') event.type = value;
        else if (name === 'data') event.data.push(value);
        else if (name === 'id' && !value.includes('\0')) event.id = value;
        else if (name === 'retry' && /^\d+$/.test(value)) this.retryMilliseconds = Number(value);
      }
    }
  }

  dispatch(event) {
    if (event.id !== null) this.lastEventID = event.id;
    let data;
    try { data = JSON.parse(event.data.join('\n')); } catch { return; }
    this.onEvent({type: event.type, id: event.id, data});
  }
}
