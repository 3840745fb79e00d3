// The console's only way to the server: the public /v1 API with the bearer key. The key lives in this
// tab's sessionStorage (never a cookie, never a URL) and is forgotten on sign-out.

const keyItem = 'ferry.console.key';
const roleItem = 'ferry.console.role';

export const credentials = {
  get key() { return sessionStorage.getItem(keyItem); },
  get role() { return sessionStorage.getItem(roleItem); },
  remember(key, role) {
    sessionStorage.setItem(keyItem, key);
    sessionStorage.setItem(roleItem, role);
  },
  forget() {
    sessionStorage.removeItem(keyItem);
    sessionStorage.removeItem(roleItem);
  },
};

/** An RFC 9457 problem the API answered (or one made up for a network failure). */
export class ProblemError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
  get code() { return this.problem.code; }
  get fieldErrors() { return this.problem.errors ?? []; }
}

export function authorization(key = credentials.key) {
  return {'Authorization': `Bearer ${key}`};
}

/** Sends one request; resolves to the parsed JSON (null for an empty body), rejects with a ProblemError. */
export async function api(method, path, body, {key, headers = {}} = {}) {
  const init = {method, headers: {...authorization(key), 'Accept': 'application/json', ...headers}, cache: 'no-store', credentials: 'omit'};
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new ProblemError(0, {code: 'network_error', detail: `the server could not be reached (${error.message})`});
  }
  return parse(response);
}

export async function parse(response) {
  const text = await response.text();
  let document = null;
  if (text) {
    try { document = JSON.parse(text); } catch { document = null; }
  }
  if (!response.ok) {
    throw new ProblemError(response.status, document && typeof document === 'object'
      ? document : {code: `http_${response.status}`, detail: text || response.statusText});
  }
  return document;
}

/** "/v1/jobs?state=running&limit=50": query parameters that are set. */
export function withQuery(path, parameters) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== undefined && value !== null && value !== '') query.set(name, value);
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}
