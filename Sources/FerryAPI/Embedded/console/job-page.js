// One job: its request (headers redacted exactly as the API shows them), response head, result, error,
// the decision it waits for with the forms that answer it, its event timeline (the job's own event
// stream from the first event, then live), controls, content download and delete. The admin sees any
// tenant's job with its controls, read again every 2 s (event streams belong to tenants).

import {api, authorization, parse} from './api.js';
import {EventStream} from './event-stream.js';
import {h, replace, facts} from './dom.js';
import * as format from './format.js';
import {label, can, finished} from './job-states.js';
import {decisionForm} from './decision-form.js';

export function jobPage(view, shell, {id, admin}) {
  const base = admin ? `/v1/admin/jobs/${id}` : `/v1/jobs/${id}`;
  const summary = h('div', {id: 'job-summary'});
  const controls = h('div', {class: 'row', id: 'job-controls'});
  const decision = h('div', {id: 'job-decision'});
  const details = h('div', {id: 'job-details'});
  const timeline = h('ol', {class: 'timeline', id: 'job-timeline'});
  const attempts = h('div', {id: 'job-attempts'});
  let job = null;
  let stream = null;
  let refresher = null;

  replace(view,
    h('p', {}, h('a', {href: admin ? '#/admin/jobs' : '#/jobs'}, '← Jobs')),
    h('h1', {}, 'Job ', h('code', {}, id)),
    summary, controls, decision, details,
    h('section', {class: 'card'}, h('h2', {}, 'Attempts'), attempts),
    admin ? null : h('section', {class: 'card'}, h('h2', {}, 'Events'), timeline));

  function show(next) {
    // Buttons and the decision form are made again only when they change: a progress event every
    // second must not take the focus from a button or wipe what someone is typing into the form.
    const controlsChanged = job?.state !== next.state || job?.stop_requested !== next.stop_requested;
    const decisionChanged = job?.state !== next.state || job?.decision?.id !== next.decision?.id;
    // Request, response, result and error change with the job's state events, never with a progress
    // event (which keeps updated_at): made again every second, they would lose a person's selection.
    const detailsChanged = job?.state !== next.state || job?.updated_at !== next.updated_at;
    job = next;
    const progress = job.progress ?? {};
    const bar = h('progress', {id: 'job-progress', max: progress.bytes_expected || 1,
      value: job.state === 'succeeded' ? (progress.bytes_expected || 1) : progress.bytes_done, 'aria-label': 'progress'});
    if (!progress.bytes_expected && job.state !== 'succeeded') bar.removeAttribute('value');
    replace(summary, h('section', {class: 'card'}, facts([
      ['State', h('span', {class: `state state-${job.state}`, id: 'job-state'}, label(job.state))],
      ['Stop requested', job.stop_requested],
      ['Progress', h('span', {}, bar, ' ', `${format.bytes(progress.bytes_done)} of ${progress.bytes_expected ? format.bytes(progress.bytes_expected) : '?'}`,
        job.state === 'running' && progress.rate ? ` at ${format.rate(progress.rate)}, ${format.duration(format.eta(progress))} left` : '')],
      ['Kind', job.kind],
      ['Tenant', job.tenant],
      ['Attempt', `${job.attempt} of ${job.max_attempts}`],
      ['Priority', String(job.priority)],
      ['Session', job.session],
      ['Created', format.time(job.created_at)],
      ['Updated', format.time(job.updated_at)],
      ['Finished', format.time(job.finished_at)],
    ])));
    if (controlsChanged) renderControls();
    if (decisionChanged) renderDecision();
    if (detailsChanged) renderDetails();
  }

  function renderDetails() {
    replace(details,
      section('Request', [
        facts([['Method', job.request.method], ['URL', job.request.url]]),
        headers(job.request.headers, 'request-headers'),
      ]),
      job.response ? section('Response', [
        facts([['Status', String(job.response.status ?? '')], ['URL', job.response.url]]),
        headers(job.response.headers, 'response-headers'),
      ]) : null,
      job.result ? section('Result', facts([
        ['Size', `${format.bytes(job.result.size)} (${job.result.size} bytes)`],
        ['SHA-256', h('code', {id: 'result-sha256'}, job.result.sha256)],
        ['Content type', job.result.content_type],
        ['Cache', job.result.cache],
        ['Content expired', job.result.content_expired ? 'yes' : null],
      ])) : null,
      job.error ? section('Error', facts([['Code', h('code', {id: 'error-code'}, job.error.code)], ['Message', job.error.message]])) : null);
  }

  function section(title, body) {
    return h('section', {class: 'card'}, h('h2', {}, title), body);
  }

  function headers(map, id) {
    const entries = Object.entries(map ?? {});
    if (entries.length === 0) return h('p', {class: 'muted'}, 'No headers.');
    return h('pre', {id}, entries.map(([name, value]) => `${name}: ${value}\n`));
  }

  function renderControls() {
    const buttons = [];
    for (const action of ['pause', 'resume', 'cancel']) {
      if (!can(action, job.state)) continue;
      buttons.push(h('button', {type: 'button', id: `job-${action}`, class: action === 'cancel' ? 'danger' : '',
        onclick: () => control(action)}, action[0].toUpperCase() + action.slice(1)));
    }
    if (!admin && job.state === 'succeeded' && !job.result?.content_expired) {
      buttons.push(h('button', {type: 'button', id: 'job-download', class: 'quiet', onclick: download}, 'Download content'));
    }
    if (!admin && can('delete', job.state)) {
      buttons.push(h('button', {type: 'button', id: 'job-delete', class: 'danger', onclick: remove}, 'Delete'));
    }
    replace(controls, buttons);
  }

  function renderDecision() {
    if (admin || job.state !== 'waiting_for_decision' || !job.decision) {
      decision.replaceChildren();
      return;
    }
    replace(decision, decisionForm(job, shell, (answered) => {
      show(answered);
      shell.notify('Decision sent: the job is queued again.');
    }));
  }

  async function control(action) {
    const next = await shell.attempt(() => api('POST', `${base}/${action}`));
    if (next) {
      show(next);
      shell.notify(next.stop_requested ? `${action} requested: the worker stops the transfer within a second` : `${action}: done`);
    }
  }

  // The content needs the bearer header, so no plain link: fetched, then handed to the browser as a file.
  async function download() {
    await shell.attempt(async () => {
      const response = await fetch(`${base}/content`, {headers: authorization(), cache: 'no-store', credentials: 'omit'});
      if (!response.ok) await parse(response);
      const blob = await response.blob();
      const name = decodeURIComponent(new URL(job.request.url).pathname.split('/').pop() || '') || `job-${id}`;
      const link = h('a', {href: URL.createObjectURL(blob), download: name});
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 60000);
      shell.notify(`Downloaded ${format.bytes(blob.size)}.`);
    });
  }

  async function remove() {
    if (!confirm('Delete this job and its content?')) return;
    const done = await shell.attempt(async () => {
      await api('DELETE', base);
      return true;
    });
    if (done) shell.go('#/jobs');
  }

  async function loadAttempts() {
    const reply = await shell.attempt(() => api('GET', `${base}/attempts`));
    if (!reply) return;
    replace(attempts, reply.attempts.length === 0 ? h('p', {class: 'muted'}, 'No worker has taken it yet.') : h('div', {class: 'table-wrap'},
      h('table', {id: 'attempts-table'},
        h('thead', {}, h('tr', {}, ['#', 'Started', 'Took', 'Outcome', 'HTTP', 'Error', 'Bytes'].map((t) => h('th', {scope: 'col'}, t)))),
        h('tbody', {}, reply.attempts.map((a) => h('tr', {},
          h('td', {}, String(a.attempt)), h('td', {}, format.time(a.started_at)),
          h('td', {}, a.finished_at ? format.duration((Date.parse(a.finished_at) - Date.parse(a.started_at)) / 1000) : 'running'),
          h('td', {}, a.outcome ?? ''), h('td', {}, a.http_status ? String(a.http_status) : ''), h('td', {}, a.error_code ?? ''),
          h('td', {}, format.bytes(a.bytes))))))));
  }

  function addEvent(type, data) {
    const text = type === 'job.progress'
      ? null
      : h('li', {}, h('span', {class: 'muted'}, format.time(data.updated_at)), ' ', h('strong', {}, type),
        data.error ? ` ${data.error.code}: ${data.error.message}` : '', data.attempt ? ` (attempt ${data.attempt})` : '');
    if (text) timeline.append(text);
  }

  (async () => {
    const first = await shell.attempt(() => api('GET', base));
    if (!first) return;
    show(first);
    loadAttempts();
    if (admin) {
      // The event streams are the tenant's own: the admin's view of a job is read again every 2 s until it ends.
      refresher = setInterval(async () => {
        const next = await shell.attempt(() => api('GET', base));
        if (next && next.updated_at !== job.updated_at) {
          show(next);
          loadAttempts();
        }
        if (!next || finished.has(next.state)) clearInterval(refresher);
      }, 2000);
      return;
    }
    // From the first stored event (Last-Event-ID 0): the timeline, then live changes; it ends with the job.
    stream = new EventStream(`/v1/jobs/${id}/events`, ({type, data}) => {
      addEvent(type, data);
      if (type === 'job.progress') {
        if (job?.state === 'running') show({...job, progress: {bytes_done: data.bytes_done, bytes_expected: data.bytes_expected, rate: data.rate, eta_seconds: data.eta_seconds}});
      } else if (data.updated_at >= (job?.updated_at ?? '')) {
        show(data);
        loadAttempts();
      }
    }, {lastEventID: 0, reconnectAfterEnd: false, onProblem: (error) => shell.showProblem(error)});
  })();

  return () => {
    stream?.close();
    clearInterval(refresher);
  };
}

