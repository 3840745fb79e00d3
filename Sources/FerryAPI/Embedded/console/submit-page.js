// A download job (POST /v1/jobs): URL, headers, session, priority, checksum, callback, and which
// decisions to ask for instead of deciding by default. The API's field errors show beside the fields.

import {api} from './api.js';
import {h, replace, field} from './dom.js';
import {submitWithFieldErrors} from './field-errors.js';

export function submitPage(view, shell) {
  const url = h('input', {id: 'submit-url', type: 'text', 'data-field': 'request.url', required: true, spellcheck: 'false', placeholder: 'https://example.org/file.iso'});
  const headers = h('textarea', {id: 'submit-headers', 'data-field': 'request.headers', spellcheck: 'false', placeholder: 'Name: value, one a line'});
  const session = h('select', {id: 'submit-session', 'data-field': 'session'}, h('option', {value: ''}, 'none'));
  const priority = h('input', {id: 'submit-priority', type: 'number', 'data-field': 'priority', step: '1', placeholder: '0'});
  const checksum = h('input', {id: 'submit-sha256', type: 'text', 'data-field': 'checksum.sha256', spellcheck: 'false', placeholder: '64 hex digits'});
  const callback = h('input', {id: 'submit-callback', type: 'text', 'data-field': 'callback.url', spellcheck: 'false', placeholder: 'https://hooks.example.org/ferry'});
  const asks = ['redirect', 'auth_challenge', 'server_trust', 'response'].map((kind) =>
    h('input', {type: 'checkbox', id: `submit-ask-${kind}`, 'data-field': `decisions.${kind}`, value: kind}));
  const form = h('form', {id: 'submit-form', class: 'card', novalidate: true},
    field('URL', url),
    field('Headers', headers, 'One "Name: value" a line. Authorization and other secret headers are stored sealed and shown redacted.'),
    field('Session', session),
    field('Priority', priority, 'Higher runs first among this tenant\'s queued jobs.'),
    field('SHA-256 the content must have', checksum),
    field('Callback URL', callback, 'Gets a signed webhook when the job ends.'),
    h('fieldset', {}, h('legend', {}, 'Ask me instead of deciding'),
      asks.map((box) => h('label', {class: 'inline', for: box.id}, box, box.value.replaceAll('_', ' ')))),
    h('div', {class: 'row'}, h('button', {type: 'submit', id: 'submit-job'}, 'Submit download')));

  replace(view, h('h1', {}, 'Submit a download'), form);

  shell.attempt(async () => {
    const list = await api('GET', '/v1/sessions');
    for (const s of list.sessions ?? []) session.append(h('option', {value: s.id}, `${s.kind} ${s.id}`));
  });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const job = {kind: 'download', request: {url: url.value.trim()}};
    const headerLines = headers.value.split('\n').map((line) => line.trim()).filter(Boolean);
    if (headerLines.length) {
      job.request.headers = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        // A line without a colon is sent as a name with an empty value: the API says what is wrong with it.
        job.request.headers[colon < 0 ? line : line.slice(0, colon).trim()] = colon < 0 ? '' : line.slice(colon + 1).trim();
      }
    }
    if (session.value) job.session = session.value;
    if (priority.value.trim()) job.priority = Number(priority.value);
    if (checksum.value.trim()) job.checksum = {sha256: checksum.value.trim()};
    if (callback.value.trim()) job.callback = {url: callback.value.trim()};
    const asked = asks.filter((box) => box.checked);
    if (asked.length) job.decisions = Object.fromEntries(asked.map((box) => [box.value, 'ask']));
    const created = await submitWithFieldErrors(form, shell, () => api('POST', '/v1/jobs', job));
    if (created) {
      shell.go(`#/jobs/${created.id}`);
      shell.notify('Job submitted.');
    }
  });
}
