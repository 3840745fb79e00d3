// The job states of the API (JobState), and which controls each allows.

export const states = ['queued', 'running', 'paused', 'waiting_for_decision', 'retrying', 'succeeded', 'failed', 'cancelled'];
export const finished = new Set(['succeeded', 'failed', 'cancelled']);

export function can(action, state) {
  switch (action) {
    case 'pause': return ['queued', 'running', 'retrying'].includes(state);
    case 'resume': return state === 'paused';
    case 'cancel': return !finished.has(state);
    case 'delete': return finished.has(state);
    default: return false;
  }
}

export function label(state) {
  return state.replaceAll('_', ' ');
}
