// The admin's pages: the overview (GET /v1/admin/overview), tenants with their limits and usage and
// their keys (create, revoke), and every tenant's webhook deliveries.

import {api} from './api.js';
import {h, replace, facts, field} from './dom.js';
import {submitWithFieldErrors} from './field-errors.js';
import {loadDeliveries} from './tenant-pages.js';
import {throughputChart} from './throughput-chart.js';
import {states, label} from './job-states.js';
import * as format from './format.js';

export function overviewPage(view, shell) {
  const body = h('div', {id: 'overview'});
  replace(view, h('h1', {}, 'Overview'), body);
  async function load() {
    const overview = await shell.attempt(() => api('GET', '/v1/admin/overview'));
    if (!overview) return;
    const oldest = overview.oldest_queued_job;
    replace(body,
      h('h2', {}, 'Jobs by state'),
      h('div', {class: 'stats', id: 'jobs-by-state'}, states.map((state) =>
        h('div', {class: 'stat', 'data-state': state}, h('span', {class: 'value'}, String(overview.jobs_by_state[state] ?? 0)), label(state)))),
      h('h2', {}, 'Throughput, last hour'),
      throughputChart(overview.last_hour),
      h('div', {class: 'card'}, facts([
        ['Bytes moved in the last hour', h('span', {id: 'bytes-last-hour'}, format.bytes(overview.bytes_last_hour))],
        ['Jobs succeeded in the last hour', String(overview.last_hour.reduce((sum, m) => sum + m.succeeded, 0))],
        ['Oldest queued job', oldest ? h('span', {id: 'oldest-queued'}, `${format.age(oldest.created_at)} old `, h('a', {href: `#/admin/jobs/${oldest.id}`}, oldest.id)) : 'nothing is queued'],
        ['Webhook deliveries failed', h('span', {id: 'webhook-failures'}, `${overview.webhook_deliveries.failed} (${overview.webhook_deliveries.failed_last_hour} in the last hour)`)],
        ['Tenants', String(overview.tenants.length)],
      ])));
  }
  load();
  const timer = setInterval(load, 10000);
  return () => clearInterval(timer);
}

export function tenantsPage(view, shell) {
  const list = h('div', {id: 'tenants'});
  const name = h('input', {id: 'tenant-name', type: 'text', 'data-field': 'name'});
  const running = h('input', {id: 'tenant-max-running', type: 'number', 'data-field': 'max_running_jobs'});
  const queued = h('input', {id: 'tenant-max-queued', type: 'number', 'data-field': 'max_queued_jobs'});
  const storage = h('input', {id: 'tenant-max-storage', type: 'number', 'data-field': 'max_storage_bytes'});
  const retention = h('input', {id: 'tenant-retention', type: 'number', 'data-field': 'content_retention_days'});
  const shownKey = h('div', {id: 'new-key'});
  const form = h('form', {id: 'tenant-form', class: 'card', novalidate: true}, h('h2', {}, 'New tenant'),
    field('Name', name), field('Running jobs at most', running), field('Queued jobs at most', queued),
    field('Storage quota (bytes)', storage), field('Content kept (days)', retention),
    h('button', {type: 'submit'}, 'Create tenant'));
  replace(view, h('h1', {}, 'Tenants'), shownKey, list, form);

  function showKey(text) {
    replace(shownKey, h('div', {class: 'card'}, h('p', {}, 'The new API key, shown this once:'), h('p', {class: 'secret', id: 'new-key-value'}, text)));
  }

  async function load() {
    const [tenants, overview] = await Promise.all([
      shell.attempt(() => api('GET', '/v1/admin/tenants')),
      shell.attempt(() => api('GET', '/v1/admin/overview')),
    ]);
    if (!tenants) return;
    const usage = new Map((overview?.tenants ?? []).map((u) => [u.tenant, u]));
    replace(list, h('div', {class: 'table-wrap'}, h('table', {id: 'tenants-table'},
      h('thead', {}, h('tr', {}, ['Name', 'Running', 'Queued', 'Stored', 'Created', 'Keys'].map((t) => h('th', {scope: 'col'}, t)))),
      h('tbody', {}, tenants.tenants.map((tenant) => {
        const use = usage.get(tenant.id) ?? {};
        const keys = h('div', {});
        return h('tr', {'data-tenant': tenant.id},
          h('td', {}, tenant.name, tenant.disabled ? ' (disabled)' : ''),
          h('td', {}, `${use.running_jobs ?? '?'} / ${tenant.max_running_jobs ?? 'default'}`),
          h('td', {}, `${use.queued_jobs ?? '?'} / ${tenant.max_queued_jobs ?? 'default'}`),
          h('td', {}, `${format.bytes(use.stored_bytes ?? 0)} / ${tenant.max_storage_bytes !== undefined && tenant.max_storage_bytes !== null ? format.bytes(tenant.max_storage_bytes) : 'default'}`),
          h('td', {}, format.age(tenant.created_at)),
          h('td', {}, h('details', {ontoggle: (event) => { if (event.target.open) loadKeys(tenant.id, keys); }},
            h('summary', {}, 'Keys'), keys)));
      })))));
  }

  async function loadKeys(tenant, container) {
    const reply = await shell.attempt(() => api('GET', `/v1/admin/tenants/${tenant}/keys`));
    if (!reply) return;
    replace(container,
      h('ul', {}, reply.keys.map((key) => h('li', {'data-key': key.id},
        h('code', {}, key.id.slice(0, 8)), ` ${key.label ?? ''} ${format.age(key.created_at)} old `,
        key.revoked ? h('span', {class: 'state state-cancelled'}, 'revoked')
          : h('button', {type: 'button', class: 'danger', onclick: async () => {
            if (!confirm('Revoke this key? Clients using it are refused at once.')) return;
            if (await shell.attempt(() => api('DELETE', `/v1/admin/tenants/${tenant}/keys/${key.id}`).then(() => true))) loadKeys(tenant, container);
          }}, 'Revoke')))),
      h('button', {type: 'button', class: 'quiet', onclick: async () => {
        const created = await shell.attempt(() => api('POST', `/v1/admin/tenants/${tenant}/keys`, {label: 'console'}));
        if (created) {
          showKey(created.api_key);
          loadKeys(tenant, container);
        }
      }}, 'New key'));
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const tenant = {name: name.value};
    for (const [control, key] of [[running, 'max_running_jobs'], [queued, 'max_queued_jobs'], [storage, 'max_storage_bytes'], [retention, 'content_retention_days']]) {
      if (control.value.trim()) tenant[key] = Number(control.value);
    }
    const created = await submitWithFieldErrors(form, shell, () => api('POST', '/v1/admin/tenants', tenant));
    if (created) {
      showKey(created.api_key);
      form.reset();
      load();
    }
  });
  load();
}

export function deliveriesPage(view, shell) {
  const list = h('div', {id: 'deliveries'});
  replace(view, h('h1', {}, "Every tenant's webhook deliveries"), list);
  loadDeliveries(shell, list, '/v1/admin/webhooks/deliveries');
}
