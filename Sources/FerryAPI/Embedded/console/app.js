// The console's shell: sign-in and sign-out, the navigation for a tenant's key or the admin's, the
// hash routes (#/jobs, #/jobs/ID, ...), and the one place problems and notices are shown.

import {api, credentials, ProblemError} from './api.js';
import {h, replace} from './dom.js';
import {jobsPage} from './jobs-page.js';
import {jobPage} from './job-page.js';
import {submitPage} from './submit-page.js';
import {sessionsPage, credentialsPage, webhooksPage, blobsPage} from './tenant-pages.js';
import {overviewPage, tenantsPage, deliveriesPage} from './admin-pages.js';

const tenantRoutes = [
  {path: /^#\/jobs$/, title: 'Jobs', link: '#/jobs', page: (view, _, shell) => jobsPage(view, shell, {admin: false})},
  {path: /^#\/jobs\/([0-9a-f-]{36})$/, title: 'Job', page: (view, [id], shell) => jobPage(view, shell, {id, admin: false})},
  {path: /^#\/submit$/, title: 'Submit', link: '#/submit', page: (view, _, shell) => submitPage(view, shell)},
  {path: /^#\/sessions$/, title: 'Sessions', link: '#/sessions', page: (view, _, shell) => sessionsPage(view, shell)},
  {path: /^#\/credentials$/, title: 'Credentials', link: '#/credentials', page: (view, _, shell) => credentialsPage(view, shell)},
  {path: /^#\/webhooks$/, title: 'Webhooks', link: '#/webhooks', page: (view, _, shell) => webhooksPage(view, shell)},
  {path: /^#\/blobs$/, title: 'Blobs', link: '#/blobs', page: (view, _, shell) => blobsPage(view, shell)},
];
const adminRoutes = [
  {path: /^#\/admin$/, title: 'Overview', link: '#/admin', page: (view, _, shell) => overviewPage(view, shell)},
  {path: /^#\/admin\/tenants$/, title: 'Tenants', link: '#/admin/tenants', page: (view, _, shell) => tenantsPage(view, shell)},
  {path: /^#\/admin\/jobs$/, title: 'All jobs', link: '#/admin/jobs', page: (view, _, shell) => jobsPage(view, shell, {admin: true})},
  {path: /^#\/admin\/jobs\/([0-9a-f-]{36})$/, title: 'Job', page: (view, [id], shell) => jobPage(view, shell, {id, admin: true})},
  {path: /^#\/admin\/deliveries$/, title: 'Webhook deliveries', link: '#/admin/deliveries', page: (view, _, shell) => deliveriesPage(view, shell)},
];

const elements = {
  nav: document.getElementById('nav'),
  links: document.getElementById('nav-links'),
  who: document.getElementById('who'),
  role: document.getElementById('who-role'),
  signIn: document.getElementById('sign-in'),
  signInForm: document.getElementById('sign-in-form'),
  key: document.getElementById('api-key'),
  page: document.getElementById('page'),
  problem: document.getElementById('problem'),
  notice: document.getElementById('notice'),
  main: document.getElementById('view'),
};

/** What every page gets: problems and notices shown in one place, navigation. */
const shell = {
  showProblem(error) {
    const problem = error instanceof ProblemError ? error.problem : {detail: String(error?.message ?? error)};
    const status = error instanceof ProblemError && error.status ? `${error.status} ` : '';
    replace(elements.problem,
      h('strong', {}, `${status}${problem.title ?? 'Error'}: `), problem.detail ?? '',
      problem.code ? [' (', h('code', {}, problem.code), ')'] : null,
      (problem.errors ?? []).length > 0
        ? h('ul', {}, problem.errors.map((e) => h('li', {}, h('code', {}, e.field), `: ${e.message}`))) : null);
    elements.problem.hidden = false;
  },
  clearProblem() {
    elements.problem.hidden = true;
    elements.problem.replaceChildren();
  },
  notify(text) {
    elements.notice.textContent = text;
  },
  /** Runs `action`, showing its problem if it fails; resolves to its result or undefined. */
  async attempt(action) {
    try {
      const result = await action();
      this.clearProblem();
      return result;
    } catch (error) {
      if (error instanceof ProblemError && error.status === 401) {
        signOut();
        this.showProblem(error);
        return undefined;
      }
      this.showProblem(error);
      return undefined;
    }
  },
  go(hash) {
    if (location.hash === hash) route(); else location.hash = hash;
  },
};

let leave = null;

function routes() {
  return credentials.role === 'admin' ? adminRoutes : tenantRoutes;
}

function route() {
  if (typeof leave === 'function') leave();
  leave = null;
  shell.clearProblem();
  shell.notify('');
  if (!credentials.key) {
    showSignIn();
    return;
  }
  elements.signIn.hidden = true;
  elements.nav.hidden = false;
  elements.who.hidden = false;
  elements.role.textContent = credentials.role === 'admin' ? 'admin' : 'tenant key';
  const list = routes();
  const match = list.map((r) => ({r, m: location.hash.match(r.path)})).find(({m}) => m);
  if (!match) {
    location.replace(list[0].link);
    return;
  }
  replace(elements.links, list.filter((r) => r.link).map((r) =>
    h('li', {}, h('a', {href: r.link, 'aria-current': location.hash.startsWith(r.link) && (r.link !== '#/admin' || location.hash === '#/admin') ? 'page' : null}, r.title))));
  document.title = `${match.r.title} · Ferry console`;
  elements.page.replaceChildren();
  leave = match.r.page(elements.page, match.m.slice(1), shell);
}

function showSignIn() {
  elements.nav.hidden = true;
  elements.who.hidden = true;
  elements.page.replaceChildren();
  elements.signIn.hidden = false;
  document.title = 'Sign in · Ferry console';
  elements.key.focus();
}

function signOut() {
  if (typeof leave === 'function') leave();
  leave = null;
  credentials.forget();
  elements.key.value = '';
  history.replaceState(null, '', '#/');
  showSignIn();
}

// Which key this is: the admin's reads /v1/admin/tenants, a tenant's gets 403 admin_key_required there,
// an unknown or revoked one a 401 whose problem is shown.
elements.signInForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  const key = elements.key.value.trim();
  elements.key.value = '';
  let role = null;
  try {
    await api('GET', '/v1/admin/tenants', undefined, {key});
    role = 'admin';
  } catch (error) {
    if (error instanceof ProblemError && error.code === 'admin_key_required') {
      role = 'tenant';
    } else {
      shell.showProblem(error);
      return;
    }
  }
  credentials.remember(key, role);
  shell.go(role === 'admin' ? '#/admin' : '#/jobs');
});
document.getElementById('sign-out').addEventListener('click', () => {
  signOut();
  shell.clearProblem();
  shell.notify('Signed out: the key is forgotten.');
});
window.addEventListener('hashchange', route);
route();
