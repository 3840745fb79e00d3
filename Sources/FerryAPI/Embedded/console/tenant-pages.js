// A tenant's other resources: sessions (create with headers and decisions, finish, delete), vault
// credentials (metadata only: the API never returns a secret), webhook endpoints with the delivery log
// and redeliver, blobs (list, upload, delete).

import {api, authorization, parse, withQuery} from './api.js';
import {h, replace, field} from './dom.js';
import {submitWithFieldErrors} from './field-errors.js';
import * as format from './format.js';

function table(id, headings, rows) {
  return h('div', {class: 'table-wrap'}, h('table', {id},
    h('thead', {}, h('tr', {}, headings.map((title) => h('th', {scope: 'col'}, title)))),
    h('tbody', {}, rows)));
}

export function sessionsPage(view, shell) {
  const list = h('div', {id: 'sessions'});
  const kind = h('select', {id: 'session-kind', 'data-field': 'kind'}, ['default', 'ephemeral', 'background'].map((k) => h('option', {value: k}, k)));
  const headers = h('textarea', {id: 'session-headers', 'data-field': 'configuration.additional_headers', spellcheck: 'false', placeholder: 'Name: value, one a line'});
  const perHost = h('input', {id: 'session-per-host', type: 'number', 'data-field': 'configuration.max_connections_per_host', min: '1'});
  const form = h('form', {id: 'session-form', class: 'card', novalidate: true},
    h('h2', {}, 'New session'), field('Kind', kind), field('Headers every job of it sends', headers), field('Connections per host', perHost),
    h('button', {type: 'submit'}, 'Create session'));
  replace(view, h('h1', {}, 'Sessions'), list, form);

  async function load() {
    const reply = await shell.attempt(() => api('GET', '/v1/sessions'));
    if (!reply) return;
    replace(list, reply.sessions.length === 0 ? h('p', {class: 'muted'}, 'No sessions.') : table('sessions-table',
      ['Kind', 'Id', 'Headers', 'Created', 'Ended', ''],
      reply.sessions.map((s) => h('tr', {'data-session': s.id},
        h('td', {}, s.kind), h('td', {}, h('code', {}, s.id)),
        h('td', {}, Object.entries(s.configuration?.additional_headers ?? {}).map(([n, v]) => `${n}: ${v}`).join('; ')),
        h('td', {}, format.age(s.created_at)), h('td', {}, s.invalidated_at ? `${s.invalidation_mode} ${format.age(s.invalidated_at)} ago` : ''),
        h('td', {}, s.invalidated_at ? null : h('button', {type: 'button', class: 'quiet', onclick: () => end(s.id)}, 'Finish'))))));
  }
  async function end(id) {
    if (await shell.attempt(() => api('DELETE', withQuery(`/v1/sessions/${id}`, {mode: 'finish'})).then(() => true))) load();
  }
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const configuration = {};
    const lines = headers.value.split('\n').map((l) => l.trim()).filter(Boolean);
    if (lines.length) configuration.additional_headers = Object.fromEntries(lines.map((l) => [l.split(':')[0].trim(), l.slice(l.indexOf(':') + 1).trim()]));
    if (perHost.value) configuration.max_connections_per_host = Number(perHost.value);
    if (await submitWithFieldErrors(form, shell, () => api('POST', '/v1/sessions', {kind: kind.value, configuration}))) {
      shell.notify('Session created.');
      form.reset();
      load();
    }
  });
  load();
}

export function credentialsPage(view, shell) {
  const list = h('div', {id: 'credentials'});
  const more = h('button', {type: 'button', class: 'quiet', hidden: true}, 'More');
  let cursor = null;
  replace(view, h('h1', {}, 'Credentials'),
    h('p', {class: 'muted'}, 'The vault shows what each credential is for; its secret is never sent back.'), list, more);
  const rows = [];
  async function load() {
    const page = await shell.attempt(() => api('GET', withQuery('/v1/credentials', {cursor})));
    if (!page) return;
    for (const c of page.credentials) {
      const space = c.protection_space;
      rows.push(h('tr', {'data-credential': c.id},
        h('td', {}, `${space.scheme}://${space.host}:${space.port}`), h('td', {}, space.realm ?? ''), h('td', {}, space.method),
        h('td', {}, c.secret_kind), h('td', {}, c.persistence), h('td', {}, format.age(c.created_at)),
        h('td', {}, h('button', {type: 'button', class: 'danger', onclick: () => remove(c.id)}, 'Delete'))));
    }
    cursor = page.next_cursor ?? null;
    more.hidden = !cursor;
    replace(list, rows.length === 0 ? h('p', {class: 'muted'}, 'No credentials.')
      : table('credentials-table', ['Server', 'Realm', 'Method', 'Secret', 'Kept', 'Age', ''], rows));
  }
  async function remove(id) {
    if (!confirm('Delete this credential?')) return;
    if (await shell.attempt(() => api('DELETE', `/v1/credentials/${id}`).then(() => true))) {
      rows.length = 0;
      cursor = null;
      load();
    }
  }
  more.addEventListener('click', load);
  load();
}

export function webhooksPage(view, shell) {
  const endpoints = h('div', {id: 'endpoints'});
  const deliveries = h('div', {id: 'deliveries'});
  const url = h('input', {id: 'endpoint-url', type: 'text', 'data-field': 'url', spellcheck: 'false', placeholder: 'https://hooks.example.org/ferry'});
  const events = h('input', {id: 'endpoint-events', type: 'text', 'data-field': 'events', value: 'job.succeeded, job.failed'});
  const created = h('div', {id: 'endpoint-secret'});
  const form = h('form', {id: 'endpoint-form', class: 'card', novalidate: true}, h('h2', {}, 'New endpoint'),
    field('URL', url), field('Events', events, 'Comma-separated: job.succeeded, job.failed, job.cancelled, job.progress, ...'),
    h('button', {type: 'submit'}, 'Add endpoint'), created);
  replace(view, h('h1', {}, 'Webhooks'), h('h2', {}, 'Endpoints'), endpoints, form, h('h2', {}, 'Delivery log'), deliveries);

  async function load() {
    const list = await shell.attempt(() => api('GET', '/v1/webhooks/endpoints'));
    if (list) {
      replace(endpoints, list.endpoints.length === 0 ? h('p', {class: 'muted'}, 'No endpoints.') : table('endpoints-table', ['URL', 'Events', 'Created', 'Disabled', ''],
        list.endpoints.map((e) => h('tr', {},
          h('td', {class: 'url'}, e.url), h('td', {}, e.events.join(', ')), h('td', {}, format.age(e.created_at)),
          h('td', {}, e.disabled_at ? `${e.disabled_reason ?? ''}` : ''),
          h('td', {}, h('button', {type: 'button', class: 'danger', onclick: () => removeEndpoint(e.id)}, 'Delete'))))));
    }
    await loadDeliveries(shell, deliveries, '/v1/webhooks/deliveries');
  }
  async function removeEndpoint(id) {
    if (await shell.attempt(() => api('DELETE', `/v1/webhooks/endpoints/${id}`).then(() => true))) load();
  }
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const endpoint = await submitWithFieldErrors(form, shell, () => api('POST', '/v1/webhooks/endpoints',
      {url: url.value.trim(), events: events.value.split(',').map((e) => e.trim()).filter(Boolean)}));
    if (endpoint) {
      replace(created, h('p', {}, 'Its signing secret, shown this once:'), h('p', {class: 'secret'}, endpoint.secret ?? ''));
      load();
    }
  });
  load();
}

/** The newest 200 deliveries of the log at `path` (the tenant's or, for the admin, everyone's), each with a redeliver button. */
export async function loadDeliveries(shell, container, path) {
  const list = await shell.attempt(() => api('GET', `${path}?limit=200`));
  if (!list) return;
  const redeliverPath = (id) => `${path}/${id}/redeliver`;
  replace(container, list.deliveries.length === 0 ? h('p', {class: 'muted'}, 'No deliveries.') : table('deliveries-table',
    ['Event', 'Job', 'URL', 'Status', 'Attempts', 'Made', ''],
    list.deliveries.map((d) => h('tr', {'data-delivery': d.id},
      h('td', {}, d.type), h('td', {}, h('code', {}, d.job.slice(0, 8))), h('td', {class: 'url'}, d.url),
      h('td', {}, h('span', {class: `state state-${d.status === 'delivered' ? 'succeeded' : d.status === 'failed' ? 'failed' : 'queued'}`}, d.status)),
      h('td', {}, (d.attempts ?? []).map((a) => `${a.response_status ?? a.error ?? '?'} in ${a.latency_ms} ms`).join(', ')),
      h('td', {}, format.age(d.created_at)),
      h('td', {}, h('button', {type: 'button', class: 'quiet', onclick: async () => {
        if (await shell.attempt(() => api('POST', redeliverPath(d.id)))) {
          shell.notify('Delivery queued again.');
          loadDeliveries(shell, container, path);
        }
      }}, 'Redeliver'))))));
}

export function blobsPage(view, shell) {
  const list = h('div', {id: 'blobs'});
  const more = h('button', {type: 'button', class: 'quiet', hidden: true}, 'More');
  const file = h('input', {id: 'blob-file', type: 'file'});
  const form = h('form', {id: 'blob-form', class: 'card'}, h('h2', {}, 'Store a body for upload jobs'), field('File', file),
    h('button', {type: 'submit'}, 'Upload'));
  replace(view, h('h1', {}, 'Blobs'), list, more, form);
  let cursor = null;
  const rows = [];
  async function load(reset) {
    if (reset) {
      rows.length = 0;
      cursor = null;
    }
    const page = await shell.attempt(() => api('GET', withQuery('/v1/blobs', {cursor})));
    if (!page) return;
    for (const blob of page.blobs) {
      rows.push(h('tr', {'data-blob': blob.id},
        h('td', {}, h('code', {}, blob.id)), h('td', {}, format.bytes(blob.size)), h('td', {class: 'hide-narrow'}, h('code', {}, blob.sha256)),
        h('td', {}, blob.content_type ?? ''), h('td', {}, format.age(blob.created_at)),
        h('td', {}, h('button', {type: 'button', class: 'danger', onclick: () => remove(blob.id)}, 'Delete'))));
    }
    cursor = page.next_cursor ?? null;
    more.hidden = !cursor;
    replace(list, rows.length === 0 ? h('p', {class: 'muted'}, 'No blobs.') : table('blobs-table', ['Id', 'Size', 'SHA-256', 'Type', 'Age', ''], rows));
  }
  async function remove(id) {
    if (!confirm('Delete this blob?')) return;
    if (await shell.attempt(() => api('DELETE', `/v1/blobs/${id}`).then(() => true))) load(true);
  }
  // The file goes to the API as the request body, streamed by the browser from disk.
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const chosen = file.files[0];
    if (!chosen) return;
    const stored = await shell.attempt(async () => {
      const response = await fetch('/v1/blobs', {method: 'PUT', body: chosen, cache: 'no-store', credentials: 'omit',
        headers: {...authorization(), 'Content-Type': chosen.type || 'application/octet-stream'}});
      return parse(response);
    });
    if (stored) {
      shell.notify(`Stored ${format.bytes(stored.size)} as blob ${stored.id}.`);
      form.reset();
      load(true);
    }
  });
  more.addEventListener('click', () => load(false));
  load(true);
}
