// The forms that answer a waiting job's decision (POST /v1/jobs/{id}/decision): a redirect's target
// (follow, refuse, change to another URL, cancel), a response head (allow, cancel, become download), an authentication challenge (a username and password,
// or a vault credential's id, or one of the other dispositions), a server's certificate (trust or reject,
// after seeing the chain and its pins). The decision's id goes with the answer, so an answer meant for
// an older decision is refused rather than applied to a new one.

import {api} from './api.js';
import {h, facts, field} from './dom.js';

export function decisionForm(job, shell, onAnswered) {
  const decision = job.decision;
  const dispositions = {
    redirect: ['follow', 'refuse', 'change', 'cancel'],
    auth_challenge: ['use_credential', 'perform_default_handling', 'continue_without_credential', 'reject_protection_space', 'cancel'],
    server_trust: ['trust', 'reject'],
    response: job.kind === 'data' ? ['allow', 'cancel', 'become_download'] : ['allow', 'cancel'],
  }[decision.kind] ?? [];
  const choice = h('select', {id: 'decision-disposition', 'data-field': 'disposition'},
    dispositions.map((d) => h('option', {value: d}, d.replaceAll('_', ' '))));
  const url = h('input', {id: 'decision-url', type: 'url', 'data-field': 'url', spellcheck: 'false', value: decision.url ?? ''});
  const username = h('input', {id: 'decision-username', type: 'text', 'data-field': 'credential.username', autocomplete: 'off',
    value: decision.proposed_credential?.username ?? ''});
  const password = h('input', {id: 'decision-password', type: 'password', 'data-field': 'credential.password', autocomplete: 'off'});
  const credentialID = h('input', {id: 'decision-credential-id', type: 'text', 'data-field': 'credential.id', spellcheck: 'false',
    placeholder: 'or the id of a vault credential'});
  const urlField = field('New URL (for "change")', url);
  const credentialFields = h('div', {}, field('Username', username), field('Password', password), field('Vault credential id', credentialID));
  const form = h('form', {id: 'decision-form', class: 'card', 'aria-labelledby': 'decision-title'},
    h('h2', {id: 'decision-title'}, `Waiting for a decision: ${decision.kind.replaceAll('_', ' ')}`),
    what(decision),
    decision.expires_at ? h('p', {class: 'muted'}, `Unanswered, the job fails at ${new Date(decision.expires_at).toLocaleString()}.`) : null,
    field('Answer', choice),
    decision.kind === 'redirect' ? urlField : null,
    decision.kind === 'auth_challenge' ? credentialFields : null,
    h('button', {type: 'submit', id: 'decision-submit'}, 'Send answer'));

  function sync() {
    urlField.hidden = choice.value !== 'change';
    credentialFields.hidden = choice.value !== 'use_credential';
  }
  choice.addEventListener('change', sync);
  sync();

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const answer = {disposition: choice.value, decision_id: decision.id};
    if (choice.value === 'change') answer.url = url.value.trim();
    if (choice.value === 'use_credential') {
      answer.credential = credentialID.value.trim() ? {id: credentialID.value.trim()} : {username: username.value, password: password.value};
    }
    const answered = await shell.attempt(() => api('POST', `/v1/jobs/${job.id}/decision`, answer));
    password.value = '';
    if (answered) onAnswered(answered);
  });
  return form;
}

function what(decision) {
  switch (decision.kind) {
    case 'redirect':
      return facts([
        ['Redirect to', h('code', {id: 'decision-target'}, decision.url ?? '')],
        ['Status', String(decision.response?.status ?? '')],
        ['From', decision.response?.url],
      ]);
    case 'response':
      return h('div', {},
        facts([
          ['From', h('code', {id: 'decision-target'}, decision.url ?? '')],
          ['Status', String(decision.response?.status ?? '')],
        ]),
        h('h3', {}, 'Headers'),
        h('pre', {id: 'decision-headers'},
          Object.entries(decision.response?.headers ?? {}).map(([name, value]) => `${name}: ${value}`).join('\n')));
    case 'auth_challenge': {
      const space = decision.protection_space ?? {};
      return facts([
        ['Server', `${space.scheme ?? ''}://${space.host ?? ''}:${space.port ?? ''}`],
        ['Realm', space.realm],
        ['Method', space.authentication_method ?? space.method],
        ['Failures so far', String(decision.failure_count ?? 0)],
        ['Proposed user', decision.proposed_credential?.username],
      ]);
    }
    case 'server_trust':
      return h('div', {},
        facts([
          ['Server', `${decision.host}:${decision.port}`],
          ['Why it was refused', decision.default_evaluation_failure],
        ]),
        h('h3', {}, 'Certificate chain'),
        (decision.certificates ?? []).map((certificate, index) => h('details', {},
          h('summary', {}, `certificate ${index + 1}`, decision.pins?.[index] ? [' · pin ', h('code', {}, decision.pins[index])] : null),
          h('pre', {}, typeof certificate === 'string' ? certificate : JSON.stringify(certificate, null, 2)))));
    default:
      return null;
  }
}
