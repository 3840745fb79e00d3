// The jobs table: a page of jobs (newest first, cursor paging, filtered by state and URL text on the
// server), kept live from the tenant's event stream: state events replace a row, progress events move
// its bar, rate and ETA. Selection with bulk pause, resume and cancel. The admin's "every tenant's
// jobs" reads /v1/admin/jobs; the admin has no event stream, so that table refreshes every 5 s.

import {api, withQuery} from './api.js';
import {EventStream} from './event-stream.js';
import {h, replace} from './dom.js';
import * as format from './format.js';
import {states, label, can} from './job-states.js';

const pageSize = 50;

export function jobsPage(view, shell, {admin}) {
  const base = admin ? '/v1/admin/jobs' : '/v1/jobs';
  const jobLink = (id) => admin ? `#/admin/jobs/${id}` : `#/jobs/${id}`;
  const rows = new Map();
  const selected = new Set();
  let cursors = [null];
  let pageIndex = 0;
  let nextCursor = null;
  let filter = {state: '', text: ''};
  let stream = null;
  let refresher = null;
  let ageTicker = null;

  const stateFilter = h('select', {id: 'state-filter'}, h('option', {value: ''}, 'every state'),
    states.map((s) => h('option', {value: s}, label(s))));
  const textFilter = h('input', {id: 'text-filter', type: 'search', placeholder: 'part of the URL', spellcheck: 'false'});
  const filterForm = h('form', {class: 'row', role: 'search', 'aria-label': 'Filter jobs'},
    h('div', {}, h('label', {for: 'state-filter'}, 'State'), stateFilter),
    h('div', {}, h('label', {for: 'text-filter'}, 'URL contains'), textFilter),
    h('button', {type: 'submit', id: 'apply-filter'}, 'Filter'));
  const selectAll = h('input', {type: 'checkbox', id: 'select-all', 'aria-label': 'Select every job on this page'});
  const bulk = ['pause', 'resume', 'cancel'].map((action) =>
    h('button', {type: 'button', id: `bulk-${action}`, class: action === 'cancel' ? 'danger' : '', disabled: true}, `${action[0].toUpperCase()}${action.slice(1)} selected`));
  const selectionText = h('span', {id: 'selection', class: 'muted'}, '');
  const live = h('span', {id: 'live-status', class: 'muted', 'aria-live': 'polite'}, admin ? 'refreshes every 5 s' : 'connecting…');
  const tbody = h('tbody', {});
  const table = h('table', {id: 'jobs'},
    h('caption', {class: 'skip'}, 'Jobs, newest first'),
    h('thead', {}, h('tr', {},
      h('th', {scope: 'col'}, selectAll), h('th', {scope: 'col'}, 'State'), h('th', {scope: 'col'}, 'Progress'),
      h('th', {scope: 'col', class: 'hide-narrow'}, 'Rate'), h('th', {scope: 'col', class: 'hide-narrow'}, 'ETA'), h('th', {scope: 'col'}, 'URL'),
      admin ? h('th', {scope: 'col', class: 'hide-narrow'}, 'Tenant') : null,
      h('th', {scope: 'col'}, 'Age'), h('th', {scope: 'col'}, 'Attempts'))),
    tbody);
  const previous = h('button', {type: 'button', id: 'previous-page', class: 'quiet', disabled: true}, '← Newer');
  const next = h('button', {type: 'button', id: 'next-page', class: 'quiet', disabled: true}, 'Older →');
  const pageText = h('span', {class: 'muted', id: 'page-number'}, '');
  const empty = h('p', {id: 'no-jobs', class: 'muted', hidden: true}, 'No jobs match.');

  replace(view,
    h('h1', {}, admin ? "Every tenant's jobs" : 'Jobs'),
    filterForm,
    h('div', {class: 'row'}, bulk, selectionText, live),
    h('div', {class: 'table-wrap'}, table),
    empty,
    h('div', {class: 'row'}, previous, pageText, next));

  // A row's elements are made once and then updated in place, so a progress event every second
  // neither moves the keyboard focus nor replaces the checkbox a person is about to click.
  function makeRow(job) {
    const checkbox = h('input', {type: 'checkbox', class: 'select', 'aria-label': `select job ${job.id}`});
    checkbox.addEventListener('change', () => {
      if (checkbox.checked) selected.add(job.id); else selected.delete(job.id);
      updateSelection();
    });
    const parts = {
      checkbox,
      state: h('td', {class: 'job-state'}),
      bar: h('progress', {'aria-label': `progress of job ${job.id}`}),
      bytes: h('span', {class: 'progress-text'}),
      rate: h('td', {class: 'rate hide-narrow'}),
      eta: h('td', {class: 'eta hide-narrow'}),
      age: h('td', {class: 'age'}),
      attempts: h('td', {class: 'attempts'}),
    };
    parts.age.dataset.created = job.created_at;
    const row = h('tr', {},
      h('td', {class: 'select'}, checkbox), parts.state, h('td', {class: 'progress'}, parts.bar, parts.bytes), parts.rate, parts.eta,
      h('td', {class: 'url'}, h('a', {href: jobLink(job.id)}, job.request?.url ?? job.id)),
      admin ? h('td', {class: 'tenant hide-narrow muted'}, job.tenant ?? '') : null,
      parts.age, parts.attempts);
    row.dataset.job = job.id;
    return {row, parts};
  }

  function render(job) {
    const entry = rows.get(job.id) ?? makeRow(job);
    const {row, parts} = entry;
    const progress = job.progress ?? {};
    const running = job.state === 'running';
    row.dataset.state = job.state;
    replace(parts.state, h('span', {class: `state state-${job.state}`}, label(job.state)),
      job.stop_requested ? h('span', {class: 'progress-text'}, `${job.stop_requested} requested`) : null);
    parts.bar.max = progress.bytes_expected || 1;
    if (job.state === 'succeeded') parts.bar.value = progress.bytes_expected || 1;
    else if (progress.bytes_expected) parts.bar.value = progress.bytes_done;
    else parts.bar.removeAttribute('value');
    parts.bytes.textContent = `${format.bytes(progress.bytes_done)} of ${progress.bytes_expected ? format.bytes(progress.bytes_expected) : '?'}`;
    parts.rate.textContent = running ? format.rate(progress.rate) : '';
    parts.eta.textContent = running ? format.duration(format.eta(progress)) : '';
    parts.age.textContent = format.age(job.created_at);
    parts.attempts.textContent = `${job.attempt}/${job.max_attempts}`;
    parts.checkbox.checked = selected.has(job.id);
    rows.set(job.id, {...entry, job});
    return row;
  }

  function updateSelection() {
    for (const id of selected) if (!rows.has(id)) selected.delete(id);
    selectionText.textContent = selected.size ? `${selected.size} selected` : '';
    for (const button of bulk) button.disabled = selected.size === 0;
    selectAll.checked = rows.size > 0 && selected.size === rows.size;
  }

  async function load() {
    const page = await shell.attempt(() => api('GET', withQuery(base, {
      state: filter.state, url_contains: filter.text, limit: pageSize, cursor: cursors[pageIndex] ?? undefined})));
    if (!page) return;
    // Rows of jobs still on the page are kept (and updated), so a refresh does not replace what has focus.
    const shown = new Set(page.jobs.map((job) => job.id));
    for (const id of [...rows.keys()]) if (!shown.has(id)) rows.delete(id);
    tbody.replaceChildren(...page.jobs.map(render));
    nextCursor = page.next_cursor ?? null;
    empty.hidden = page.jobs.length > 0;
    previous.disabled = pageIndex === 0;
    next.disabled = !nextCursor;
    pageText.textContent = `page ${pageIndex + 1}`;
    updateSelection();
  }

  function matches(job) {
    return (!filter.state || job.state === filter.state)
      && (!filter.text || (job.request?.url ?? '').toLowerCase().includes(filter.text.toLowerCase()));
  }

  // Newer than every job shown: a submission, which belongs on top of the first page.
  function isNewest(job) {
    const created = Date.parse(job.created_at);
    for (const {job: shown} of rows.values()) if (Date.parse(shown.created_at) >= created) return false;
    return true;
  }

  // A state event carries the whole job: replace its row, or add a new job on top of the first page.
  function onEvent({type, data}) {
    if (type === 'job.progress') {
      const entry = rows.get(data.id);
      if (!entry || entry.job.state !== 'running') return;
      entry.job = {...entry.job, progress: {bytes_done: data.bytes_done, bytes_expected: data.bytes_expected, rate: data.rate, eta_seconds: data.eta_seconds}};
      render(entry.job);
      return;
    }
    if (!data?.id || !data.state) return;
    if (rows.has(data.id)) {
      if (matches(data)) render(data);
      else {
        rows.get(data.id).row.remove();
        rows.delete(data.id);
        updateSelection();
      }
    } else if (pageIndex === 0 && matches(data) && isNewest(data)) {
      tbody.prepend(render(data));
      empty.hidden = true;
      updateSelection();
    }
  }

  filterForm.addEventListener('submit', (event) => {
    event.preventDefault();
    filter = {state: stateFilter.value, text: textFilter.value.trim()};
    cursors = [null];
    pageIndex = 0;
    selected.clear();
    load();
  });
  stateFilter.addEventListener('change', () => filterForm.requestSubmit());
  selectAll.addEventListener('change', () => {
    for (const id of rows.keys()) {
      if (selectAll.checked) selected.add(id); else selected.delete(id);
    }
    for (const {row} of rows.values()) row.querySelector('input.select').checked = selectAll.checked;
    updateSelection();
  });
  next.addEventListener('click', () => {
    if (!nextCursor) return;
    cursors = cursors.slice(0, pageIndex + 1).concat([nextCursor]);
    pageIndex += 1;
    load().then(() => view.scrollIntoView());
  });
  previous.addEventListener('click', () => {
    if (pageIndex === 0) return;
    pageIndex -= 1;
    load().then(() => view.scrollIntoView());
  });
  bulk.forEach((button, index) => button.addEventListener('click', async () => {
    const action = ['pause', 'resume', 'cancel'][index];
    const targets = [...selected].filter((id) => rows.has(id) && can(action, rows.get(id).job.state));
    const skipped = selected.size - targets.length;
    const failures = [];
    await Promise.all(targets.map(async (id) => {
      try {
        const job = await api('POST', `${base}/${id}/${action}`);
        if (rows.has(id)) render(job);
      } catch (error) {
        failures.push(error);
      }
    }));
    selected.clear();
    for (const {row} of rows.values()) row.querySelector('input.select').checked = false;
    updateSelection();
    if (failures.length) shell.showProblem(failures[0]);
    else shell.clearProblem();
    shell.notify(`${action}: ${targets.length - failures.length} done${failures.length ? `, ${failures.length} refused` : ''}${skipped ? `, ${skipped} skipped (not in a state that allows it)` : ''}`);
  }));

  if (admin) {
    load();
    refresher = setInterval(load, 5000);
  } else {
    // The page is read once the stream is open (and again after each reconnect): no change falls
    // between the page and the first event.
    stream = new EventStream('/v1/events', onEvent, {
      onOpen: () => {
        live.textContent = 'live';
        load();
      },
      onProblem: (error) => {
        live.textContent = 'not live';
        shell.showProblem(error);
        load();
      },
    });
  }
  ageTicker = setInterval(() => {
    for (const cell of tbody.querySelectorAll('td.age')) cell.textContent = format.age(cell.dataset.created);
  }, 10000);

  return () => {
    stream?.close();
    clearInterval(refresher);
    clearInterval(ageTicker);
  };
}
